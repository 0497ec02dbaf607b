#include "shoal/exec/operators/sorted_stream_merger.h"

#include <algorithm>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {
namespace {

class Merger final : public SortedStreamMerger {
 public:
  Merger(columnar::SchemaPtr schema, std::shared_ptr<TaskContext> context,
         std::shared_ptr<MemoryPool> pool, int64_t fetch)
      : schema_(std::move(schema)),
        context_(std::move(context)),
        pool_(std::move(pool)),
        remaining_(fetch) {}

  Status Init(const std::vector<sql::SortKey>& keys, std::vector<StreamPtr> inputs) {
    for (const sql::SortKey& key : keys) {
      SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(key.expr, *schema_, pool_));
      keys_.push_back(std::move(eval));
      orders_.push_back({key.ascending, key.nulls_first});
    }
    inputs_.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      inputs_[i].stream = std::move(inputs[i]);
    return Status::OK();
  }

  Result<RecordBatchPtr> Next() override {
    if (!started_) {
      started_ = true;
      for (size_t s = 0; s < inputs_.size(); ++s) {
        SHOAL_RETURN_IF_ERROR(Load(s));
        if (inputs_[s].batch)
          heap_.push_back(static_cast<int>(s));
      }
      std::make_heap(heap_.begin(), heap_.end(), After{this});
    }
    int64_t limit = context()->batch_size();
    if (remaining_ >= 0)
      limit = std::min(limit, remaining_);
    order_.clear();
    while (static_cast<int64_t>(order_.size()) < limit && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), After{this});
      const int s = heap_.back();
      Input& in = inputs_[static_cast<size_t>(s)];
      order_.push_back(s);
      if (++in.row == in.batch->num_rows()) {
        CloseRun(&in);
        SHOAL_RETURN_IF_ERROR(Load(static_cast<size_t>(s)));
        if (!in.batch) {
          heap_.pop_back();
          continue;
        }
      }
      std::push_heap(heap_.begin(), heap_.end(), After{this});
    }
    for (Input& in : inputs_) {
      if (in.batch)
        CloseRun(&in);
    }
    if (order_.empty())
      return RecordBatchPtr();
    if (remaining_ >= 0)
      remaining_ -= static_cast<int64_t>(order_.size());
    return Assemble();
  }

 private:
  struct Input {
    StreamPtr stream;
    RecordBatchPtr batch;
    EncodedRows keys;
    int64_t row = 0;
    int64_t run_start = 0;             // first row of the current run in `batch`
    std::vector<RecordBatchPtr> runs;  // rows this input gave to the output being built
  };

  // Heap order: true when input a's current row comes after b's (ties: higher input after).
  struct After {
    const Merger* self;

    bool operator()(int a, int b) const {
      const Input& x = self->inputs_[static_cast<size_t>(a)];
      const Input& y = self->inputs_[static_cast<size_t>(b)];
      const int c = EncodedRows::Compare(x.keys, x.row, y.keys, y.row);
      return c != 0 ? c > 0 : a > b;
    }
  };

  void CloseRun(Input* in) {
    if (in->row > in->run_start)
      in->runs.push_back(in->batch->Slice(in->run_start, in->row - in->run_start));
    in->run_start = in->row;
  }

  // The next non-empty batch of input s with its encoded keys; batch null at its end.
  Status Load(size_t s) {
    Input& in = inputs_[s];
    in.batch.reset();
    in.row = 0;
    in.run_start = 0;
    if (!in.stream)
      return Status::OK();
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, in.stream->Next());
      if (!batch) {
        in.stream.reset();
        return Status::OK();
      }
      if (batch->num_rows() == 0)
        continue;
      std::vector<ArrayPtr> keys;
      for (auto& eval : keys_) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr key, eval->Evaluate(*batch));
        keys.push_back(std::move(key));
      }
      SHOAL_RETURN_IF_ERROR(in.keys.Encode(keys, orders_, batch->num_rows()));
      in.batch = std::move(batch);
      return Status::OK();
    }
  }

  Result<RecordBatchPtr> Assemble() {
    std::vector<RecordBatchPtr> parts;
    std::vector<int32_t> next(inputs_.size());
    int32_t offset = 0;
    for (size_t s = 0; s < inputs_.size(); ++s) {
      next[s] = offset;
      for (auto& run : inputs_[s].runs) {
        offset += static_cast<int32_t>(run->num_rows());
        parts.push_back(std::move(run));
      }
      inputs_[s].runs.clear();
    }
    if (parts.size() == 1)
      return parts[0];  // one input supplied every row, in order
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr combined, ConcatenateBatches(schema(), parts, pool()));
    indices_.resize(order_.size());
    for (size_t i = 0; i < order_.size(); ++i)
      indices_[i] = next[static_cast<size_t>(order_[i])]++;
    return TakeBatch(*combined, indices_.data(), static_cast<int64_t>(indices_.size()), pool());
  }

  const std::shared_ptr<TaskContext>& context() const { return context_; }

  const std::shared_ptr<MemoryPool>& pool() const { return pool_; }

  const columnar::SchemaPtr& schema() const { return schema_; }

  columnar::SchemaPtr schema_;
  std::shared_ptr<TaskContext> context_;
  std::shared_ptr<MemoryPool> pool_;
  int64_t remaining_;
  bool started_ = false;
  std::vector<std::unique_ptr<ExprEvaluator>> keys_;
  std::vector<SortOrder> orders_;
  std::vector<Input> inputs_;
  std::vector<int> heap_;
  std::vector<int> order_;  // input of each output row
  std::vector<int32_t> indices_;
};

}  // namespace

Result<std::unique_ptr<SortedStreamMerger>> SortedStreamMerger::Make(
    const std::vector<sql::SortKey>& keys, columnar::SchemaPtr schema,
    std::vector<StreamPtr> inputs, std::shared_ptr<TaskContext> context,
    std::shared_ptr<MemoryPool> pool, int64_t fetch) {
  auto merger =
      std::make_unique<Merger>(std::move(schema), std::move(context), std::move(pool), fetch);
  SHOAL_RETURN_IF_ERROR(merger->Init(keys, std::move(inputs)));
  return std::unique_ptr<SortedStreamMerger>(std::move(merger));
}

}  // namespace shoal::exec

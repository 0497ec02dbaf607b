#include "shoal/exec/operators/sort_exec.h"

#include <algorithm>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/sorted_stream_merger.h"
#include "shoal/exec/row_key/memory_reservation.h"
#include "shoal/exec/row_key/nested_key_encoder.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "shoal/exec/spill/memory_budget.h"
#include "shoal/exec/spill/spill_manager.h"

namespace shoal::exec {
namespace {

class SortStream final : public OperatorStream {
 public:
  SortStream(const SortExec* node, int partition, std::shared_ptr<TaskContext> context,
             StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        fetch_(node->fetch()),
        input_(std::move(input)),
        reservation_(pool()),
        planned_(pool()),
        spill_(this->context()->spill_directory(), fmt::format("{}[{}]", node->name(), partition),
               pool(), metrics()) {}

  Status Init(const std::vector<sql::SortKey>& keys, const columnar::Schema& input_schema) {
    sort_keys_ = keys;
    for (const sql::SortKey& key : keys) {
      SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(key.expr, input_schema, pool()));
      keys_.push_back(std::move(eval));
      orders_.push_back({key.ascending, key.nulls_first});
    }
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    if (input_) {
      if (fetch_ == 0) {
        input_.reset();  // LIMIT 0 needs no input at all
        return RecordBatchPtr();
      }
      SHOAL_RETURN_IF_ERROR(fetch_ > 0 ? ConsumeTopK() : ConsumeAll());
      input_.reset();
    }
    if (merger_)
      return merger_->Next();
    if (!sorted_ || emitted_ >= output_rows_) {
      sorted_.reset();
      std::vector<int32_t>().swap(permutation_);
      reservation_.Resize(0).ok();
      return RecordBatchPtr();
    }
    const int64_t length = std::min(context()->batch_size(), output_rows_ - emitted_);
    RecordBatchPtr out;
    if (identity_) {
      out = sorted_->Slice(emitted_, length);
    } else {
      SHOAL_ASSIGN_OR_RETURN(out,
                             TakeBatch(*sorted_, permutation_.data() + emitted_, length, pool()));
    }
    emitted_ += length;
    return out;
  }

 private:
  Result<std::vector<ArrayPtr>> EvaluateKeys(const RecordBatch& batch) {
    std::vector<ArrayPtr> keys;
    keys.reserve(keys_.size());
    for (auto& eval : keys_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr key, eval->Evaluate(batch));
      keys.push_back(std::move(key));
    }
    return keys;
  }

  Result<RecordBatchPtr> NextInput() {
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch || batch->num_rows() > 0)
        return batch;
    }
  }

  // Sorts `batches` into sorted_ / permutation_, keeping the first `limit` rows (all when < 0).
  // The batches are released once concatenated, so they and their copy coexist only briefly.
  Status SortBatches(std::vector<RecordBatchPtr>* batches_in, int64_t limit) {
    std::vector<RecordBatchPtr> batches = std::move(*batches_in);
    batches_in->clear();
    output_rows_ = 0;
    emitted_ = 0;
    if (batches.empty()) {
      sorted_.reset();
      return Status::OK();
    }
    Result<RecordBatchPtr> all = ConcatenateBatches(schema(), batches, pool());
    if (!all.ok())
      return Explain(std::move(all).status());
    sorted_ = *all;
    batches.clear();
    SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> keys, EvaluateKeys(*sorted_));
    EncodedRows rows;
    SHOAL_RETURN_IF_ERROR(rows.Encode(keys, orders_, sorted_->num_rows(), /*compact=*/true));
    SHOAL_RETURN_IF_ERROR(Reserve(rows.MemoryBytes() + sorted_->num_rows() * 16));
    rows.Sort(&permutation_);
    output_rows_ = limit >= 0 ? std::min(limit, sorted_->num_rows()) : sorted_->num_rows();
    identity_ = true;
    for (int64_t i = 0; i < output_rows_ && identity_; ++i)
      identity_ = permutation_[static_cast<size_t>(i)] == i;
    return Reserve(CapacityBytes(permutation_));
  }

  Status Reserve(int64_t bytes) { return Explain(reservation_.Resize(bytes)); }

  // An out-of-memory error where spilling cannot help any more (one run does not fit, or top-k).
  Status Explain(Status st) const {
    if (st.code() != StatusCode::kOutOfMemory)
      return st;
    return std::move(st)
        .WithContext(fmt::format("{}[{}]: sorting {} in memory", fetch_ >= 0 ? "TopK" : "Sort",
                                 partition(),
                                 fetch_ >= 0 ? "the top rows" : "one run of buffered rows"))
        .WithHint("raise memory_limit (SET memory_limit = '...')");
  }

  // Bytes sorting `batch` in a run adds beyond the batch itself: its concatenated copy, its
  // encoded keys (key bytes, a marker per key, an offset) and its permutation entries.
  Result<int64_t> SortBytes(const RecordBatch& batch) {
    int64_t bytes = EstimateBatchBytes(batch);
    std::vector<ArrayPtr> keys;
    SHOAL_ASSIGN_OR_RETURN(keys, EvaluateKeys(batch));
    for (const ArrayPtr& key : keys) {
      const int64_t rows = key->length();
      if (key->type().is_binary_like()) {
        const int32_t* offsets = key->offsets();
        bytes += 3 * rows + (rows > 0 ? offsets[rows] - offsets[0] : 0);
      } else if (key->type().is_nested()) {
        // The value encodings (kept while the rows are encoded), then the same bytes escaped as a
        // string key: at most twice them.
        bytes += 7 * rows + 3 * NestedKeyBytesBound(*key);
      } else {
        bytes += rows * (1 + std::max(1, key->type().bit_width() / 8));
      }
    }
    return bytes + batch.num_rows() * 24;
  }

  // Reserves what sorting the buffered rows will need (planned_), so that operators running at
  // the same time see it as taken; the run is full when that is refused or leaves less than the
  // headroom kept for the other operators. Releasing it just before sorting hands the bytes to
  // the sort itself.
  bool RunIsFull(int64_t sort_bytes) {
    const int64_t headroom = SpillHeadroom(*pool());
    if (headroom == 0)
      return false;
    if (!planned_.Resize(sort_bytes).ok())
      return true;
    return AvailableBytes(*pool()) < headroom;
  }

  // Sorts the buffered batches and writes them to a new spill file (one sorted run).
  Status SpillRun(std::vector<RecordBatchPtr>* batches) {
    planned_.Resize(0).ok();
    SHOAL_RETURN_IF_ERROR(SortBatches(batches, -1));
    batches->clear();
    if (!sorted_)
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<SpillWriter> writer, spill_.Create(schema()));
    for (int64_t start = 0; start < output_rows_; start += context()->batch_size()) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      const int64_t length = std::min(context()->batch_size(), output_rows_ - start);
      RecordBatchPtr out;
      if (identity_) {
        out = sorted_->Slice(start, length);
      } else {
        // Gathered outside the operator's pool, which is full (spill/spill_manager.h).
        SHOAL_ASSIGN_OR_RETURN(
            out, TakeBatch(*sorted_, permutation_.data() + start, length, SpillWritePool()));
      }
      run_batch_bytes_ = std::max(run_batch_bytes_, EstimateBatchBytes(*out));
      SHOAL_RETURN_IF_ERROR(writer->Write(*out));
    }
    SHOAL_ASSIGN_OR_RETURN(SpillFile file, writer->Finish());
    runs_.push_back(std::move(file));
    sorted_.reset();
    std::vector<int32_t>().swap(permutation_);
    output_rows_ = 0;
    return reservation_.Resize(0);
  }

  Status ConsumeAll() {
    std::vector<RecordBatchPtr> batches;
    int64_t buffered_bytes = 0;
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, NextInput());
      if (!batch)
        break;
      if (SpillHeadroom(*pool()) > 0) {
        SHOAL_ASSIGN_OR_RETURN(int64_t bytes, SortBytes(*batch));
        buffered_bytes += bytes;
      }
      batches.push_back(std::move(batch));
      if (RunIsFull(buffered_bytes)) {
        SHOAL_RETURN_IF_ERROR(SpillRun(&batches));
        buffered_bytes = 0;
      }
    }
    if (runs_.empty()) {
      planned_.Resize(0).ok();
      return SortBatches(&batches, -1);
    }
    SHOAL_RETURN_IF_ERROR(SpillRun(&batches));
    // A merge holds a batch of every run (decoded, its keys encoded, and the output assembled
    // from them): when that would not fit, merge the oldest runs into longer ones first.
    const int64_t budget = AvailableBytes(*pool()) - SpillHeadroom(*pool());
    const size_t fan_in = static_cast<size_t>(
        std::max<int64_t>(2, budget / std::max<int64_t>(1, 4 * run_batch_bytes_)));
    while (runs_.size() > fan_in) {
      std::vector<SpillFile> group(runs_.begin(),
                                   runs_.begin() + static_cast<std::ptrdiff_t>(fan_in));
      runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(fan_in));
      SHOAL_ASSIGN_OR_RETURN(auto merger, MergeRuns(group));
      SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<SpillWriter> writer, spill_.Create(schema()));
      for (;;) {
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, merger->Next());
        if (!batch)
          break;
        SHOAL_RETURN_IF_ERROR(writer->Write(*batch));
      }
      merger.reset();
      for (const SpillFile& run : group)
        spill_.Remove(run);
      SHOAL_ASSIGN_OR_RETURN(SpillFile merged, writer->Finish());
      runs_.push_back(std::move(merged));
      metrics()->AddExtra("merge_passes", 1);
    }
    SHOAL_ASSIGN_OR_RETURN(merger_, MergeRuns(runs_));
    return Status::OK();
  }

  // A k-way merge of sorted runs, each read back a batch at a time.
  Result<std::unique_ptr<SortedStreamMerger>> MergeRuns(const std::vector<SpillFile>& runs) {
    std::vector<StreamPtr> inputs;
    for (const SpillFile& run : runs) {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr in, spill_.Open(run));
      inputs.push_back(std::move(in));
    }
    return SortedStreamMerger::Make(sort_keys_, schema(), std::move(inputs), context(), pool());
  }

  // Sorts the kept rows plus the buffered ones and keeps the best fetch_ of them, remembering the
  // encoded key of the last kept row as the bar new rows must beat.
  Status CompactTopK(std::vector<RecordBatchPtr>* buffer) {
    if (kept_)
      buffer->insert(buffer->begin(), kept_);
    SHOAL_RETURN_IF_ERROR(SortBatches(buffer, fetch_));
    buffer->clear();
    if (!sorted_)
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(kept_, TakeBatch(*sorted_, permutation_.data(), output_rows_, pool()));
    sorted_.reset();
    if (kept_->num_rows() == fetch_) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> keys,
                             EvaluateKeys(*kept_->Slice(fetch_ - 1, 1)));
      SHOAL_RETURN_IF_ERROR(bar_.Encode(keys, orders_, 1));
      has_bar_ = true;
    }
    return Status::OK();
  }

  Status ConsumeTopK() {
    std::vector<RecordBatchPtr> buffer;
    int64_t buffered = 0;
    const int64_t threshold = std::max(fetch_, context()->batch_size());
    EncodedRows rows;
    SelectionVector selection;
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, NextInput());
      if (!batch)
        break;
      if (has_bar_) {
        // Only rows strictly before the bar can enter: a tie loses to the earlier row.
        SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> keys, EvaluateKeys(*batch));
        SHOAL_RETURN_IF_ERROR(rows.Encode(keys, orders_, batch->num_rows()));
        selection.clear();
        for (int64_t i = 0; i < batch->num_rows(); ++i) {
          if (EncodedRows::Compare(rows, i, bar_, 0) < 0)
            selection.push_back(static_cast<int32_t>(i));
        }
        if (selection.empty())
          continue;
        if (static_cast<int64_t>(selection.size()) < batch->num_rows()) {
          SHOAL_ASSIGN_OR_RETURN(batch, TakeBatch(*batch, selection.data(),
                                                  static_cast<int64_t>(selection.size()), pool()));
        }
      }
      buffered += batch->num_rows();
      buffer.push_back(std::move(batch));
      if (buffered >= threshold) {
        SHOAL_RETURN_IF_ERROR(CompactTopK(&buffer));
        buffered = 0;
      }
    }
    SHOAL_RETURN_IF_ERROR(CompactTopK(&buffer));
    sorted_ = kept_;
    kept_.reset();
    output_rows_ = sorted_ ? sorted_->num_rows() : 0;
    identity_ = true;
    emitted_ = 0;
    return Status::OK();
  }

  const int64_t fetch_;
  StreamPtr input_;
  MemoryReservation reservation_;
  MemoryReservation planned_;  // what sorting the buffered rows will take (see RunIsFull)
  // Declared before the merger so that the merger's open readers close before the files go.
  SpillManager spill_;
  std::vector<SpillFile> runs_;
  int64_t run_batch_bytes_ = 0;  // the largest batch written to a run
  std::unique_ptr<SortedStreamMerger> merger_;
  std::vector<sql::SortKey> sort_keys_;
  std::vector<std::unique_ptr<ExprEvaluator>> keys_;
  std::vector<SortOrder> orders_;
  RecordBatchPtr sorted_;
  std::vector<int32_t> permutation_;
  bool identity_ = false;
  int64_t output_rows_ = 0;
  int64_t emitted_ = 0;
  // Top-k state.
  RecordBatchPtr kept_;
  EncodedRows bar_;
  bool has_bar_ = false;
};

}  // namespace

std::string SortKeysText(const std::vector<sql::SortKey>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += fmt::format("{} {} NULLS {}", ExprText(*keys[i].expr),
                       keys[i].ascending ? "ASC" : "DESC", keys[i].nulls_first ? "FIRST" : "LAST");
  }
  return out;
}

Result<std::shared_ptr<SortExec>> SortExec::Make(ExecPlanPtr input, std::vector<sql::SortKey> keys,
                                                 int64_t fetch) {
  if (!input)
    return Status::Internal("Sort without an input");
  for (const sql::SortKey& key : keys) {
    if (!key.expr)
      return Status::Internal("Sort key without an expression");
    SHOAL_ASSIGN_OR_RETURN(auto eval,
                           ExprEvaluator::Make(key.expr, *input->schema(), DefaultMemoryPool()));
    const DataType& t = eval->type();
    if (!(t.id() == TypeId::kDictionary || t.is_fixed_width() || t.is_binary_like() ||
          t.is_nested() || t.id() == TypeId::kNull))
      return Status::NotImplemented("sorting by {}", t.ToString());
  }
  return std::shared_ptr<SortExec>(new SortExec(std::move(input), std::move(keys), fetch));
}

Result<ExecPlanPtr> SortExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Sort takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), keys_, fetch_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> SortExec::Execute(int partition,
                                    const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  auto stream = std::make_unique<SortStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(keys_, *input_->schema()));
  return StreamPtr(std::move(stream));
}

std::string SortExec::Describe(bool) const {
  std::string out = SortKeysText(keys_);
  if (fetch_ >= 0)
    out += fmt::format(", fetch={}", fetch_);
  return out;
}

Result<ExecPlanPtr> SortExec::WithRowLimit(int64_t rows) const {
  if (fetch_ >= 0 && fetch_ <= rows)
    return shared_from_this();
  SHOAL_ASSIGN_OR_RETURN(auto top, Make(input_, keys_, rows));
  return ExecPlanPtr(std::move(top));
}

}  // namespace shoal::exec

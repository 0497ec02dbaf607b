#include "shoal/exec/operators/sort_preserving_merge_exec.h"

#include <algorithm>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/row_key/sort_key_encoder.h"

namespace shoal::exec {
namespace {

class MergeStream final : public OperatorStream {
 public:
  MergeStream(const SortPreservingMergeExec* node, std::shared_ptr<TaskContext> context)
      : OperatorStream(node, 0, std::move(context)) {}

  Status Init(const std::vector<sql::SortKey>& keys, std::vector<StreamPtr> inputs, int64_t fetch) {
    SHOAL_ASSIGN_OR_RETURN(merger_, SortedStreamMerger::Make(keys, schema(), std::move(inputs),
                                                             context(), pool(), fetch));
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override { return merger_->Next(); }

 private:
  std::unique_ptr<SortedStreamMerger> merger_;
};

}  // namespace

Result<std::shared_ptr<SortPreservingMergeExec>> SortPreservingMergeExec::Make(
    ExecPlanPtr input, std::vector<sql::SortKey> keys, int64_t fetch) {
  if (!input)
    return Status::Internal("SortPreservingMerge without an input");
  for (const sql::SortKey& key : keys) {
    if (!key.expr)
      return Status::Internal("SortPreservingMerge key without an expression");
    SHOAL_RETURN_IF_ERROR(
        ExprEvaluator::Make(key.expr, *input->schema(), DefaultMemoryPool()).status());
  }
  return std::shared_ptr<SortPreservingMergeExec>(
      new SortPreservingMergeExec(std::move(input), std::move(keys), fetch));
}

Result<ExecPlanPtr> SortPreservingMergeExec::WithNewChildren(
    std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("SortPreservingMerge takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), keys_, fetch_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> SortPreservingMergeExec::Execute(
    int partition, const std::shared_ptr<TaskContext>& context) const {
  if (partition != 0)
    return Status::Internal("SortPreservingMerge has one partition, asked for {}", partition);
  std::vector<StreamPtr> inputs;
  for (int p = 0; p < input_->num_partitions(); ++p) {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr in, input_->Execute(p, context));
    inputs.push_back(std::move(in));
  }
  auto stream = std::make_unique<MergeStream>(this, context);
  SHOAL_RETURN_IF_ERROR(stream->Init(keys_, std::move(inputs), fetch_));
  return StreamPtr(std::move(stream));
}

std::string SortPreservingMergeExec::Describe(bool) const {
  std::string out = SortKeysText(keys_);
  if (fetch_ >= 0)
    out += fmt::format(", fetch={}", fetch_);
  return out;
}

}  // namespace shoal::exec

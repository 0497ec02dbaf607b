#include "shoal/exec/operators/filter_exec.h"

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

class FilterStream final : public OperatorStream {
 public:
  FilterStream(const FilterExec* node, int partition, std::shared_ptr<TaskContext> context,
               StreamPtr input)
      : OperatorStream(node, partition, std::move(context)), input_(std::move(input)) {}

  Status Init(const sql::ExprPtr& predicate, const columnar::Schema& input_schema) {
    SHOAL_ASSIGN_OR_RETURN(predicate_, ExprEvaluator::Make(predicate, input_schema, pool()));
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    const int64_t target = context()->batch_size();
    while (input_) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        input_.reset();
        break;
      }
      selection_.clear();
      SHOAL_RETURN_IF_ERROR(predicate_->Select(*batch, &selection_));
      if (selection_.empty())
        continue;
      RecordBatchPtr out;
      if (static_cast<int64_t>(selection_.size()) == batch->num_rows()) {
        out = batch;  // every row passes: zero-copy
      } else {
        SHOAL_ASSIGN_OR_RETURN(out, TakeBatch(*batch, selection_.data(),
                                              static_cast<int64_t>(selection_.size()), pool()));
      }
      if (pending_.empty() && out->num_rows() * 2 >= target)
        return out;
      pending_rows_ += out->num_rows();
      pending_.push_back(std::move(out));
      if (pending_rows_ >= target)
        return Flush();
    }
    if (!pending_.empty())
      return Flush();
    return RecordBatchPtr();
  }

 private:
  Result<RecordBatchPtr> Flush() {
    Result<RecordBatchPtr> out = ConcatenateBatches(schema(), pending_, pool());
    pending_.clear();
    pending_rows_ = 0;
    return out;
  }

  StreamPtr input_;
  std::unique_ptr<ExprEvaluator> predicate_;
  SelectionVector selection_;
  std::vector<RecordBatchPtr> pending_;
  int64_t pending_rows_ = 0;
};

}  // namespace

Result<std::shared_ptr<FilterExec>> FilterExec::Make(ExecPlanPtr input, sql::ExprPtr predicate) {
  if (!predicate)
    return Status::Internal("Filter without a predicate");
  // Compile once here so that plan errors surface at planning time, not in the first batch.
  SHOAL_ASSIGN_OR_RETURN(auto check,
                         ExprEvaluator::Make(predicate, *input->schema(), DefaultMemoryPool()));
  if (check->type().id() != TypeId::kBoolean && check->type().id() != TypeId::kNull)
    return Status::TypeError("argument of WHERE must be type boolean, not type {}",
                             check->type().ToString());
  return std::shared_ptr<FilterExec>(new FilterExec(std::move(input), std::move(predicate)));
}

Result<ExecPlanPtr> FilterExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Filter takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), predicate_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> FilterExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  auto stream = std::make_unique<FilterStream>(this, partition, context, std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(predicate_, *input_->schema()));
  return StreamPtr(std::move(stream));
}

std::string FilterExec::Describe(bool) const {
  return ExprText(*predicate_);
}

}  // namespace shoal::exec

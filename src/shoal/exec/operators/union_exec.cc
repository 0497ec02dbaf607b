#include "shoal/exec/operators/union_exec.h"

#include "shoal/exec/array_ops.h"
#include "shoal/exec/operator_stream.h"

namespace shoal::exec {
namespace {

// Re-labels the input's batches with the union's schema (names come from the first input).
class UnionStream final : public OperatorStream {
 public:
  UnionStream(const UnionExec* node, int partition, std::shared_ptr<TaskContext> context,
              StreamPtr input)
      : OperatorStream(node, partition, std::move(context)), input_(std::move(input)) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
    if (!batch || batch->schema() == schema())
      return batch;
    return RecordBatch::Make(schema(), batch->num_rows(), batch->columns());
  }

 private:
  StreamPtr input_;
};

}  // namespace

Result<std::shared_ptr<UnionExec>> UnionExec::Make(std::vector<ExecPlanPtr> inputs) {
  if (inputs.empty())
    return Status::Internal("Union of nothing");
  const auto& first = *inputs[0]->schema();
  for (const auto& in : inputs) {
    const auto& s = *in->schema();
    if (s.num_fields() != first.num_fields())
      return Status::InvalidArgument("each UNION query must have the same number of columns");
    for (int i = 0; i < s.num_fields(); ++i) {
      if (s.field(i).type != first.field(i).type) {
        return Status::TypeError("UNION types {} and {} cannot be matched",
                                 first.field(i).type.ToString(), s.field(i).type.ToString());
      }
    }
  }
  // Nullable when any input's column is.
  std::vector<columnar::Field> fields = first.fields();
  for (const auto& in : inputs) {
    for (int i = 0; i < in->schema()->num_fields(); ++i)
      fields[static_cast<size_t>(i)].nullable |= in->schema()->field(i).nullable;
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields), first.metadata());
  return std::shared_ptr<UnionExec>(new UnionExec(std::move(schema), std::move(inputs)));
}

Result<ExecPlanPtr> UnionExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children)));
  return ExecPlanPtr(std::move(node));
}

Partitioning UnionExec::output_partitioning() const {
  int n = 0;
  for (const auto& in : inputs_)
    n += in->num_partitions();
  return Partitioning::Unknown(n);
}

Result<StreamPtr> UnionExec::Execute(int partition,
                                     const std::shared_ptr<TaskContext>& context) const {
  int p = partition;
  for (const auto& in : inputs_) {
    if (p < in->num_partitions()) {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr input, in->Execute(p, context));
      return StreamPtr(new UnionStream(this, partition, context, std::move(input)));
    }
    p -= in->num_partitions();
  }
  return Status::Internal("Union partition {} out of range", partition);
}

}  // namespace shoal::exec

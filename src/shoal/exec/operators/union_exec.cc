#include "shoal/exec/operators/union_exec.h"

#include <algorithm>

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
  // UNION ALL is associative: an input that is itself a union contributes its inputs, so a
  // left-deep chain of n arms (what the parser produces) becomes one n-way union instead of n
  // nested ones, through which partition p would pass n - p union streams.
  if (std::any_of(inputs.begin(), inputs.end(),
                  [](const ExecPlanPtr& in) { return in->kind() == kKind; })) {
    std::vector<ExecPlanPtr> flat;
    for (auto& in : inputs) {
      if (in->kind() == kKind) {
        const auto& nested = static_cast<const UnionExec&>(*in).inputs_;
        flat.insert(flat.end(), nested.begin(), nested.end());
      } else {
        flat.push_back(std::move(in));
      }
    }
    inputs = std::move(flat);
  }
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

UnionExec::UnionExec(columnar::SchemaPtr schema, std::vector<ExecPlanPtr> inputs)
    : ExecutionPlan(kKind, std::move(schema)), inputs_(std::move(inputs)) {
  first_partition_.reserve(inputs_.size() + 1);
  int n = 0;
  for (const auto& in : inputs_) {
    first_partition_.push_back(n);
    n += in->num_partitions();
  }
  first_partition_.push_back(n);
}

Partitioning UnionExec::output_partitioning() const {
  return Partitioning::Unknown(first_partition_.back());
}

Result<StreamPtr> UnionExec::Execute(int partition,
                                     const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= first_partition_.back())
    return Status::Internal("Union partition {} out of range", partition);
  // The input whose range holds the partition: the last start at or before it.
  auto after = std::upper_bound(first_partition_.begin(), first_partition_.end() - 1, partition);
  size_t i = static_cast<size_t>(after - first_partition_.begin()) - 1;
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input,
                         inputs_[i]->Execute(partition - first_partition_[i], context));
  return StreamPtr(new UnionStream(this, partition, context, std::move(input)));
}

}  // namespace shoal::exec

// HashAggregateExec: planning-time checks, schemas and traits of the hash aggregation operator;
// the per-partition execution (including spilling) is in hash_aggregate_stream.cc.
#include "shoal/exec/operators/hash_aggregate_exec.h"

#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operators/hash_aggregate_exec_internal.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec {
namespace {

using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

Result<SchemaPtr> DeriveSchema(const std::vector<sql::ExprPtr>& group_by,
                               const std::vector<sql::ExprPtr>& aggregates, bool partial) {
  std::vector<Field> fields;
  fields.reserve(group_by.size() + aggregates.size());
  for (const auto& key : group_by)
    fields.emplace_back(ExprText(*key), key->type.decoded_type(), key->nullable);
  for (const auto& agg : aggregates) {
    if (partial) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<Field> states,
                             AggregateStateFields(*WithDecodedArgs(agg), ExprText(*agg)));
      for (auto& f : states)
        fields.push_back(std::move(f));
    } else {
      fields.emplace_back(ExprText(*agg), agg->type, agg->name != "count");
    }
  }
  return std::make_shared<const Schema>(std::move(fields));
}

bool SameTypes(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields())
    return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (a.field(i).type.decoded_type() != b.field(i).type.decoded_type())
      return false;
  }
  return true;
}
}  // namespace

const char* AggregateModeName(AggregateMode mode) {
  switch (mode) {
    case AggregateMode::kSingle: return "single";
    case AggregateMode::kPartial: return "partial";
    case AggregateMode::kFinal: return "final";
  }
  return "?";
}

Result<SchemaPtr> HashAggregateExec::PartialSchema(const std::vector<sql::ExprPtr>& group_by,
                                                   const std::vector<sql::ExprPtr>& aggregates) {
  return DeriveSchema(group_by, aggregates, /*partial=*/true);
}

Result<std::shared_ptr<HashAggregateExec>> HashAggregateExec::Make(
    ExecPlanPtr input, std::vector<sql::ExprPtr> group_by, std::vector<sql::ExprPtr> aggregates,
    AggregateMode mode, SchemaPtr output_schema) {
  if (!input)
    return Status::Internal("HashAggregate without an input");
  for (const auto& agg : aggregates) {
    if (!agg || agg->kind != sql::ExprKind::kAggregate)
      return Status::Internal("HashAggregate expects aggregate expressions");
    if (agg->distinct && mode != AggregateMode::kSingle)
      return Status::NotImplemented(
          "DISTINCT aggregates in {} mode (aggregate on the keys and the value first)",
          AggregateModeName(mode));
    if (sql::NeedsOrderedInput(*agg) && mode != AggregateMode::kSingle)
      return Status::NotImplemented(
          "{}() with ORDER BY / WITHIN GROUP in {} mode (it has no partial state: aggregate in "
          "one phase over input partitioned by the group keys)",
          agg->name, AggregateModeName(mode));
    // Fail at planning time for unsupported functions and argument types.
    SHOAL_RETURN_IF_ERROR(MakeAccumulator(*WithDecodedArgs(agg)).status());
  }
  const Schema& in = *input->schema();
  if (mode == AggregateMode::kFinal) {
    SHOAL_ASSIGN_OR_RETURN(SchemaPtr partial, PartialSchema(group_by, aggregates));
    if (!SameTypes(*partial, in))
      return Status::Internal("final aggregation input {} does not match the partial schema {}",
                              in.ToString(), partial->ToString());
  } else {
    for (const auto& key : group_by)
      SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(key, in, DefaultMemoryPool()).status());
    for (const auto& agg : aggregates) {
      for (const auto& arg : agg->args)
        SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(arg, in, DefaultMemoryPool()).status());
      if (agg->filter)
        SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(agg->filter, in, DefaultMemoryPool()).status());
      if (sql::NeedsOrderedInput(*agg)) {
        for (const auto& key : agg->order_by)
          SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(key.expr, in, DefaultMemoryPool()).status());
      }
    }
  }
  SHOAL_ASSIGN_OR_RETURN(SchemaPtr derived,
                         DeriveSchema(group_by, aggregates, mode == AggregateMode::kPartial));
  if (output_schema) {
    if (!SameTypes(*output_schema, *derived) ||
        output_schema->num_fields() != derived->num_fields())
      return Status::Internal("HashAggregate output schema {} does not match {}",
                              output_schema->ToString(), derived->ToString());
  } else {
    output_schema = std::move(derived);
  }
  return std::shared_ptr<HashAggregateExec>(
      new HashAggregateExec(std::move(input), std::move(group_by), std::move(aggregates), mode,
                            std::move(output_schema)));
}

Result<ExecPlanPtr> HashAggregateExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("HashAggregate takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node,
                         Make(std::move(children[0]), group_by_, aggregates_, mode_, schema()));
  node->set_partial_limits(partial_limits_);
  return ExecPlanPtr(std::move(node));
}

DistributionTraits HashAggregateExec::distribution() const {
  DistributionTraits traits;
  traits.partition_wise = mode_ == AggregateMode::kPartial ||
                          input_->output_partitioning().kind == PartitioningKind::kHash;
  traits.at_most_one_row = group_by_.empty();
  return traits;
}

Partitioning HashAggregateExec::output_partitioning() const {
  Partitioning in = input_->output_partitioning();
  if (in.kind == PartitioningKind::kSingle)
    return in;
  return Partitioning::Unknown(in.num_partitions);
}

Result<StreamPtr> HashAggregateExec::Execute(int partition,
                                             const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  return MakeHashAggregateStream(this, partition, context, std::move(input), *input_->schema());
}

std::string HashAggregateExec::Describe(bool) const {
  std::string out = fmt::format("mode={}", AggregateModeName(mode_));
  if (!group_by_.empty())
    out += fmt::format(", keys=[{}]", ExprListText(group_by_));
  out += fmt::format(", aggregates=[{}]", ExprListText(aggregates_));
  return out;
}

}  // namespace shoal::exec
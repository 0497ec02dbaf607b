// HashAggregateExec: GROUP BY with aggregate functions, by hashing the group keys of each input
// partition into a Grouper and updating column-wise Accumulators.
//
// Modes:
//  - kSingle: input rows in, SQL results out (keys, then one column per aggregate).
//  - kPartial: input rows in, partial states out: keys, then each aggregate's state columns
//    (AggregateStateFields), ordinary columns that an exchange can ship. Grouped, it streams: a
//    bounded table emitted whenever full, or rows passed through when they hardly reduce
//    (PartialAggregationLimits), so one key may leave in several state rows.
//  - kFinal: a kPartial's output in (after a hash repartition on the keys, or coalesced into one
//    partition), SQL results out. It is given the SAME group-by and aggregate expressions as the
//    partial: their types describe the states; the input layout is fixed by PartialSchema().
// With no group-by expressions the aggregation is global and always yields exactly one row, also
// on empty input (count = 0, sum = NULL), in kSingle and kFinal (kPartial: one state row).
//
// Expressions: group-by expressions and aggregate arguments and FILTER predicates are physical
// expressions over the input (column references are input positions), compiled per stream.
// Dictionary-encoded keys and arguments are decoded (a dictionary key's output column has the
// value type). DISTINCT aggregates are supported in kSingle mode only: each such aggregate keeps a
// second grouping table over (group id, arguments) and feeds only the first occurrence of each
// pair; a distributed plan aggregates on (keys, value) first instead. Aggregates over ordered
// input (string_agg(... ORDER BY ...), percentile_cont / percentile_disc / mode WITHIN GROUP;
// sql/ordered_aggregates.h) are kSingle only too: their ORDER BY keys are evaluated after the
// arguments and their accumulator sorts each group's rows once at the end; the physical planner
// runs them over input hash-partitioned by the group keys.
//
// Each partition aggregates independently; the output keeps the input's partitioning.
//
// Memory and spilling: the grouping table and states are reserved from the operator pool after
// every input batch. A grouped kPartial never spills: when refused, it emits its table instead.
// When the reservation is refused, or the query's free memory falls below the spill headroom
// (spill/memory_budget.h), the table's groups are written as partial states (the kPartial columns,
// so spilling needs no format of its own) into 16 spill files chosen by bits of the key hash, and
// the table starts empty; later overflows append to the same 16 files. At the end of the input the
// rest of the table is spilled too, and each partition is merged back (as a kFinal would) and
// emitted in turn; a partition that still does not fit is split again on other hash bits, up to 8
// levels. Aggregates over ordered input have no partial state: their buffered rows are spilled
// instead, with their group keys, into row files of the same 16 partitions, and fed back as input
// rows when the partition is aggregated. Global aggregates never spill (one state row); DISTINCT
// aggregates cannot (their seen-pairs tables are not partial states) and fail with OutOfMemory
// naming the operator and suggesting a higher memory_limit.
#pragma once

#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

enum class AggregateMode : uint8_t { kSingle, kPartial, kFinal };

/// How a grouped kPartial bounds its table: it is emitted and emptied when it holds
/// `table_groups` groups (small enough to stay in cache, some 6 MB with one decimal sum; large
/// enough that keys repeating nearby, as lineitem's l_orderkey, or from a modest domain reduce
/// as well as in an unbounded table). Once the flushes have taken in `pass_through_min_rows`
/// rows and given out at least `pass_through_groups_per_row` groups per row, the rest of the
/// input passes through unhashed as one state row per input row (Velox and Trino skip partial
/// aggregation the same way). A plan's limits are not serialized: workers use the defaults.
struct PartialAggregationLimits {
  int64_t table_groups = int64_t{1} << 17;
  int64_t pass_through_min_rows = int64_t{1} << 18;
  double pass_through_groups_per_row = 0.8;
};

const char* AggregateModeName(AggregateMode mode);

class HashAggregateExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kHashAggregate;

  /// `aggregates` are kAggregate expressions. `output_schema` may be null (names are derived from
  /// the expressions); when given it must have the types the mode produces.
  static Result<std::shared_ptr<HashAggregateExec>> Make(
      ExecPlanPtr input, std::vector<sql::ExprPtr> group_by, std::vector<sql::ExprPtr> aggregates,
      AggregateMode mode, columnar::SchemaPtr output_schema = nullptr);

  /// The schema a kPartial produces and a kFinal consumes.
  static Result<columnar::SchemaPtr> PartialSchema(const std::vector<sql::ExprPtr>& group_by,
                                                   const std::vector<sql::ExprPtr>& aggregates);

  std::string_view name() const override { return "HashAggregate"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override;

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// Partial aggregation runs per partition; the others only over hash-partitioned input (each
  /// group in one partition).
  DistributionTraits distribution() const override;

  AggregateMode mode() const { return mode_; }

  const std::vector<sql::ExprPtr>& group_by() const { return group_by_; }

  const std::vector<sql::ExprPtr>& aggregates() const { return aggregates_; }

  const PartialAggregationLimits& partial_limits() const { return partial_limits_; }
  /// Tests shrink the limits to flush and pass through on small inputs.
  void set_partial_limits(const PartialAggregationLimits& limits) { partial_limits_ = limits; }

 private:
  HashAggregateExec(ExecPlanPtr input, std::vector<sql::ExprPtr> group_by,
                    std::vector<sql::ExprPtr> aggregates, AggregateMode mode,
                    columnar::SchemaPtr schema)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        group_by_(std::move(group_by)),
        aggregates_(std::move(aggregates)),
        mode_(mode) {}

  ExecPlanPtr input_;
  std::vector<sql::ExprPtr> group_by_;
  std::vector<sql::ExprPtr> aggregates_;
  AggregateMode mode_;
  PartialAggregationLimits partial_limits_;
};

}  // namespace shoal::exec

// NestedLoopJoinExec: joins on an arbitrary condition (no equi keys): cross joins, non-equi joins
// (a.x < b.y), and the single-row LEFT JOIN of an uncorrelated scalar subquery. Join types inner,
// left, right, full, semi, anti and mark (EXISTS under OR with a non-equality correlation: the
// left rows plus a boolean saying whether any right row satisfied the condition).
//
// The right input is collected once per execution (all its partitions) and shared by every probe
// partition (join/shared_build.h); each left batch is joined against it by evaluating the
// condition over blocks of (left row, right row) pairs in row-major order: both sides are gathered
// into a joined batch (left columns then right columns, the positions the condition refers to)
// and the condition is evaluated vectorized over the whole block. Semi and anti joins skip left
// rows that already matched. RIGHT and FULL joins flag the build rows that matched (shared by
// all probe partitions); the probe stream that ends last emits the others with NULL left columns,
// so such a join is not partition-wise: its stage runs as one task.
//
// Output schema: left then right columns for inner and left joins (right columns nullable for
// left joins); only the left columns for semi and anti joins. Output partitions follow the left
// input's; batches hold at most batch_size rows.
#pragma once

#include "shoal/exec/execution_plan.h"
#include "shoal/sql/join_type.h"

namespace shoal::exec {

struct NestedLoopBuild;
template <typename T>
class SharedBuildRegistry;

class NestedLoopJoinExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kNestedLoopJoin;

  /// `condition` (may be null: every pair matches) is a physical expression over the left columns
  /// followed by the right columns. NotImplemented for null-aware anti joins.
  static Result<std::shared_ptr<NestedLoopJoinExec>> Make(ExecPlanPtr left, ExecPlanPtr right,
                                                          sql::JoinType join_type,
                                                          sql::ExprPtr condition);
  ~NestedLoopJoinExec() override;

  std::string_view name() const override { return "NestedLoopJoin"; }

  std::vector<ExecPlanPtr> children() const override { return {left_, right_}; }

  /// The probe input.
  const ExecPlanPtr& left() const { return left_; }

  /// The build input.
  const ExecPlanPtr& right() const { return right_; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  /// The left input's, except that RIGHT and FULL joins add rows from one partition.
  Partitioning output_partitioning() const override;

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// The build side is collected whole: broadcast, like a collect-build hash join.
  DistributionTraits distribution() const override;

  sql::JoinType join_type() const { return join_type_; }

  const sql::ExprPtr& condition() const { return condition_; }

  const columnar::SchemaPtr& joined_schema() const { return joined_schema_; }

 private:
  NestedLoopJoinExec(columnar::SchemaPtr schema, columnar::SchemaPtr joined_schema,
                     ExecPlanPtr left, ExecPlanPtr right, sql::JoinType join_type,
                     sql::ExprPtr condition);

  columnar::SchemaPtr joined_schema_;
  ExecPlanPtr left_;
  ExecPlanPtr right_;
  sql::JoinType join_type_;
  sql::ExprPtr condition_;
  std::unique_ptr<SharedBuildRegistry<NestedLoopBuild>> builds_;
};

}  // namespace shoal::exec

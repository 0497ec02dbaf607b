// ExpandExec: emits every input row once per projection list — the input of GROUPING SETS, ROLLUP
// and CUBE. For grouping sets the planner gives one list per set: the input columns the aggregates
// read, then each grouping key or a typed NULL where the key is not in the set, then the set's
// number as a constant; an ordinary hash aggregate grouped by (keys..., set number) then computes
// every set in one pass.
//
// `constant_rows` are emitted once per stream after the input ends (literal expressions only). The
// planner uses them for empty grouping sets, which PostgreSQL answers with one row even over an
// empty input: a placeholder row with a FALSE "real row" column that every aggregate's FILTER
// skips, so the set's group exists and its aggregates see no rows.
//
// Columns are evaluated per batch with the expression evaluator; column references pass arrays
// through without copying. Every output column is nullable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class ExpandExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kExpand;

  /// `projections`: one expression list per copy of each input row, all of the same length and
  /// types; `names`: the output column names.
  static Result<std::shared_ptr<ExpandExec>> Make(
      ExecPlanPtr input, std::vector<std::vector<sql::ExprPtr>> projections,
      std::vector<std::string> names, std::vector<std::vector<sql::ExprPtr>> constant_rows = {});

  std::string_view name() const override { return "Expand"; }
  std::vector<ExecPlanPtr> children() const override { return {input_}; }
  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override {
    return Partitioning::Unknown(input_->num_partitions());
  }
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  const std::vector<std::vector<sql::ExprPtr>>& projections() const { return projections_; }
  const std::vector<std::vector<sql::ExprPtr>>& constant_rows() const { return constant_rows_; }

 private:
  ExpandExec(ExecPlanPtr input, columnar::SchemaPtr schema,
             std::vector<std::vector<sql::ExprPtr>> projections,
             std::vector<std::vector<sql::ExprPtr>> constant_rows)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        projections_(std::move(projections)),
        constant_rows_(std::move(constant_rows)) {}

  ExecPlanPtr input_;
  std::vector<std::vector<sql::ExprPtr>> projections_;
  std::vector<std::vector<sql::ExprPtr>> constant_rows_;
};

}  // namespace shoal::exec

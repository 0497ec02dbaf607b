// ProjectionExec: computes one output column per expression. Column references pass arrays
// through without copying; constants are broadcast only here, at the operator boundary.
#pragma once

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class ProjectionExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kProjection;

  /// `names` gives the output column names (one per expression).
  static Result<std::shared_ptr<ProjectionExec>> Make(ExecPlanPtr input,
                                                      std::vector<sql::ExprPtr> exprs,
                                                      std::vector<std::string> names);

  std::string_view name() const override { return "Projection"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return input_->output_partitioning(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override { return {.partition_wise = true}; }

  const std::vector<sql::ExprPtr>& exprs() const { return exprs_; }

 private:
  ProjectionExec(columnar::SchemaPtr schema, ExecPlanPtr input, std::vector<sql::ExprPtr> exprs)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        exprs_(std::move(exprs)) {}

  ExecPlanPtr input_;
  std::vector<sql::ExprPtr> exprs_;
};

}  // namespace shoal::exec

// FilterExec: keeps the rows where a boolean predicate is true. Selected rows are gathered into
// compact batches; outputs much smaller than batch_size are held back and merged so downstream
// operators do not pay per-batch costs on slivers.
#pragma once

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class FilterExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kFilter;

  static Result<std::shared_ptr<FilterExec>> Make(ExecPlanPtr input, sql::ExprPtr predicate);

  std::string_view name() const override { return "Filter"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return input_->output_partitioning(); }

  std::vector<sql::SortKey> output_ordering() const override { return input_->output_ordering(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override { return {.partition_wise = true}; }

  const sql::ExprPtr& predicate() const { return predicate_; }

 private:
  FilterExec(ExecPlanPtr input, sql::ExprPtr predicate)
      : ExecutionPlan(kKind, input->schema()),
        input_(std::move(input)),
        predicate_(std::move(predicate)) {}

  ExecPlanPtr input_;
  sql::ExprPtr predicate_;
};

}  // namespace shoal::exec

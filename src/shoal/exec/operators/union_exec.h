// UnionExec: UNION ALL. Output partitions are the inputs' partitions side by side (input 0's
// first), so the union itself moves no data and runs every input in parallel.
#pragma once

#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class UnionExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kUnion;

  static Result<std::shared_ptr<UnionExec>> Make(std::vector<ExecPlanPtr> inputs);

  std::string_view name() const override { return "Union"; }

  std::vector<ExecPlanPtr> children() const override { return inputs_; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override;
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;

  std::string Describe(bool) const override { return ""; }
  DistributionTraits distribution() const override {
    return {.partition_wise = true, .splits_inputs_across_tasks = true};
  }

 private:
  UnionExec(columnar::SchemaPtr schema, std::vector<ExecPlanPtr> inputs);

  std::vector<ExecPlanPtr> inputs_;
  // first_partition_[i] is input i's first output partition; the last entry is the total. Plans
  // are immutable, so this is computed once: a 1,000-way UNION ALL asked every input for its
  // partition count on every call, which made planning and execution cubic in the arms.
  std::vector<int> first_partition_;
};

}  // namespace shoal::exec

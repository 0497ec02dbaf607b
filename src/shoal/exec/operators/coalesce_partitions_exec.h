// CoalescePartitionsExec: merges N input partitions into one. One thread per input partition
// pulls its stream concurrently and hands batches over through a bounded queue, so the inputs run
// in parallel while memory stays bounded; rows arrive in no particular order across inputs.
#pragma once

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class CoalescePartitionsExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kCoalescePartitions;

  static std::shared_ptr<CoalescePartitionsExec> Make(ExecPlanPtr input);

  std::string_view name() const override { return "CoalescePartitions"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return Partitioning::Single(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;

  std::string Describe(bool) const override {
    return fmt::format("inputs={}", input_->num_partitions());
  }
  DistributionTraits distribution() const override {
    return {.boundary = StageBoundary::kCoalesce};
  }

 private:
  explicit CoalescePartitionsExec(ExecPlanPtr input)
      : ExecutionPlan(kKind, input->schema()), input_(std::move(input)) {}

  ExecPlanPtr input_;
};

}  // namespace shoal::exec

// RepartitionExec: redistributes N input partitions into M output partitions, by hash of key
// expressions (rows with equal keys meet in one partition: the basis of parallel joins and
// aggregations) or round-robin (whole batches dealt in turn, to spread skewed inputs).
//
// One thread per input partition pulls its input, routes rows and appends them to per-output
// queues. A producer waits only when the queue it appends to is full and no output queue is empty,
// so a consumer that is waiting always lets producers proceed (no deadlock, whatever order the
// outputs are pulled in), while consumers that keep up bound the memory held.
//
// All output partitions of one execution share this state; it lives from the first Execute call
// for a TaskContext until the last output stream of that execution is destroyed.
#pragma once

#include <map>
#include <mutex>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class RepartitionExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kRepartition;

  /// `partitioning` must be kHash (keys over the input's columns) or kRoundRobin.
  static Result<std::shared_ptr<RepartitionExec>> Make(ExecPlanPtr input,
                                                       Partitioning partitioning);
  ~RepartitionExec() override;

  std::string_view name() const override { return "Repartition"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return partitioning_; }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override { return {.boundary = StageBoundary::kShuffle}; }

  struct State;

 private:
  RepartitionExec(ExecPlanPtr input, Partitioning partitioning)
      : ExecutionPlan(kKind, input->schema()),
        input_(std::move(input)),
        partitioning_(std::move(partitioning)) {}

  ExecPlanPtr input_;
  Partitioning partitioning_;
  // Executions whose output partitions have not all been opened yet.
  mutable std::mutex mutex_;
  mutable std::map<const TaskContext*, std::shared_ptr<State>> pending_;
};

}  // namespace shoal::exec

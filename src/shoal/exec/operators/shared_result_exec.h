// SharedResultExec: a subplan that a query reads in several places (a WITH query referenced
// twice, TPC-H Q15's revenue view in the outer query and in its max() subquery), computed once
// per execution and replayed to every reference.
//
// The plan becomes a DAG: the parent of every reference holds the same node (ShareCommonSubplans
// in shared_subplans.h puts it there). The first stream of any reference to ask runs the child's
// partitions, all at once, one thread each (as CoalescePartitions does), and keeps every batch;
// then each stream of each reference replays the batches of its partition. The output
// partitioning is the child's, so the plans above, planned on the child, stay valid. The state
// lives per execution (SharedBuildRegistry, keyed by the TaskContext), so a cached plan may run
// many times and at once.
//
// The kept batches stay charged to the pools of the operators that made them until the last
// stream lets go, so the memory limit still bounds them. Across workers the distributed planner
// turns the child into a stage of its own, run once and read by every reference (StageBoundary::
// kShared). In the file shuffle the driver runs the node (its child's stages cut once); a
// reference inside a stage gets a copy of the child instead (materialized_planner.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

struct SharedBatches;
template <typename T>
class SharedBuildRegistry;

class SharedResultExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kSharedResult;

  /// `child` read by `references` parents, each opening every partition once.
  static std::shared_ptr<SharedResultExec> Make(ExecPlanPtr child, int references);
  ~SharedResultExec() override;

  std::string_view name() const override { return "SharedResult"; }

  std::vector<ExecPlanPtr> children() const override { return {child_}; }

  /// A new node (its own per-execution state) over `children[0]`, with the same reference count:
  /// the caller is rewriting every reference alike.
  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return child_->output_partitioning(); }

  std::vector<sql::SortKey> output_ordering() const override { return child_->output_ordering(); }

  /// Across workers the child becomes a stage of its own that every reference reads.
  DistributionTraits distribution() const override { return {.boundary = StageBoundary::kShared}; }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;

  std::string Describe(bool verbose) const override;

  int references() const { return references_; }

 private:
  SharedResultExec(ExecPlanPtr child, int references);

  ExecPlanPtr child_;
  int references_;
  std::unique_ptr<SharedBuildRegistry<SharedBatches>> results_;
};

}  // namespace shoal::exec

// Walks over a plan being cut into stages (distributed_planner.cc): which nodes are the
// placeholder exchanges that end a stage, what a stage's subtree means for distribution (built from
// each node's exec::DistributionTraits), and tree rewrites and visits that stop at stage ends.
// Private to the planner.
#pragma once

#include <functional>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::internal {

/// A network exchange: the end of a stage (what is below it is another stage).
bool IsPlaceholder(const exec::ExecutionPlan& node);

/// A subtree that produces the same rows wherever it runs and reads nothing remote (VALUES).
bool IsSelfContained(const exec::ExecutionPlan& node);

/// Every operator of the stage gives the same rows when its input is split across tasks.
bool PartitionWise(const exec::ExecutionPlan& node);

/// Replaces every node of `node`'s tree for which `fn` returns a plan; `fn` returns null to
/// descend.
Result<exec::ExecPlanPtr> MapPlan(
    const exec::ExecPlanPtr& node,
    const std::function<Result<exec::ExecPlanPtr>(const exec::ExecPlanPtr&)>& fn);

/// Calls `fn` on every node of the stage rooted at `node`, placeholders included, not below them.
void VisitStage(const exec::ExecutionPlan& node,
                const std::function<void(const exec::ExecutionPlan&)>& fn);

}  // namespace shoal::distributed::internal

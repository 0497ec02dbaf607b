#include "shoal/distributed/planner/stage_walk_internal.h"

#include <utility>
#include <vector>

#include "shoal/distributed/planner/network_exchange_exec.h"

namespace shoal::distributed::internal {

bool IsPlaceholder(const exec::ExecutionPlan& node) {
  return node.Is<NetworkExchangeExec>();
}

bool IsSelfContained(const exec::ExecutionPlan& node) {
  if (node.distribution().reads_outside_plan)
    return false;
  for (const auto& c : node.children()) {
    if (!IsSelfContained(*c))
      return false;
  }
  return true;
}

bool PartitionWise(const exec::ExecutionPlan& node) {
  if (!node.distribution().partition_wise)
    return false;
  if (IsPlaceholder(node))
    return true;  // its (display) child is another stage
  for (const auto& c : node.children()) {
    if (!PartitionWise(*c))
      return false;
  }
  return true;
}

Result<exec::ExecPlanPtr> MapPlan(
    const exec::ExecPlanPtr& node,
    const std::function<Result<exec::ExecPlanPtr>(const exec::ExecPlanPtr&)>& fn) {
  SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr replaced, fn(node));
  if (replaced)
    return replaced;
  std::vector<exec::ExecPlanPtr> children = node->children();
  if (children.empty())
    return node;
  for (auto& c : children) {
    SHOAL_ASSIGN_OR_RETURN(c, MapPlan(c, fn));
  }
  return node->WithNewChildren(std::move(children));
}

void VisitStage(const exec::ExecutionPlan& node,
                const std::function<void(const exec::ExecutionPlan&)>& fn) {
  fn(node);
  if (IsPlaceholder(node))
    return;  // its (display) child is another stage
  for (const auto& c : node.children())
    VisitStage(*c, fn);
}

}  // namespace shoal::distributed::internal

// PlanRewriter: a rewrite of a query's whole physical plan just before it runs or is explained,
// returning a plan that produces the same rows. The runner's production modes call the
// distributed coordinator and the shuffle driver directly (execution_mode.h); this interface is
// the seam for tests and tools that need to see or transform the plan the runner made (codec round
// trips, plan capture, planner rules), set with ExecutionMode::Rewritten.
#pragma once

#include <memory>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::engine {

class PlanRewriter {
 public:
  virtual ~PlanRewriter() = default;

  /// The plan to run (or explain) instead of `plan`, in `context` (the query's settings).
  virtual Result<exec::ExecPlanPtr> Rewrite(const exec::ExecPlanPtr& plan,
                                            const std::shared_ptr<exec::TaskContext>& context) = 0;

  /// Whether the plans it gets may hold shared subplans (SharedResultExec, a DAG): a rewriter
  /// that ships the whole plan elsewhere (a codec round trip) cannot take them.
  virtual bool TakesSharedSubplans() const { return false; }
};

}  // namespace shoal::engine

// The test seam of the engine's QueryRunner: RewritePlans(runner, f) hands every physical plan the
// runner makes to `f` (the plan and the query's TaskContext) and runs what `f` returns, through
// ExecutionMode::Rewritten (engine/plan_rewriter.h). Tests use it to capture plans, to round-trip
// them through the codecs, or to look at a planner's output before running the plan.
#pragma once

#include <memory>
#include <utility>

#include "shoal/engine/query_runner.h"

namespace shoal::engine_testing {

template <typename F>
class FunctionRewriter final : public engine::PlanRewriter {
 public:
  explicit FunctionRewriter(F f) : f_(std::move(f)) {}

  Result<exec::ExecPlanPtr> Rewrite(const exec::ExecPlanPtr& plan,
                                    const std::shared_ptr<exec::TaskContext>& context) override {
    return f_(plan, context);
  }

 private:
  F f_;
};

/// Makes `runner` pass every physical plan through `f` (until its mode is set again).
template <typename F>
void RewritePlans(engine::QueryRunner& runner, F f) {
  runner.SetExecutionMode(
      engine::ExecutionMode::Rewritten(std::make_shared<FunctionRewriter<F>>(std::move(f))));
}

}  // namespace shoal::engine_testing

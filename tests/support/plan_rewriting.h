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
  FunctionRewriter(F f, bool takes_shared_subplans)
      : f_(std::move(f)), takes_shared_subplans_(takes_shared_subplans) {}

  Result<exec::ExecPlanPtr> Rewrite(const exec::ExecPlanPtr& plan,
                                    const std::shared_ptr<exec::TaskContext>& context) override {
    return f_(plan, context);
  }

  bool TakesSharedSubplans() const override { return takes_shared_subplans_; }

 private:
  F f_;
  bool takes_shared_subplans_;
};

/// Makes `runner` pass every physical plan through `f` (until its mode is set again); with
/// `takes_shared_subplans`, the plans hold shared subplans as the production modes' do.
template <typename F>
void RewritePlans(engine::QueryRunner& runner, F f, bool takes_shared_subplans = false) {
  runner.SetExecutionMode(engine::ExecutionMode::Rewritten(
      std::make_shared<FunctionRewriter<F>>(std::move(f), takes_shared_subplans)));
}

}  // namespace shoal::engine_testing

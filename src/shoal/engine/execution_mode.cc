#include "shoal/engine/execution_mode.h"

#include <utility>

#include "shoal/common/check.h"
#include "shoal/common/settings.h"

namespace shoal::engine {

ExecutionMode ExecutionMode::OnWorkers(
    std::shared_ptr<distributed::Coordinator> coordinator,
    std::shared_ptr<distributed::shuffle::ShuffleDriver> task_driver) {
  SHOAL_CHECK(coordinator != nullptr, "ExecutionMode::OnWorkers needs a coordinator");
  ExecutionMode mode;
  mode.kind_ = Kind::kWorkers;
  mode.coordinator_ = std::move(coordinator);
  mode.shuffle_driver_ = std::move(task_driver);
  return mode;
}

ExecutionMode ExecutionMode::ThroughShuffle(
    std::shared_ptr<distributed::shuffle::ShuffleDriver> driver) {
  SHOAL_CHECK(driver != nullptr, "ExecutionMode::ThroughShuffle needs a shuffle driver");
  ExecutionMode mode;
  mode.kind_ = Kind::kShuffle;
  mode.shuffle_driver_ = std::move(driver);
  return mode;
}

ExecutionMode ExecutionMode::Rewritten(std::shared_ptr<PlanRewriter> rewriter) {
  SHOAL_CHECK(rewriter != nullptr, "ExecutionMode::Rewritten needs a rewriter");
  ExecutionMode mode;
  mode.kind_ = Kind::kRewritten;
  mode.rewriter_ = std::move(rewriter);
  return mode;
}

Result<exec::ExecPlanPtr> ExecutionMode::Prepare(
    const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>& context) const {
  switch (kind_) {
    case Kind::kLocal: return plan;
    case Kind::kWorkers:
      if (context->settings().GetString("retry_policy") == "task") {
        if (!shuffle_driver_)
          return Status::InvalidArgument(
                     "retry_policy = task needs `shoal worker` processes that run shuffle tasks; "
                     "in-process workers do not")
              .WithHint(
                  "use --workers HOST:PORT,... with workers started with --shuffle-dir, or "
                  "SET retry_policy = 'query'");
        return shuffle_driver_->Transform(plan, context);
      }
      return coordinator_->Distribute(plan, context);
    case Kind::kShuffle: return shuffle_driver_->Transform(plan, context);
    case Kind::kRewritten: return rewriter_->Rewrite(plan, context);
  }
  return Status::Internal("unknown execution mode {}", static_cast<int>(kind_));
}

bool ExecutionMode::RunsInProcess(const Settings& settings) const {
  return kind_ == Kind::kLocal || (kind_ == Kind::kShuffle && !shuffle_driver_->Stages(settings));
}

bool ExecutionMode::SharesSubplans() const {
  return kind_ != Kind::kRewritten || rewriter_->TakesSharedSubplans();
}

const char* ExecutionMode::KindName(Kind kind) {
  switch (kind) {
    case Kind::kLocal: return "local";
    case Kind::kWorkers: return "workers";
    case Kind::kShuffle: return "shuffle";
    case Kind::kRewritten: return "rewritten";
  }
  return "?";
}

}  // namespace shoal::engine

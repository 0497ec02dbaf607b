// ExecutionMode: where a QueryRunner runs its queries once they are planned. On one node (the
// default), on workers (a distributed Coordinator: the plan is cut into stages run by the workers,
// its head stage stays here), or through the materialized file shuffle (a ShuffleDriver: with the
// session's `shuffle_dir` set, stages run as `shoal task` processes exchanging files; unset, the
// plan runs here). Under `retry_policy = task` a query of the workers mode runs through a shuffle
// driver whose tasks go to the session's workers (their `shoal worker --shuffle-dir` service), so
// that a lost worker costs its tasks, not the query. The runner calls the coordinator or driver of
// its mode directly; a fourth mode, Rewritten, hands the plan to a PlanRewriter and exists for
// tests (plan_rewriter.h).
//
// A mode is a small value: copying it shares the coordinator or driver, which keeps them alive as
// long as some runner uses them.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/common/result.h"
#include "shoal/common/settings.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/engine/plan_rewriter.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::engine {

class ExecutionMode {
 public:
  enum class Kind : uint8_t { kLocal, kWorkers, kShuffle, kRewritten };

  /// Local.
  ExecutionMode() = default;

  static ExecutionMode Local() { return ExecutionMode(); }
  /// Queries run across `coordinator`'s workers (non-null); under `retry_policy = task` through
  /// `task_driver` instead, a materialized shuffle on the same workers (null: the policy is
  /// refused, as for in-process workers, which run no shuffle tasks).
  static ExecutionMode OnWorkers(
      std::shared_ptr<distributed::Coordinator> coordinator,
      std::shared_ptr<distributed::shuffle::ShuffleDriver> task_driver = nullptr);
  /// Queries run through `driver`'s materialized shuffle when `shuffle_dir` is set (non-null).
  static ExecutionMode ThroughShuffle(std::shared_ptr<distributed::shuffle::ShuffleDriver> driver);
  /// For tests: every physical plan goes through `rewriter` (non-null) and the result runs here.
  static ExecutionMode Rewritten(std::shared_ptr<PlanRewriter> rewriter);

  Kind kind() const { return kind_; }
  /// The coordinator of kWorkers, else null.
  const std::shared_ptr<distributed::Coordinator>& coordinator() const { return coordinator_; }
  /// The driver of kShuffle, or of kWorkers under retry_policy = task; else null.
  const std::shared_ptr<distributed::shuffle::ShuffleDriver>& shuffle_driver() const {
    return shuffle_driver_;
  }

  /// The plan that runs (or is explained) for the single-node physical `plan` in this mode.
  Result<exec::ExecPlanPtr> Prepare(const exec::ExecPlanPtr& plan,
                                    const std::shared_ptr<exec::TaskContext>& context) const;

  /// Whether every partition of a plan Prepare returns under `settings` runs in this process,
  /// as on a single node (kLocal, or kShuffle while no shuffle directory is set), rather than as
  /// tasks of other processes.
  bool RunsInProcess(const Settings& settings) const;

  /// Whether its plans may hold shared subplans (exec/shared_subplans.h): every mode runs them
  /// (once in this process, as a stage of their own across workers, in the driver of the file
  /// shuffle), and a test's rewriter when it says it takes them.
  bool SharesSubplans() const;

  /// "local", "workers", "shuffle" or "rewritten".
  static const char* KindName(Kind kind);

 private:
  Kind kind_ = Kind::kLocal;
  std::shared_ptr<distributed::Coordinator> coordinator_;
  std::shared_ptr<distributed::shuffle::ShuffleDriver> shuffle_driver_;
  std::shared_ptr<PlanRewriter> rewriter_;
};

}  // namespace shoal::engine

// ShuffleQueryExec: the root of a plan run in materialized-shuffle mode (shuffle_driver.h). The
// first time the plan executes it runs every stage's tasks (through the driver's StageRunner), then
// it executes the staged plan, whose stage nodes (stage_file_exec.h) now find their files. EXPLAIN
// shows it as "MaterializedShuffle" with the stage and task counts, and after a run the task
// processes and rows. Never shipped: the driver runs it on the coordinator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/distributed/shuffle/materialized_planner.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed::shuffle {

/// One (stage, partition) the driver ran.
struct ShuffleTaskReport {
  int stage_id = 0;
  int partition = 0;
  int64_t rows = 0;
  int attempts = 0;  // processes started (0: its file existed already)
};

/// Runs the tasks of every stage of `plan` (ShuffleDriver::RunStages).
using StageRunner = std::function<Status(const MaterializedPlan& plan, const std::string& dir,
                                         const std::shared_ptr<exec::TaskContext>& context,
                                         std::vector<ShuffleTaskReport>* reports)>;

class ShuffleQueryExec final : public exec::ExecutionPlan {
 public:
  static constexpr exec::PlanKind kKind = exec::PlanKind::kShuffleQuery;

  ShuffleQueryExec(StageRunner run, MaterializedPlan plan, std::string dir);

  std::string_view name() const override { return "MaterializedShuffle"; }

  std::vector<exec::ExecPlanPtr> children() const override { return {plan_.root}; }

  Result<exec::ExecPlanPtr> WithNewChildren(std::vector<exec::ExecPlanPtr> children) const override;

  exec::Partitioning output_partitioning() const override {
    return plan_.root->output_partitioning();
  }

  std::vector<sql::SortKey> output_ordering() const override {
    return plan_.root->output_ordering();
  }

  Result<exec::StreamPtr> Execute(int partition,
                                  const std::shared_ptr<exec::TaskContext>& context) const override;

  std::string Describe(bool verbose) const override;

 private:
  // Run-time state shared by every execution of this node: the stages run once.
  struct State {
    // The query is over when the last copy of the plan goes: its directory here and on the
    // workers is not needed any more, after a success or a failure (the tasks' errors are in the
    // query's error).
    ~State();

    std::mutex mutex;
    bool ran = false;
    Status status;
    std::vector<ShuffleTaskReport> reports;
    std::string dir;
  };

  StageRunner run_;
  MaterializedPlan plan_;
  std::string dir_;
  std::shared_ptr<State> state_;
};

}  // namespace shoal::distributed::shuffle

// The coordinator's side of work-unit feeds (setting `dist_work_unit_feeds`).
//
// UseWorkUnitFeeds rewrites one stage's task plans: every TableScan becomes a WorkUnitFeedScan
// (work_unit_feed_scan_exec.h) with the same partition count, and the scan units the planner had
// split across the tasks are pooled and handed out again, at run time, to all partitions of all
// tasks of the stage. The hand-out is decided here and balanced by bytes: each unit, in table
// order, goes to the partition with the fewest bytes so far, which with equal units is round
// robin. (A pull-based split, where a partition asks the coordinator for its next unit, balances
// skewed units better but needs a demand message on the worker-to-coordinator direction of the
// channel; the feed protocol itself does not change when that comes.)
//
// WorkUnitSender streams each task's units over its coordinator channel after the plan, in
// batches, from one thread per task (a send blocks while the worker's queues are full, and the
// coordinator must not wait for one task's consumers while dispatching the others), then sends
// WorkUnitEos. Stop cancels the sends still blocked (the query ended early) and joins.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::distributed {

/// What one task's coordinator channel carries for its feeds.
struct TaskWorkUnits {
  std::vector<WorkUnitFeedDeclaration> feeds;
  std::vector<WorkUnit> units;
};

/// Turns the scans of `task_plans` (the tasks of stage `stage_id`) into feed scans and returns
/// each task's feeds and units, one entry per task. When the tasks' scans differ (the planner
/// split a UNION's inputs over them), each task deals its own units over its own partitions.
/// Plans without scans are left as they are (their entries are empty).
Result<std::vector<TaskWorkUnits>> UseWorkUnitFeeds(int stage_id,
                                                    std::vector<exec::ExecPlanPtr>* task_plans);

class WorkUnitSender {
 public:
  WorkUnitSender() = default;
  WorkUnitSender(const WorkUnitSender&) = delete;
  WorkUnitSender& operator=(const WorkUnitSender&) = delete;
  ~WorkUnitSender() { Stop(); }

  /// Sends `units` and then WorkUnitEos over `stream` (which must outlive Stop): inline when there
  /// are no units, else from a thread of its own (errors are logged: the worker fails the task's
  /// consumers itself).
  Status Start(CoordinatorStream* stream, std::vector<WorkUnit> units, std::string label);

  /// Cancels sends still in progress and waits for every sender thread.
  void Stop();

  static constexpr size_t kUnitsPerBatch = 16;

 private:
  struct Sender {
    CoordinatorStream* stream = nullptr;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::vector<std::unique_ptr<Sender>> senders_;
};

}  // namespace shoal::distributed

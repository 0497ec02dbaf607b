// RuntimeFilterHub: the coordinator's part in runtime join filters across stages
// (docs/architecture.md, "Runtime join filters"). A hash join's filter is planned on the
// single-node plan; once the plan is cut into stages, the join and the scan that applies its
// filter may run in different stages (a broadcast join whose probe side is below a shuffle, a
// partitioned join, whose probe scan is always below one). For each such filter the hub:
//  - asks every task of the join's stage to report it (SetPlanRequest.export_runtime_filters);
//  - collects the reports: a collect-build join's filter is complete in each task (its build side
//    is broadcast whole), so the first report is the filter; a partitioned join's task reports
//    the union of its partitions, and the hub merges all tasks' reports (RuntimeFilter::Merge)
//    once each task has reported;
//  - sends the result to every task of each stage that scans with it (a stage sent later gets it
//    when it is sent), or publishes it in the head's TaskContext when the head scans with it.
// The head stage (id 0) runs in the coordinator: its joins report through its own registry.
// Scans wait for the filter a bounded time (`runtime_filter_wait`), then read without it; a
// filter that never comes (a task whose build spilled reports nothing) costs only rows read.
//
// Thread-safe: reports arrive on transport threads. Close() before the task streams are
// destroyed: a report arriving later is dropped.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

class RuntimeFilterHub : public std::enable_shared_from_this<RuntimeFilterHub> {
 public:
  static constexpr int kHeadStage = 0;

  /// The head stage's plan, run in `context` (its joins report through its registry, its scans
  /// get filters published there).
  RuntimeFilterHub(const exec::ExecPlanPtr& head,
                   const std::shared_ptr<exec::TaskContext>& context);

  /// A stage's plan (any task's: they have the same shape) and task count, when instantiated.
  /// Stages come producers first, so a join's scans are known when its stage comes.
  void AddStage(int stage_id, int task_count, const exec::ExecutionPlan& plan);

  /// The filters the tasks of `stage_id` must report (after AddStage).
  std::vector<int> ExportsOf(int stage_id) const;

  /// The filters the coordinator will send for the scans of `stage_id` (after AddStage; its joins'
  /// stages may come later): a scan of it whose join runs elsewhere, or in a partitioned join
  /// split over the stage's tasks.
  std::vector<int> ImportsOf(int stage_id) const;

  /// Where task `task_number` of `stage_id` reports to.
  RuntimeFilterSink SinkFor(int stage_id, int task_number);

  /// A task of `stage_id` whose plan was sent on `stream`: filters ready for its scans go out now,
  /// later ones when they are ready. `stream` must stay valid until Close.
  void AddStream(int stage_id, CoordinatorStream* stream);

  /// Drops the streams; later reports are ignored.
  void Close();

  /// EXPLAIN ANALYZE: one line per filter sent across stages, by the stage that applies it.
  std::map<int, std::vector<std::string>> Notes() const;

 private:
  struct Filter {
    int build_stage = -1;
    int build_tasks = 0;
    bool partitioned = false;
    std::set<int> scan_stages;
    std::set<int> reported;  // task numbers
    std::vector<std::shared_ptr<const exec::RuntimeFilter>> parts;
    std::shared_ptr<const exec::RuntimeFilter> merged;
    std::string error;
    std::chrono::steady_clock::time_point first_report;
    int64_t merge_ms = 0;  // from the first report to the merged filter
  };

  void Walk(int stage_id, int task_count, const exec::ExecutionPlan& node);
  void OnReport(int stage_id, int task_number, int id,
                std::shared_ptr<const exec::RuntimeFilter> filter, bool complete);
  // Sends filter `id` to the streams of its scan stages (mutex_ held).
  void ForwardLocked(int id, const Filter& filter);

  mutable std::mutex mutex_;
  bool closed_ = false;
  std::weak_ptr<exec::TaskContext> head_context_;
  std::map<int, Filter> filters_;
  std::map<int, std::vector<CoordinatorStream*>> streams_;  // by stage
};

}  // namespace shoal::distributed

#include "shoal/distributed/coordinator/remote_progress.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "shoal/distributed/planner/network_exchange_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::distributed {

RemoteProgress::RemoteProgress(ChannelResolverPtr channels, std::vector<std::string> workers,
                               std::string query_id)
    : channels_(std::move(channels)),
      workers_(std::move(workers)),
      query_id_(std::move(query_id)) {}

void RemoteProgress::AddStage(int stage_id, int task_count, int64_t bytes_total) {
  std::lock_guard<std::mutex> lock(mutex_);
  stages_[stage_id] = StageFigures{task_count, bytes_total};
}

int64_t RemoteProgress::ScanBytes(const exec::ExecutionPlan& plan) {
  int64_t bytes = 0;
  if (const auto* scan = dynamic_cast<const exec::TableScanExec*>(&plan))
    bytes += scan->unit_bytes();
  if (plan.Is<NetworkExchangeExec>())
    return bytes;
  for (const auto& child : plan.children())
    bytes += ScanBytes(*child);
  return bytes;
}

exec::QueryProgress::Remote RemoteProgress::Read() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::chrono::steady_clock::now() - last_poll_ < kPollInterval)
      return SnapshotLocked();
  }
  std::unique_lock<std::mutex> poller(poll_mutex_, std::try_to_lock);
  if (poller.owns_lock())
    Poll();
  std::lock_guard<std::mutex> lock(mutex_);
  return SnapshotLocked();
}

exec::QueryProgress::Remote RemoteProgress::SnapshotLocked() const {
  exec::QueryProgress::Remote out;
  std::map<int, exec::QueryProgress::StageProgress> stages;
  for (const auto& [id, stage] : stages_) {
    exec::QueryProgress::StageProgress& s = stages[id];
    s.stage_id = id;
    s.tasks_total = stage.task_count;
    s.bytes_total = stage.bytes_total;
  }
  // (stage, worker): ordered by address, so the console lists workers the same way every poll.
  std::map<std::pair<int, std::string>, exec::QueryProgress::WorkerTasks> by_worker;
  for (const auto& [key, task] : per_task_) {
    out.bytes_read += task.bytes_read;
    exec::QueryProgress::StageProgress& s = stages[key.first];
    s.stage_id = key.first;
    s.bytes_read += task.bytes_read;
    s.rows += task.rows;
    s.tasks_done += task.done ? 1 : 0;
    exec::QueryProgress::WorkerTasks& w = by_worker[{key.first, task.worker}];
    w.worker = task.worker;
    (task.done ? w.done : w.running) += 1;
  }
  for (auto& [key, w] : by_worker)
    stages[key.first].workers.push_back(std::move(w));
  for (auto& [id, s] : stages) {
    // A task seen that the coordinator did not announce (a stage retried with more tasks).
    s.tasks_total = std::max(s.tasks_total, s.tasks_done);
    out.stages.push_back(std::move(s));
  }
  return out;
}

void RemoteProgress::Poll() {
  struct Answer {
    const std::string* worker;
    std::vector<TaskProgress> tasks;
  };
  std::vector<Answer> answers;
  for (const std::string& worker : workers_) {
    Result<WorkerChannelPtr> channel = channels_->Connect(worker);
    if (!channel.ok())
      continue;
    // A worker that does not answer keeps its last figures: progress never goes back.
    Result<std::vector<TaskProgress>> tasks = (*channel)->GetTaskProgress(query_id_);
    if (tasks.ok())
      answers.push_back({&worker, std::move(tasks).MoveValueUnsafe()});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Answer& answer : answers) {
    std::set<std::pair<int, int>> listed;
    for (const TaskProgress& t : answer.tasks) {
      const std::pair<int, int> key{t.stage_id, t.task_number};
      listed.insert(key);
      TaskFigures& task = per_task_[key];
      task.worker = *answer.worker;
      task.bytes_read = std::max(task.bytes_read, t.bytes_read);
      task.rows = std::max(task.rows, t.output_rows);
      // As the worker says now: a consumer that reads its partitions one after another leaves
      // the task with no open stream for a moment.
      task.done = t.done;
    }
    // Gone from the worker that held it: the coordinator closed it, so it has ended.
    for (auto& [key, task] : per_task_) {
      if (task.worker == *answer.worker && listed.count(key) == 0)
        task.done = true;
    }
  }
  last_poll_ = std::chrono::steady_clock::now();
}

}  // namespace shoal::distributed

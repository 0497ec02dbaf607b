#include "shoal/distributed/coordinator/remote_progress.h"

#include <algorithm>

namespace shoal::distributed {

RemoteProgress::RemoteProgress(ChannelResolverPtr channels, std::vector<std::string> workers,
                               std::string query_id)
    : channels_(std::move(channels)),
      workers_(std::move(workers)),
      query_id_(std::move(query_id)) {}

int64_t RemoteProgress::BytesRead() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::chrono::steady_clock::now() - last_poll_ < kPollInterval)
      return total_.load(std::memory_order_relaxed);
  }
  std::unique_lock<std::mutex> poller(poll_mutex_, std::try_to_lock);
  if (poller.owns_lock())
    Poll();
  return total_.load(std::memory_order_relaxed);
}

std::map<int, int64_t> RemoteProgress::BytesReadByStage() const {
  std::map<int, int64_t> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [task, bytes] : per_task_)
    out[task.first] += bytes;
  return out;
}

void RemoteProgress::Poll() {
  std::vector<TaskProgress> seen;
  for (const std::string& worker : workers_) {
    Result<WorkerChannelPtr> channel = channels_->Connect(worker);
    if (!channel.ok())
      continue;
    // A worker that does not answer keeps its last figures: progress never goes back.
    Result<std::vector<TaskProgress>> tasks = (*channel)->GetTaskProgress(query_id_);
    if (tasks.ok())
      seen.insert(seen.end(), tasks->begin(), tasks->end());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const TaskProgress& t : seen) {
    int64_t& bytes = per_task_[{t.stage_id, t.task_number}];
    bytes = std::max(bytes, t.bytes_read);
  }
  int64_t total = 0;
  for (const auto& [task, bytes] : per_task_)
    total += bytes;
  total_.store(total, std::memory_order_relaxed);
  last_poll_ = std::chrono::steady_clock::now();
}

}  // namespace shoal::distributed

#include "shoal/distributed/feeds/work_unit_feed.h"

#include <chrono>
#include <utility>

#include <fmt/format.h>

namespace shoal::distributed {

namespace {

constexpr std::chrono::milliseconds kPoll{50};

}  // namespace

Result<std::shared_ptr<WorkUnitFeeds>> WorkUnitFeeds::Make(
    const std::vector<WorkUnitFeedDeclaration>& declarations, std::string task_label) {
  std::shared_ptr<WorkUnitFeeds> out(new WorkUnitFeeds(std::move(task_label)));
  for (const auto& d : declarations) {
    if (d.partitions < 1)
      return Status::InvalidData("{} declares work-unit feed '{}' with {} partitions",
                                 out->task_label_, d.node_id, d.partitions);
    Feed feed;
    feed.queues.resize(static_cast<size_t>(d.partitions));
    if (!out->feeds_.emplace(d.node_id, std::move(feed)).second)
      return Status::InvalidData("{} declares work-unit feed '{}' twice", out->task_label_,
                                 d.node_id);
  }
  return out;
}

int WorkUnitFeeds::partitions(const std::string& node_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = feeds_.find(node_id);
  return it == feeds_.end() ? -1 : static_cast<int>(it->second.queues.size());
}

WorkUnitFeeds::Feed* WorkUnitFeeds::Find(const std::string& node_id) {
  auto it = feeds_.find(node_id);
  return it == feeds_.end() ? nullptr : &it->second;
}

void WorkUnitFeeds::FailLocked(const Status& status) {
  for (auto& [id, feed] : feeds_) {
    if (feed.failure.ok())
      feed.failure = status;
    for (auto& q : feed.queues)
      q.clear();
  }
  units_cv_.notify_all();
  space_cv_.notify_all();
}

void WorkUnitFeeds::Fail(const Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  FailLocked(status);
}

void WorkUnitFeeds::End() {
  std::lock_guard<std::mutex> lock(mutex_);
  ended_ = true;
  units_cv_.notify_all();
  space_cv_.notify_all();
}

Status WorkUnitFeeds::Push(WorkUnitBatch batch, const std::function<bool()>& abandoned) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!batch.failed_node_id.empty()) {
    Feed* feed = Find(batch.failed_node_id);
    Status failure = batch.failure.ok()
                         ? Status::Internal("the coordinator failed the feed without an error")
                         : batch.failure;
    if (feed == nullptr) {
      FailLocked(
          Status::InvalidData("the coordinator failed work-unit feed '{}', which {} does "
                              "not declare: {}",
                              batch.failed_node_id, task_label_, failure.ToString()));
    } else if (feed->failure.ok()) {
      feed->failure = std::move(failure).WithContext(
          fmt::format("the coordinator could not produce the units of work-unit feed '{}' of {}",
                      batch.failed_node_id, task_label_));
      for (auto& q : feed->queues)
        q.clear();
      units_cv_.notify_all();
    }
  }
  for (auto& unit : batch.units) {
    Feed* feed = Find(unit.node_id);
    if (feed == nullptr || unit.partition < 0 ||
        static_cast<size_t>(unit.partition) >= feed->queues.size()) {
      Status st = feed == nullptr
                      ? Status::InvalidData(
                            "{} got a work unit for feed '{}', which its plan does not "
                            "declare",
                            task_label_, unit.node_id)
                      : Status::InvalidData(
                            "{} got a work unit for partition {} of feed '{}', which has "
                            "{} partitions",
                            task_label_, unit.partition, unit.node_id, feed->queues.size());
      FailLocked(st);
      return st;
    }
    auto& queue = feed->queues[static_cast<size_t>(unit.partition)];
    for (;;) {
      if (ended_) {
        return Status::InvalidData("{} got a work unit for feed '{}' after the end of its feeds",
                                   task_label_, unit.node_id);
      }
      if (!feed->failure.ok())
        return Status::OK();  // nobody will read it; the consumers already have the error
      if (queue.size() < kQueuedUnitsPerPartition || waiting_consumers_ > 0)
        break;
      if (abandoned && abandoned())
        return Status::Cancelled("the sender of {}'s work units went away", task_label_);
      space_cv_.wait_for(lock, kPoll);
    }
    queue.push_back(std::move(unit.body));
    units_cv_.notify_all();
  }
  return Status::OK();
}

Result<std::optional<std::string>> WorkUnitFeeds::Next(const std::string& node_id, int partition,
                                                       const exec::TaskContext* context) {
  std::unique_lock<std::mutex> lock(mutex_);
  Feed* feed = Find(node_id);
  if (feed == nullptr || partition < 0 || static_cast<size_t>(partition) >= feed->queues.size())
    return Status::Internal("{} has no partition {} of work-unit feed '{}'", task_label_, partition,
                            node_id);
  auto& queue = feed->queues[static_cast<size_t>(partition)];
  for (;;) {
    if (!feed->failure.ok())
      return feed->failure;
    if (!queue.empty()) {
      std::string body = std::move(queue.front());
      queue.pop_front();
      space_cv_.notify_all();
      return std::optional<std::string>(std::move(body));
    }
    if (ended_)
      return std::optional<std::string>();
    if (context != nullptr && context->cancelled())
      return exec::TaskContext::CancelledStatus();
    ++waiting_consumers_;
    space_cv_.notify_all();  // a pusher blocked on a full queue may overfill now
    units_cv_.wait_for(lock, kPoll);
    --waiting_consumers_;
  }
}

}  // namespace shoal::distributed

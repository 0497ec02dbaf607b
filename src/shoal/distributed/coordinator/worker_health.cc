#include "shoal/distributed/coordinator/worker_health.h"

#include <algorithm>
#include <future>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/logging.h"

namespace shoal::distributed {

namespace {

// The streaming workers' check: GetWorkerInfo answers, with the expected version.
Status CheckWorkerInfo(const ChannelResolverPtr& channels, const std::string& version,
                       const std::string& worker) {
  Result<WorkerChannelPtr> channel = channels->Connect(worker);
  if (!channel.ok())
    return channel.status();
  // The gRPC transport re-establishes a connection a worker restart broke within this call.
  Result<WorkerInfo> info = (*channel)->GetWorkerInfo();
  if (!info.ok())
    return info.status();
  if (!version.empty() && info->version != version)
    return Status::InvalidArgument("worker {} runs shoal {} and this coordinator {}", worker,
                                   info->version, version)
        .WithHint("run the same shoal binary everywhere");
  return Status::OK();
}

}  // namespace

WorkerHealth::WorkerHealth(ChannelResolverPtr channels, const WorkerHealthOptions& options)
    : WorkerHealth(
          [channels = std::move(channels), version = options.version](const std::string& worker) {
            return CheckWorkerInfo(channels, version, worker);
          },
          options) {}

WorkerHealth::WorkerHealth(Check check, WorkerHealthOptions options)
    : check_(std::move(check)), options_(std::move(options)) {
  rechecks_ = std::thread([this] { RecheckLoop(); });
}

WorkerHealth::~WorkerHealth() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  rechecks_.join();
}

Status WorkerHealth::CheckOne(const std::string& worker) {
  return check_(worker);
}

Status WorkerHealth::CheckNow(const std::string& worker) {
  Status st = CheckOne(worker);
  if (st.ok())
    Release(worker);
  else
    Quarantine(worker, st);
  return st;
}

Result<std::vector<std::string>> WorkerHealth::CheckAll(const std::vector<std::string>& workers,
                                                        std::vector<std::string>* failures) {
  // At once: an address that never answers costs one connect timeout, not one per worker.
  std::vector<std::future<Status>> checks;
  checks.reserve(workers.size());
  for (const auto& w : workers)
    checks.push_back(std::async(std::launch::async, [this, w] { return CheckOne(w); }));
  std::vector<Status> results;
  results.reserve(checks.size());
  for (auto& c : checks)
    results.push_back(c.get());
  std::vector<std::string> usable;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (results[i].code() == StatusCode::kInvalidArgument)
      return results[i];
    if (results[i].ok()) {
      Release(workers[i]);
      usable.push_back(workers[i]);
      continue;
    }
    failures->push_back(results[i].UserMessage());
    Quarantine(workers[i], results[i]);
  }
  return usable;
}

Result<std::vector<std::string>> WorkerHealth::Usable(const std::vector<std::string>& workers) {
  std::vector<std::string> to_check;
  std::vector<std::string> skipped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& w : workers)
      (quarantined_.count(w) ? skipped : to_check).push_back(w);
  }
  std::vector<std::string> failures;
  SHOAL_ASSIGN_OR_RETURN(std::vector<std::string> usable, CheckAll(to_check, &failures));
  if (usable.empty() && !skipped.empty()) {
    // Nothing else to run on: the quarantined ones get a check now rather than at their time.
    SHOAL_ASSIGN_OR_RETURN(usable, CheckAll(skipped, &failures));
  }
  if (!usable.empty())
    return usable;
  std::string message = fmt::format("no worker answers ({} {})", workers.size(),
                                    workers.size() == 1 ? "worker" : "workers");
  for (const auto& f : failures)
    message += "\n" + f;
  return Status::Unavailable("{}", message)
      .WithHint(
          "check that `shoal worker` runs at the addresses given and that they are right, and "
          "that the workers and this node use certificates of the same CA (--tls-ca), or all "
          "--insecure");
}

void WorkerHealth::Quarantine(const std::string& worker, const Status& why) {
  bool fresh = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fresh = quarantined_.count(worker) == 0;
    // At least a few milliseconds: a worker that fails at once must not keep the checks busy.
    quarantined_[worker] = std::chrono::steady_clock::now() +
                           std::max(options_.quarantine, std::chrono::milliseconds(10));
  }
  cv_.notify_all();
  if (fresh)
    SHOAL_LOG(kWarning, "skipping worker {} until it answers again: {}", worker, why.UserMessage());
}

void WorkerHealth::Penalize(const std::string& worker, const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& until = quarantined_[worker];
    until = std::max(until, std::chrono::steady_clock::now() +
                                std::max(options_.failure_quarantine, options_.quarantine));
  }
  cv_.notify_all();
  SHOAL_LOG(kWarning, "not using worker {} for {} ms after it failed a query: {}", worker,
            std::max(options_.failure_quarantine, options_.quarantine).count(), why.UserMessage());
}

void WorkerHealth::Release(const std::string& worker) {
  bool was = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    was = quarantined_.erase(worker) > 0;
  }
  if (was)
    SHOAL_LOG(kWarning, "worker {} answers again: back in use", worker);
}

bool WorkerHealth::IsQuarantined(const std::string& worker) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return quarantined_.count(worker) > 0;
}

void WorkerHealth::RecheckLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    auto next = std::chrono::steady_clock::time_point::max();
    for (const auto& [worker, when] : quarantined_)
      next = std::min(next, when);
    if (next == std::chrono::steady_clock::time_point::max())
      cv_.wait(lock, [&] { return stopping_ || !quarantined_.empty(); });
    else
      cv_.wait_until(lock, next);
    if (stopping_)
      return;
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::string> due;
    for (const auto& [worker, when] : quarantined_) {
      if (when <= now)
        due.push_back(worker);
    }
    if (due.empty())
      continue;
    lock.unlock();
    for (const auto& worker : due) {
      Status st = CheckOne(worker);
      if (st.ok())
        Release(worker);
      else
        Quarantine(worker, st);  // checked again one quarantine later
    }
    lock.lock();
  }
}

}  // namespace shoal::distributed

#include "shoal/exec/join/runtime_filter_registry.h"

#include <algorithm>

namespace shoal::exec {

void RuntimeFilterRegistry::PublishLocked(std::unique_lock<std::mutex>& lock, int id,
                                          std::shared_ptr<const RuntimeFilter> filter) {
  filters_.emplace(id, std::move(filter));
  lock.unlock();
  cv_.notify_all();
}

void RuntimeFilterRegistry::Publish(int id, std::shared_ptr<const RuntimeFilter> filter) {
  std::unique_lock<std::mutex> lock(mutex_);
  PublishLocked(lock, id, std::move(filter));
}

void RuntimeFilterRegistry::PublishBuilt(int id, std::shared_ptr<const RuntimeFilter> filter) {
  std::unique_lock<std::mutex> lock(mutex_);
  Exporter exporter = export_ids_.count(id) > 0 ? exporter_ : nullptr;
  PublishLocked(lock, id, filter);
  if (exporter)
    exporter(id, std::move(filter), true);
}

Status RuntimeFilterRegistry::PublishPart(int id, int part, int num_parts,
                                          std::shared_ptr<const RuntimeFilter> filter,
                                          const std::shared_ptr<MemoryPool>& pool) {
  std::unique_lock<std::mutex> lock(mutex_);
  Parts& parts = parts_[id];
  if (parts.abandoned || !parts.seen.insert(part).second)
    return Status::OK();
  if (filter == nullptr) {
    parts.abandoned = true;
    parts.filters.clear();
    abandoned_.insert(id);
    lock.unlock();
    cv_.notify_all();
    return Status::OK();
  }
  parts.filters.push_back(std::move(filter));
  if (static_cast<int>(parts.filters.size()) < num_parts)
    return Status::OK();
  std::vector<std::shared_ptr<const RuntimeFilter>> filters = std::move(parts.filters);
  parts.filters.clear();
  const bool partial = partial_parts_;
  Exporter exporter = export_ids_.count(id) > 0 ? exporter_ : nullptr;
  lock.unlock();
  // Merged outside the lock: other filters stay readable meanwhile.
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const RuntimeFilter> merged,
                         RuntimeFilter::Merge(filters, pool));
  if (!partial)
    Publish(id, merged);
  if (exporter)
    exporter(id, std::move(merged), !partial);
  return Status::OK();
}

void RuntimeFilterRegistry::Abandon(int id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_.insert(id);
  }
  cv_.notify_all();
}

std::shared_ptr<const RuntimeFilter> RuntimeFilterRegistry::Find(int id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = filters_.find(id);
  return it == filters_.end() ? nullptr : it->second;
}

bool RuntimeFilterRegistry::WaitFor(const std::vector<int>& ids, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  auto deadline = now + wait;
  for (int id : ids) {
    const auto it = first_wait_.emplace(id, now).first;  // the first waiter's start stays
    deadline = std::min(deadline, it->second + wait);
  }
  bool all_published = false;
  cv_.wait_until(lock, deadline, [&] {
    all_published = true;
    for (int id : ids) {
      if (filters_.count(id) > 0)
        continue;
      all_published = false;
      if (abandoned_.count(id) == 0 && expected_.count(id) > 0)
        return false;
    }
    return true;
  });
  return all_published;
}

void RuntimeFilterRegistry::Expect(const std::set<int>& ids) {
  std::lock_guard<std::mutex> lock(mutex_);
  expected_.insert(ids.begin(), ids.end());
}

bool RuntimeFilterRegistry::IsExpected(int id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return expected_.count(id) > 0;
}

void RuntimeFilterRegistry::SetExport(std::set<int> ids, bool partial_parts, Exporter exporter) {
  std::lock_guard<std::mutex> lock(mutex_);
  export_ids_ = std::move(ids);
  partial_parts_ = partial_parts;
  exporter_ = std::move(exporter);
}

}  // namespace shoal::exec

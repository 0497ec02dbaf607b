#include "shoal/exec/join/runtime_filter_registry.h"

namespace shoal::exec {

void RuntimeFilterRegistry::Publish(int id, std::shared_ptr<const RuntimeFilter> filter) {
  std::lock_guard<std::mutex> lock(mutex_);
  filters_.emplace(id, std::move(filter));
}

std::shared_ptr<const RuntimeFilter> RuntimeFilterRegistry::Find(int id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = filters_.find(id);
  return it == filters_.end() ? nullptr : it->second;
}

}  // namespace shoal::exec

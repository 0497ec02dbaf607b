// RuntimeFilterRegistry: the runtime filters one execution (one TaskContext) has published, by the
// id the planner gave them (runtime_filter_planner.h). A hash join publishes each of its filters
// once, when its build side is complete; scans look their filters up between batches and use
// whatever has arrived. A filter that never arrives (its join runs in another task, or its build
// spilled) only means the scan reads every row: the answer never depends on it.
//
// Published filters are immutable; the registry is safe to use from any thread. Besides the
// filters it keeps one line per published filter for EXPLAIN ANALYZE (which join built it).
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "shoal/exec/join/runtime_filter.h"

namespace shoal::exec {

class RuntimeFilterRegistry {
 public:
  /// Publishes filter `id`; a second publication of the same id is ignored (the first stays).
  void Publish(int id, std::shared_ptr<const RuntimeFilter> filter);

  /// Filter `id`, or null while it has not been published.
  std::shared_ptr<const RuntimeFilter> Find(int id) const;

 private:
  mutable std::mutex mutex_;
  std::map<int, std::shared_ptr<const RuntimeFilter>> filters_;
};

}  // namespace shoal::exec

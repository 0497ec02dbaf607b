// RuntimeFilterRegistry: the runtime filters one execution (one TaskContext) has published, by the
// id the planner gave them (runtime_filter_planner.h). A hash join publishes each of its filters
// once, when its build side is complete; scans look their filters up between batches and use
// whatever has arrived, after waiting a bounded time for the missing ones before their first
// batch (WaitFor) when it comes from another stage. A filter that never arrives (its build spilled,
// or its join runs elsewhere and the coordinator's copy came too late) only means the scan reads
// every row: the answer never depends on it.
//
// Distributed execution (docs/architecture.md, "Runtime join filters"): a worker task exports
// the filters the coordinator asked for (SetExport) as their joins build them, and receives
// merged filters of other stages' joins through Publish. A partitioned join publishes one part
// per partition (PublishPart); their union is this execution's filter once every part is in. In
// a task that holds only some of the join's partitions (`partial_parts`), that union is only the
// task's share: it is exported, never used locally.
//
// Published filters are immutable; the registry is safe to use from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "shoal/exec/join/runtime_filter.h"

namespace shoal::exec {

class RuntimeFilterRegistry {
 public:
  /// Receives an exported filter: `complete` when it holds every build key of the query (a
  /// collect-build join's), else one task's share (a partitioned join's partitions in this task).
  using Exporter =
      std::function<void(int id, std::shared_ptr<const RuntimeFilter> filter, bool complete)>;

  /// Publishes filter `id`; a second publication of the same id is ignored (the first stays).
  void Publish(int id, std::shared_ptr<const RuntimeFilter> filter);

  /// Publishes filter `id` built by a collect-build join of this execution (every build key):
  /// used here and exported when asked for.
  void PublishBuilt(int id, std::shared_ptr<const RuntimeFilter> filter);

  /// Partition `part` of a partitioned join with `num_parts` partitions here publishes the filter
  /// of its share (built mergeable); once all parts are in, their union is published (or only
  /// exported, with partial parts). A part whose build spilled passes null: the filter is
  /// abandoned.
  Status PublishPart(int id, int part, int num_parts, std::shared_ptr<const RuntimeFilter> filter,
                     const std::shared_ptr<MemoryPool>& pool);

  /// Filter `id` will not be published here: waiters stop waiting for it.
  void Abandon(int id);

  /// Filter `id`, or null while it has not been published.
  std::shared_ptr<const RuntimeFilter> Find(int id) const;

  /// Filters `ids` will be delivered from outside (Publish) while the plan runs: the coordinator
  /// forwards them from another stage. Scans wait only for these: a filter of this execution's
  /// own joins is published before the probe side opens. Set before the plan runs.
  void Expect(const std::set<int>& ids);
  bool IsExpected(int id) const;

  /// Waits until each expected one of `ids` was published or abandoned, or until `wait` after
  /// the first wait for any of them in this execution began (so scan partitions that start one
  /// after another do not each wait the whole time); true when all of `ids` were published.
  bool WaitFor(const std::vector<int>& ids, std::chrono::milliseconds wait);

  /// Exports filters `ids` to `exporter` as they are built here (called from the publishing
  /// thread, without the registry's lock). `partial_parts`: this execution holds only some
  /// partitions of a partitioned join, so the union of its parts is exported and not published.
  /// Set before the plan runs.
  void SetExport(std::set<int> ids, bool partial_parts, Exporter exporter);

 private:
  struct Parts {
    int received = 0;
    std::vector<std::shared_ptr<const RuntimeFilter>> filters;
    std::set<int> seen;
    bool abandoned = false;
  };

  // Publishes under the lock held by `lock`; unlocks it.
  void PublishLocked(std::unique_lock<std::mutex>& lock, int id,
                     std::shared_ptr<const RuntimeFilter> filter);

  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  std::map<int, std::shared_ptr<const RuntimeFilter>> filters_;
  std::set<int> abandoned_;
  std::set<int> expected_;
  std::map<int, std::chrono::steady_clock::time_point> first_wait_;
  std::map<int, Parts> parts_;
  std::set<int> export_ids_;
  bool partial_parts_ = false;
  Exporter exporter_;
};

}  // namespace shoal::exec

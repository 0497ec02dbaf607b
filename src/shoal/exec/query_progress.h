// QueryProgress: how much of its input a running query has read, for progress lines (the shell's
// now; the server's and the console's views read the same fact).
//
// The runner sets the total from the plan's scans before the query starts (the bytes of every
// scan unit); scans credit the bytes of a unit as its rows come out (in proportion to the unit's
// rows when the provider knows them, the rest when the unit ends), so a query that reads one
// large file still moves. Relaxed atomics: a reader wants an estimate, never a consistent
// snapshot, and the scans' hot path pays one relaxed add per batch. A distributed query's scans
// run on its workers: the coordinator sets a remote source (SetRemoteRead) that Read() adds,
// which asks the workers how far their tasks are (distributed/coordinator/remote_progress.h),
// and which also tells how far each stage is (the shell's line and the console show it per stage).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shoal::exec {

class QueryProgress {
 public:
  /// The tasks of one stage that one worker holds (as its last answer listed them).
  struct WorkerTasks {
    std::string worker;  // HOST:PORT
    int running = 0;
    int done = 0;
  };

  /// One stage of a distributed query, as its workers last told.
  struct StageProgress {
    int stage_id = 0;
    int64_t bytes_total = 0;  // of the stage's scans; 0: it scans nothing (reads other stages)
    int64_t bytes_read = 0;
    int64_t rows = 0;  // served to its consumers so far
    int tasks_done = 0;
    int tasks_total = 0;               // 0: not dispatched yet (adaptive task counts)
    std::vector<WorkerTasks> workers;  // by worker address; tasks not yet seen are in no entry
  };

  struct Snapshot {
    int64_t bytes_total = 0;  // 0: unknown (no scan of known size)
    int64_t bytes_read = 0;
    std::vector<StageProgress> stages;  // by stage id; empty for a query that runs here only
  };

  /// What a remote source adds: bytes read elsewhere and the stages there.
  struct Remote {
    int64_t bytes_read = 0;
    std::vector<StageProgress> stages;
  };

  void AddTotal(int64_t bytes) { bytes_total_.fetch_add(bytes, std::memory_order_relaxed); }
  void AddRead(int64_t bytes) { bytes_read_.fetch_add(bytes, std::memory_order_relaxed); }

  /// Bytes read elsewhere, added by Read(), and the stages there (replaces an earlier source).
  using RemoteRead = std::function<Remote()>;
  void SetRemoteRead(RemoteRead remote) {
    auto shared = std::make_shared<const RemoteRead>(std::move(remote));
    std::lock_guard<std::mutex> lock(remote_mutex_);
    remote_ = std::move(shared);
  }

  Snapshot Read() const {
    Snapshot s{bytes_total_.load(std::memory_order_relaxed),
               bytes_read_.load(std::memory_order_relaxed),
               {}};
    std::shared_ptr<const RemoteRead> remote;
    {
      std::lock_guard<std::mutex> lock(remote_mutex_);
      remote = remote_;
    }
    if (remote && *remote) {
      Remote r = (*remote)();
      s.bytes_read += r.bytes_read;
      s.stages = std::move(r.stages);
    }
    return s;
  }

 private:
  std::atomic<int64_t> bytes_total_{0};
  std::atomic<int64_t> bytes_read_{0};
  mutable std::mutex remote_mutex_;
  std::shared_ptr<const RemoteRead> remote_;
};

}  // namespace shoal::exec

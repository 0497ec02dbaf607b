// RemoteProgress: how far a distributed query's tasks are on its workers, in total and per stage,
// for the progress line and the console (exec/query_progress.h adds it to the coordinator's own
// count).
//
// Pull, not push: a reader asks, and this asks each worker of the query (GetTaskProgress, one
// unary call with a 1 s deadline) at most every kPollInterval; a reader that comes sooner, or
// while another polls, gets the last figure. Nothing is sent while nobody watches, and the task
// streams carry nothing extra. Each task's figures are kept at the largest value seen, so a task
// that ended (and left its worker) still counts what it read; a task that ended between two polls
// unseen is missed, which only makes the estimate lower while the query runs.
//
// A task is done while the worker says so (every stream consumers opened on it has ended) and
// once it is gone from a worker that listed it before. The coordinator tells each stage's task
// count and scan bytes (AddStage) as it dispatches the stage: a stage not yet dispatched (adaptive
// task counts) is not listed.
//
// Thread safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/query_progress.h"

namespace shoal::distributed {

class RemoteProgress {
 public:
  static constexpr std::chrono::milliseconds kPollInterval{500};

  RemoteProgress(ChannelResolverPtr channels, std::vector<std::string> workers,
                 std::string query_id);

  /// A stage was dispatched with `task_count` tasks whose scans read `bytes_total` bytes.
  void AddStage(int stage_id, int task_count, int64_t bytes_total);

  /// What the query's tasks have done on the workers, as of the last poll (polls if it is older
  /// than kPollInterval).
  exec::QueryProgress::Remote Read();

  /// Bytes the query's tasks have read on the workers, as of the last poll.
  int64_t BytesRead() { return Read().bytes_read; }

  /// The bytes the table scans of a task plan read (network exchanges' children are other
  /// stages: not entered).
  static int64_t ScanBytes(const exec::ExecutionPlan& plan);

 private:
  struct TaskFigures {
    std::string worker;
    int64_t bytes_read = 0;
    int64_t rows = 0;
    bool done = false;
  };
  struct StageFigures {
    int task_count = 0;
    int64_t bytes_total = 0;
  };

  void Poll();
  exec::QueryProgress::Remote SnapshotLocked() const;

  ChannelResolverPtr channels_;
  std::vector<std::string> workers_;
  std::string query_id_;
  std::mutex poll_mutex_;  // held by the one poller
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point last_poll_{};    // guarded by mutex_
  std::map<std::pair<int, int>, TaskFigures> per_task_;  // (stage, task); by mutex_
  std::map<int, StageFigures> stages_;                   // by mutex_
};

}  // namespace shoal::distributed

// RemoteProgress: how much input a distributed query's tasks have read on its workers, for the
// progress line and the console (exec/query_progress.h adds it to the coordinator's own count).
//
// Pull, not push: a reader asks, and this asks each worker of the query (GetTaskProgress, one
// unary call with a 1 s deadline) at most every kPollInterval; a reader that comes sooner, or
// while another polls, gets the last figure. Nothing is sent while nobody watches, and the task
// streams carry nothing extra. Each task's figure is kept at the largest value seen, so a task that
// ended (and left its worker) still counts what it read; a task that ended between two polls
// unseen is missed, which only makes the estimate lower while the query runs.
//
// Thread safety: BytesRead may be called from many threads at once.
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

namespace shoal::distributed {

class RemoteProgress {
 public:
  static constexpr std::chrono::milliseconds kPollInterval{500};

  RemoteProgress(ChannelResolverPtr channels, std::vector<std::string> workers,
                 std::string query_id);

  /// Bytes the query's tasks have read on the workers, as of the last poll.
  int64_t BytesRead();

  /// Bytes read per stage id, as of the last poll.
  std::map<int, int64_t> BytesReadByStage() const;

 private:
  void Poll();

  ChannelResolverPtr channels_;
  std::vector<std::string> workers_;
  std::string query_id_;
  std::mutex poll_mutex_;  // held by the one poller
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point last_poll_{};  // guarded by mutex_
  std::map<std::pair<int, int>, int64_t> per_task_;    // (stage, task) -> bytes; by mutex_
  std::atomic<int64_t> total_{0};
};

}  // namespace shoal::distributed

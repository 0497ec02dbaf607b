// StatementTimer: statement_timeout for `shoal server`. One thread for the whole server keeps the
// deadlines of the statements running now and, when one passes, calls that statement's expiry
// action (which cancels it: QueryRunner::CancelRunning). A connection arms a deadline before a
// statement runs and disarms it after; Disarm tells whether the deadline had fired, so the
// connection reports "canceling statement due to statement timeout" instead of a user cancel.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace shoal::server {

class StatementTimer {
 public:
  using Clock = std::chrono::steady_clock;

  StatementTimer();
  ~StatementTimer();
  StatementTimer(const StatementTimer&) = delete;
  StatementTimer& operator=(const StatementTimer&) = delete;

  /// Calls `on_expiry` (on the timer's thread) at `deadline` unless disarmed first.
  uint64_t Arm(Clock::time_point deadline, std::function<void()> on_expiry);
  /// Forgets timer `id`; true when it had already fired.
  bool Disarm(uint64_t id);

 private:
  void Loop();

  struct Entry {
    Clock::time_point deadline;
    std::function<void()> on_expiry;
    bool fired = false;
  };
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<uint64_t, Entry> entries_;
  uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace shoal::server

// StartThread: starts a std::thread and reports the OS's refusal as a Status instead of throwing.
//
// std::thread's constructor throws std::system_error when the OS refuses a thread (EAGAIN: the
// process or user is at its limit of processes or threads, or memory is short), which a loaded
// machine does. Shoal code does not throw, and that exception is worse than most: thrown while an
// operator starts its Nth thread, it unwinds past the joinable std::thread objects of the first
// N-1, whose destructors call std::terminate. A query must fail instead, with its threads stopped
// and joined. Every place that starts a thread for a query starts it here and, on an error, stops
// and joins the threads it already started before it returns the error.
//
// Tests cannot make the OS refuse a thread (RLIMIT_NPROC does not bind root, and tests run as
// root), so testing::ScopedThreadStartFailure makes the starts after a chosen one fail instead.
// Thread safety: StartThread may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <thread>

#include "shoal/common/result.h"

namespace shoal {

/// Runs `fn` on a new thread. On failure (OutOfMemory, SQLSTATE 53000) the message names `what`
/// the thread was for ("a CoalescePartitions producer") and the OS's reason.
Result<std::thread> StartThread(std::string_view what, std::function<void()> fn);

namespace testing {

/// Test only: while one is alive, the first `starts_that_succeed` calls of StartThread from its
/// construction on (in any thread) start their thread and every later call fails as the OS's
/// EAGAIN would. Not nested; the cost outside tests is one relaxed atomic load per start.
class ScopedThreadStartFailure {
 public:
  explicit ScopedThreadStartFailure(int64_t starts_that_succeed);
  ~ScopedThreadStartFailure();
  ScopedThreadStartFailure(const ScopedThreadStartFailure&) = delete;
  ScopedThreadStartFailure& operator=(const ScopedThreadStartFailure&) = delete;

  /// Calls that failed because of this object so far.
  int64_t failures() const;
};

}  // namespace testing
}  // namespace shoal

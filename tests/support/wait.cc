#include "tests/support/wait.h"

#include <algorithm>
#include <thread>

namespace shoal::testing {

namespace {

using Clock = std::chrono::steady_clock;

// The pause between polls: short at first, so a state reached quickly is seen quickly, then
// backing off so that a long wait does not spin.
class Backoff {
 public:
  void Pause() {
    std::this_thread::sleep_for(pause_);  // the poll interval, not a synchronisation
    pause_ = std::min(pause_ * 2, std::chrono::milliseconds(20));
  }

 private:
  std::chrono::milliseconds pause_{1};
};

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

}  // namespace

::testing::AssertionResult WaitFor(const std::function<bool()>& done, std::string_view what,
                                   std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  Backoff backoff;
  for (;;) {
    if (done())
      return ::testing::AssertionSuccess();
    if (Clock::now() >= deadline)
      return ::testing::AssertionFailure()
             << "timed out after " << MillisSince(start) << " ms waiting for " << what;
    backoff.Pause();
  }
}

::testing::AssertionResult HoldsFor(const std::function<bool()>& holds, std::string_view what,
                                    std::chrono::milliseconds window) {
  const auto start = Clock::now();
  const auto end = start + window;
  Backoff backoff;
  for (;;) {
    if (!holds())
      return ::testing::AssertionFailure()
             << what << " stopped holding after " << MillisSince(start) << " ms";
    if (Clock::now() >= end)
      return ::testing::AssertionSuccess();
    backoff.Pause();
  }
}

}  // namespace shoal::testing

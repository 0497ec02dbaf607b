#include "tests/support/wait.h"

#include <algorithm>
#include <filesystem>
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

// Polls `stop` until it returns true (then true) or `limit` passes (then false).
bool PollUntil(const std::function<bool()>& stop, Clock::time_point limit) {
  Backoff backoff;
  for (;;) {
    if (stop())
      return true;
    if (Clock::now() >= limit)
      return false;
    backoff.Pause();
  }
}

}  // namespace

::testing::AssertionResult WaitFor(const std::function<bool()>& done, std::string_view what,
                                   std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  if (PollUntil(done, start + timeout))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "timed out after " << MillisSince(start) << " ms waiting for " << what;
}

::testing::AssertionResult HoldsFor(const std::function<bool()>& holds, std::string_view what,
                                    std::chrono::milliseconds window) {
  const auto start = Clock::now();
  if (!PollUntil([&] { return !holds(); }, start + window))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " stopped holding after " << MillisSince(start) << " ms";
}

int ProcessThreadCount() {
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task");
       it != std::filesystem::directory_iterator(); ++it)
    ++n;
  return n;
}

}  // namespace shoal::testing

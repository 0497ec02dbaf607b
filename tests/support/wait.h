// Test support: waiting for a state instead of sleeping for a while.
//
// A test that sleeps "long enough" for another thread or process to get somewhere is slow where
// the machine is fast and flaky where it is loaded (sanitizers, two cores shared by a whole CI
// job). WaitFor polls the state the test needs, returns as soon as it holds, and gives up only
// after a deadline far beyond any plausible delay, failing with what it was waiting for:
//
//   ASSERT_TRUE(WaitFor([&] { return worker->num_tasks() == 0; }, "the worker to drop its task"));
//
// Polling starts at 1 ms and backs off to 20 ms, so a state reached quickly is seen quickly and a
// long wait costs little. For a negative property ("the producer stays blocked") no wait can
// prove that nothing will ever happen; HoldsFor watches a predicate for a fixed window instead,
// and a test should first WaitFor the state from which the misbehaviour would start (the
// producer has filled its buffer), so that the window cannot pass vacuously.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

#include <gtest/gtest.h>

namespace shoal::testing {

/// Long enough for anything a test waits on to happen on a loaded machine under sanitizers.
inline constexpr std::chrono::milliseconds kWaitTimeout{60000};

/// Polls `done` until it returns true (success) or `timeout` passes (a failure saying "timed out
/// after N ms waiting for <what>"). Use with ASSERT_TRUE / EXPECT_TRUE.
[[nodiscard]] ::testing::AssertionResult WaitFor(const std::function<bool()>& done,
                                                 std::string_view what,
                                                 std::chrono::milliseconds timeout = kWaitTimeout);

/// Polls `holds` for the whole `window`: success if it held at every poll, else a failure saying
/// "<what> stopped holding after N ms". Only for negative properties (see above).
[[nodiscard]] ::testing::AssertionResult HoldsFor(const std::function<bool()>& holds,
                                                  std::string_view what,
                                                  std::chrono::milliseconds window);

/// The threads this process has now (/proc/self/task): a test that stopped something waits for
/// the count it had before, so that no thread is left behind.
int ProcessThreadCount();

}  // namespace shoal::testing

#include "shoal/common/thread_start.h"

#include <atomic>
#include <string>

#include <gtest/gtest.h>

namespace shoal {
namespace {

TEST(ThreadStartTest, StartsTheThread) {
  std::atomic<bool> ran{false};
  Result<std::thread> thread = StartThread("a test", [&ran] { ran = true; });
  ASSERT_TRUE(thread.ok()) << thread.status().ToString();
  ASSERT_TRUE(thread->joinable());
  thread->join();
  EXPECT_TRUE(ran.load());
}

TEST(ThreadStartTest, InjectedFailuresFollowTheSucceedingStarts) {
  std::atomic<int> ran{0};
  {
    testing::ScopedThreadStartFailure refuse(2);
    for (int i = 0; i < 2; ++i) {
      Result<std::thread> thread = StartThread("a test", [&ran] { ++ran; });
      ASSERT_TRUE(thread.ok()) << thread.status().ToString();
      thread->join();
    }
    for (int i = 0; i < 2; ++i) {
      Result<std::thread> refused = StartThread("a test's third thread", [&ran] { ++ran; });
      ASSERT_EQ(refused.status().code(), StatusCode::kOutOfMemory);
      EXPECT_EQ(refused.status().sqlstate(), "53000");
      EXPECT_NE(refused.status().message().find("cannot start a thread for a test's third thread"),
                std::string::npos)
          << refused.status().ToString();
    }
    EXPECT_EQ(refuse.failures(), 2);
  }
  EXPECT_EQ(ran.load(), 2);
  // Once the object is gone, threads start again.
  Result<std::thread> thread = StartThread("a test", [&ran] { ++ran; });
  ASSERT_TRUE(thread.ok()) << thread.status().ToString();
  thread->join();
  EXPECT_EQ(ran.load(), 3);
}

}  // namespace
}  // namespace shoal

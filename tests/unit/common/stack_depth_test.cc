// CheckStackDepth turns runaway recursion into SQLSTATE 54001 on any thread, and RunWithStack
// gives bounded deep work the stack it needs.
#include "shoal/common/stack_depth.h"

#include <thread>

#include <gtest/gtest.h>

namespace shoal {
namespace {

// Recurses until CheckStackDepth refuses; returns the depth reached (frames of ~1kB).
int RecurseUntilRefused(int depth, Status* status) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  Status s = CheckStackDepth();
  if (!s.ok()) {
    *status = std::move(s);
    return depth;
  }
  return RecurseUntilRefused(depth + 1, status) + (frame[0] & 0);
}

TEST(StackDepthTest, DeepRecursionEndsIn54001WithAHint) {
  Status status;
  int depth = RecurseUntilRefused(0, &status);
  EXPECT_EQ(status.sqlstate(), "54001");
  EXPECT_EQ(status.message(), "stack depth limit exceeded");
  EXPECT_NE(status.hint().find("stack"), std::string::npos);
  EXPECT_GT(depth, 100);  // a thread's stack holds well over 100kB of frames
}

TEST(StackDepthTest, WorksOnOtherThreadsWithTheirOwnStacks) {
  Status status;
  int depth = 0;
  std::thread t([&] { depth = RecurseUntilRefused(0, &status); });
  t.join();
  EXPECT_EQ(status.sqlstate(), "54001");
  EXPECT_GT(depth, 100);
}

TEST(StackDepthTest, RunWithStackGivesDeeperRecursion) {
  Status small;
  int small_depth = 0;
  ASSERT_TRUE(
      RunWithStack(size_t{1} << 20, [&] { small_depth = RecurseUntilRefused(0, &small); }).ok());
  Status big;
  int big_depth = 0;
  ASSERT_TRUE(
      RunWithStack(size_t{64} << 20, [&] { big_depth = RecurseUntilRefused(0, &big); }).ok());
  EXPECT_EQ(small.sqlstate(), "54001");
  EXPECT_EQ(big.sqlstate(), "54001");
  EXPECT_GT(big_depth, 20 * small_depth);
  EXPECT_GT(RemainingStack(), size_t{64} << 10);
}

}  // namespace
}  // namespace shoal

#include "shoal/common/memory_pool.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace shoal {
namespace {

TEST(MemoryPoolTest, AllocationsAreAlignedPaddedAndCounted) {
  auto root = MemoryPool::MakeRoot("query", 1 << 20);
  auto op = root->MakeChild("HashJoin#1");
  auto p = op->Allocate(100);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 64, 0u);
  EXPECT_EQ(op->bytes_used(), 128);
  EXPECT_EQ(root->bytes_used(), 128);
  // Padding is zeroed so nothing stale reaches disk or the wire.
  for (int i = 100; i < 128; ++i)
    EXPECT_EQ((*p)[i], 0);
  op->Free(*p, 100);
  EXPECT_EQ(op->bytes_used(), 0);
  EXPECT_EQ(root->bytes_used(), 0);
  EXPECT_EQ(op->peak_bytes(), 128);
}

TEST(MemoryPoolTest, RefusesOverLimitAndNamesThePool) {
  auto root = MemoryPool::MakeRoot("query q7", 1000);
  auto op = root->MakeChild("Sort#2");
  auto first = op->Allocate(512);
  ASSERT_TRUE(first.ok());
  auto second = op->Allocate(512);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(second.status().UserMessage().find("memory limit exceeded"), std::string::npos);
  EXPECT_NE(second.status().UserMessage().find("query q7"), std::string::npos);
  EXPECT_NE(second.status().UserMessage().find("Sort#2"), std::string::npos);
  // A refused request leaves the accounting untouched.
  EXPECT_EQ(op->bytes_used(), 512);
  EXPECT_EQ(root->bytes_used(), 512);
  op->Free(*first, 512);
}

// Which operators filled a query is what a user needs to act on a refusal (lower their memory, or
// raise memory_limit): the message names the largest leaf pools at any depth, largest first.
TEST(MemoryPoolTest, RefusalNamesTheLargestHolders) {
  auto query = MemoryPool::MakeRoot("query", 10000);
  auto task = query->MakeChild("task 1");
  auto join = task->MakeChild("HashJoin[0]");
  auto agg = task->MakeChild("HashAggregate[1]");
  auto scan = query->MakeChild("Scan[0]");
  ASSERT_TRUE(join->Reserve(3000).ok());
  ASSERT_TRUE(agg->Reserve(6000).ok());
  const Status refused = scan->Reserve(2000);
  ASSERT_EQ(refused.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(refused.UserMessage().find("largest holders: HashAggregate[1] 5.9 KiB, HashJoin[0] "
                                       "2.9 KiB"),
            std::string::npos)
      << refused.UserMessage();
  // A pool gone is no longer listed; an empty one never is.
  join->Release(3000);
  join.reset();
  const Status again = scan->Reserve(5000);
  EXPECT_EQ(again.UserMessage().find("HashJoin"), std::string::npos) << again.UserMessage();
  EXPECT_NE(again.UserMessage().find("largest holders: HashAggregate[1] 5.9 KiB"),
            std::string::npos)
      << again.UserMessage();
  EXPECT_EQ(again.UserMessage().find("Scan[0] 0"), std::string::npos) << again.UserMessage();
  agg->Release(6000);
}

TEST(MemoryPoolTest, ChildLimitAppliesBeforeParent) {
  auto root = MemoryPool::MakeRoot("query");
  auto op = root->MakeChild("Aggregate", 256);
  EXPECT_TRUE(op->Reserve(256).ok());
  EXPECT_EQ(op->Reserve(1).code(), StatusCode::kOutOfMemory);
  op->Release(256);
  EXPECT_EQ(root->bytes_used(), 0);
}

TEST(MemoryPoolTest, ReallocateKeepsContents) {
  auto pool = MemoryPool::MakeRoot("q");
  auto p = pool->Allocate(10);
  ASSERT_TRUE(p.ok());
  for (int i = 0; i < 10; ++i)
    (*p)[i] = static_cast<uint8_t>(i);
  auto q = pool->Reallocate(*p, 10, 1000);
  ASSERT_TRUE(q.ok());
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ((*q)[i], i);
  EXPECT_EQ(pool->bytes_used(), 1024);
  pool->Free(*q, 1000);
  EXPECT_EQ(pool->bytes_used(), 0);
}

TEST(MemoryPoolTest, ConcurrentReservationsBalance) {
  auto root = MemoryPool::MakeRoot("query", 1 << 30);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&root, t] {
      auto op = root->MakeChild("op" + std::to_string(t));
      for (int i = 0; i < 10000; ++i) {
        ASSERT_TRUE(op->Reserve(64).ok());
        op->Release(64);
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(root->bytes_used(), 0);
}

TEST(FormatBytesTest, HumanUnits) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(3LL << 30), "3.0 GiB");
}

}  // namespace
}  // namespace shoal

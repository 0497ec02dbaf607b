#include "shoal/common/thread_pool.h"

#include <atomic>

#include <gtest/gtest.h>

#include "shoal/common/thread_start.h"

namespace shoal {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskAndReturnsResults) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.num_threads(), 3);
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 100; ++i)
    futures.push_back(pool.Submit([i] { return i * i; }));
  int64_t sum = 0;
  for (auto& f : futures)
    sum += f.get();
  EXPECT_EQ(sum, 328350);
}

TEST(ThreadPoolTest, DestructorDrainsQueuedTasks) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(1);
    for (int i = 0; i < 50; ++i)
      (void)pool.Submit([&done] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 50);
}

TEST(ThreadPoolTest, TasksMaySubmitTasks) {
  ThreadPool pool(2);
  auto outer = pool.Submit([&pool] { return pool.Submit([] { return 7; }); });
  EXPECT_EQ(outer.get().get(), 7);
}

TEST(ThreadPoolTest, DestroyedFromItsOwnWorker) {
  // A task that drops the last reference to the pool must not deadlock or crash.
  auto pool = std::make_shared<ThreadPool>(2);
  std::promise<void> done;
  auto* raw = pool.get();
  (void)raw->Submit([p = std::move(pool), &done]() mutable {
    p.reset();
    done.set_value();
  });
  done.get_future().wait();
}

// The OS refusing a thread (a loaded machine at its process limit) must not crash: the pool
// keeps the threads it got, says why it has fewer, and still runs every task.
TEST(ThreadPoolTest, AThreadTheOSRefusesLeavesASmallerPool) {
  testing::ScopedThreadStartFailure refuse(2);
  ThreadPool pool(4);
  EXPECT_EQ(pool.num_threads(), 2);
  EXPECT_EQ(pool.start_status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(pool.start_status().message().find("a pool of 4 threads (2 started)"),
            std::string::npos)
      << pool.start_status().ToString();
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 20; ++i)
    futures.push_back(pool.Submit([i] { return i; }));
  int sum = 0;
  for (auto& f : futures)
    sum += f.get();
  EXPECT_EQ(sum, 190);
}

TEST(ThreadPoolTest, APoolWithoutThreadsRunsTasksOnTheCaller) {
  testing::ScopedThreadStartFailure refuse(0);
  ThreadPool pool(2);
  EXPECT_EQ(pool.num_threads(), 0);
  EXPECT_FALSE(pool.start_status().ok());
  const auto caller = std::this_thread::get_id();
  auto ran_on = pool.Submit([] { return std::this_thread::get_id(); });
  EXPECT_EQ(ran_on.get(), caller);
  EXPECT_TRUE(pool.WaitIdle());
}

}  // namespace
}  // namespace shoal

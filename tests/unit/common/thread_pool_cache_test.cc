// ThreadPoolCache (src/shoal/common/thread_pool_cache.h): a dropped pool is kept for the next
// Acquire of its size once its tasks are done, within the idle-thread cap; a pool whose last owner
// is one of its own tasks is not kept, nor one the OS gave fewer threads than asked for.
#include "shoal/common/thread_pool_cache.h"

#include <atomic>
#include <future>

#include <gtest/gtest.h>

#include "shoal/common/thread_start.h"

namespace shoal {
namespace {

TEST(ThreadPoolCacheTest, ADroppedPoolServesTheNextAcquireOfItsSize) {
  ThreadPoolCache cache(16);
  std::shared_ptr<ThreadPool> pool = cache.Acquire(3);
  ThreadPool* first = pool.get();
  EXPECT_EQ(pool->Submit([] { return 7; }).get(), 7);
  pool.reset();
  EXPECT_EQ(cache.idle_threads(), 3);
  std::shared_ptr<ThreadPool> other_size = cache.Acquire(2);
  EXPECT_NE(other_size.get(), first);
  std::shared_ptr<ThreadPool> again = cache.Acquire(3);
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(cache.idle_threads(), 0);
  EXPECT_EQ(again->Submit([] { return 8; }).get(), 8);
}

TEST(ThreadPoolCacheTest, DroppingWaitsForTheTasksLikeDestroyingDid) {
  ThreadPoolCache cache(16);
  std::atomic<int> done{0};
  {
    std::shared_ptr<ThreadPool> pool = cache.Acquire(1);
    for (int i = 0; i < 50; ++i)
      (void)pool->Submit([&done] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 50);
  EXPECT_EQ(cache.idle_threads(), 1);
}

TEST(ThreadPoolCacheTest, IdleThreadsStayWithinTheCap) {
  ThreadPoolCache cache(4);
  std::shared_ptr<ThreadPool> a = cache.Acquire(3);
  std::shared_ptr<ThreadPool> b = cache.Acquire(3);
  a.reset();
  b.reset();  // 6 idle threads would pass the cap of 4: destroyed
  EXPECT_EQ(cache.idle_threads(), 3);
}

TEST(ThreadPoolCacheTest, APoolDroppedByItsOwnTaskIsNotKept) {
  ThreadPoolCache cache(16);
  std::shared_ptr<ThreadPool> pool = cache.Acquire(2);
  std::promise<void> go;
  std::promise<void> dropped;
  (void)pool->Submit([keep = pool, wait = go.get_future().share(), &dropped]() mutable {
    wait.wait();
    keep.reset();  // the last owner: the pool is destroyed from its own thread
    dropped.set_value();
  });
  pool.reset();
  go.set_value();
  dropped.get_future().wait();
  EXPECT_EQ(cache.idle_threads(), 0);
}

TEST(ThreadPoolCacheTest, APoolShortOfThreadsIsNotKept) {
  ThreadPoolCache cache(16);
  {
    testing::ScopedThreadStartFailure refuse(1);
    std::shared_ptr<ThreadPool> pool = cache.Acquire(3);
    EXPECT_EQ(pool->num_threads(), 1);
    EXPECT_FALSE(pool->start_status().ok());
  }
  EXPECT_EQ(cache.idle_threads(), 0);
  // The next query asks the OS again and gets its threads.
  std::shared_ptr<ThreadPool> pool = cache.Acquire(3);
  EXPECT_EQ(pool->num_threads(), 3);
  EXPECT_TRUE(pool->start_status().ok());
}

}  // namespace
}  // namespace shoal

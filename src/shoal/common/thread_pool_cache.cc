#include "shoal/common/thread_pool_cache.h"

#include <algorithm>
#include <utility>

namespace shoal {

ThreadPoolCache::ThreadPoolCache(int max_idle_threads) : max_idle_threads_(max_idle_threads) {}

ThreadPoolCache::~ThreadPoolCache() = default;

ThreadPoolCache& ThreadPoolCache::Global() {
  // Leaked on purpose: a query's pool may be returned from a static destructor. The one shared
  // mutable object is the point of a process-wide cache.
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
  static auto* const kCache =
      new ThreadPoolCache(std::max(16, 4 * ThreadPool::HardwareConcurrency()));
  return *kCache;
}

std::shared_ptr<ThreadPool> ThreadPoolCache::Acquire(int num_threads) {
  if (num_threads <= 0)
    num_threads = ThreadPool::HardwareConcurrency();
  std::unique_ptr<ThreadPool> pool;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = idle_.find(num_threads);
    if (it != idle_.end() && !it->second.empty()) {
      pool = std::move(it->second.back());
      it->second.pop_back();
      idle_threads_ -= num_threads;
    }
  }
  if (!pool)
    pool = std::make_unique<ThreadPool>(num_threads);
  return {pool.release(), [this](ThreadPool* returned) { Return(returned); }};
}

void ThreadPoolCache::Return(ThreadPool* pool) {
  std::unique_ptr<ThreadPool> owned(pool);
  // Waiting for the pool's tasks here is what destroying it would do (its destructor drains the
  // queue and joins). The last owner may be one of the pool's own tasks: then the pool is
  // destroyed, and its destructor detaches that thread as it always did.
  if (!owned->WaitIdle())
    return;
  // A pool short of threads is not kept: the next query asks the OS again.
  if (!owned->start_status().ok())
    return;
  std::lock_guard<std::mutex> lock(mutex_);  // released before `owned` is destroyed
  if (idle_threads_ + owned->num_threads() > max_idle_threads_)
    return;
  idle_threads_ += owned->num_threads();
  idle_[owned->num_threads()].push_back(std::move(owned));
}

int ThreadPoolCache::idle_threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_threads_;
}

}  // namespace shoal

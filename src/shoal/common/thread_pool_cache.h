// ThreadPoolCache: keeps the thread pools of finished queries for the next ones.
//
// Each query (and each task on a worker) runs on a ThreadPool of its own, sized by its `threads`
// setting: sharing one pool between queries would let one query's blocking tasks starve another's
// (ThreadPool's rule: tasks must not wait on tasks of the same pool). But starting and joining
// those threads for every statement made short statements slow: with 16 clients running
// `SELECT 1` on `shoal server`, creating and joining threads and the wake-ups around them were the
// largest cost. A pool acquired here goes back to the cache when its last owner drops it, after
// its tasks have finished (the wait its destructor did before); the next query of the same size
// takes it. A pool is only ever in use by one query at a time.
//
// At most `max_idle_threads` threads wait in the cache; beyond that a returned pool is destroyed.
// Thread safety: Acquire and the return path may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "shoal/common/thread_pool.h"

namespace shoal {

class ThreadPoolCache {
 public:
  explicit ThreadPoolCache(int max_idle_threads);
  ~ThreadPoolCache();
  ThreadPoolCache(const ThreadPoolCache&) = delete;
  ThreadPoolCache& operator=(const ThreadPoolCache&) = delete;

  /// The process's cache: idle threads up to four times the hardware's (at least 16). Never
  /// destroyed, so that pools returned during static destruction find it.
  static ThreadPoolCache& Global();

  /// A pool of `num_threads` threads (<= 0: one per hardware thread), from the cache when one of
  /// that size waits there. The pool returns to the cache when the last copy is dropped.
  std::shared_ptr<ThreadPool> Acquire(int num_threads);

  /// Idle threads waiting in the cache now (for tests).
  int idle_threads() const;

 private:
  void Return(ThreadPool* pool);

  const int max_idle_threads_;
  mutable std::mutex mutex_;
  int idle_threads_ = 0;
  std::map<int, std::vector<std::unique_ptr<ThreadPool>>> idle_;  // by size
};

}  // namespace shoal

// ThreadPool: a fixed set of worker threads that run submitted tasks in FIFO order.
//
// The execution engine runs the partitions of a plan as tasks on one pool sized to the machine (the
// `threads` setting); workers and the coordinator own one each. Tasks must not block on other tasks
// of the same pool (that can deadlock a small pool); blocking waits belong on futures held by
// callers outside the pool.
//
// Shutdown: the destructor stops accepting work, lets queued tasks finish and joins the threads.
// It may run on one of the pool's own workers (a task dropping the last reference to what owns the
// pool): that worker is detached instead of joined, and it exits once its task returns, since the
// queue state it touches is shared with it rather than owned by the pool object.
//
// Start-up: when the OS refuses a thread (a loaded machine at its process limit), the pool runs
// with the threads it got and start_status() says why; CollectAll fails the query with it. A pool
// that got none runs each task on the thread that submits it, so that nothing waits forever.
// Thread safety: Submit may be called from any thread, including from inside a task.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "shoal/common/status.h"

namespace shoal {

class ThreadPool {
 public:
  /// `num_threads` <= 0 means one per hardware thread.
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(threads_.size()); }

  /// OK, or why the pool has fewer threads than it was asked for (see "Start-up" above).
  const Status& start_status() const { return start_status_; }

  /// Waits until no task is queued or running: what the destructor waits for, without stopping
  /// the threads. Only meaningful to a sole owner (nobody else can submit meanwhile), and never
  /// from one of the pool's own tasks (false then, at once: it would wait for itself).
  /// ThreadPoolCache calls it before it keeps a pool for the next query.
  bool WaitIdle();

  /// Queues `fn`; the future yields its result (or rethrows nothing: Shoal tasks return Status).
  template <typename Fn>
  auto Submit(Fn fn) -> std::future<std::invoke_result_t<Fn>> {
    using R = std::invoke_result_t<Fn>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(fn));
    std::future<R> future = task->get_future();
    Enqueue([task] { (*task)(); });
    return future;
  }

  /// Number of hardware threads (at least 1).
  static int HardwareConcurrency();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    std::condition_variable idle_cv;  // signalled when the last running task returns
    std::deque<std::function<void()>> queue;
    int running = 0;  // tasks taken from the queue and not yet returned
    bool stopping = false;
  };

  void Enqueue(std::function<void()> job);
  static void WorkerLoop(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::vector<std::thread> threads_;
  Status start_status_;
};

}  // namespace shoal

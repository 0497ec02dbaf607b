#include "shoal/common/thread_pool.h"

#include <utility>

#include "shoal/common/thread_start.h"

namespace shoal {

int ThreadPool::HardwareConcurrency() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0)
    num_threads = HardwareConcurrency();
  threads_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i) {
    Result<std::thread> thread =
        StartThread(fmt::format("a pool of {} threads ({} started)", num_threads, i),
                    [state = state_] { WorkerLoop(state); });
    if (!thread.ok()) {
      start_status_ = thread.status();
      break;
    }
    threads_.push_back(std::move(*thread));
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_all();
  const auto self = std::this_thread::get_id();
  for (auto& t : threads_) {
    if (t.get_id() == self) {
      t.detach();  // joining ourselves would deadlock; we exit when the current task returns
    } else {
      t.join();
    }
  }
}

bool ThreadPool::WaitIdle() {
  const auto self = std::this_thread::get_id();
  for (const auto& t : threads_) {
    if (t.get_id() == self)
      return false;
  }
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->idle_cv.wait(lock, [this] { return state_->queue.empty() && state_->running == 0; });
  return true;
}

void ThreadPool::Enqueue(std::function<void()> job) {
  if (threads_.empty()) {
    job();  // no thread started (start_status()): run it here rather than never
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->queue.push_back(std::move(job));
  }
  state_->cv.notify_one();
}

void ThreadPool::WorkerLoop(const std::shared_ptr<State>& state) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      state->cv.wait(lock, [&state] { return state->stopping || !state->queue.empty(); });
      if (state->queue.empty())
        return;  // stopping and drained
      job = std::move(state->queue.front());
      state->queue.pop_front();
      ++state->running;
    }
    job();
    job = nullptr;  // what the task captured goes before it counts as finished
    std::lock_guard<std::mutex> lock(state->mutex);
    if (--state->running == 0 && state->queue.empty())
      state->idle_cv.notify_all();
  }
}

}  // namespace shoal

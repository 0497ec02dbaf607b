#include "shoal/server/statement_timer.h"

#include <utility>

namespace shoal::server {

StatementTimer::StatementTimer() : thread_([this] { Loop(); }) {}

StatementTimer::~StatementTimer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t StatementTimer::Arm(Clock::time_point deadline, std::function<void()> on_expiry) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t id = next_id_++;
  entries_[id] = Entry{deadline, std::move(on_expiry), false};
  cv_.notify_all();
  return id;
}

bool StatementTimer::Disarm(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) {
    return false;
  }
  bool fired = it->second.fired;
  entries_.erase(it);
  return fired;
}

void StatementTimer::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    // The earliest deadline not yet fired.
    auto next = Clock::time_point::max();
    for (const auto& [id, e] : entries_) {
      if (!e.fired && e.deadline < next) {
        next = e.deadline;
      }
    }
    if (next == Clock::time_point::max()) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, next) == std::cv_status::no_timeout) {
      continue;  // woken: entries changed
    }
    const auto now = Clock::now();
    for (auto& [id, e] : entries_) {
      // Called under the lock, so a Disarm that returns has seen the firing or prevented it.
      if (!e.fired && e.deadline <= now) {
        e.fired = true;
        e.on_expiry();
      }
    }
  }
}

}  // namespace shoal::server

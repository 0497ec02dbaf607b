#include "shoal/server/query_admission.h"

#include <algorithm>

namespace shoal::server {

QueryAdmission::Ticket::~Ticket() {
  owner_->Release(memory_);
}

QueryAdmission::QueryAdmission(Limits limits) : limits_(limits) {}

Result<std::unique_ptr<QueryAdmission::Ticket>> QueryAdmission::Admit(
    int64_t memory, const std::atomic<bool>& interrupted) {
  const int64_t budget = limits_.memory_budget;
  if (budget <= 0) {
    memory = 0;
  } else if (memory <= 0 || memory > budget) {
    memory = budget;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  auto fits = [&] {
    return running_ < limits_.max_running && (budget <= 0 || reserved_ + memory <= budget);
  };
  if (queue_.empty() && fits()) {
    ++running_;
    reserved_ += memory;
    return std::unique_ptr<Ticket>(new Ticket(this, memory));
  }
  if (static_cast<int>(queue_.size()) >= limits_.max_queued) {
    return Status::Unavailable("too many statements are waiting to run ({} running, {} queued)",
                               running_, queue_.size())
        .WithSqlState("53300")
        .WithHint("try again later, or raise the server's --max-queued-queries");
  }
  const uint64_t me = next_waiter_++;
  queue_.push_back(me);
  cv_.wait(lock, [&] { return interrupted.load() || (queue_.front() == me && fits()); });
  queue_.erase(std::find(queue_.begin(), queue_.end(), me));
  if (interrupted.load()) {
    cv_.notify_all();  // the one behind may be first now
    return Status::Cancelled("canceling statement due to user request").WithSqlState("57014");
  }
  ++running_;
  reserved_ += memory;
  cv_.notify_all();  // the next in line may fit as well
  return std::unique_ptr<Ticket>(new Ticket(this, memory));
}

void QueryAdmission::Interrupt() {
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

void QueryAdmission::Release(int64_t memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  --running_;
  reserved_ -= memory;
  cv_.notify_all();
}

int QueryAdmission::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

int QueryAdmission::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(queue_.size());
}

}  // namespace shoal::server

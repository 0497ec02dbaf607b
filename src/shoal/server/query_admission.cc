#include "shoal/server/query_admission.h"

#include <algorithm>

namespace shoal::server {

QueryAdmission::Ticket::~Ticket() {
  owner_->Release(memory_);
}

QueryAdmission::QueryAdmission(Limits limits) : limits_(limits) {}

bool QueryAdmission::Fits(int64_t memory) const {
  return running_ < limits_.max_running &&
         (limits_.memory_budget <= 0 || reserved_ + memory <= limits_.memory_budget);
}

void QueryAdmission::AdmitWaiters() {
  while (!queue_.empty() && Fits(queue_.front()->memory)) {
    Waiter* next = queue_.front();
    queue_.pop_front();
    ++running_;
    reserved_ += next->memory;
    next->admitted = true;
    next->cv.notify_one();
  }
}

Result<std::unique_ptr<QueryAdmission::Ticket>> QueryAdmission::Admit(
    int64_t memory, const std::atomic<bool>& interrupted) {
  const int64_t budget = limits_.memory_budget;
  if (budget <= 0) {
    memory = 0;
  } else if (memory <= 0 || memory > budget) {
    memory = budget;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (queue_.empty() && Fits(memory)) {
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
  Waiter me;
  me.memory = memory;
  queue_.push_back(&me);
  me.cv.wait(lock, [&] { return me.admitted || interrupted.load(); });
  if (interrupted.load()) {
    if (me.admitted) {  // admitted and cancelled at once: give the room back
      --running_;
      reserved_ -= memory;
    } else {
      queue_.erase(std::find(queue_.begin(), queue_.end(), &me));
    }
    AdmitWaiters();  // the one behind may be first now, or fit in the room given back
    return Status::Cancelled("canceling statement due to user request").WithSqlState("57014");
  }
  return std::unique_ptr<Ticket>(new Ticket(this, memory));
}

void QueryAdmission::Interrupt() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Waiter* waiter : queue_)
    waiter->cv.notify_one();
}

void QueryAdmission::Release(int64_t memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  --running_;
  reserved_ -= memory;
  AdmitWaiters();
}

int QueryAdmission::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(queue_.size());
}

}  // namespace shoal::server

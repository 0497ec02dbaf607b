// QueryAdmission (src/shoal/server/query_admission.h): at most max_running tickets and their memory
// within the budget; waiters admitted first come first served as room is released, each woken only
// when it is admitted; a full queue refused with 53300; an interrupted waiter leaves with 57014.
#include "shoal/server/query_admission.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace shoal::server {
namespace {

using Ticket = std::unique_ptr<QueryAdmission::Ticket>;

// A statement waiting in its own thread; records the order in which the waiters got in.
class Waiting {
 public:
  Waiting(QueryAdmission* admission, int64_t memory, std::vector<int>* order, std::mutex* mu,
          std::condition_variable* cv, int id)
      : thread_([=, this] {
          auto ticket = admission->Admit(memory, interrupted_);
          std::lock_guard<std::mutex> lock(*mu);
          if (ticket.ok()) {
            ticket_ = std::move(*ticket);
            order->push_back(id);
          } else {
            status_ = ticket.status();
            order->push_back(-id);
          }
          cv->notify_all();
        }) {}
  ~Waiting() {
    if (thread_.joinable())
      thread_.join();
  }
  void Interrupt() { interrupted_ = true; }
  void Drop() { ticket_.reset(); }
  const Status& status() const { return status_; }

 private:
  std::atomic<bool> interrupted_{false};
  Ticket ticket_;
  Status status_;
  std::thread thread_;
};

class QueryAdmissionTest : public ::testing::Test {
 protected:
  // Waits (on the condition, bounded) until `n` waiters have come out of Admit.
  void AwaitOutcomes(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, std::chrono::seconds(30), [&] { return order_.size() >= n; }))
        << "only " << order_.size() << " of " << n << " waiters came out of Admit";
  }
  std::vector<int> Order() {
    std::lock_guard<std::mutex> lock(mu_);
    return order_;
  }
  std::unique_ptr<Waiting> Wait(QueryAdmission* admission, int64_t memory, int id) {
    return std::make_unique<Waiting>(admission, memory, &order_, &mu_, &cv_, id);
  }

  // Waits until `n` statements are in the queue (a waiter is queued and asleep at once: both
  // happen under one hold of the admission's lock).
  static void AwaitQueued(const QueryAdmission& admission, int n) {
    while (admission.queued() < n)
      std::this_thread::yield();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> order_;
  std::atomic<bool> never_{false};
};

TEST_F(QueryAdmissionTest, AtMostMaxRunningThenFirstComeFirstServed) {
  QueryAdmission admission({.max_running = 2, .max_queued = 10, .memory_budget = 0});
  auto a = admission.Admit(0, never_);
  auto b = admission.Admit(0, never_);
  ASSERT_TRUE(a.ok() && b.ok());
  auto w1 = Wait(&admission, 0, 1);
  AwaitQueued(admission, 1);
  auto w2 = Wait(&admission, 0, 2);
  AwaitQueued(admission, 2);
  auto w3 = Wait(&admission, 0, 3);
  AwaitQueued(admission, 3);
  EXPECT_TRUE(Order().empty());
  a->reset();
  AwaitOutcomes(1);
  EXPECT_EQ(Order(), (std::vector<int>{1})) << "the first in line gets the first free slot";
  b->reset();
  AwaitOutcomes(2);
  EXPECT_EQ(Order().size(), 2u);  // the third still waits: two tickets are held
  w1->Drop();
  AwaitOutcomes(3);
  EXPECT_EQ(Order(), (std::vector<int>{1, 2, 3}));
  w2->Drop();
  w3->Drop();
}

TEST_F(QueryAdmissionTest, ALargeStatementAtTheHeadIsNotPassedOverBySmallOnes) {
  QueryAdmission admission({.max_running = 8, .max_queued = 10, .memory_budget = 100});
  auto small = admission.Admit(40, never_);
  ASSERT_TRUE(small.ok());
  auto large = Wait(&admission, 100, 1);  // needs the whole budget
  AwaitQueued(admission, 1);
  auto small2 = Wait(&admission, 10, 2);  // fits in the free 60 but must queue behind the large
  AwaitQueued(admission, 2);
  EXPECT_TRUE(Order().empty());
  small->reset();
  AwaitOutcomes(1);
  EXPECT_EQ(Order().front(), 1) << "the statement first in line gets in first";
  large->Drop();
  AwaitOutcomes(2);
  small2->Drop();
}

TEST_F(QueryAdmissionTest, MemoryBeyondTheBudgetReservesTheWholeBudget) {
  QueryAdmission admission({.max_running = 8, .max_queued = 10, .memory_budget = 100});
  auto huge = admission.Admit(1'000, never_);
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ((*huge)->memory(), 100);
  auto zero = Wait(&admission, 0, 1);  // 0 means "the whole budget" too
  AwaitQueued(admission, 1);
  EXPECT_TRUE(Order().empty());
  huge->reset();
  AwaitOutcomes(1);
  zero->Drop();
}

TEST_F(QueryAdmissionTest, AFullQueueRefusesWith53300) {
  QueryAdmission admission({.max_running = 1, .max_queued = 1, .memory_budget = 0});
  auto running = admission.Admit(0, never_);
  ASSERT_TRUE(running.ok());
  auto queued = Wait(&admission, 0, 1);
  AwaitQueued(admission, 1);
  auto refused = admission.Admit(0, never_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().sqlstate(), "53300");
  EXPECT_NE(refused.status().message().find("1 running, 1 queued"), std::string::npos)
      << refused.status().message();
  running->reset();
  AwaitOutcomes(1);
  queued->Drop();
}

TEST_F(QueryAdmissionTest, AnInterruptedWaiterLeavesWith57014AndTheNextOneMovesUp) {
  QueryAdmission admission({.max_running = 1, .max_queued = 10, .memory_budget = 0});
  auto running = admission.Admit(0, never_);
  ASSERT_TRUE(running.ok());
  auto first = Wait(&admission, 0, 1);
  AwaitQueued(admission, 1);
  auto second = Wait(&admission, 0, 2);
  AwaitQueued(admission, 2);
  first->Interrupt();
  admission.Interrupt();
  AwaitOutcomes(1);
  EXPECT_EQ(Order(), (std::vector<int>{-1}));
  EXPECT_EQ(first->status().sqlstate(), "57014");
  running->reset();
  AwaitOutcomes(2);
  EXPECT_EQ(Order(), (std::vector<int>{-1, 2}));
  second->Drop();
}

}  // namespace
}  // namespace shoal::server

// QueryAdmission: how many statements of `shoal server` run at once and how much memory they may
// hold together. A statement that runs a plan asks for a ticket before it starts: it is admitted
// when fewer than `max_running` statements run and its memory (the session's memory_limit, which
// caps the statement's memory pool) fits in what the admitted ones leave of `memory_budget`;
// otherwise it waits in a first-come first-served queue, so a large statement is not passed over
// forever by small ones. Beyond `max_queued` waiting statements a new one is refused (53300) rather
// than queued without bound. Because each admitted statement's pool is capped at what it reserved,
// the statements running at once never hold more than the budget between them.
//
// A waiting statement can be interrupted (its session's cancel or statement_timeout): Interrupt()
// wakes the waiters and each checks its own flag.
//
// Each waiter sleeps on its own condition variable and a release hands the freed room straight to
// the waiters at the head of the queue that now fit: with many sessions queued, one finished
// statement wakes only those it admits, not every waiter (a shared notify_all made 16 clients of
// `SELECT 1` spend most of their time fighting over this mutex).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "shoal/common/result.h"

namespace shoal::server {

class QueryAdmission {
 public:
  struct Limits {
    int max_running = 8;
    int max_queued = 1000;
    int64_t memory_budget = 0;  // bytes; 0 or less: memory is not counted
  };

  /// Held while a statement runs (until its result is read or dropped); gives its room back.
  class Ticket {
   public:
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    int64_t memory() const { return memory_; }

   private:
    friend class QueryAdmission;
    Ticket(QueryAdmission* owner, int64_t memory) : owner_(owner), memory_(memory) {}
    QueryAdmission* owner_;
    int64_t memory_;
  };

  explicit QueryAdmission(Limits limits);

  /// Waits until a statement reserving `memory` bytes (0 or more than the budget: the whole
  /// budget) may run. Cancelled (57014) when `interrupted` becomes true while it waits;
  /// Unavailable (53300) when the queue is full.
  Result<std::unique_ptr<Ticket>> Admit(int64_t memory, const std::atomic<bool>& interrupted);
  /// Wakes the waiters so that those whose flag is set give up.
  void Interrupt();

  /// Statements waiting now (for tests and monitoring).
  int queued() const;

 private:
  struct Waiter {
    int64_t memory = 0;
    bool admitted = false;  // set under mutex_ by AdmitWaiters
    std::condition_variable cv;
  };

  bool Fits(int64_t memory) const;
  /// Admits the waiters at the head of the queue while they fit (mutex_ held).
  void AdmitWaiters();
  void Release(int64_t memory);

  const Limits limits_;
  mutable std::mutex mutex_;
  int running_ = 0;
  int64_t reserved_ = 0;
  std::deque<Waiter*> queue_;  // first come first; each Waiter lives on its Admit call's stack
};

}  // namespace shoal::server

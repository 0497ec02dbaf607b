#include "shoal/common/thread_start.h"

#include <atomic>
#include <cerrno>
#include <new>
#include <system_error>
#include <utility>

#include "shoal/common/check.h"

namespace shoal {
namespace {

struct InjectedFailures {
  // -1: no ScopedThreadStartFailure alive. Otherwise the starts that may still succeed.
  std::atomic<int64_t> starts_left{-1};
  std::atomic<int64_t> failures{0};
};

InjectedFailures& Injected() {
  static InjectedFailures injected;
  return injected;
}

// Whether a test wants this start to fail; counts one start against its budget.
bool InjectedFailure() {
  InjectedFailures& injected = Injected();
  int64_t left = injected.starts_left.load(std::memory_order_relaxed);
  while (left > 0) {
    if (injected.starts_left.compare_exchange_weak(left, left - 1, std::memory_order_relaxed))
      return false;
  }
  if (left != 0)
    return false;
  injected.failures.fetch_add(1, std::memory_order_relaxed);
  return true;
}

Status CannotStart(std::string_view what, std::string_view reason) {
  return Status::OutOfMemory(
             "cannot start a thread for {}: {}; the system may be out of processes or memory", what,
             reason)
      .WithSqlState("53000");  // insufficient_resources
}

}  // namespace

Result<std::thread> StartThread(std::string_view what, std::function<void()> fn) {
  if (InjectedFailure())
    return CannotStart(what, std::generic_category().message(EAGAIN) + " (injected by a test)");
  try {
    return std::thread(std::move(fn));
  } catch (const std::system_error& e) {
    return CannotStart(what, e.code().message());
  } catch (const std::bad_alloc&) {
    return CannotStart(what, std::generic_category().message(ENOMEM));
  }
}

namespace testing {

ScopedThreadStartFailure::ScopedThreadStartFailure(int64_t starts_that_succeed) {
  SHOAL_CHECK_GE(starts_that_succeed, 0);
  Injected().failures.store(0, std::memory_order_relaxed);
  Injected().starts_left.store(starts_that_succeed, std::memory_order_relaxed);
}

ScopedThreadStartFailure::~ScopedThreadStartFailure() {
  Injected().starts_left.store(-1, std::memory_order_relaxed);
}

int64_t ScopedThreadStartFailure::failures() const {
  return Injected().failures.load(std::memory_order_relaxed);
}

}  // namespace testing
}  // namespace shoal

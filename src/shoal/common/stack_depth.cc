#include "shoal/common/stack_depth.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

namespace shoal {

namespace {

struct StackBounds {
  uintptr_t low = 0;  // lowest usable address; 0 until read
  size_t size = 0;
};

uintptr_t FrameAddress() {
  // The frame, not a local: under AddressSanitizer locals may live on a heap "fake stack".
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
}

const StackBounds& Bounds() {
  // Each thread reads its own stack's bounds once.
  thread_local StackBounds b;
  if (b.low != 0)
    return b;
  pthread_attr_t attr;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
  }
  uintptr_t here = FrameAddress();
  if (addr == nullptr || size == 0 || here < reinterpret_cast<uintptr_t>(addr) ||
      here > reinterpret_cast<uintptr_t>(addr) + size) {
    // Unknown bounds: assume PostgreSQL's 2MB below the first frame that asked.
    size = size_t{2} << 20;
    addr = reinterpret_cast<void*>(here - size);
  }
  b.low = reinterpret_cast<uintptr_t>(addr);
  b.size = size;
  return b;
}

// What unchecked code below the last check may still need: an eighth of the stack, at least
// 256kB (so 1MB of an 8MB stack).
size_t Reserve(size_t stack_size) {
  return std::max(size_t{256} << 10, stack_size / 8);
}

}  // namespace

size_t RemainingStack() {
  const StackBounds& b = Bounds();
  uintptr_t here = FrameAddress();
  return here > b.low ? here - b.low : 0;
}

Status CheckStackDepth() {
  const StackBounds& b = Bounds();
  uintptr_t here = FrameAddress();
  if (here > b.low && here - b.low >= Reserve(b.size))
    return Status::OK();
  return Status::InvalidArgument("stack depth limit exceeded")
      .WithSqlState("54001")
      .WithHint(fmt::format(
          "The statement nests expressions, subqueries or set operations too deeply for the "
          "{}kB stack of the thread running it; simplify it, or raise the platform's stack depth "
          "limit (ulimit -s) when Shoal runs it on its main thread.",
          b.size >> 10));
}

Status RunWithStack(size_t bytes, const std::function<void()>& fn) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto min_stack = static_cast<size_t>(PTHREAD_STACK_MIN);
  bytes = (std::max(bytes, min_stack + page) + page - 1) / page * page;
  size_t total = bytes + page;  // one guard page below the stack
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) {
    return Status::OutOfMemory("cannot reserve a {}MB stack for a deeply nested statement: {}",
                               bytes >> 20, std::strerror(errno));
  }
  mprotect(base, page, PROT_NONE);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, static_cast<char*>(base) + page, bytes);
  struct Call {
    const std::function<void()>* fn;
  } call{&fn};
  pthread_t thread;
  int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        (*static_cast<Call*>(arg)->fn)();
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (rc == 0)
    pthread_join(thread, nullptr);
  munmap(base, total);
  if (rc != 0)
    return Status::Internal("cannot start a thread for a deeply nested statement: {}",
                            std::strerror(rc));
  return Status::OK();
}

}  // namespace shoal

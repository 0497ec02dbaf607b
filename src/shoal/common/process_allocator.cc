#include "shoal/common/process_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <malloc.h>

namespace shoal {
namespace {

// glibc refuses an mmap threshold above HEAP_MAX_SIZE / 2 (32 MiB on 64-bit); blocks larger than
// that are rare enough (a few per query) to keep their own mappings.
constexpr int kMmapThreshold = 32 << 20;
// Freed memory at the top of a heap beyond this goes back to the kernel: large enough that the
// buffers of a few batches in flight per thread stay resident.
constexpr int kTrimThreshold = 256 << 20;

}  // namespace

void TuneProcessAllocator() {
#if defined(__GLIBC__)
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr)
    return;
  // A fixed mmap threshold also stops glibc from moving it (and the trim threshold) as it sees
  // large frees, which is what made the defaults drift.
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(2U, std::thread::hardware_concurrency())));
#endif
}

}  // namespace shoal

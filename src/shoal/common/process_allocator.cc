#include "shoal/common/process_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
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

// Whether GLIBC_TUNABLES sets `name` (a colon-separated list of name=value).
bool Names(std::string_view tunables, std::string_view name) {
  for (size_t at = 0; at <= tunables.size();) {
    const size_t end = std::min(tunables.find(':', at), tunables.size());
    const std::string_view entry = tunables.substr(at, end - at);
    if (entry.substr(0, entry.find('=')) == name)
      return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

void TuneProcessAllocator() {
#if defined(__GLIBC__)
  const char* set = std::getenv("GLIBC_TUNABLES");
  const std::string_view tunables = set == nullptr ? std::string_view() : set;
  // A fixed mmap threshold also stops glibc from moving it (and the trim threshold) as it sees
  // large frees, which is what made the defaults drift.
  if (!Names(tunables, "glibc.malloc.mmap_threshold"))
    mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  if (!Names(tunables, "glibc.malloc.trim_threshold"))
    mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  if (!Names(tunables, "glibc.malloc.arena_max"))
    mallopt(M_ARENA_MAX, static_cast<int>(std::max(2U, std::thread::hardware_concurrency())));
#endif
}

std::string WithTransparentHugePages(std::string_view current) {
  std::string out(current);
  if (Names(current, "glibc.malloc.hugetlb"))
    return out;
  if (!out.empty())
    out += ':';
  out += "glibc.malloc.hugetlb=1";
  return out;
}

}  // namespace shoal

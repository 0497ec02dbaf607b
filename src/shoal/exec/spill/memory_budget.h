// Memory budget helpers for operators that can spill: how many bytes the tightest limited pool
// above an operator's pool still has, and the headroom a spilling operator leaves free.
//
// Why not just wait for an allocation to fail: an operator that fills the query pool to the last
// byte makes the NEXT allocation of any operator of the query fail (a scan's next batch, a
// projection's output), and those cannot spill. Spilling operators therefore spill when the free
// bytes of the tightest pool fall below a headroom (a quarter of its limit, at most 16 MiB), so
// that the operators around them and the spill writer itself (one compressed batch) always have
// room. Both values are read without locks: concurrent operators may race past each other by a
// batch, which the headroom absorbs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"

namespace shoal::exec {

/// The smallest limit on the chain from `pool` to its root; MemoryPool::kUnlimited when none.
inline int64_t SmallestLimit(const MemoryPool& pool) {
  int64_t limit = MemoryPool::kUnlimited;
  for (const MemoryPool* p = &pool; p != nullptr; p = p->parent().get())
    limit = std::min(limit, p->limit());
  return limit;
}

/// Bytes that `pool` could still allocate before any pool on its chain reaches its limit.
inline int64_t AvailableBytes(const MemoryPool& pool) {
  int64_t available = MemoryPool::kUnlimited;
  for (const MemoryPool* p = &pool; p != nullptr; p = p->parent().get()) {
    if (p->limit() != MemoryPool::kUnlimited)
      available = std::min(available, p->limit() - p->bytes_used());
  }
  return available;
}

/// Free bytes a spilling operator keeps for everyone else (see the file comment); 0 when no pool
/// on the chain has a limit.
inline int64_t SpillHeadroom(const MemoryPool& pool) {
  const int64_t limit = SmallestLimit(pool);
  if (limit == MemoryPool::kUnlimited)
    return 0;
  return std::min<int64_t>(limit / 4, int64_t{16} << 20);
}

/// True when an operator holding spillable data should spill now.
inline bool ShouldSpill(const MemoryPool& pool) {
  const int64_t headroom = SpillHeadroom(pool);
  return headroom > 0 && AvailableBytes(pool) < headroom;
}

/// True when an operator holding a table of `held` bytes (vectors that grow by doubling) should
/// spill or flush it now: the table's next growth may ask for as much again, and that plus the
/// headroom no longer fits. A table under a sixteenth of the limit is not worth a spill file: the
/// pressure then comes from other operators, and giving it up would free little.
inline bool ShouldGiveUpTable(const MemoryPool& pool, int64_t held) {
  const int64_t headroom = SpillHeadroom(pool);
  return headroom > 0 && AvailableBytes(pool) < headroom + held && held >= SmallestLimit(pool) / 16;
}

/// Bytes the rows of `batch` occupy (values, offsets, string bytes, validity), counting only the
/// sliced range: slices share their parent's buffers, so BufferBytes() would count a whole
/// table for every slice of it.
int64_t EstimateBatchBytes(const columnar::RecordBatch& batch);

/// Bytes rows [start, start + length) of `array` occupy, as EstimateBatchBytes counts them; nested
/// arrays count their offsets and the range of each child their rows use.
int64_t EstimateSliceBytes(const columnar::Array& array, int64_t start, int64_t length);

}  // namespace shoal::exec

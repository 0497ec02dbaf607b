// MemoryPool: accounting and limits for every byte Shoal holds on behalf of a query.
//
// Pools form a tree: the process root (unlimited) > one pool per query (limit: the memory_limit
// setting) > one pool per operator instance. Every buffer is allocated from a leaf pool, and its
// bytes count in that pool and in every ancestor, so a query's total and each operator's share are
// both known at any moment (EXPLAIN ANALYZE prints the per-operator peaks). An allocation that
// would take any pool on the chain past its limit is refused with an OutOfMemory Status naming the
// pool that refused, its use and its limit, and the pools below it that hold the most (so a user
// sees which operators filled a query's memory); operators that can spill catch that and spill.
//
// Allocations are 64-byte aligned and padded to a multiple of 64 bytes, as the Arrow format
// recommends, so SIMD loops may read a whole cache line past the logical end.
//
// Thread safety: all methods may be called concurrently. Counters are atomics; the pool object
// itself must outlive every allocation made from it, which buffers guarantee by holding a
// shared_ptr to their pool.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal {

class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
 public:
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kAlignment = 64;

  /// A root pool (a process or a query). `limit` in bytes.
  static std::shared_ptr<MemoryPool> MakeRoot(std::string name, int64_t limit = kUnlimited);
  /// A pool whose use also counts in this one (an operator of a query, a query of a process).
  std::shared_ptr<MemoryPool> MakeChild(std::string name, int64_t limit = kUnlimited);

  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  ~MemoryPool();

  /// Allocates `size` bytes (64-byte aligned, padded to a multiple of 64, padding zeroed).
  Result<uint8_t*> Allocate(int64_t size);
  /// Grows or shrinks an allocation made here, keeping its contents.
  Result<uint8_t*> Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size);
  void Free(uint8_t* ptr, int64_t size);

  /// Accounts `bytes` without allocating: for memory held outside Shoal's buffers (hash table
  /// directories, sort indices) that must still count against the limit.
  Status Reserve(int64_t bytes);
  void Release(int64_t bytes);

  const std::string& name() const { return name_; }

  int64_t limit() const { return limit_; }

  int64_t bytes_used() const { return used_.load(std::memory_order_relaxed); }

  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }

  const std::shared_ptr<MemoryPool>& parent() const { return parent_; }

  /// "HashAggregate[0] 3.1 MiB, Sort[1] 2.0 MiB": the `count` pools below this one (at any depth,
  /// those without children of their own) holding the most bytes now, largest first.
  std::string LargestHolders(int count) const;

  /// Rounds a request up to the allocation granularity.
  static int64_t PaddedSize(int64_t size) { return (size + kAlignment - 1) & ~(kAlignment - 1); }

 private:
  MemoryPool(std::string name, int64_t limit, std::shared_ptr<MemoryPool> parent);
  // Adds to this pool and its ancestors, rolling back and failing if any would exceed its limit.
  Status Charge(int64_t bytes);
  void Uncharge(int64_t bytes);
  // Adds (bytes used, name) of each pool below this one that has no children, or of this one.
  void CollectLeaves(std::vector<std::pair<int64_t, std::string>>* out) const;

  std::string name_;
  int64_t limit_;
  std::shared_ptr<MemoryPool> parent_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  // The live pools made by MakeChild, for LargestHolders (error messages only): a child adds
  // itself on creation and removes itself in its destructor, never on an allocation's path.
  mutable std::mutex children_mutex_;
  std::vector<const MemoryPool*> children_;
};

/// The process-wide root pool; unlimited. Tests and tools that have no query use it.
const std::shared_ptr<MemoryPool>& DefaultMemoryPool();

/// "1.5 GiB", "64 MiB", "512 B": how byte counts appear in messages.
std::string FormatBytes(int64_t bytes);

}  // namespace shoal

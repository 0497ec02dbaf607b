// MemoryReservation: bytes an operator holds outside Shoal buffers (hash table directories, group
// key storage, aggregate states, sort permutations), accounted in its pool.
//
// Operators keep their long-lived structures in std::vectors for speed and call Resize(total) after
// each growth step; a refused resize is an OutOfMemory Status, the point where spilling hooks in.
// The reservation is released on destruction, so a dropped stream returns its pool to zero.
//
// Not thread-safe: one reservation belongs to one stream.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/common/memory_pool.h"

namespace shoal::exec {

class MemoryReservation {
 public:
  explicit MemoryReservation(std::shared_ptr<MemoryPool> pool) : pool_(std::move(pool)) {}

  ~MemoryReservation() { Resize(0).ok(); }

  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;

  /// Grows or shrinks the reservation to `bytes`; growth may fail with OutOfMemory (the
  /// reservation then keeps its previous size).
  Status Resize(int64_t bytes) {
    if (bytes > reserved_) {
      SHOAL_RETURN_IF_ERROR(pool_->Reserve(bytes - reserved_));
    } else if (bytes < reserved_) {
      pool_->Release(reserved_ - bytes);
    }
    reserved_ = bytes;
    return Status::OK();
  }

  int64_t reserved() const { return reserved_; }

 private:
  std::shared_ptr<MemoryPool> pool_;
  int64_t reserved_ = 0;
};

/// Bytes a vector's capacity holds.
template <typename V>
int64_t CapacityBytes(const V& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(typename V::value_type));
}

}  // namespace shoal::exec

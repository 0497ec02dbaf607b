// ScanBuffers: the large scratch buffers of one scan stream (a Parquet column chunk's bytes, its
// decompressed pages), handed back when a row group is done and handed out again for the next.
//
// Every row group of a scan needs a buffer per column chunk and per page, each about a megabyte
// and each a little larger or smaller than the last. Allocated afresh per row group, they
// fragmented the process heap: freed blocks were pinned apart by the small arrays of batches
// still in flight and too small for the next chunk, so the heap kept growing (TPC-H Q8 at SF1,
// whose lineitem scan keeps 0.04% of its rows through runtime filters, peaked at 140 MB of RSS
// with 14 MB live, against 57 MB without the filters) and every new page was faulted in again.
// Reusing the same few buffers keeps the scan's footprint flat.
//
// A buffer is only taken back when its giver held the last reference (an array that still
// points into it keeps it). One per scan stream, used by one thread at a time; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/buffer.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"

namespace shoal::io {

class ScanBuffers {
 public:
  /// Buffers kept for reuse at most (a row group's column chunks and pages).
  static constexpr size_t kMaxKept = 32;

  explicit ScanBuffers(std::shared_ptr<MemoryPool> pool) : pool_(std::move(pool)) {}

  /// A buffer of `size` bytes (its contents undefined): the smallest kept one that holds them,
  /// else the largest kept one grown, else a new one. Size 0 (a buffer that will grow to a size
  /// not known yet, as a page buffer does): the largest kept one.
  Result<columnar::BufferPtr> Take(int64_t size);

  /// Keeps `buffer` for a later Take, unless something else still refers to it.
  void Give(columnar::BufferPtr buffer);

  size_t kept() const { return kept_.size(); }

 private:
  std::shared_ptr<MemoryPool> pool_;
  std::vector<columnar::BufferPtr> kept_;
};

}  // namespace shoal::io

// Buffer: a contiguous byte range holding one Arrow buffer (validity bits, values, offsets, data).
//
// A buffer either owns memory allocated from a MemoryPool (64-byte aligned, padded, counted against
// the pool's limit until the buffer dies) or views memory owned by something else — a slice of
// another buffer, or a region of an IPC message read from disk or the network — kept alive by a
// shared `owner` handle. Views are how slicing and IPC reading stay zero-copy.
//
// Buffers are immutable once shared: builders fill a buffer through mutable_data() while they alone
// hold it, then publish it inside an Array. Thread safety: const methods are safe concurrently.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"

namespace shoal::columnar {

class Buffer {
 public:
  /// A new owned buffer of `size` bytes (contents undefined, padding zeroed).
  static Result<std::shared_ptr<Buffer>> Allocate(int64_t size,
                                                  const std::shared_ptr<MemoryPool>& pool);
  /// Like Allocate, with every byte zeroed.
  static Result<std::shared_ptr<Buffer>> AllocateZeroed(int64_t size,
                                                        const std::shared_ptr<MemoryPool>& pool);
  /// A view of memory owned by `owner` (which may be null for static data).
  static std::shared_ptr<Buffer> Wrap(const uint8_t* data, int64_t size,
                                      std::shared_ptr<const void> owner);
  /// A zero-copy view of bytes [offset, offset + length) of `parent`.
  static std::shared_ptr<Buffer> Slice(const std::shared_ptr<Buffer>& parent, int64_t offset,
                                       int64_t length);

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  const uint8_t* data() const { return data_; }

  uint8_t* mutable_data() { return data_; }

  int64_t size() const { return size_; }

  int64_t capacity() const { return capacity_; }

  bool is_owned() const { return pool_ != nullptr; }

  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }

  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(data_);
  }

  /// Owned buffers only: grows capacity to at least `capacity` bytes, keeping contents.
  Status Reserve(int64_t capacity);
  /// Owned buffers only: sets the logical size, growing capacity (geometrically) when needed.
  Status Resize(int64_t size);
  /// Owned buffers only: gives back capacity beyond the (padded) size, so a finished array is not
  /// charged to its pool for the headroom its builder grew. Best effort: shrinking copies, and
  /// when the pool cannot lend the smaller block the buffer simply stays as it is.
  void ShrinkToFit();

 private:
  Buffer() = default;

  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  std::shared_ptr<MemoryPool> pool_;   // set when owned
  std::shared_ptr<const void> owner_;  // set when a view
};

using BufferPtr = std::shared_ptr<Buffer>;

}  // namespace shoal::columnar

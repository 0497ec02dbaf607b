// TextBuffer: an append-only, growable byte buffer for the writers of text formats (.tbl now, CSV
// later), allocated from a MemoryPool.
//
// Hot loops reserve a bound for a whole row once and then write through a raw pointer without
// further checks, the same contract as the columnar builders' UnsafeAppend:
//
//   SHOAL_RETURN_IF_ERROR(buffer->Reserve(kMaxRowBytes));
//   char* p = buffer->tail();
//   ... write at most kMaxRowBytes bytes through p ...
//   buffer->CommitTo(p);
//
// Clear() keeps the capacity, so a buffer reused for many chunks allocates only while it grows.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "shoal/columnar/buffer.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/status.h"

namespace shoal::io {

class TextBuffer {
 public:
  explicit TextBuffer(std::shared_ptr<MemoryPool> pool = DefaultMemoryPool())
      : pool_(std::move(pool)) {}

  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  TextBuffer(TextBuffer&&) noexcept = default;
  TextBuffer& operator=(TextBuffer&&) noexcept = default;

  /// Makes room for `additional` more bytes past the current size.
  Status Reserve(int64_t additional) {
    if (size_ + additional <= capacity_) [[likely]]
      return Status::OK();
    return Grow(size_ + additional);
  }

  /// Where the next byte goes; valid until the next Reserve().
  char* tail() { return data_ + size_; }

  /// Marks everything up to `new_tail` (a pointer obtained from tail() and advanced by at most
  /// the reserved amount) as written.
  void CommitTo(char* new_tail) { size_ = new_tail - data_; }

  Status Append(std::string_view bytes) {
    SHOAL_RETURN_IF_ERROR(Reserve(static_cast<int64_t>(bytes.size())));
    if (!bytes.empty())
      std::memcpy(tail(), bytes.data(), bytes.size());
    size_ += static_cast<int64_t>(bytes.size());
    return Status::OK();
  }

  void Clear() { size_ = 0; }

  const char* data() const { return data_; }

  int64_t size() const { return size_; }

  int64_t capacity() const { return capacity_; }

  std::string_view view() const { return {data_, static_cast<size_t>(size_)}; }

 private:
  Status Grow(int64_t needed);

  std::shared_ptr<MemoryPool> pool_;
  columnar::BufferPtr buffer_;
  char* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace shoal::io

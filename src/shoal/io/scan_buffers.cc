#include "shoal/io/scan_buffers.h"

#include <utility>

namespace shoal::io {

Result<columnar::BufferPtr> ScanBuffers::Take(int64_t size) {
  size_t best = kept_.size();
  size_t largest = kept_.size();
  for (size_t i = 0; i < kept_.size(); ++i) {
    const int64_t capacity = kept_[i]->capacity();
    if (size > 0 && capacity >= size &&
        (best == kept_.size() || capacity < kept_[best]->capacity()))
      best = i;
    if (largest == kept_.size() || capacity > kept_[largest]->capacity())
      largest = i;
  }
  const size_t pick = best != kept_.size() ? best : largest;
  if (pick == kept_.size())
    return columnar::Buffer::Allocate(size, pool_);
  columnar::BufferPtr buffer = std::move(kept_[pick]);
  kept_[pick] = std::move(kept_.back());
  kept_.pop_back();
  SHOAL_RETURN_IF_ERROR(buffer->Resize(size));
  return buffer;
}

void ScanBuffers::Give(columnar::BufferPtr buffer) {
  // use_count 1: `buffer` is the only reference; no array reads from it any more.
  if (buffer == nullptr || buffer.use_count() != 1 || kept_.size() >= kMaxKept)
    return;
  kept_.push_back(std::move(buffer));
}

}  // namespace shoal::io

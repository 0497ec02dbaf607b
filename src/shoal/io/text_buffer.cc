#include "shoal/io/text_buffer.h"

#include <algorithm>

namespace shoal::io {

Status TextBuffer::Grow(int64_t needed) {
  const int64_t capacity = std::max<int64_t>({needed, capacity_ * 2, 4096});
  if (buffer_ == nullptr) {
    SHOAL_ASSIGN_OR_RETURN(buffer_, columnar::Buffer::Allocate(capacity, pool_));
  } else {
    SHOAL_RETURN_IF_ERROR(buffer_->Reserve(capacity));
  }
  data_ = reinterpret_cast<char*>(buffer_->mutable_data());
  capacity_ = buffer_->capacity();
  return Status::OK();
}

}  // namespace shoal::io

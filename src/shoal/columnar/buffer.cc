#include "shoal/columnar/buffer.h"

#include <algorithm>
#include <cstring>

#include "shoal/common/check.h"

namespace shoal::columnar {

Result<BufferPtr> Buffer::Allocate(int64_t size, const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_CHECK(pool != nullptr, "Buffer::Allocate without a pool");
  SHOAL_ASSIGN_OR_RETURN(uint8_t * data, pool->Allocate(size));
  BufferPtr buffer(new Buffer());
  buffer->data_ = data;
  buffer->size_ = size;
  buffer->capacity_ = MemoryPool::PaddedSize(size == 0 ? 1 : size);
  buffer->pool_ = pool;
  return buffer;
}

Result<BufferPtr> Buffer::AllocateZeroed(int64_t size, const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, Allocate(size, pool));
  std::memset(buffer->data_, 0, static_cast<size_t>(size));
  return buffer;
}

BufferPtr Buffer::Wrap(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner) {
  BufferPtr buffer(new Buffer());
  buffer->data_ = const_cast<uint8_t*>(data);
  buffer->size_ = size;
  buffer->capacity_ = size;
  buffer->owner_ = std::move(owner);
  return buffer;
}

BufferPtr Buffer::Slice(const BufferPtr& parent, int64_t offset, int64_t length) {
  SHOAL_CHECK(offset >= 0 && length >= 0 && offset + length <= parent->size(),
              "buffer slice [{}, +{}) outside buffer of {} bytes", offset, length, parent->size());
  return Wrap(parent->data() + offset, length, parent);
}

Buffer::~Buffer() {
  if (pool_)
    pool_->Free(data_, capacity_ == 0 ? 0 : capacity_);
}

Status Buffer::Reserve(int64_t capacity) {
  SHOAL_CHECK(pool_ != nullptr, "Reserve on a buffer view");
  if (capacity <= capacity_)
    return Status::OK();
  SHOAL_ASSIGN_OR_RETURN(data_, pool_->Reallocate(data_, capacity_, capacity));
  capacity_ = MemoryPool::PaddedSize(capacity);
  return Status::OK();
}

void Buffer::ShrinkToFit() {
  SHOAL_CHECK(pool_ != nullptr, "ShrinkToFit on a buffer view");
  const int64_t fitted = MemoryPool::PaddedSize(size_ == 0 ? 1 : size_);
  if (fitted >= capacity_)
    return;
  auto smaller = pool_->Reallocate(data_, capacity_, size_);
  if (!smaller.ok())
    return;
  data_ = *smaller;
  capacity_ = fitted;
}

Status Buffer::Resize(int64_t size) {
  if (size > capacity_) {
    SHOAL_RETURN_IF_ERROR(Reserve(std::max(size, capacity_ * 2)));
  }
  size_ = size;
  return Status::OK();
}

}  // namespace shoal::columnar

#include "shoal/columnar/ipc/input_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoal::columnar::ipc {
namespace {

// First allocation of the growing read buffer; doubling from here keeps the copying linear.
constexpr int64_t kInitialChunk = int64_t{1} << 20;

}  // namespace

Result<BufferPtr> InputStream::ReadBuffer(int64_t size, const std::shared_ptr<MemoryPool>& pool) {
  if (size < 0)
    return Status::Internal("ReadBuffer of {} bytes", size);
  SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(std::min(size, kInitialChunk), pool));
  int64_t have = 0;
  while (have < size) {
    if (have == buffer->size()) {
      SHOAL_RETURN_IF_ERROR(buffer->Resize(std::min(size, std::max(have * 2, kInitialChunk))));
    }
    SHOAL_ASSIGN_OR_RETURN(int64_t n, Read(buffer->mutable_data() + have, buffer->size() - have));
    if (n == 0)
      break;
    have += n;
  }
  SHOAL_RETURN_IF_ERROR(buffer->Resize(have));
  return buffer;
}

Result<int64_t> BufferInputStream::Read(uint8_t* out, int64_t size) {
  int64_t n = std::min(size, size_ - position_);
  if (n <= 0)
    return int64_t{0};
  std::memcpy(out, data_ + position_, static_cast<size_t>(n));
  position_ += n;
  return n;
}

Result<BufferPtr> BufferInputStream::ReadBuffer(int64_t size,
                                                const std::shared_ptr<MemoryPool>& pool) {
  int64_t n = std::max<int64_t>(0, std::min(size, size_ - position_));
  if (owner_ == nullptr) {
    // Nothing keeps the bytes alive beyond this call, so the batch must own a copy.
    SHOAL_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::Allocate(n, pool));
    if (n > 0)
      std::memcpy(copy->mutable_data(), data_ + position_, static_cast<size_t>(n));
    position_ += n;
    return copy;
  }
  BufferPtr view = Buffer::Wrap(data_ + position_, n, owner_);
  position_ += n;
  return view;
}

Result<std::unique_ptr<FileInputStream>> FileInputStream::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT)
      return Status::NotFound("cannot open '{}': {}", path, std::strerror(err));
    return Status::IoError("cannot open '{}': {}", path, std::strerror(err));
  }
  struct stat st {};
  int64_t size = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    size = static_cast<int64_t>(st.st_size);
  return std::unique_ptr<FileInputStream>(new FileInputStream(fd, path, size));
}

FileInputStream::~FileInputStream() {
  if (fd_ >= 0)
    ::close(fd_);
}

Result<int64_t> FileInputStream::Read(uint8_t* out, int64_t size) {
  int64_t total = 0;
  while (total < size) {
    ssize_t n = ::read(fd_, out + total, static_cast<size_t>(size - total));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::IoError("reading '{}' at byte {}: {}", path_, position_ + total,
                             std::strerror(errno));
    }
    if (n == 0)
      break;
    total += n;
  }
  position_ += total;
  return total;
}

Result<BufferPtr> FileInputStream::ReadBuffer(int64_t size,
                                              const std::shared_ptr<MemoryPool>& pool) {
  if (size_ < 0)
    return InputStream::ReadBuffer(size, pool);
  int64_t n = std::max<int64_t>(0, std::min(size, size_ - position_));
  SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(n, pool));
  SHOAL_ASSIGN_OR_RETURN(int64_t got, Read(buffer->mutable_data(), n));
  SHOAL_RETURN_IF_ERROR(buffer->Resize(got));
  return buffer;
}

}  // namespace shoal::columnar::ipc

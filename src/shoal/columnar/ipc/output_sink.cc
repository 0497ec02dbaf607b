#include "shoal/columnar/ipc/output_sink.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace shoal::columnar::ipc {
namespace {

// Writes smaller than this are gathered so that message prefixes and padding do not each cost a
// system call; larger ones go straight to the file.
constexpr size_t kCoalesceBytes = size_t{64} << 10;

Status WriteFully(int fd, const std::string& path, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::IoError("writing '{}': {}", path, std::strerror(errno));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

}  // namespace

Status BufferSink::Write(const uint8_t* data, int64_t size) {
  bytes_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
  return Status::OK();
}

Result<std::unique_ptr<FileSink>> FileSink::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError("cannot create '{}': {}", path, std::strerror(errno));
  return std::unique_ptr<FileSink>(new FileSink(fd, path));
}

FileSink::~FileSink() {
  if (fd_ >= 0) {
    // Best effort: a sink dropped without Close() still leaves what was written on disk.
    (void)WriteFully(fd_, path_, reinterpret_cast<const uint8_t*>(pending_.data()),
                     pending_.size());
    ::close(fd_);
  }
}

Status FileSink::Write(const uint8_t* data, int64_t size) {
  if (fd_ < 0)
    return Status::IoError("writing '{}' after it was closed", path_);
  auto n = static_cast<size_t>(size);
  if (pending_.size() + n <= kCoalesceBytes) {
    pending_.append(reinterpret_cast<const char*>(data), n);
  } else {
    SHOAL_RETURN_IF_ERROR(
        WriteFully(fd_, path_, reinterpret_cast<const uint8_t*>(pending_.data()), pending_.size()));
    pending_.clear();
    if (n < kCoalesceBytes) {
      pending_.append(reinterpret_cast<const char*>(data), n);
    } else {
      SHOAL_RETURN_IF_ERROR(WriteFully(fd_, path_, data, n));
    }
  }
  position_ += size;
  return Status::OK();
}

Status FileSink::Close() {
  if (fd_ < 0)
    return Status::OK();
  Status st =
      WriteFully(fd_, path_, reinterpret_cast<const uint8_t*>(pending_.data()), pending_.size());
  pending_.clear();
  int rc = ::close(fd_);
  fd_ = -1;
  SHOAL_RETURN_IF_ERROR(st);
  if (rc != 0)
    return Status::IoError("closing '{}': {}", path_, std::strerror(errno));
  return Status::OK();
}

}  // namespace shoal::columnar::ipc

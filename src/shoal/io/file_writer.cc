#include "shoal/io/file_writer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace shoal::io {

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::string path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError("cannot create '{}': {}", path, std::strerror(errno));
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(path), fd));
}

Status FileWriter::CreateDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec)
    return Status::IoError("cannot create directory '{}': {}", path, ec.message());
  if (!std::filesystem::is_directory(path, ec))
    return Status::IoError("'{}' exists and is not a directory", path);
  return Status::OK();
}

FileWriter::~FileWriter() {
  if (fd_ >= 0)
    ::close(fd_);
}

Status FileWriter::Write(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::IoError("cannot write '{}': {}", path_, std::strerror(errno));
    }
    p += n;
    left -= static_cast<size_t>(n);
    bytes_written_ += n;
  }
  return Status::OK();
}

Status FileWriter::Close() {
  if (fd_ < 0)
    return Status::OK();
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0)
    return Status::IoError("cannot close '{}': {}", path_, std::strerror(errno));
  return Status::OK();
}

}  // namespace shoal::io

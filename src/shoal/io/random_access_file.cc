#include "shoal/io/random_access_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/io/data_roots.h"

namespace shoal::io {

Result<std::unique_ptr<RandomAccessFile>> RandomAccessFile::Open(const std::string& path) {
  // Opens the resolved path the data roots admitted, not `path` again (data_roots.h).
  SHOAL_ASSIGN_OR_RETURN(const std::string resolved, CheckDataPath(path, "read"));
  const int fd = ::open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
  return std::unique_ptr<RandomAccessFile>(new RandomAccessFile(fd, path));
}

RandomAccessFile::~RandomAccessFile() {
  ::close(fd_);
}

Result<int64_t> RandomAccessFile::ReadAtMost(int64_t offset, int64_t length, uint8_t* out) const {
  int64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, out + done, static_cast<size_t>(length - done),
                              static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::IoError("cannot read {} bytes at offset {} of '{}': {}", length, offset, path_,
                             std::strerror(errno));
    }
    if (n == 0)
      break;
    done += n;
  }
  return done;
}

Status RandomAccessFile::ReadExactly(int64_t offset, int64_t length, uint8_t* out) const {
  SHOAL_ASSIGN_OR_RETURN(int64_t n, ReadAtMost(offset, length, out));
  if (n < length) {
    return Status::IoError(
        "'{}' ended at offset {} while reading {} bytes at offset {} (was it changed while being "
        "read?)",
        path_, offset + n, length, offset);
  }
  return Status::OK();
}

Result<int64_t> RandomAccessFile::ReadAppend(int64_t offset, int64_t length,
                                             std::string* out) const {
  // Grow `out` only by what the file still holds: readers ask for fixed chunks (1 MiB for CSV),
  // and a small file would otherwise cost a zero-filled chunk per read (under ASan a fresh
  // mapping each time: the CSV mutation test spent 99% of its two minutes there).
  struct stat info {};
  if (::fstat(fd_, &info) == 0 && S_ISREG(info.st_mode))
    length = std::clamp<int64_t>(static_cast<int64_t>(info.st_size) - offset, 0, length);
  const size_t old_size = out->size();
  out->resize(old_size + static_cast<size_t>(length));
  auto n = ReadAtMost(offset, length, reinterpret_cast<uint8_t*>(out->data() + old_size));
  out->resize(old_size + static_cast<size_t>(n.ok() ? *n : 0));
  return n;
}

}  // namespace shoal::io

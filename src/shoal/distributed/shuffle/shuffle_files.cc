#include "shoal/distributed/shuffle/shuffle_files.h"

#include <cerrno>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoal::distributed::shuffle {

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  std::random_device rd;
  const std::string temporary =
      fmt::format("{}.{}-{:08x}.tmp", path, static_cast<long>(::getpid()), rd());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError("cannot create '{}': {}", temporary, std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      Status st = Status::IoError("cannot write '{}': {}", temporary, std::strerror(errno));
      ::close(fd);
      ::unlink(temporary.c_str());
      return st;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Status st =
        Status::IoError("cannot rename '{}' to '{}': {}", temporary, path, std::strerror(errno));
    ::unlink(temporary.c_str());
    return st;
  }
  return Status::OK();
}

Result<std::string> ReadWholeFile(const std::string& path, int64_t max_bytes) {
  // One open, one fstat and reads straight into the string: envelopes, plans and reports are read
  // by every task, where a stream's copies through its buffers showed in the profile.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return Status::InvalidData("'{}' is not a regular file", path);
  if (info.st_size > max_bytes)
    return Status::InvalidData("'{}' has {} bytes, more than the {} allowed", path, info.st_size,
                               max_bytes)
        .WithHint("a shuffle task's files are written by its driver; this one is not");
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Status::IoError("cannot read '{}': {}", path, std::strerror(errno));
    if (n == 0)
      break;  // shorter than it was a moment ago: what is there is what it holds
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace shoal::distributed::shuffle

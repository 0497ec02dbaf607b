#include "shoal/distributed/shuffle/shuffle_files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

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
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return Status::InvalidData("'{}' is not a regular file", path);
  if (info.st_size > max_bytes)
    return Status::InvalidData("'{}' has {} bytes, more than the {} allowed", path, info.st_size,
                               max_bytes)
        .WithHint("a shuffle task's files are written by its driver; this one is not");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError("cannot open '{}': {}", path, std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    return Status::IoError("cannot read '{}'", path);
  return bytes.str();
}

}  // namespace shoal::distributed::shuffle

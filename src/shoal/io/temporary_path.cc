#include "shoal/io/temporary_path.h"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <random>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/io/data_roots.h"

namespace shoal::io {
namespace {

// PostgreSQL's errcode_for_file_access, for the errors a COPY target can meet.
std::string_view SqlStateFor(int error) {
  switch (error) {
    case EPERM:
    case EACCES:
    case EROFS: return "42501";
    case ENOENT: return "58P01";
    case ENOTDIR:
    case EISDIR: return "42809";
    case ENOSPC: return "53100";
    default: return "58030";
  }
}

Status CannotWrite(const std::string& target, int error) {
  Status st =
      Status::IoError("could not open file \"{}\" for writing: {}", target, std::strerror(error))
          .WithSqlState(SqlStateFor(error));
  if (error == EACCES || error == EPERM)
    return std::move(st).WithHint(
        "the file or its directory is read-only; change its permissions or write elsewhere");
  return st;
}

// The pid of a temporary's name ".shoal-tmp-<pid>-<random>-<name>", or -1.
pid_t TemporaryPid(std::string_view name) {
  if (name.substr(0, kTemporaryPrefix.size()) != kTemporaryPrefix)
    return -1;
  name.remove_prefix(kTemporaryPrefix.size());
  long pid = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc() || end == name.data() + name.size() || *end != '-' || pid <= 0)
    return -1;
  return static_cast<pid_t>(pid);
}

bool ProcessAlive(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

uint32_t RandomTag() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937 engine{std::random_device{}()};
  return static_cast<uint32_t>(engine()) ^
         static_cast<uint32_t>(counter.fetch_add(1) * 2654435761u);
}

}  // namespace

int RemoveStaleTemporaries(const std::string& directory) {
  const std::string dir = directory.empty() ? std::string(".") : directory;
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr)
    return 0;
  int removed = 0;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name(entry->d_name);
    const pid_t pid = TemporaryPid(name);
    if (pid < 0 || pid == self || ProcessAlive(pid))
      continue;
    const std::string path = dir + (dir.back() == '/' ? "" : "/") + std::string(name);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
      continue;
    struct stat st {};
    // Only a regular file nobody holds the lock of: a live writer (maybe on another machine of a
    // shared file system, where its pid means nothing here) keeps its lock until it ends.
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        ::unlink(path.c_str()) == 0)
      ++removed;
    ::close(fd);
  }
  ::closedir(listing);
  return removed;
}

Result<std::unique_ptr<TemporaryPath>> TemporaryPath::Create(const std::string& target) {
  // COPY ... TO and every other write of a query's output lands here (data_roots.h).
  SHOAL_RETURN_IF_ERROR(CheckDataPath(target, "write").status());
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return CannotWrite(target, EISDIR);
    // access() answers for the real user; root passes it, but a file without any write bit is
    // a read-only mark that COPY honours for everyone.
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
      return CannotWrite(target, EACCES);
    if (::access(target.c_str(), W_OK) != 0)
      return CannotWrite(target, errno);
  } else if (errno != ENOENT) {
    return CannotWrite(target, errno);
  }
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  RemoveStaleTemporaries(dir.empty() ? std::string(".") : dir);
  for (int attempt = 0;; ++attempt) {
    std::string path =
        fmt::format("{}{}{}-{:08x}-{}", dir, kTemporaryPrefix, ::getpid(), RandomTag(), base);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST && attempt < 16)
        continue;
      return CannotWrite(target, errno);
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return CannotWrite(target, error);
    }
    return std::unique_ptr<TemporaryPath>(new TemporaryPath(target, std::move(path), fd));
  }
}

TemporaryPath::~TemporaryPath() {
  if (!published_)
    ::unlink(path_.c_str());
  if (lock_fd_ >= 0)
    ::close(lock_fd_);
}

Status SyncDirectory(const std::string& directory) {
  const std::string dir = directory.empty() ? std::string(".") : directory;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return Status::IoError("cannot open directory {}: {}", dir, std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0)
    return Status::IoError("cannot sync directory {}: {}", dir, std::strerror(err));
  return Status::OK();
}

Status TemporaryPath::Publish(bool durable) {
  if (published_)
    return Status::Internal("temporary file {} published twice", path_);
  if (durable && ::fsync(lock_fd_) != 0)
    return Status::IoError("cannot sync {}: {}", path_, std::strerror(errno));
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    // Keep what the user set on the file being replaced. Changing the owner needs privilege; when
    // the OS refuses, the file belongs to whoever wrote it, as with any new file.
    if (::fchmod(lock_fd_, st.st_mode & 07777) != 0)
      return Status::IoError("cannot set the mode of {}: {}", path_, std::strerror(errno));
    (void)::fchown(lock_fd_, st.st_uid, st.st_gid);
    if (::fchmod(lock_fd_, st.st_mode & 07777) != 0)  // chown may clear setuid / setgid bits
      return Status::IoError("cannot set the mode of {}: {}", path_, std::strerror(errno));
  }
  if (std::rename(path_.c_str(), target_.c_str()) != 0)
    return Status::IoError("cannot rename {} to {}: {}", path_, target_, std::strerror(errno));
  published_ = true;
  if (durable) {
    const size_t slash = target_.rfind('/');
    return SyncDirectory(slash == std::string::npos ? std::string() : target_.substr(0, slash));
  }
  return Status::OK();
}

}  // namespace shoal::io

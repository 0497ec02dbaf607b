#include "shoal/io/temporary_path.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <unistd.h>

namespace shoal::io {

std::string TemporaryPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return fmt::format("{}.{}.tmp-{}-{}", dir, base, ::getpid(), counter.fetch_add(1));
}

Status RenameInto(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return Status::IoError("cannot rename {} to {}: {}", temporary, path, std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace shoal::io

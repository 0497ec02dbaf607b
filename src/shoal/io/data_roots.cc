#include "shoal/io/data_roots.h"

#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace shoal::io {

namespace fs = std::filesystem;

namespace {

// Absolute, symlinks of the existing prefix resolved, `.` and `..` folded, no trailing slash.
Result<std::string> Resolve(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(path), ec);
  if (ec)
    return Status::IoError("cannot resolve '{}': {}", path, ec.message());
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (ec)
    return Status::IoError("cannot resolve '{}': {}", path, ec.message());
  std::string out = resolved.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/')
    out.pop_back();
  return out;
}

struct ProcessRoots {
  std::mutex mutex;
  std::shared_ptr<const DataRoots> roots = std::make_shared<DataRoots>();
};

ProcessRoots& Process() {
  static ProcessRoots process;
  return process;
}

}  // namespace

bool IsPathUnder(std::string_view path, std::string_view root) {
  if (root == "/")
    return path.starts_with('/');
  if (!path.starts_with(root))
    return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

Result<DataRoots> DataRoots::Make(const std::vector<std::string>& directories) {
  DataRoots out;
  for (const std::string& directory : directories) {
    if (directory.empty())
      return Status::InvalidArgument("--data-root must not be empty");
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
      return Status::InvalidArgument("--data-root '{}' is not a directory", directory)
          .WithHint("create it first, or name an existing directory that holds the data");
    SHOAL_ASSIGN_OR_RETURN(std::string resolved, Resolve(directory));
    out.roots_.push_back(std::move(resolved));
  }
  return out;
}

Result<std::string> DataRoots::Check(const std::string& path, std::string_view what) const {
  if (roots_.empty())
    return path;
  if (path.find('\0') != std::string::npos)
    return Status::InvalidArgument("the path to {} holds a NUL byte", what).WithSqlState("42501");
  SHOAL_ASSIGN_OR_RETURN(std::string resolved, Resolve(path));
  for (const std::string& root : roots_) {
    if (IsPathUnder(resolved, root))
      return resolved;
  }
  std::string resolves =
      resolved == path ? std::string() : fmt::format(" (it resolves to '{}')", resolved);
  return Status::InvalidArgument("permission denied to {} '{}'{}: it is outside the data roots {}",
                                 what, path, resolves, ToString())
      .WithSqlState("42501")
      .WithHint("this node reads and writes files only under its --data-root directories");
}

std::string DataRoots::ToString() const {
  std::string out;
  for (const std::string& root : roots_)
    out += fmt::format("{}'{}'", out.empty() ? "" : ", ", root);
  return out;
}

void SetProcessDataRoots(DataRoots roots) {
  auto& process = Process();
  std::lock_guard<std::mutex> lock(process.mutex);
  process.roots = std::make_shared<const DataRoots>(std::move(roots));
}

std::shared_ptr<const DataRoots> ProcessDataRoots() {
  auto& process = Process();
  std::lock_guard<std::mutex> lock(process.mutex);
  return process.roots;
}

Result<std::string> CheckDataPath(const std::string& path, std::string_view what) {
  return ProcessDataRoots()->Check(path, what);
}

}  // namespace shoal::io

#include "shoal/io/file_listing.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <glob.h>

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

bool IsHidden(const fs::path& path) {
  std::string name = path.filename().string();
  return !name.empty() && name[0] == '.';
}

}  // namespace

Result<std::vector<ListedFile>> ListFiles(const std::string& location) {
  std::vector<ListedFile> files;
  std::error_code ec;
  if (location.find_first_of("*?[") != std::string::npos) {
    glob_t matches{};
    int rc = glob(location.c_str(), 0, nullptr, &matches);
    if (rc != 0 && rc != GLOB_NOMATCH) {
      globfree(&matches);
      return Status::IoError("cannot list files matching '{}'", location);
    }
    for (size_t i = 0; i < matches.gl_pathc; ++i) {
      fs::path path(matches.gl_pathv[i]);
      if (fs::is_regular_file(path, ec) && !IsHidden(path))
        files.push_back({path.string(), static_cast<int64_t>(fs::file_size(path, ec))});
    }
    globfree(&matches);
  } else if (fs::is_directory(location, ec)) {
    for (const auto& entry : fs::directory_iterator(location, ec)) {
      if (entry.is_regular_file(ec) && !IsHidden(entry.path()))
        files.push_back({entry.path().string(), static_cast<int64_t>(entry.file_size(ec))});
    }
    if (ec)
      return Status::IoError("cannot list directory '{}': {}", location, ec.message());
  } else if (fs::is_regular_file(location, ec)) {
    files.push_back({location, static_cast<int64_t>(fs::file_size(location, ec))});
  } else {
    return Status::NotFound("no such file or directory: '{}'", location);
  }
  if (files.empty())
    return Status::NotFound("no files match '{}'", location);
  std::sort(files.begin(), files.end(),
            [](const ListedFile& a, const ListedFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace shoal::io

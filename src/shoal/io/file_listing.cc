#include "shoal/io/file_listing.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <glob.h>

#include "shoal/common/text.h"
#include "shoal/io/data_roots.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

// Spark's "_SUCCESS" and "_temporary", Hive's "_tmp", dot files, Shoal's own ".shoal-tmp-".
bool IsSkippedName(std::string_view name) {
  return !name.empty() && (name[0] == '.' || name[0] == '_');
}

// Whether any component of `relative` (a path below a glob's fixed prefix) is skipped.
bool HasSkippedComponent(std::string_view relative) {
  while (!relative.empty()) {
    const size_t slash = relative.find('/');
    if (IsSkippedName(relative.substr(0, slash)))
      return true;
    if (slash == std::string_view::npos)
      break;
    relative.remove_prefix(slash + 1);
  }
  return false;
}

std::string JoinExtensions(const std::vector<std::string_view>& extensions) {
  std::string out;
  for (size_t i = 0; i < extensions.size(); ++i)
    out += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + std::string(extensions[i]);
  return out;
}

Result<std::vector<ListedFile>> ListGlob(const std::string& pattern) {
  std::vector<ListedFile> files;
  const size_t wildcard = pattern.find_first_of("*?[");
  const size_t slash = pattern.rfind('/', wildcard);
  const size_t fixed = slash == std::string::npos ? 0 : slash + 1;
  glob_t matches{};
  const int rc = glob(pattern.c_str(), 0, nullptr, &matches);
  if (rc != 0 && rc != GLOB_NOMATCH) {
    globfree(&matches);
    return Status::IoError("cannot list files matching '{}'", pattern);
  }
  int skipped = 0;
  std::error_code ec;
  for (size_t i = 0; i < matches.gl_pathc; ++i) {
    const std::string path(matches.gl_pathv[i]);
    if (!fs::is_regular_file(path, ec))
      continue;
    if (HasSkippedComponent(std::string_view(path).substr(std::min(fixed, path.size())))) {
      ++skipped;
      continue;
    }
    files.push_back({path, static_cast<int64_t>(fs::file_size(path, ec))});
  }
  globfree(&matches);
  if (files.empty()) {
    if (skipped > 0)
      return Status::NotFound(
                 "no files match '{}': the {} matching files have names starting with '_' or '.'",
                 pattern, skipped)
          .WithHint("Shoal skips such files (Spark's _SUCCESS, hidden and temporary files)");
    return Status::NotFound("no files match '{}'", pattern);
  }
  return files;
}

Result<std::vector<ListedFile>> ListDirectory(const std::string& location,
                                              const std::vector<std::string_view>& extensions) {
  std::vector<ListedFile> files;
  std::vector<std::string> skipped;
  int subdirectories = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(location, ec)) {
    const std::string name = entry.path().filename().string();
    std::error_code entry_ec;
    if (entry.is_directory(entry_ec)) {
      subdirectories += IsSkippedName(name) ? 0 : 1;
      continue;
    }
    if (!entry.is_regular_file(entry_ec))
      continue;
    if (IsSkippedName(name) || !IsDataFileName(name, extensions)) {
      skipped.push_back(name);
      continue;
    }
    files.push_back({entry.path().string(), static_cast<int64_t>(entry.file_size(entry_ec))});
  }
  if (ec)
    return Status::IoError("cannot list directory '{}': {}", location, ec.message());
  if (files.empty()) {
    std::sort(skipped.begin(), skipped.end());
    std::string what = "it is empty";
    if (!skipped.empty()) {
      std::string names;
      for (size_t i = 0; i < skipped.size() && i < 5; ++i)
        names += (i == 0 ? "" : ", ") + skipped[i];
      if (skipped.size() > 5)
        names += fmt::format(", and {} more", skipped.size() - 5);
      what = fmt::format("it holds no file ending in {} ({} skipped: {})",
                         JoinExtensions(extensions), skipped.size(), names);
    } else if (subdirectories > 0) {
      what = fmt::format("it holds only subdirectories ({})", subdirectories);
    }
    std::string base = location;
    while (base.size() > 1 && base.back() == '/')
      base.pop_back();
    std::string hint = fmt::format(
        "a directory table reads the files of the directory ending in {}; name other files with "
        "a glob, e.g. LOCATION '{}/*'",
        JoinExtensions(extensions), base);
    if (subdirectories > 0)
      hint += fmt::format(" (subdirectories are not read: LOCATION '{}/*/*{}' reads their files)",
                          base, extensions.empty() ? std::string_view() : extensions.front());
    return Status::NotFound("no data files in directory '{}': {}", location, what)
        .WithHint(std::move(hint));
  }
  return files;
}

}  // namespace

bool IsDataFileName(std::string_view file_name, const std::vector<std::string_view>& extensions) {
  const std::string name = AsciiLower(file_name);
  std::string_view view(name);
  // dbgen's split files: "lineitem.tbl.1".
  const size_t dot = view.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < view.size() &&
      std::all_of(view.begin() + static_cast<std::ptrdiff_t>(dot) + 1, view.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    for (std::string_view extension : extensions) {
      const std::string_view stem = view.substr(0, dot);
      if (stem.size() > extension.size() &&
          stem.substr(stem.size() - extension.size()) == extension)
        return true;
    }
  }
  for (std::string_view extension : extensions) {
    if (view.size() > extension.size() && view.substr(view.size() - extension.size()) == extension)
      return true;
  }
  return false;
}

Result<std::vector<ListedFile>> ListFiles(const std::string& location,
                                          const std::vector<std::string_view>& extensions) {
  std::vector<ListedFile> files;
  std::error_code ec;
  const size_t wildcard = location.find_first_of("*?[");
  // Confinement (data_roots.h): the location (a glob's directory part) before anything is listed,
  // so nothing outside the roots is even named, then every file found, since a symlink inside a
  // root may point out of it.
  {
    const size_t slash =
        wildcard == std::string::npos ? std::string::npos : location.rfind('/', wildcard);
    const std::string listed = wildcard == std::string::npos ? location
                               : slash == std::string::npos  ? std::string(".")
                                                             : location.substr(0, slash + 1);
    SHOAL_RETURN_IF_ERROR(CheckDataPath(listed.empty() ? "/" : listed, "read").status());
  }
  if (wildcard != std::string::npos) {
    SHOAL_ASSIGN_OR_RETURN(files, ListGlob(location));
  } else if (fs::is_directory(location, ec)) {
    SHOAL_ASSIGN_OR_RETURN(files, ListDirectory(location, extensions));
  } else if (fs::is_regular_file(location, ec)) {
    files.push_back({location, static_cast<int64_t>(fs::file_size(location, ec))});
  } else {
    return Status::NotFound("no such file or directory: '{}'", location);
  }
  for (const ListedFile& file : files)
    SHOAL_RETURN_IF_ERROR(CheckDataPath(file.path, "read").status());
  std::sort(files.begin(), files.end(),
            [](const ListedFile& a, const ListedFile& b) { return a.path < b.path; });
  return files;
}

std::string DescribeFiles(const std::vector<std::string>& paths, size_t max_names) {
  std::string out = fmt::format("{} file{}: ", paths.size(), paths.size() == 1 ? "" : "s");
  if (paths.size() <= max_names || max_names < 2) {
    for (size_t i = 0; i < paths.size(); ++i)
      out += (i == 0 ? "" : ", ") + paths[i];
    return out;
  }
  // The first ones and the last one: where the list starts and ends is what one checks.
  const size_t head = max_names - 1;
  for (size_t i = 0; i < head; ++i)
    out += (i == 0 ? "" : ", ") + paths[i];
  out += fmt::format(", ... {} more ..., {}", paths.size() - max_names, paths.back());
  return out;
}

}  // namespace shoal::io

// File listing: turns a table LOCATION (one file, a directory, or a glob pattern) into the sorted
// list of regular files it names, with their sizes, for the file-backed table providers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::io {

struct ListedFile {
  std::string path;
  int64_t size = 0;
};

/// A directory lists its regular, non-hidden files (not recursive); a location containing `*`, `?`
/// or `[` is a glob; anything else must be an existing regular file. Relative locations resolve
/// against the process working directory. The result is sorted by path; an empty match is NotFound.
Result<std::vector<ListedFile>> ListFiles(const std::string& location);

}  // namespace shoal::io

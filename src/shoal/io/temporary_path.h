// Write-then-rename for files Shoal creates as a whole (COPY ... TO, tpchgen's Parquet): the bytes
// go to a hidden temporary file beside the target, which is renamed into place only when complete,
// so a failed or interrupted write never leaves a partial file at the target, and a directory
// listing (file_listing.h skips dot files) never picks up a file that is still being written.
#pragma once

#include <string>

#include "shoal/common/status.h"

namespace shoal::io {

/// "dir/.name.tmp-<pid>-<n>" for "dir/name"; unique within the process and across processes.
std::string TemporaryPathFor(const std::string& path);

/// Renames `temporary` to `path` (atomically replacing an existing file); IoError naming both.
Status RenameInto(const std::string& temporary, const std::string& path);

}  // namespace shoal::io

// The shuffle's small files -- task envelopes, encoded stage plans, map tasks' commit records --
// written whole and atomically and read whole with a size bound. Shared by the driver, the task
// processes, the map outputs and the worker's file service, below all of them.
#pragma once

#include <cstdint>
#include <string>

#include "shoal/common/result.h"

namespace shoal::distributed::shuffle {

/// Writes `bytes` to `path` through a temporary name and a rename (readers see all or nothing).
Status WriteFileAtomically(const std::string& path, const std::string& bytes);
/// The file's bytes; a file that is not a regular file (a FIFO, /dev/zero) or is larger than
/// `max_bytes` is refused before anything is read.
Result<std::string> ReadWholeFile(const std::string& path, int64_t max_bytes = INT64_MAX);

}  // namespace shoal::distributed::shuffle

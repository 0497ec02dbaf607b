// The materialized shuffle's process-level entry points, for `shoal task` (run one task from its
// envelope, the process a shuffle driver starts) and `shoal shuffle gc` (remove a finished query's
// files). They live in distributed/shuffle; the engine exposes them so that cli needs no other
// layer.
#pragma once

#include <cstdint>
#include <string>

#include "shoal/common/result.h"

namespace shoal::engine {

/// Runs the task of `envelope_path` (DIR/tasks/task-S-P.envelope); returns the rows it wrote.
Result<int64_t> RunShuffleTask(const std::string& envelope_path);

/// The line a failed task prints last on stdout for its driver (code and SQLSTATE).
std::string ShuffleTaskErrorReport(const Status& status);

/// Removes a finished query's stage files, temporaries and tasks/ from `dir`; returns how many
/// files were removed.
Result<int64_t> RemoveShuffleFiles(const std::string& dir);

}  // namespace shoal::engine

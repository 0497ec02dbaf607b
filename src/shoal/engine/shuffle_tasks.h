// The materialized shuffle's process-level entry points, for `shoal task` (run one task from its
// envelope, the process a shuffle driver starts) and `shoal shuffle gc` (remove a finished query's
// files). They live in distributed/shuffle; the engine exposes them so that cli needs no other
// layer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "shoal/common/result.h"

namespace shoal::engine {

/// Runs the task of `envelope_path` (DIR/tasks/task-S-P.envelope); returns the rows it wrote.
Result<int64_t> RunShuffleTask(const std::string& envelope_path);

/// `shoal task --launcher FD`: serves a shuffle driver's requests for task processes on `fd`
/// (distributed/shuffle/task_launcher.h); each forked child runs `run_task` (the body of `shoal
/// task ENVELOPE`) and exits with what it returns. Returns the launcher's exit status.
int ServeShuffleTaskLauncher(int fd, const std::function<int(const std::string&)>& run_task);

/// The line a failed task prints last on stdout for its driver (code and SQLSTATE).
std::string ShuffleTaskErrorReport(const Status& status);

/// Removes a finished query's stage files, temporaries and tasks/ from `dir`; returns how many
/// files were removed.
Result<int64_t> RemoveShuffleFiles(const std::string& dir);

}  // namespace shoal::engine

// The `shoal task` child process of a materialized shuffle, as both places that start one use it:
// the driver running tasks locally (shuffle_driver.cc) and a worker running tasks a remote driver
// sent it (stage_file_service.cc). Same process group, same death signal, same report format, so a
// task behaves identically wherever it runs.
#pragma once

#include <cstdint>
#include <string>

#include <sys/types.h>

#include "shoal/common/result.h"

namespace shoal::distributed::shuffle {

/// Starts `executable task envelope` in its own process group (killed when this process dies),
/// stdout and stderr to the given files.
Result<pid_t> SpawnTaskProcess(const std::string& executable, const std::string& envelope,
                               const std::string& stdout_path, const std::string& stderr_path);

/// Kills the task's process group and reaps it.
void KillTaskProcess(pid_t pid);

/// The row count a finished task printed: the last non-blank line of its stdout.
Result<int64_t> ParseTaskReport(const std::string& text);

/// The last `max_chars` of `text`, trailing blanks dropped.
std::string TailOf(const std::string& text, size_t max_chars);

/// "exit status N" / "killed by signal N (NAME)".
std::string DescribeTaskExit(int status);

/// The result of a task process that ended with wait status `status`, from its output files.
Result<int64_t> TaskOutcome(int status, const std::string& stdout_path,
                            const std::string& stderr_path);

}  // namespace shoal::distributed::shuffle

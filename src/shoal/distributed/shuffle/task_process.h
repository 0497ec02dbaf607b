// The `shoal task` child process of a materialized shuffle, as both places that start one use it:
// the driver running tasks locally (shuffle_driver.cc) and a worker running tasks a remote driver
// sent it (stage_file_service.cc). Same process group, same death signal, same report format, so a
// task behaves identically wherever it runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

#include "shoal/common/result.h"
#include "shoal/distributed/shuffle/task_error.h"

namespace shoal::distributed::shuffle {

/// Starts `executable task envelope` in its own process group (killed when this process dies),
/// stdout and stderr to the given files. The process is named `shoal task ...` in `ps`: argv[0] is
/// "shoal" and "/proc/self/exe" is resolved to the real binary before the exec (the kernel names a
/// process after the file it executes, and that link's file is called "exe").
Result<pid_t> SpawnTaskProcess(const std::string& executable, const std::string& envelope,
                               const std::string& stdout_path, const std::string& stderr_path);

/// The binary `executable` names: "/proc/self/exe" resolved to this process's real path (kept as
/// it is when the link cannot be read or its file was replaced on disk).
std::string ResolveTaskExecutable(const std::string& executable);

/// A null-terminated array of pointers into `strings` (which must outlive it), as execv takes.
std::vector<char*> NullTerminated(std::vector<std::string>& strings);

/// In a child just forked from `parent` (async-signal-safe calls only): a process group of its
/// own, killed when `parent` dies (exiting at once, status 125, when it already has), no signal
/// blocked. Every task process and the task launcher start so (task_launcher.h).
void EnterOwnProcessGroup(pid_t parent);

/// In such a child: stdin from /dev/null, stdout and stderr to these files (exit status 126 when
/// one cannot be opened), no other descriptor left for them.
void RedirectTaskOutput(const char* stdout_path, const char* stderr_path);

/// Kills the task's process group and reaps it.
void KillTaskProcess(pid_t pid);

/// The row count a finished task printed: the last non-blank line of its stdout.
Result<int64_t> ParseTaskReport(const std::string& text);

/// The last `max_chars` of `text`, trailing blanks dropped.
std::string TailOf(const std::string& text, size_t max_chars);

/// "exit status N" / "killed by signal N (NAME)".
std::string DescribeTaskExit(int status);

/// The result of a task process that ended with wait status `status`, from its output files: the
/// rows it wrote, or its error. A task that reported its error (TaskErrorReport) fails with that
/// error's code and SQLSTATE; one that died or exited without a report fails as Unavailable (it
/// may succeed when run again).
Result<int64_t> TaskOutcome(int status, const std::string& stdout_path,
                            const std::string& stderr_path);

}  // namespace shoal::distributed::shuffle

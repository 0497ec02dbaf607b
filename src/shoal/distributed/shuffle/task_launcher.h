// TaskLauncher: the fork server that starts the task processes of a local materialized shuffle
// (issue 16), in the manner of Android's zygote or PostgreSQL's postmaster.
//
// A task is a process of its own so that it can be killed and run again alone; but exec'ing the
// `shoal` binary for each one cost about 46 ms before the task read a byte (60% of it the dynamic
// loader), and every task of every stage level paid it. A driver instead starts one launcher
// process (`shoal task --launcher FD`, the same binary, exec'd once as a fresh single-threaded
// process) and asks it over a socketpair for each task; the launcher forks a child that does what
// an exec'd `shoal task ENVELOPE` does (the same function runs both: cli/task_command.cc) and
// `_exit`s with the same status, and reports the child's pid, then its wait status when it ends.
//
// What stays as it was with one exec per task (task_process.h): each task is its own process
// group (killed with kill(-pid, SIGKILL)), named `shoal task ENVELOPE` in `ps` (the child rewrites
// the launcher's argv, which the launcher pads for it), with the driver's environment and working
// directory at the time of the request, stdin /dev/null, stdout and stderr to the given files.
// Lifetimes chain with PR_SET_PDEATHSIG: the driver dying kills its launcher, the launcher dying
// kills its tasks. A launcher that dies or stops answering fails the tasks it ran as Unavailable
// (retryable), and the next task starts a new one. The launcher must never start a thread
// (forking a multi-threaded process copies locks held by threads that do not exist in the child):
// it checks that it has one at startup and refuses to serve otherwise.
//
// Driver side, a thread per launcher forks it (PR_SET_PDEATHSIG follows the thread that forked,
// so the launcher lives as long as that thread, not as long as the query that first needed it)
// and reads its messages.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "shoal/common/result.h"

namespace shoal::distributed::shuffle {

/// A task process a launcher started.
struct LaunchedTask {
  uint64_t id = 0;  // the launcher's name for it: a pid can be reused once the task is reaped
  pid_t pid = -1;
};

class TaskLauncher {
 public:
  /// Starts the launcher from `executable` (ResolveTaskExecutable) and waits until it answers.
  static Result<std::shared_ptr<TaskLauncher>> Start(const std::string& executable);

  /// Kills the launcher and with it every task it still runs.
  ~TaskLauncher();

  TaskLauncher(const TaskLauncher&) = delete;
  TaskLauncher& operator=(const TaskLauncher&) = delete;

  /// Starts the task of `envelope`, stdout and stderr to the given files.
  Result<LaunchedTask> Spawn(const std::string& envelope, const std::string& stdout_path,
                             const std::string& stderr_path);

  /// The wait status of `task` once it ended, then forgotten (ask once); nullopt while it runs;
  /// Unavailable when the launcher died first (the task died with it).
  std::optional<Result<int>> TakeExit(const LaunchedTask& task);

  /// TakeExit once `task` ended, waiting up to `timeout`; a launcher that does not report it in
  /// that time is killed (and the task with it).
  Result<int> WaitExit(const LaunchedTask& task, std::chrono::milliseconds timeout);

  /// Counts the launcher's reports of ended tasks and its death: WaitForNews(news(), ...) after a
  /// round of TakeExit calls misses none.
  uint64_t news();
  void WaitForNews(uint64_t seen, std::chrono::milliseconds timeout);

  /// Whether the launcher still runs (as far as its messages tell).
  bool alive();
  pid_t pid() const { return pid_; }

 private:
  TaskLauncher() = default;
  void Serve(int launcher_end, const std::string& path, std::vector<std::string> args);
  void Died(std::string reason);

  int fd_ = -1;
  std::atomic<pid_t> pid_{-1};  // set by the reader once it forked, never changed after
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool ready_ = false;
  bool dead_ = false;
  std::string death_;  // why it died
  uint64_t next_id_ = 1;
  uint64_t news_ = 0;
  std::map<uint64_t, Result<pid_t>> spawned_;  // answers to Spawn not yet taken
  std::map<uint64_t, int> exits_;              // wait statuses not yet taken
};

/// The launcher a driver shares between its queries: started at the first task, again after one
/// died. Thread-safe.
class SharedTaskLauncher {
 public:
  /// The running launcher; null when it cannot be started (warned once; the caller then starts
  /// tasks itself, SpawnTaskProcess) or SHOAL_SHUFFLE_TEST_NO_LAUNCHER is set (for comparisons).
  std::shared_ptr<TaskLauncher> Get(const std::string& executable);

 private:
  std::mutex mutex_;
  bool failed_ = false;
  std::shared_ptr<TaskLauncher> launcher_;
};

/// The launcher process's side (`shoal task --launcher FD`): serves the driver on `fd` until the
/// driver goes away. `run_task` is the body of `shoal task ENVELOPE`, called in each child after
/// its process is set up; it returns the exit status. Returns the launcher's exit status.
int ServeTaskLauncher(int fd, const std::function<int(const std::string& envelope)>& run_task);

/// The padding the driver puts on the launcher's command line: each child writes its own
/// `shoal task ENVELOPE` over the launcher's argv, which must be long enough for the longest path.
inline constexpr size_t kLauncherArgvSpace = 4200;

}  // namespace shoal::distributed::shuffle

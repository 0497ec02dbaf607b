// StageFileService: the server half of the materialized shuffle across machines
// (proto/shuffle.proto), what `shoal worker --shuffle-dir WDIR` adds to its gRPC server.
// RunShuffleTask writes the task's plan (its shuffle directories replaced by WDIR/q-<query id>, a
// directory per query so one query never reads another's files) and envelope there and runs the
// task on a thread of the worker (cancelling the call cancels it), or, with `task_processes`, as
// a `shoal task` child process exactly as a local driver does (cancelling the call kills the
// task's process group). DropShuffleQuery removes a query's directory once its driver is done with
// it (finished, failed or cancelled); a task call of that query arriving later is refused rather
// than creating the directory again. FetchStageFile streams a published stage file in chunks of at
// most kStageFileChunkBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "shoal/common/result.h"

namespace grpc {
class Service;
}

namespace shoal::distributed::shuffle {

inline constexpr size_t kStageFileChunkBytes = size_t{1} << 20;

struct StageFileServiceOptions {
  /// WDIR: created if missing.
  std::string shuffle_dir;
  /// Run each task as a `shoal task` child process instead of on a thread of this one. A process
  /// isolates the worker from a task's crash or runaway memory, but costs its start (loading the
  /// binary's libraries, a new thread pool, reopening the table files: tens of milliseconds per
  /// task, which a query of many short stages pays at every stage); a task on a thread shares the
  /// worker's, and a crash that takes the worker down is recovered as a lost worker is.
  bool task_processes = false;
  /// The `shoal` binary tasks run when `task_processes` is set.
  std::string executable = "/proc/self/exe";
  /// This worker's HOST:PORT, for error messages.
  std::string address;
  /// Where the tasks spill: replaces any `spill_dir` the driver's settings name (empty: the
  /// task's $TMPDIR or /tmp). The tasks' data roots are this process's (io/data_roots.h).
  std::string spill_dir;
};

class StageFileService {
 public:
  static Result<std::unique_ptr<StageFileService>> Make(StageFileServiceOptions options);
  ~StageFileService();

  /// The gRPC service to register with a server builder (owned by this object).
  grpc::Service* grpc_service();

  /// Tasks that ran to completion here.
  int64_t tasks_run() const;
  /// Tasks running here now.
  int64_t tasks_running() const;

  /// `address` once the server is bound (messages name the worker).
  void set_address(const std::string& address);

  struct Impl;

 private:
  explicit StageFileService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The per-query directory of `query_id` under `shuffle_dir`; InvalidArgument for an id that is
/// not 1-32 lowercase hex digits (it becomes a path).
Result<std::string> QueryShuffleDir(const std::string& shuffle_dir, const std::string& query_id);

}  // namespace shoal::distributed::shuffle

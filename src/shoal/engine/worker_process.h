// WorkerProcess: what `shoal worker` runs: a distributed WorkerService served over gRPC
// (distributed/transport/grpc_worker_server.h), with in-memory TPC-H tables when asked, and,
// with a shuffle directory, the materialized shuffle's task and stage-file service
// (distributed/shuffle/stage_file_service.h) beside it.
//
// Make prepares everything that needs no thread (the catalog, its TPC-H tables); Start binds and
// serves. The split lets the caller block its stop signals in between, so that every server
// thread inherits the mask and one thread of the caller's receives the signals.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/shuffle/stage_file_service.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/sql/catalog.h"

namespace shoal::engine {

struct WorkerProcessOptions {
  /// HOST:PORT to serve on (port 0: any free port).
  std::string listen;
  /// Threads per task; 0: the query's `threads` setting.
  int threads = 0;
  /// Bytes all tasks together may hold; 0: unlimited.
  int64_t memory_limit = 0;
  /// Scale factor of the in-memory TPC-H tables to generate; empty: none.
  std::string tpch_scale;
  /// The version reported to coordinators.
  std::string version;
  /// A task older than this is dropped even if its coordinator never closed it.
  std::chrono::milliseconds task_ttl{std::chrono::minutes(10)};
  /// Also serve materialized-shuffle tasks, keeping their stage files here; empty: not.
  std::string shuffle_dir;
  /// Run each of those tasks as a `shoal task` child process rather than on a thread of the
  /// worker (shuffle/stage_file_service.h: isolation against the cost of a process per task).
  bool shuffle_task_processes = false;
  /// Confinement and caps (worker_service.h, io/data_roots.h): the directories plans may read
  /// and write table files under (empty: anywhere), where tasks spill (empty: $TMPDIR or /tmp),
  /// the most threads a task may use (0: hardware threads), queries at once and tasks per query
  /// (0: unlimited), and the largest message a call may send.
  std::vector<std::string> data_roots;
  std::string spill_dir;
  int max_threads = 0;
  int max_queries = 0;
  int max_tasks_per_query = 0;
  int64_t max_message_bytes = distributed::kDefaultMaxReceiveBytes;
};

class WorkerProcess {
 public:
  static Result<std::unique_ptr<WorkerProcess>> Make(WorkerProcessOptions options);

  /// Binds and starts serving (once).
  Status Start();

  /// The bound HOST:PORT (the real port when `listen` asked for 0), once started.
  const std::string& address() const;

  /// Stops serving; Wait returns. Safe from another thread.
  void Shutdown();
  /// Blocks until the server is shut down.
  void Wait();

 private:
  explicit WorkerProcess(WorkerProcessOptions options) : options_(std::move(options)) {}

  WorkerProcessOptions options_;
  std::shared_ptr<sql::Catalog> catalog_;
  std::unique_ptr<distributed::shuffle::StageFileService> stage_files_;
  std::unique_ptr<distributed::GrpcWorkerServer> server_;
};

}  // namespace shoal::engine

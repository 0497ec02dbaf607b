// WorkerProcesses: real `shoal worker` processes on 127.0.0.1 for the slt configuration that runs
// queries over gRPC (grpc2). Each worker listens on a port the OS picks (`--listen 127.0.0.1:0`)
// and is ready once it printed "listening on HOST:PORT" on its stdout (a pipe read here), which it
// does only after its server accepts calls: readiness is that line, never a wait of fixed length.
//
// No worker outlives the slt process: each runs in its own process group with PR_SET_PDEATHSIG
// (it is killed if this process dies, even by SIGKILL), and Stop — called by the destructor and
// by the exit cleanup (exit_cleanup.h) — sends SIGTERM, then SIGKILL to a worker still alive
// after a grace period, and reaps every one.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "shoal/common/result.h"

namespace shoal::slt {

class WorkerProcesses {
 public:
  /// Starts `n` workers of `shoal_binary`, each ready before this returns. A worker that exits,
  /// prints something else or stays silent for `ready_timeout` is an error naming it (and every
  /// worker started so far is stopped).
  static Result<std::unique_ptr<WorkerProcesses>> Start(
      const std::string& shoal_binary, int n,
      std::chrono::milliseconds ready_timeout = std::chrono::seconds(120));

  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;
  ~WorkerProcesses() { Stop(); }

  /// HOST:PORT of each worker.
  const std::vector<std::string>& addresses() const { return addresses_; }
  /// Process ids of the workers not yet stopped.
  std::vector<pid_t> pids() const;

  /// Stops every worker (SIGTERM; SIGKILL after `grace`) and waits for each. Idempotent.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  struct Worker {
    pid_t pid = -1;
    int stdout_fd = -1;  // kept open while the worker runs: closing it could SIGPIPE it
  };

  WorkerProcesses() = default;
  Status StartOne(const std::string& shoal_binary, std::chrono::milliseconds ready_timeout);

  std::vector<Worker> workers_;
  std::vector<std::string> addresses_;
};

}  // namespace shoal::slt

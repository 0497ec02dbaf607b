// GrpcWorkerServer: serves a WorkerService (worker_service.h) as the gRPC Worker service of
// proto/distributed.proto — what `shoal worker --listen HOST:PORT` runs.
//
// CoordinatorChannel: the first message must be the task's SetPlanRequest; the task lives until
// the coordinator half-closes or the call breaks (coordinator gone), then its metrics are sent
// back (with the plan's refusal, if any) and the task is forgotten. ExecuteTask: the partitions
// of the range are pulled by one thread each and encoded as Arrow IPC chunks (wire_stream.h) into
// a queue bounded by `send_budget_bytes`; the call's thread writes the queue to the network, so a
// slow consumer blocks the writes (HTTP/2 flow control), then the queue, then the producers —
// nothing buffers without bound. A failed partition ends with its Status in its last chunk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/worker/worker_service.h"

namespace grpc {
class Service;
class ServerBuilder;
}  // namespace grpc

namespace shoal::distributed {

/// The largest message a worker receives by default: a task plan with the in-memory tables it
/// carries (dist_memory_table_max_bytes) or a batch of work units.
inline constexpr int64_t kDefaultMaxReceiveBytes = 256LL << 20;

/// The HTTP/2 settings every Shoal gRPC server uses (the worker service and the shuffle file
/// service): received messages up to `max_receive_bytes` (a larger one fails its call with
/// RESOURCE_EXHAUSTED before it is buffered), no port sharing (SO_REUSEPORT, gRPC's default on
/// Linux, would let a second worker start on a port in use and steal half its connections),
/// keepalive pings every second, and pings from clients accepted
/// at any rate, also between calls. Clients ping every 1-2 s to notice a dead peer quickly; with
/// gRPC's defaults a server answers such pings on an idle connection (a long task that sends no
/// data yet) with GOAWAY "too_many_pings" and the call fails.
void ApplyServerChannelArguments(grpc::ServerBuilder& builder,
                                 int64_t max_receive_bytes = kDefaultMaxReceiveBytes);

struct GrpcWorkerServerOptions {
  /// "HOST:PORT"; port 0 picks a free port (see port()).
  std::string listen;
  int64_t send_budget_bytes = 16LL << 20;
  /// Further services served on the same port (e.g. the shuffle's stage files); not owned, must
  /// outlive the server.
  std::vector<grpc::Service*> extra_services;
  /// The largest message a call may send the server.
  int64_t max_receive_bytes = kDefaultMaxReceiveBytes;
};

class GrpcWorkerServer {
 public:
  /// Binds and starts serving; `make_service` receives the bound address ("HOST:PORT" with the
  /// real port) and returns the service to run.
  static Result<std::unique_ptr<GrpcWorkerServer>> Start(
      GrpcWorkerServerOptions options,
      const std::function<std::shared_ptr<WorkerService>(const std::string& address)>&
          make_service);
  ~GrpcWorkerServer();

  int port() const;
  const std::string& address() const;
  /// Blocks until Shutdown (from another thread or a signal handler's thread).
  void Wait();
  void Shutdown();

  struct Impl;

 private:
  explicit GrpcWorkerServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shoal::distributed

// The gRPC transport of the worker protocol, client side: GrpcChannelResolver connects to workers
// by "host:port" (one HTTP/2 connection per worker, shared by every call of the process) and
// returns WorkerChannels speaking the Worker service of proto/distributed.proto.
//
// ExecuteTask is one server-streaming call per consumer-producer task pair; a receiving thread
// demultiplexes its chunks into one stream per partition (wire_stream.h), with a byte budget per
// call (`dist_receive_budget`, see GrpcChannelOptions) as flow control: when it is full the thread
// stops reading and HTTP/2 flow control stops the producer. Dropping the streams cancels the call.
//
// Failures: connection keepalive pings (every `keepalive_ms`, dead after `keepalive_timeout_ms`)
// turn a killed or partitioned worker into an Unavailable error within seconds instead of a hang;
// gRPC status codes map one-to-one onto Shoal's, and Shoal errors travel in the chunks with their
// code, message, SQLSTATE and hint.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

struct GrpcChannelOptions {
  int64_t receive_budget_bytes = 64LL << 20;
  int keepalive_ms = 1000;
  int keepalive_timeout_ms = 3000;
  /// Deadline of GetWorkerInfo and of connecting for any call.
  int connect_timeout_ms = 5000;
};

class GrpcChannelResolver final : public ChannelResolver {
 public:
  explicit GrpcChannelResolver(GrpcChannelOptions options = {}) : options_(options) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override;

 private:
  GrpcChannelOptions options_;
  std::mutex mutex_;
  std::map<std::string, WorkerChannelPtr> channels_;
};

/// gRPC status code <-> Shoal status code (one-to-one where both have the notion).
int ToGrpcCode(StatusCode code);
StatusCode FromGrpcCode(int code);

}  // namespace shoal::distributed

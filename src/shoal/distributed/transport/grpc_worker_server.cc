#include "shoal/distributed/transport/grpc_worker_server.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "shoal/common/log_context.h"
#include "shoal/common/memory_pool.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/task_metrics.h"
#include "shoal/distributed/proto/distributed.grpc.pb.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/library_logs.h"
#include "shoal/distributed/transport/node_security.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/distributed/transport/wire_stream.h"
#include "shoal/distributed/transport/worker_messages.h"

namespace shoal::distributed {

namespace {

// The passthrough headers of a call: its "shoal-" metadata, prefix removed.
Headers ReceivedHeaders(const grpc::ServerContext& context) {
  Headers headers;
  for (const auto& [key, value] : context.client_metadata()) {
    std::string_view k(key.data(), key.size());
    if (k.starts_with(kHeaderMetadataPrefix))
      headers[std::string(k.substr(kHeaderMetadataPrefix.size()))] =
          std::string(value.data(), value.size());
  }
  return headers;
}

// Writes a task's LoadInfo feed onto its coordinator channel, from the sampler threads, until the
// channel's handler closes it (after that the stream is gone and samples are dropped).
class LoadInfoWriter : public std::enable_shared_from_this<LoadInfoWriter> {
 public:
  using Stream =
      grpc::ServerReaderWriter<proto::WorkerToCoordinatorProto, proto::CoordinatorToWorkerProto>;

  explicit LoadInfoWriter(Stream* stream) : stream_(stream) {}

  LoadInfoSink Sink() {
    return [self = shared_from_this()](const LoadInfo* info) { self->Write(info); };
  }

  // The task's runtime filter reports, on the same stream (one writer at a time).
  RuntimeFilterSink FilterSink() {
    return [self = shared_from_this()](int id, std::shared_ptr<const exec::RuntimeFilter> filter,
                                       bool complete) {
      proto::WorkerToCoordinatorProto out;
      auto* m = out.mutable_runtime_filter();
      EncodeRuntimeFilter(id, *filter, m->mutable_filter());
      m->set_complete(complete);
      std::lock_guard<std::mutex> lock(self->mutex_);
      if (self->stream_)
        self->stream_->Write(out);
    };
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = nullptr;
  }

 private:
  void Write(const LoadInfo* info) {
    proto::WorkerToCoordinatorProto out;
    if (!info) {
      out.set_load_info_eos(true);
    } else {
      auto* m = out.mutable_load_info();
      m->set_partition(info->partition);
      m->set_rows_ready(info->rows_ready);
      m->set_reached_eos(info->reached_eos);
      for (int64_t b : info->column_bytes_ready)
        m->add_column_bytes_ready(b);
      for (float v : info->column_ndv_percentage)
        m->add_column_ndv_percentage(v);
      for (float v : info->column_null_percentage)
        m->add_column_null_percentage(v);
      m->set_rows_pulled_from_leaf(info->rows_pulled_from_leaf);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream_)
      stream_->Write(out);
  }

  std::mutex mutex_;
  Stream* stream_;
};

// The chunks of one ExecuteTask call on their way to the network, bounded by bytes.
class SendQueue {
 public:
  explicit SendQueue(int64_t budget) : budget_(std::max<int64_t>(1, budget)) {}

  // False once the call is gone.
  bool Push(proto::BatchChunkProto chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return cancelled_ || bytes_ < budget_; });
    if (cancelled_)
      return false;
    bytes_ += static_cast<int64_t>(chunk.ipc().size());
    chunks_.push_back(std::move(chunk));
    cv_.notify_all();
    return true;
  }

  void ProducerDone() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    cv_.notify_all();
  }

  // The next chunk, or false when every producer is done and the queue is empty.
  bool Pop(int producers, proto::BatchChunkProto* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !chunks_.empty() || done_ == producers; });
    if (chunks_.empty())
      return false;
    *out = std::move(chunks_.front());
    chunks_.pop_front();
    bytes_ -= static_cast<int64_t>(out->ipc().size());
    cv_.notify_all();
    return true;
  }

  void Cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    cv_.notify_all();
  }

  bool cancelled() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cancelled_;
  }

 private:
  const int64_t budget_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<proto::BatchChunkProto> chunks_;
  int64_t bytes_ = 0;
  int done_ = 0;
  bool cancelled_ = false;
};

void ProducePartition(exec::RecordBatchStream* stream, int partition,
                      columnar::ipc::Compression compression, SendQueue* queue,
                      const TaskKey& key) {
  // The partition's operators run on this thread: their lines name the query and the task.
  const ScopedLogContext log_context(key.query_id, key.ToString());
  Status status = [&]() -> Status {
    SHOAL_ASSIGN_OR_RETURN(auto encoder, PartitionEncoder::Make(stream->schema(), compression));
    for (;;) {
      if (queue->cancelled())
        return Status::OK();
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
      proto::BatchChunkProto chunk;
      chunk.set_partition(partition);
      if (!batch) {
        SHOAL_ASSIGN_OR_RETURN(*chunk.mutable_ipc(), encoder->Finish());
        chunk.set_end(true);
        queue->Push(std::move(chunk));
        return Status::OK();
      }
      if (batch->num_rows() == 0)
        continue;
      SHOAL_ASSIGN_OR_RETURN(*chunk.mutable_ipc(), encoder->Encode(*batch));
      if (!queue->Push(std::move(chunk)))
        return Status::OK();
    }
  }();
  if (!status.ok()) {
    proto::BatchChunkProto chunk;
    chunk.set_partition(partition);
    chunk.set_end(true);
    EncodeStatus(status, chunk.mutable_error());
    queue->Push(std::move(chunk));
  }
  queue->ProducerDone();
}

class WorkerGrpcService final : public proto::Worker::Service {
 public:
  WorkerGrpcService(int64_t send_budget, int64_t max_receive_bytes,
                    std::shared_ptr<NodeSecurity> security)
      : send_budget_(send_budget),
        max_receive_bytes_(max_receive_bytes),
        security_(std::move(security)) {}

  void SetService(std::shared_ptr<WorkerService> service) {
    std::lock_guard<std::mutex> lock(mutex_);
    service_ = std::move(service);
  }

  grpc::Status CoordinatorChannel(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<proto::WorkerToCoordinatorProto, proto::CoordinatorToWorkerProto>*
          stream) override {
    // The signature is checked before anything is read, and the plan's digest against it before
    // the plan is decoded (node_security.h).
    RequestToken token;
    if (grpc::Status auth = security_->VerifyCall(*context, "Worker/CoordinatorChannel", &token);
        !auth.ok())
      return auth;
    auto service = Service();
    if (!service)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the worker is starting");
    proto::CoordinatorToWorkerProto msg;
    bool has_task = false;
    TaskKey key;
    Status plan_status;
    auto load_info = std::make_shared<LoadInfoWriter>(stream);
    // Reads until the coordinator half-closes or goes away: the task lives exactly that long.
    while (stream->Read(&msg)) {
      if (msg.has_set_plan()) {
        if (has_task) {
          plan_status = Status::InvalidArgument("a coordinator channel carries one task's plan");
          continue;
        }
        const auto& m = msg.set_plan();
        // The signature covers the key as sent, so it is checked before the key is validated.
        const TaskKey sent_key{m.task_key().query_id(), m.task_key().stage_id(),
                               m.task_key().task_number()};
        if (grpc::Status auth = security_->CheckCallBody(token, sent_key.ToString(), m); !auth.ok())
          return auth;
        Result<SetPlanRequest> request = DecodeSetPlanRequest(m);
        if (!request.ok())
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, request.status().ToString());
        key = request->task_key;
        has_task = true;
        plan_status = service->SetPlan(*request, ReceivedHeaders(*context), load_info->Sink(),
                                       load_info->FilterSink());
      } else if (!has_task && !security_->insecure()) {
        return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                            "a coordinator channel must open with its signed plan");
      } else if (msg.has_work_unit_batch() && has_task) {
        Result<WorkUnitBatch> batch = DecodeWorkUnitBatch(msg.mutable_work_unit_batch());
        if (!batch.ok())
          continue;
        // Waiting here while the task's feed queues are full is the backpressure: the coordinator's
        // writes block on HTTP/2 flow control. Errors reach the feed's consumers.
        (void)service->PushWorkUnits(key, std::move(*batch),
                                     [context] { return context->IsCancelled(); });
      } else if (msg.has_work_unit_eos() && has_task) {
        service->EndWorkUnits(key);
      } else if (msg.has_heartbeat() && has_task) {
        service->Heartbeat(key);
      } else if (msg.has_runtime_filter() && has_task) {
        // A bad filter is dropped: the scans then read without it, as when it comes too late.
        Result<std::shared_ptr<const exec::RuntimeFilter>> filter =
            DecodeRuntimeFilter(msg.runtime_filter(), DefaultMemoryPool());
        if (filter.ok())
          service->DeliverRuntimeFilter(key, msg.runtime_filter().id(), std::move(*filter));
      }
    }
    if (!has_task)
      return grpc::Status::OK;
    TaskMetrics metrics = service->EndTask(key);
    load_info->Close();
    proto::WorkerToCoordinatorProto out;
    auto* m = out.mutable_task_metrics();
    EncodeTaskMetrics(metrics, m);
    if (!plan_status.ok())
      EncodeStatus(plan_status, m->mutable_plan_status());
    stream->Write(out);
    return grpc::Status::OK;
  }

  grpc::Status ExecuteTask(grpc::ServerContext* context,
                           const proto::ExecuteTaskRequestProto* request,
                           grpc::ServerWriter<proto::BatchChunkProto>* writer) override {
    RequestToken token;
    if (grpc::Status auth = security_->VerifyCall(*context, "Worker/ExecuteTask", &token);
        !auth.ok())
      return auth;
    if (grpc::Status auth = security_->CheckCallBody(
            token,
            TaskKey{request->task_key().query_id(), request->task_key().stage_id(),
                    request->task_key().task_number()}
                .ToString(),
            *request);
        !auth.ok())
      return auth;
    auto service = Service();
    if (!service)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the worker is starting");
    auto fail_all = [&](const Status& status) {
      for (int p = 0; p < RefusedPartitionCount(*request); ++p) {
        proto::BatchChunkProto chunk;
        chunk.set_partition(p);
        chunk.set_end(true);
        EncodeStatus(status, chunk.mutable_error());
        if (!writer->Write(chunk))
          break;
      }
      return grpc::Status::OK;
    };
    Result<DecodedExecuteTask> decoded = DecodeExecuteTaskRequest(*request);
    if (!decoded.ok())
      return fail_all(decoded.status());
    const ExecuteTaskRequest& r = decoded->request;
    const auto compression = decoded->compression;
    Result<std::vector<exec::StreamPtr>> streams = service->ExecuteTask(
        r, ReceivedHeaders(*context), [context] { return context->IsCancelled(); });
    if (!streams.ok())
      return fail_all(streams.status());
    SendQueue queue(send_budget_);
    std::vector<std::thread> producers;
    for (size_t p = 0; p < streams->size(); ++p) {
      producers.emplace_back(ProducePartition, (*streams)[p].get(), static_cast<int>(p),
                             compression, &queue, std::cref(r.task_key));
    }
    proto::BatchChunkProto chunk;
    std::shared_ptr<NetworkSendCounters> sent = service->SendCounters(r.task_key);
    while (queue.Pop(static_cast<int>(producers.size()), &chunk)) {
      if (sent) {
        sent->bytes += static_cast<int64_t>(chunk.ipc().size());
        sent->messages += 1;
      }
      if (context->IsCancelled() || !writer->Write(chunk)) {
        queue.Cancel();
        break;
      }
    }
    queue.Cancel();
    for (auto& t : producers)
      t.join();
    return grpc::Status::OK;
  }

  grpc::Status GetWorkerInfo(grpc::ServerContext* context,
                             const proto::GetWorkerInfoRequestProto* request,
                             proto::GetWorkerInfoResponseProto* response) override {
    RequestToken token;
    if (grpc::Status auth = security_->VerifyCall(*context, "Worker/GetWorkerInfo", &token);
        !auth.ok())
      return auth;
    if (grpc::Status auth = security_->CheckCallBody(token, "worker-info", *request); !auth.ok())
      return auth;
    auto service = Service();
    if (!service)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the worker is starting");
    WorkerInfo info = service->GetWorkerInfo();
    response->set_version(info.version);
    for (const auto& id : info.codec_ids)
      response->add_codec_ids(id);
    response->set_threads(info.threads);
    response->set_max_message_bytes(max_receive_bytes_);
    if (info.running_tasks >= 0) {
      response->set_reports_usage(true);
      response->set_memory_used(info.memory_used);
      response->set_memory_limit(info.memory_limit);
      response->set_running_tasks(info.running_tasks);
    }
    return grpc::Status::OK;
  }

  grpc::Status GetTaskProgress(grpc::ServerContext* context,
                               const proto::GetTaskProgressRequestProto* request,
                               proto::GetTaskProgressResponseProto* response) override {
    RequestToken token;
    if (grpc::Status auth = security_->VerifyCall(*context, "Worker/GetTaskProgress", &token);
        !auth.ok())
      return auth;
    if (grpc::Status auth = security_->CheckCallBody(token, request->query_id(), *request);
        !auth.ok())
      return auth;
    auto service = Service();
    if (!service)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the worker is starting");
    for (const TaskProgress& p : service->Progress(request->query_id())) {
      auto* t = response->add_tasks();
      t->set_stage_id(p.stage_id);
      t->set_task_number(p.task_number);
      t->set_bytes_read(p.bytes_read);
      t->set_output_rows(p.output_rows);
      t->set_done(p.done);
    }
    return grpc::Status::OK;
  }

 private:
  std::shared_ptr<WorkerService> Service() {
    std::lock_guard<std::mutex> lock(mutex_);
    return service_;
  }

  int64_t send_budget_;
  int64_t max_receive_bytes_;  // what ApplyServerChannelArguments lets gRPC receive
  std::shared_ptr<NodeSecurity> security_;
  std::mutex mutex_;
  std::shared_ptr<WorkerService> service_;
};

}  // namespace

struct GrpcWorkerServer::Impl {
  std::unique_ptr<WorkerGrpcService> grpc_service;
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<WorkerService> service;
  int port = 0;
  std::string address;
};

void ApplyServerChannelArguments(grpc::ServerBuilder& builder, int64_t max_receive_bytes) {
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::clamp<int64_t>(max_receive_bytes, 1, INT32_MAX)));
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxSendMessageSize(-1);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 3000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 200);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
}

GrpcWorkerServer::GrpcWorkerServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcWorkerServer::~GrpcWorkerServer() {
  Shutdown();
}

Result<std::unique_ptr<GrpcWorkerServer>> GrpcWorkerServer::Start(
    GrpcWorkerServerOptions options,
    const std::function<std::shared_ptr<WorkerService>(const std::string& address)>& make_service) {
  auto colon = options.listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == options.listen.size())
    return Status::InvalidArgument("--listen '{}' is not HOST:PORT", options.listen);
  auto impl = std::make_unique<Impl>();
  auto security = ProcessNodeSecurity();
  impl->grpc_service = std::make_unique<WorkerGrpcService>(
      options.send_budget_bytes, std::clamp<int64_t>(options.max_receive_bytes, 1, INT32_MAX),
      security);
  RouteLibraryLogs();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, security->ServerCredentials(), &impl->port);
  builder.RegisterService(impl->grpc_service.get());
  for (grpc::Service* extra : options.extra_services)
    builder.RegisterService(extra);
  ApplyServerChannelArguments(builder, options.max_receive_bytes);
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0)
    return Status::Unavailable(
               "could not listen on {}: the port is in use or the host is not an "
               "address of this machine",
               options.listen)
        .WithHint(
            "stop the process on that port (ss -ltnp shows it), or choose another port; "
            "port 0 picks a free one");
  impl->address = options.listen.substr(0, colon + 1) + std::to_string(impl->port);
  impl->service = make_service(impl->address);
  impl->grpc_service->SetService(impl->service);
  return std::unique_ptr<GrpcWorkerServer>(new GrpcWorkerServer(std::move(impl)));
}

int GrpcWorkerServer::port() const {
  return impl_->port;
}

const std::string& GrpcWorkerServer::address() const {
  return impl_->address;
}

void GrpcWorkerServer::Wait() {
  impl_->server->Wait();
}

void GrpcWorkerServer::Shutdown() {
  if (impl_ && impl_->server) {
    // The tasks first: gRPC's deadline cancels the calls but then waits for every handler to
    // return, and an ExecuteTask handler returns only once its task's streams end, which a task
    // still running (waiting on a peer, on work units) may never do by itself.
    if (impl_->service)
      impl_->service->Shutdown();
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
}

}  // namespace shoal::distributed

#include "shoal/dist/grpc_worker_channel.h"

#include <chrono>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "shoal/dist/plan_codec.h"
#include "shoal/dist/proto/dist.grpc.pb.h"
#include "shoal/dist/wire_stream.h"

namespace shoal::dist {

int ToGrpcCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return grpc::StatusCode::OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kSyntaxError:
    case StatusCode::kTypeError: return grpc::StatusCode::INVALID_ARGUMENT;
    case StatusCode::kNotFound: return grpc::StatusCode::NOT_FOUND;
    case StatusCode::kAlreadyExists: return grpc::StatusCode::ALREADY_EXISTS;
    case StatusCode::kOutOfRange: return grpc::StatusCode::OUT_OF_RANGE;
    case StatusCode::kOutOfMemory: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case StatusCode::kIoError: return grpc::StatusCode::DATA_LOSS;
    case StatusCode::kInvalidData: return grpc::StatusCode::DATA_LOSS;
    case StatusCode::kNotImplemented: return grpc::StatusCode::UNIMPLEMENTED;
    case StatusCode::kCancelled: return grpc::StatusCode::CANCELLED;
    case StatusCode::kUnavailable: return grpc::StatusCode::UNAVAILABLE;
    case StatusCode::kDeadlineExceeded: return grpc::StatusCode::DEADLINE_EXCEEDED;
    case StatusCode::kInternal: return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::UNKNOWN;
}

StatusCode FromGrpcCode(int code) {
  switch (code) {
    case grpc::StatusCode::OK: return StatusCode::kOk;
    case grpc::StatusCode::INVALID_ARGUMENT: return StatusCode::kInvalidArgument;
    case grpc::StatusCode::NOT_FOUND: return StatusCode::kNotFound;
    case grpc::StatusCode::ALREADY_EXISTS: return StatusCode::kAlreadyExists;
    case grpc::StatusCode::OUT_OF_RANGE: return StatusCode::kOutOfRange;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return StatusCode::kOutOfMemory;
    case grpc::StatusCode::DATA_LOSS: return StatusCode::kInvalidData;
    case grpc::StatusCode::UNIMPLEMENTED: return StatusCode::kNotImplemented;
    case grpc::StatusCode::CANCELLED: return StatusCode::kCancelled;
    case grpc::StatusCode::UNAVAILABLE: return StatusCode::kUnavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return StatusCode::kDeadlineExceeded;
    default: return StatusCode::kInternal;
  }
}

namespace {

Status FromGrpc(const grpc::Status& status, const std::string& address) {
  if (status.ok())
    return Status::OK();
  StatusCode code = FromGrpcCode(status.error_code());
  if (code == StatusCode::kUnavailable) {
    return Status::Unavailable("worker {} is unreachable: {}", address, status.error_message())
        .WithHint("check that `shoal worker` runs there and the address is right");
  }
  if (code == StatusCode::kDeadlineExceeded)
    return Status::DeadlineExceeded("worker {} did not answer in time: {}", address,
                                    status.error_message());
  return Status(code, fmt::format("worker {}: {}", address, status.error_message()));
}

void EncodeTaskKey(const TaskKey& key, proto::TaskKeyProto* out) {
  out->set_query_id(key.query_id);
  out->set_stage_id(key.stage_id);
  out->set_task_number(key.task_number);
}

void AddHeaders(const Headers& headers, grpc::ClientContext* context) {
  for (const auto& [k, v] : headers)
    context->AddMetadata("shoal-" + k, v);
}

class GrpcCoordinatorStream final : public CoordinatorStream {
 public:
  GrpcCoordinatorStream(std::string address, proto::Worker::Stub* stub, const Headers& headers)
      : address_(std::move(address)) {
    AddHeaders(headers, &context_);
    stream_ = stub->CoordinatorChannel(&context_);
  }

  ~GrpcCoordinatorStream() override {
    if (!finished_)
      (void)Finish();
  }

  Status SendPlan(const SetPlanRequest& request) override {
    proto::CoordinatorToWorkerProto msg;
    auto* m = msg.mutable_set_plan();
    EncodeTaskKey(request.task_key, m->mutable_task_key());
    m->set_task_count(request.task_count);
    if (!m->mutable_plan()->ParseFromString(request.encoded_plan))
      return Status::Internal("could not re-read an encoded plan");
    m->set_target_worker(request.target_worker);
    m->set_query_start_time_ns(request.query_start_time_ns);
    for (const auto& [name, value] : request.settings) {
      m->add_setting_names(name);
      m->add_setting_values(value);
    }
    if (!stream_->Write(msg))
      return FinishWithError();
    return Status::OK();
  }

  Status SendWorkUnitEos() override {
    proto::CoordinatorToWorkerProto msg;
    msg.set_work_unit_eos(true);
    if (!stream_->Write(msg))
      return FinishWithError();
    return Status::OK();
  }

  Result<TaskMetrics> Finish() override {
    if (finished_)
      return finish_status_.ok() ? Result<TaskMetrics>(metrics_) : finish_status_;
    finished_ = true;
    stream_->WritesDone();
    proto::WorkerToCoordinatorProto msg;
    Status plan_status;
    while (stream_->Read(&msg)) {
      if (msg.has_task_metrics()) {
        metrics_.output_rows = msg.task_metrics().output_rows();
        metrics_.output_batches = msg.task_metrics().output_batches();
        metrics_.elapsed_ns = msg.task_metrics().elapsed_ns();
        if (msg.task_metrics().has_plan_status())
          plan_status = DecodeStatus(msg.task_metrics().plan_status());
      }
    }
    finish_status_ = FromGrpc(stream_->Finish(), address_);
    if (finish_status_.ok())
      finish_status_ = plan_status;
    if (!finish_status_.ok())
      return finish_status_;
    return metrics_;
  }

 private:
  Status FinishWithError() {
    Result<TaskMetrics> r = Finish();
    return r.ok() ? Status::Unavailable("worker {} closed the coordinator channel", address_)
                  : r.status();
  }

  std::string address_;
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<proto::CoordinatorToWorkerProto, proto::WorkerToCoordinatorProto>>
      stream_;
  bool finished_ = false;
  Status finish_status_;
  TaskMetrics metrics_;
};

// One ExecuteTask call: its receiving thread feeds the demux until the call ends or the streams
// are dropped (which cancels the call).
class ExecuteCall {
 public:
  ExecuteCall(std::string address, int partitions, int64_t budget)
      : address_(std::move(address)),
        num_partitions_(std::max(0, partitions)),
        demux_(std::make_shared<PartitionDemux>(partitions, budget)) {}

  ~ExecuteCall() {
    context_.TryCancel();
    demux_->Close();
    if (thread_.joinable())
      thread_.join();
  }

  void Start(proto::Worker::Stub* stub, const proto::ExecuteTaskRequestProto& request,
             const Headers& headers) {
    AddHeaders(headers, &context_);
    reader_ = stub->ExecuteTask(&context_, request);
    thread_ = std::thread([this] { Receive(); });
  }

  const std::shared_ptr<PartitionDemux>& demux() const { return demux_; }

 private:
  void Receive() {
    proto::BatchChunkProto chunk;
    const int partitions = num_partitions_;
    while (reader_->Read(&chunk)) {
      const int p = chunk.partition();
      if (p < 0 || p >= partitions) {
        demux_->FailAll(
            Status::InvalidData("worker {} sent a chunk of partition {} of a call "
                                "for {} partitions",
                                address_, p, partitions));
        context_.TryCancel();
        break;
      }
      if (!chunk.ipc().empty() && !demux_->Push(p, std::move(*chunk.mutable_ipc())))
        break;  // the consumer is gone
      if (chunk.end()) {
        Status st = chunk.has_error() ? DecodeStatus(chunk.error()) : Status::OK();
        demux_->EndPartition(p, std::move(st));
      }
    }
    grpc::Status status = reader_->Finish();
    Status st = FromGrpc(status, address_);
    // Partitions that did not end properly fail with the call's error (a dead worker).
    demux_->FailAll(st.ok() ? Status::Unavailable("worker {} ended the stream early", address_)
                            : st);
  }

  std::string address_;
  int num_partitions_;
  grpc::ClientContext context_;
  std::shared_ptr<PartitionDemux> demux_;
  std::unique_ptr<grpc::ClientReader<proto::BatchChunkProto>> reader_;
  std::thread thread_;
};

class GrpcWorkerChannel final : public WorkerChannel {
 public:
  GrpcWorkerChannel(std::string address, std::shared_ptr<grpc::Channel> channel,
                    GrpcChannelOptions options)
      : address_(std::move(address)),
        channel_(std::move(channel)),
        stub_(proto::Worker::NewStub(channel_)),
        options_(options) {}

  const std::string& address() const override { return address_; }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) override {
    SHOAL_RETURN_IF_ERROR(WaitConnected());
    return std::unique_ptr<CoordinatorStream>(
        new GrpcCoordinatorStream(address_, stub_.get(), headers));
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    SHOAL_RETURN_IF_ERROR(WaitConnected());
    proto::ExecuteTaskRequestProto msg;
    EncodeTaskKey(request.task_key, msg.mutable_task_key());
    msg.set_partition_start(request.partition_start);
    msg.set_partition_end(request.partition_end);
    msg.mutable_head()->set_kind(static_cast<uint32_t>(request.head.kind));
    if (request.head.kind == ProducerHeadKind::kRepartition) {
      SHOAL_RETURN_IF_ERROR(EncodePartitioning(request.head.partitioning,
                                               msg.mutable_head()->mutable_partitioning()));
    }
    columnar::ipc::Compression compression = columnar::ipc::Compression::kLz4Frame;
    if (context) {
      SHOAL_ASSIGN_OR_RETURN(compression,
                             ParseCompression(context->settings().GetString("dist_compression")));
    }
    msg.set_compression(static_cast<uint32_t>(compression));
    const int n = request.partition_end - request.partition_start;
    auto call = std::make_shared<ExecuteCall>(address_, n, options_.receive_budget_bytes);
    call->Start(stub_.get(), msg, headers);
    return call->demux()->MakeStreams(call, context ? context->memory_pool() : DefaultMemoryPool(),
                                      context);
  }

  Result<WorkerInfo> GetWorkerInfo() override {
    SHOAL_RETURN_IF_ERROR(WaitConnected());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(options_.connect_timeout_ms));
    proto::GetWorkerInfoRequestProto request;
    proto::GetWorkerInfoResponseProto response;
    SHOAL_RETURN_IF_ERROR(FromGrpc(stub_->GetWorkerInfo(&context, request, &response), address_));
    WorkerInfo info;
    info.version = response.version();
    info.codec_ids.assign(response.codec_ids().begin(), response.codec_ids().end());
    info.threads = response.threads();
    return info;
  }

 private:
  // Fails fast (Unavailable) when the worker cannot be reached, instead of queueing the call.
  Status WaitConnected() {
    auto deadline =
        std::chrono::system_clock::now() + std::chrono::milliseconds(options_.connect_timeout_ms);
    if (!channel_->WaitForConnected(deadline))
      return Status::Unavailable("worker {} is unreachable: no connection within {} ms", address_,
                                 options_.connect_timeout_ms)
          .WithHint("check that `shoal worker` runs there and the address is right");
    return Status::OK();
  }

  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<proto::Worker::Stub> stub_;
  GrpcChannelOptions options_;
};

}  // namespace

Result<WorkerChannelPtr> GrpcChannelResolver::Connect(const std::string& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = channels_.find(address);
  if (it != channels_.end())
    return it->second;
  if (address.empty() || address.find(':') == std::string::npos)
    return Status::InvalidArgument("worker address '{}' is not HOST:PORT", address);
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, options_.keepalive_ms);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, options_.keepalive_timeout_ms);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1);
  args.SetInt(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
  // Reconnect quickly after a worker restarts instead of backing off for minutes.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  WorkerChannelPtr out = std::make_shared<GrpcWorkerChannel>(address, std::move(channel), options_);
  channels_[address] = out;
  return out;
}

}  // namespace shoal::dist

#include "shoal/distributed/transport/grpc_worker_channel.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "shoal/common/logging.h"
#include "shoal/common/memory_pool.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/task_metrics.h"
#include "shoal/distributed/proto/distributed.grpc.pb.h"
#include "shoal/distributed/transport/library_logs.h"
#include "shoal/distributed/transport/node_security.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/distributed/transport/wire_stream.h"
#include "shoal/distributed/transport/worker_messages.h"

namespace shoal::distributed {

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

// How long a failed call lets its consumer end on the error before failing its other calls.
constexpr auto kConsumerGrace = std::chrono::milliseconds(20);

constexpr const char* kUnreachableHint =
    "check that `shoal worker` runs there, that the address is right, and that both sides use "
    "certificates of the same CA (--tls-ca), or both --insecure";

Status FromGrpc(const grpc::Status& status, const std::string& address) {
  if (status.ok())
    return Status::OK();
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
      status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
    return Status::InvalidArgument("worker {} refused the request: {}", address,
                                   status.error_message())
        .WithHint(
            "every node of a cluster must read the same --cluster-secret-file, and their "
            "clocks must agree within the signatures' lifetime");
  }
  // gRPC's own refusal of a message past the receiver's limit ("Received message larger than max
  // (N vs. M)"): a limit to raise, not a lack of memory.
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      status.error_message().find("larger than max") != std::string::npos) {
    return Status::InvalidArgument("worker {} refused a message: {}", address,
                                   status.error_message())
        .WithSqlState("54000")
        .WithHint("start the workers with a larger --max-message-size");
  }
  StatusCode code = FromGrpcCode(status.error_code());
  if (code == StatusCode::kUnavailable) {
    return UnreachableWorkerError(address, status.error_message()).WithHint(kUnreachableHint);
  }
  if (code == StatusCode::kDeadlineExceeded)
    return Status::DeadlineExceeded("worker {} did not answer in time: {}", address,
                                    status.error_message());
  return Status(code, fmt::format("worker {}: {}", address, status.error_message()));
}

void AddHeaders(const Headers& headers, grpc::ClientContext* context) {
  for (const auto& [k, v] : headers)
    context->AddMetadata(std::string(kHeaderMetadataPrefix) + k, v);
}

LoadInfo DecodeLoadInfo(const proto::LoadInfoProto& in) {
  LoadInfo info;
  info.partition = in.partition();
  info.rows_ready = in.rows_ready();
  info.reached_eos = in.reached_eos();
  info.column_bytes_ready.assign(in.column_bytes_ready().begin(), in.column_bytes_ready().end());
  info.column_ndv_percentage.assign(in.column_ndv_percentage().begin(),
                                    in.column_ndv_percentage().end());
  info.column_null_percentage.assign(in.column_null_percentage().begin(),
                                     in.column_null_percentage().end());
  info.rows_pulled_from_leaf = in.rows_pulled_from_leaf();
  return info;
}

class GrpcCoordinatorStream final : public CoordinatorStream {
 public:
  GrpcCoordinatorStream(std::string address, proto::Worker::Stub* stub, const Headers& headers,
                        std::shared_ptr<NodeSecurity> security,
                        std::shared_ptr<const std::atomic<int64_t>> worker_max_message_bytes)
      : address_(std::move(address)),
        stub_(stub),
        security_(std::move(security)),
        worker_max_message_bytes_(std::move(worker_max_message_bytes)) {
    AddHeaders(headers, &context_);
  }

  ~GrpcCoordinatorStream() override {
    if (!finished_)
      (void)Finish();
    if (reader_.joinable()) {
      context_.TryCancel();
      reader_.join();
    }
  }

  Status SendPlan(const SetPlanRequest& request) override {
    proto::CoordinatorToWorkerProto msg;
    auto* m = msg.mutable_set_plan();
    EncodeSetPlanRequest(request, m);
    // A plan past the worker's limit would be refused by gRPC on the worker, and the coordinator
    // would only hear of it at the end of the query: the tasks waiting for it would fail first,
    // after their wait for a plan ("has no plan"). Checked here it fails the query at once.
    const int64_t limit = worker_max_message_bytes_->load(std::memory_order_relaxed);
    if (const auto size = static_cast<int64_t>(msg.ByteSizeLong()); limit > 0 && size > limit)
      return PlanTooLarge(request.task_key, size, limit);
    std::unique_lock<std::mutex> lock(write_mutex_);
    if (stream_)
      return Status::Internal("a coordinator channel carries one task's plan");
    // The call opens with the plan's signature in its metadata (node_security.h), so it starts
    // only now that the plan is known.
    security_->SignCall(&context_, "Worker/CoordinatorChannel", request.task_key.ToString(), *m);
    stream_ = stub_->CoordinatorChannel(&context_);
    if (!stream_->Write(msg)) {
      lock.unlock();
      return FinishWithError();
    }
    plan_sent_ = true;
    if (filter_sink_) {
      // The task reports runtime filters while it runs: a thread reads the worker's side.
      reader_ = std::thread([this] { ReadAll(); });
    }
    return Status::OK();
  }

  void SetRuntimeFilterSink(const RuntimeFilterSink& sink) override { filter_sink_ = sink; }

  Status SendRuntimeFilter(int id,
                           const std::shared_ptr<const exec::RuntimeFilter>& filter) override {
    proto::CoordinatorToWorkerProto msg;
    EncodeRuntimeFilter(id, *filter, msg.mutable_runtime_filter());
    std::unique_lock<std::mutex> lock(write_mutex_);
    if (finished_ || !stream_)
      return Status::OK();
    // A failed write shows at the next send or at Finish.
    (void)stream_->Write(msg);
    return Status::OK();
  }

  Status SendWorkUnitBatch(const WorkUnitBatch& batch) override {
    proto::CoordinatorToWorkerProto msg;
    EncodeWorkUnitBatch(batch, msg.mutable_work_unit_batch());
    // Blocks on HTTP/2 flow control while the worker's feed queues are full; CancelSends ends it.
    std::unique_lock<std::mutex> lock(write_mutex_);
    if (finished_)
      return finish_status_.ok() ? Status::Cancelled("the coordinator channel is closed")
                                 : finish_status_;
    if (!stream_)
      return Status::Internal("work units sent before the task's plan");
    if (!stream_->Write(msg)) {
      lock.unlock();
      return FinishWithError();
    }
    return Status::OK();
  }

  void CancelSends() override { context_.TryCancel(); }

  Status SendWorkUnitEos() override {
    proto::CoordinatorToWorkerProto msg;
    msg.set_work_unit_eos(true);
    std::unique_lock<std::mutex> lock(write_mutex_);
    if (finished_ || !stream_)
      return Status::OK();
    if (!stream_->Write(msg)) {
      lock.unlock();
      return FinishWithError();
    }
    return Status::OK();
  }

  Status SendHeartbeat() override {
    // Never waits: a send in flight (perhaps blocked by backpressure) already tells the worker.
    std::unique_lock<std::mutex> lock(write_mutex_, std::try_to_lock);
    if (!lock.owns_lock() || finished_ || !plan_sent_)
      return Status::OK();
    proto::CoordinatorToWorkerProto msg;
    msg.set_heartbeat(true);
    // A failed write shows again at the next send or at Finish, which report the worker's status.
    (void)stream_->Write(msg);
    return Status::OK();
  }

  // The worker sends its task metrics only after WritesDone, so before Finish the stream carries
  // nothing but the LoadInfo feed.
  Result<std::optional<LoadInfo>> ReadLoadInfo() override {
    if (finished_ || !stream_)
      return Status::Internal("LoadInfo asked of a finished or unopened coordinator channel");
    if (reader_.joinable()) {
      std::unique_lock<std::mutex> lock(read_mutex_);
      read_cv_.wait(lock, [&] { return !load_infos_.empty() || read_done_; });
      if (load_infos_.empty()) {
        lock.unlock();
        return FinishWithError();
      }
      std::optional<LoadInfo> info = std::move(load_infos_.front());
      load_infos_.pop_front();
      return info;
    }
    proto::WorkerToCoordinatorProto msg;
    while (stream_->Read(&msg)) {
      if (msg.has_load_info_eos())
        return std::optional<LoadInfo>();
      if (msg.has_load_info())
        return std::optional<LoadInfo>(DecodeLoadInfo(msg.load_info()));
    }
    return FinishWithError();
  }

  Result<TaskMetrics> Finish() override {
    std::unique_lock<std::mutex> lock(write_mutex_);
    if (finished_)
      return finish_status_.ok() ? Result<TaskMetrics>(metrics_) : finish_status_;
    finished_ = true;
    if (!stream_)
      return metrics_;  // never opened: no plan was sent
    stream_->WritesDone();
    lock.unlock();
    Status plan_status;
    if (reader_.joinable()) {
      reader_.join();  // it read up to the end of the stream, the task's metrics included
      plan_status = reader_plan_status_;
    } else {
      proto::WorkerToCoordinatorProto msg;
      while (stream_->Read(&msg))
        ReadMetrics(msg, &plan_status);
    }
    finish_status_ = FromGrpc(stream_->Finish(), address_);
    if (finish_status_.ok())
      finish_status_ = plan_status;
    if (!finish_status_.ok())
      return finish_status_;
    return metrics_;
  }

 private:
  Status PlanTooLarge(const TaskKey& key, int64_t size, int64_t limit) const {
    return Status::InvalidArgument(
               "the plan of {} is {} ({} bytes), more than worker {} accepts: its "
               "--max-message-size is {} ({} bytes)",
               key.ToString(), FormatBytes(size), size, address_, FormatBytes(limit), limit)
        .WithSqlState("54000")
        .WithHint(
            "start the workers with a larger --max-message-size, or make the plan smaller "
            "(in-memory tables travel inside it up to dist_memory_table_max_bytes)");
  }

  void ReadMetrics(const proto::WorkerToCoordinatorProto& msg, Status* plan_status) {
    if (msg.has_task_metrics()) {
      metrics_ = DecodeTaskMetrics(msg.task_metrics());
      if (msg.task_metrics().has_plan_status())
        *plan_status = DecodeStatus(msg.task_metrics().plan_status());
    }
  }

  // The reader thread (a task that reports runtime filters): every message of the worker's side
  // until it ends, runtime filters to the sink, LoadInfo to ReadLoadInfo, metrics to Finish.
  void ReadAll() {
    proto::WorkerToCoordinatorProto msg;
    while (stream_->Read(&msg)) {
      if (msg.has_runtime_filter()) {
        Result<std::shared_ptr<const exec::RuntimeFilter>> filter =
            DecodeRuntimeFilter(msg.runtime_filter().filter(), DefaultMemoryPool());
        if (filter.ok()) {
          filter_sink_(msg.runtime_filter().filter().id(), std::move(*filter),
                       msg.runtime_filter().complete());
        } else {
          SHOAL_LOG(kWarning, "worker {} sent a bad runtime filter: {}", address_,
                    filter.status().ToString());
        }
      } else if (msg.has_load_info() || msg.has_load_info_eos()) {
        std::lock_guard<std::mutex> lock(read_mutex_);
        if (msg.has_load_info())
          load_infos_.emplace_back(DecodeLoadInfo(msg.load_info()));
        else
          load_infos_.emplace_back(std::nullopt);
        read_cv_.notify_all();
      } else {
        ReadMetrics(msg, &reader_plan_status_);
      }
    }
    std::lock_guard<std::mutex> lock(read_mutex_);
    read_done_ = true;
    read_cv_.notify_all();
  }

  Status FinishWithError() {
    Result<TaskMetrics> r = Finish();
    return r.ok() ? Status::Unavailable("worker {} closed the coordinator channel", address_)
                  : r.status();
  }

  std::string address_;
  proto::Worker::Stub* stub_;
  std::shared_ptr<NodeSecurity> security_;
  // The worker's --max-message-size, from its last GetWorkerInfo (0: not known yet).
  std::shared_ptr<const std::atomic<int64_t>> worker_max_message_bytes_;
  grpc::ClientContext context_;
  // Opened by SendPlan.
  std::unique_ptr<
      grpc::ClientReaderWriter<proto::CoordinatorToWorkerProto, proto::WorkerToCoordinatorProto>>
      stream_;
  // Serialises writes: the work-unit sender, the heartbeat thread and Finish's WritesDone.
  std::mutex write_mutex_;
  bool plan_sent_ = false;
  bool finished_ = false;
  Status finish_status_;
  TaskMetrics metrics_;
  // A task that reports runtime filters: the thread reading the worker's side, and what it read.
  RuntimeFilterSink filter_sink_;
  std::thread reader_;
  std::mutex read_mutex_;
  std::condition_variable read_cv_;
  std::deque<std::optional<LoadInfo>> load_infos_;
  bool read_done_ = false;
  Status reader_plan_status_;
};

// The open ExecuteTask calls of each consumer, keyed by its TaskContext. Tasks are not retried, so
// the first call of a consumer that fails fails all its other calls at once: a consumer blocked on
// a healthy but slow producer then reports a dead worker within seconds, instead of after that
// producer finished its work.
class ConsumerCalls {
 public:
  static ConsumerCalls& Instance() {
    // Never destroyed: calls may end during exit. Guarded by its own mutex.
    // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
    static auto* calls = new ConsumerCalls();
    return *calls;
  }

  void Add(const void* consumer, const std::shared_ptr<PartitionDemux>& demux) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.emplace(consumer, demux);
  }

  void Remove(const void* consumer, const PartitionDemux* demux) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [begin, end] = calls_.equal_range(consumer);
    for (auto it = begin; it != end;) {
      auto d = it->second.lock();
      it = (!d || d.get() == demux) ? calls_.erase(it) : std::next(it);
    }
  }

  void FailOthers(const void* consumer, const PartitionDemux* failed, const Status& status) {
    std::vector<std::shared_ptr<PartitionDemux>> others;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [begin, end] = calls_.equal_range(consumer);
      for (auto it = begin; it != end; ++it) {
        auto demux = it->second.lock();
        if (demux && demux.get() != failed)
          others.push_back(std::move(demux));
      }
    }
    for (const auto& demux : others)
      demux->FailAll(status);
  }

 private:
  std::mutex mutex_;
  std::multimap<const void*, std::weak_ptr<PartitionDemux>> calls_;
};

// One ExecuteTask call: its receiving thread feeds the demux until the call ends or the streams
// are dropped (which cancels the call).
class ExecuteCall {
 public:
  ExecuteCall(std::string address, int partitions, int64_t budget, std::string task,
              const void* consumer)
      : address_(std::move(address)),
        num_partitions_(std::max(0, partitions)),
        demux_(std::make_shared<PartitionDemux>(partitions, budget)),
        task_(std::move(task)),
        consumer_(consumer) {}

  ~ExecuteCall() {
    {
      std::lock_guard<std::mutex> lock(closing_mutex_);
      closing_ = true;
    }
    closing_cv_.notify_all();
    if (consumer_)
      ConsumerCalls::Instance().Remove(consumer_, demux_.get());
    context_.TryCancel();
    demux_->Close();
    if (thread_.joinable())
      thread_.join();
  }

  void Start(proto::Worker::Stub* stub, const proto::ExecuteTaskRequestProto& request,
             const Headers& headers, const NodeSecurity& security, const std::string& key) {
    AddHeaders(headers, &context_);
    security.SignCall(&context_, "Worker/ExecuteTask", key, request);
    if (consumer_)
      ConsumerCalls::Instance().Add(consumer_, demux_);
    reader_ = stub->ExecuteTask(&context_, request);
    thread_ = std::thread([this] { Receive(); });
  }

  const std::shared_ptr<PartitionDemux>& demux() const { return demux_; }

 private:
  // The first failure of this call also fails the consumer's other calls (ConsumerCalls), after a
  // grace period: when the consumer reads this call, the original error ends it first (and closes
  // this call) within the period, and the user sees it alone rather than a sibling's copy of it
  // (which quotes it). When the consumer waits on another call (a join's build side while this
  // is its probe side) the period is pure delay, paid at every hop between the lost worker and
  // the coordinator: at 250 ms, a lost worker cost half a second before retry_policy = query
  // could run the query again.
  void FailConsumer(const Status& status) {
    if (failed_ || !consumer_)
      return;
    failed_ = true;
    {
      std::unique_lock<std::mutex> lock(closing_mutex_);
      if (closing_cv_.wait_for(lock, kConsumerGrace, [&] { return closing_; }))
        return;
    }
    ConsumerCalls::Instance().FailOthers(
        consumer_, demux_.get(),
        status.WithContext(fmt::format("{} on worker {} failed", task_, address_)));
  }

  void Receive() {
    proto::BatchChunkProto chunk;
    const int partitions = num_partitions_;
    int ended = 0;
    bool consumer_gone = false;
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
      if (!chunk.ipc().empty() && !demux_->Push(p, std::move(*chunk.mutable_ipc()))) {
        consumer_gone = true;
        break;
      }
      if (chunk.end()) {
        Status st = chunk.has_error() ? DecodeStatus(chunk.error()) : Status::OK();
        ++ended;
        if (!st.ok())
          FailConsumer(st);
        demux_->EndPartition(p, std::move(st));
      }
    }
    grpc::Status status = reader_->Finish();
    Status st = FromGrpc(status, address_);
    if (!consumer_gone && ended < partitions) {
      FailConsumer(st.ok() ? Status::Unavailable("worker {} ended the stream early", address_)
                           : st);
    }
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
  std::string task_;      // "stage S task T", for errors
  const void* consumer_;  // the consumer's TaskContext (null: none)
  std::mutex closing_mutex_;
  std::condition_variable closing_cv_;
  bool closing_ = false;  // the consumer dropped the call
  bool failed_ = false;   // receiving thread only
};

class GrpcWorkerChannel final : public WorkerChannel {
 public:
  /// `new_channel` makes another channel to the same address with the same credentials and
  /// arguments (WaitConnected's probe).
  GrpcWorkerChannel(std::string address,
                    std::function<std::shared_ptr<grpc::Channel>()> new_channel,
                    GrpcChannelOptions options, std::shared_ptr<NodeSecurity> security)
      : address_(std::move(address)),
        new_channel_(std::move(new_channel)),
        channel_(new_channel_()),
        stub_(proto::Worker::NewStub(channel_)),
        options_(options),
        security_(std::move(security)) {}

  const std::string& address() const override { return address_; }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) override {
    SHOAL_RETURN_IF_ERROR(WaitConnected());
    return std::unique_ptr<CoordinatorStream>(
        new GrpcCoordinatorStream(address_, stub_.get(), headers, security_, max_message_bytes_));
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    SHOAL_RETURN_IF_ERROR(WaitConnected());
    proto::ExecuteTaskRequestProto msg;
    columnar::ipc::Compression compression = columnar::ipc::Compression::kLz4Frame;
    if (context) {
      SHOAL_ASSIGN_OR_RETURN(
          compression,
          ParseCompression(context->settings().GetString("dist_compression"), address_));
    }
    SHOAL_RETURN_IF_ERROR(EncodeExecuteTaskRequest(request, compression, &msg));
    const int n = request.partition_end - request.partition_start;
    auto call = std::make_shared<ExecuteCall>(address_, n, options_.receive_budget_bytes,
                                              request.task_key.ToString(), context.get());
    call->Start(stub_.get(), msg, headers, *security_, request.task_key.ToString());
    return call->demux()->MakeStreams(call, context ? context->memory_pool() : DefaultMemoryPool(),
                                      context);
  }

  Result<WorkerInfo> GetWorkerInfo() override {
    proto::GetWorkerInfoResponseProto response;
    for (int attempt = 0;; ++attempt) {
      SHOAL_RETURN_IF_ERROR(WaitConnected());
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(options_.connect_timeout_ms));
      proto::GetWorkerInfoRequestProto request;
      security_->SignCall(&context, "Worker/GetWorkerInfo", "worker-info", request);
      grpc::Status status = stub_->GetWorkerInfo(&context, request, &response);
      // The connection looked ready but was broken (the worker restarted since: "Broken pipe"):
      // the failed call makes the channel reconnect, and the second one reaches the new worker.
      // Coordinators ask this before every query (worker_health.h), so no task of a query is ever
      // sent over such a connection.
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE && attempt == 0)
        continue;
      SHOAL_RETURN_IF_ERROR(FromGrpc(status, address_));
      break;
    }
    WorkerInfo info;
    info.version = response.version();
    info.codec_ids.assign(response.codec_ids().begin(), response.codec_ids().end());
    if (response.reports_usage()) {
      info.memory_used = response.memory_used();
      info.memory_limit = response.memory_limit();
      info.running_tasks = response.running_tasks();
    }
    info.threads = response.threads();
    max_message_bytes_->store(response.max_message_bytes(), std::memory_order_relaxed);
    return info;
  }

  Result<std::vector<TaskProgress>> GetTaskProgress(const std::string& query_id) override {
    grpc::ClientContext context;
    // A progress reader never waits long: a slow worker's figure is simply older.
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    proto::GetTaskProgressRequestProto request;
    request.set_query_id(query_id);
    security_->SignCall(&context, "Worker/GetTaskProgress", query_id, request);
    proto::GetTaskProgressResponseProto response;
    SHOAL_RETURN_IF_ERROR(FromGrpc(stub_->GetTaskProgress(&context, request, &response), address_));
    std::vector<TaskProgress> out;
    out.reserve(static_cast<size_t>(response.tasks_size()));
    for (const auto& t : response.tasks())
      out.push_back({t.stage_id(), t.task_number(), t.bytes_read(), t.output_rows(), t.done()});
    return out;
  }

 private:
  // Fails fast (Unavailable) when the worker cannot be reached, instead of queueing the call: at
  // the first failed connection attempt (a refused port answers at once), or after
  // `connect_timeout_ms` (an address that never answers).
  Status WaitConnected() {
    auto deadline =
        std::chrono::system_clock::now() + std::chrono::milliseconds(options_.connect_timeout_ms);
    // One reading decides: the state may change between two.
    const grpc_connectivity_state state = channel_->GetState(/*try_to_connect=*/true);
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE) {
      // An earlier attempt failed (the worker died, or restarted). The channel keeps reporting
      // that failure through its next attempts, until one succeeds, so waiting on it cannot
      // tell a worker still gone from an attempt not yet made: it waited the whole connect
      // timeout, and every query that lost a worker stalled that long (5 s) in the health check
      // that found the loss. A new channel's first attempt ends in a state of its own: a port
      // that refuses answers at once, a new worker accepts at once.
      std::shared_ptr<grpc::Channel> probe = new_channel_();
      SHOAL_RETURN_IF_ERROR(WaitReady(*probe, probe->GetState(/*try_to_connect=*/true), deadline));
      // Back: this channel tries again now instead of at the end of its backoff.
      grpc::experimental::ChannelResetConnectionBackoff(channel_.get());
    }
    return WaitReady(*channel_, state, deadline);
  }

  // Fails fast (Unavailable) when `channel`, last seen in `state`, cannot reach the worker: at
  // the first failed connection attempt (a refused port answers at once), or at `deadline` (an
  // address that never answers). From TRANSIENT_FAILURE it waits for a success.
  Status WaitReady(grpc::Channel& channel, grpc_connectivity_state state,
                   std::chrono::system_clock::time_point deadline) const {
    while (state != GRPC_CHANNEL_READY) {
      if (!channel.WaitForStateChange(state, deadline)) {
        return UnreachableWorkerError(
                   address_, fmt::format("no connection within {} ms", options_.connect_timeout_ms))
            .WithHint(kUnreachableHint);
      }
      state = channel.GetState(/*try_to_connect=*/true);
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
        return UnreachableWorkerError(address_, "the connection failed").WithHint(kUnreachableHint);
      }
    }
    return Status::OK();
  }

  std::string address_;
  std::function<std::shared_ptr<grpc::Channel>()> new_channel_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<proto::Worker::Stub> stub_;
  GrpcChannelOptions options_;
  std::shared_ptr<NodeSecurity> security_;
  // The largest message the worker receives, as its GetWorkerInfo said (coordinators ask before
  // every query); shared with the coordinator streams, which check plans against it.
  std::shared_ptr<std::atomic<int64_t>> max_message_bytes_ =
      std::make_shared<std::atomic<int64_t>>(0);
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
  // Its own connections, never those of another channel to the same worker: a probe channel
  // (WaitConnected) must make an attempt of its own, not report a shared one's backoff.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  RouteLibraryLogs();
  auto security = ProcessNodeSecurity();
  auto new_channel = [address, credentials = security->ChannelCredentials(), args] {
    return grpc::CreateCustomChannel(address, credentials, args);
  };
  WorkerChannelPtr out =
      std::make_shared<GrpcWorkerChannel>(address, std::move(new_channel), options_, security);
  channels_[address] = out;
  return out;
}

}  // namespace shoal::distributed

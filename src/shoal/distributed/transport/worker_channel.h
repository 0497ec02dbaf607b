// WorkerChannel: the worker protocol of Shoal's distributed execution, as an abstract C++
// interface with two transports (in_process_channel.h for tests, grpc_worker_channel.h between
// processes).
//
// The protocol has three calls:
//  - OpenCoordinatorChannel: one bidirectional stream per task, opened by the coordinator. It
//    carries the task's encoded plan (SetPlanRequest, declaring the plan's work-unit feeds), then
//    the units of those feeds (WorkUnitBatch, work_unit_feed.h) and their end (WorkUnitEos), and
//    heartbeats while the query runs (a task without contact for the worker's TTL ends); the
//    worker answers with the task's metrics when the coordinator closes it, and in adaptive mode
//    first with a LoadInfo per output partition and LoadInfoEos (load_sampler.h). The worker keeps
//    a task's state exactly as long as its coordinator channel is open, so closing the channel
//    (normally, or because the coordinator died) frees the task.
//  - ExecuteTask: a consumer task asks a producer task for a range of partitions, with the
//    producer head the consumer needs (none: the plan's own partitions; repartition: hash
//    partitions of the plan's output; broadcast: the plan's partitions from a cache shared by all
//    consumers). One call per consumer-producer task pair; it returns one stream per partition of
//    the range. The head is added by the worker on demand, so one stage plan serves any number of
//    consumer tasks and any partitioning they ask for.
//    Runtime join filters travel on it too (docs/architecture.md, "Runtime join filters"): a
//    task's join sends the filter the coordinator asked for (SetPlanRequest's
//    export_runtime_filters) when its build side is complete, and the coordinator sends the
//    merged filter of all build tasks to the tasks whose scans apply it.
//  - GetWorkerInfo: the worker's version, threads and extension codecs, checked before planning.
//
// Thread safety: a WorkerChannel may be used from many threads at once; a CoordinatorStream from
// one thread at a time, except CancelSends.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

/// Identifies one task of one stage of one query.
struct TaskKey {
  std::string query_id;
  int stage_id = 0;
  int task_number = 0;

  std::string ToString() const;
  // clang-tidy 14 reports the literal 0 of the synthesised comparison as modernize-use-nullptr.
  friend auto operator<=>(const TaskKey&,
                          const TaskKey&) = default;  // NOLINT(modernize-use-nullptr)
};

/// A feed node of a task's plan (work_unit_feed.h): the worker builds its partitions' unit queues
/// when the plan arrives, so units may follow right behind it.
struct WorkUnitFeedDeclaration {
  std::string node_id;
  int partitions = 0;
};

/// One unit of work for one partition of one feed node. The body is opaque to the transport; a
/// feed scan reads a serialised ScanUnitProto.
struct WorkUnit {
  std::string node_id;
  int partition = 0;
  std::string body;
  int64_t created_ns = 0;  // unix nanos on the coordinator
  int64_t sent_ns = 0;
};

struct WorkUnitBatch {
  std::vector<WorkUnit> units;
  /// Non-empty when the coordinator could not produce the units of this feed: its consumers fail
  /// with `failure`.
  std::string failed_node_id;
  Status failure;
};

/// Extra key-value pairs that travel with every call (passthrough headers).
using Headers = std::map<std::string, std::string>;

struct SetPlanRequest {
  TaskKey task_key;
  int task_count = 1;
  /// distributed::proto::EncodedPlan, serialised (plan_codec.h). Both transports ship the encoded
  /// form, so every test exercises the codec.
  std::string encoded_plan;
  std::string target_worker;
  int64_t query_start_time_ns = 0;
  /// The session's non-default settings; the task runs with them.
  std::map<std::string, std::string> settings;
  /// The plan's feed nodes (empty when its scans carry their units).
  std::vector<WorkUnitFeedDeclaration> work_unit_feeds;
  /// Runtime filters the task's joins build that the coordinator wants reported.
  std::vector<int> export_runtime_filters;
  /// Runtime filters the coordinator will send for the task's scans, which wait for them.
  std::vector<int> await_runtime_filters;
};

/// Where a task's reported runtime filters go (worker to coordinator): the filter, and whether it
/// holds every build key (a collect-build join's) or only the task's share.
using RuntimeFilterSink = exec::RuntimeFilterRegistry::Exporter;

/// The metrics of one operator of a task, summed over the task's partitions.
struct OperatorTaskMetrics {
  std::string name;  // the operator's name(), to check both ends agree on the plan's shape
  int64_t output_rows = 0;
  int64_t output_batches = 0;
  int64_t compute_nanos = 0;
  int64_t peak_memory_bytes = 0;
  int64_t spilled_bytes = 0;
  int64_t spill_count = 0;
  std::map<std::string, int64_t> extra;
  int partitions = 0;
};

/// What a worker reports about a task when its coordinator channel closes (also when its
/// consumers stopped early and it was cancelled: the numbers then cover what ran).
struct TaskMetrics {
  /// Rows and batches the task served over all partitions and consumers.
  int64_t output_rows = 0;
  int64_t output_batches = 0;
  int64_t elapsed_ns = 0;
  /// When the task computed, from the query's start (query_start_time_ns; the worker's clock):
  /// its first stream opened, its last ended. Both 0 when it never ran.
  int64_t start_offset_ns = 0;
  int64_t end_offset_ns = 0;
  /// The worker that ran the task, as it names itself.
  std::string worker;
  /// The task plan's operators in pre-order, not entering network exchanges (task_metrics.h).
  std::vector<OperatorTaskMetrics> operators;
  /// Producer heads consumers asked for (a Repartition per partitioning), not in the task plan.
  std::vector<OperatorTaskMetrics> heads;
  /// What the task's ExecuteTask calls wrote to the network (zero in process).
  int64_t bytes_sent = 0;
  int64_t messages_sent = 0;
};

/// What a transport wrote for one task's ExecuteTask calls; counted before each write, so a
/// consumer that has read everything never sees a smaller number.
struct NetworkSendCounters {
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> messages{0};
};

/// Implemented by the streams ExecuteTask returns when they come over a network: what they have
/// received so far (the exchange reads it into its metrics). In-process streams do not.
class NetworkStreamStats {
 public:
  virtual ~NetworkStreamStats() = default;
  virtual int64_t received_bytes() const = 0;
  virtual int64_t received_messages() const = 0;
};

/// A sample of one output partition of a task, taken as soon as the plan arrived (adaptive task
/// counts, load_sampler.h). The coordinator sizes the consumer stage from these. Per-column vectors
/// follow the task plan's output schema.
struct LoadInfo {
  int partition = 0;
  /// Rows buffered for the partition's first consumer.
  int64_t rows_ready = 0;
  std::vector<int64_t> column_bytes_ready;
  /// Distinct non-null values / rows_ready, in percent (estimated).
  std::vector<float> column_ndv_percentage;
  std::vector<float> column_null_percentage;
  /// Rows the task's leaves (scans, exchanges) produced, over all partitions, when the sample was
  /// taken: compared with what the leaves will produce in total, it says how much is left.
  int64_t rows_pulled_from_leaf = 0;
  /// The partition ended within the sample: rows_ready and the bytes are final.
  bool reached_eos = false;
};

/// Receives a task's LoadInfo feed on the worker: one call per sampled partition, then one call
/// with null (LoadInfoEos). Called from sampler threads, one call at a time.
using LoadInfoSink = std::function<void(const LoadInfo*)>;

enum class ProducerHeadKind : uint8_t { kNone, kBroadcast, kRepartition };

struct ProducerHead {
  ProducerHeadKind kind = ProducerHeadKind::kNone;
  /// kRepartition: the hash partitioning over all consumers (keys over the plan's output).
  exec::Partitioning partitioning;
};

struct ExecuteTaskRequest {
  TaskKey task_key;
  int partition_start = 0;
  int partition_end = 0;  // exclusive
  ProducerHead head;
};

struct WorkerInfo {
  std::string version;
  std::vector<std::string> codec_ids;
  int threads = 0;
  /// What it holds now (the console's cluster view); -1: not told.
  int64_t memory_used = -1;
  int64_t memory_limit = -1;  // 0: unlimited
  int running_tasks = -1;
};

/// How far one task of a running query is (WorkerChannel::GetTaskProgress).
struct TaskProgress {
  int stage_id = 0;
  int task_number = 0;
  int64_t bytes_read = 0;  // of its scans' input (exec/query_progress.h)
  int64_t output_rows = 0;
  bool done = false;  // every stream consumers opened on it has ended
};

/// The coordinator's end of one task's coordinator channel.
class CoordinatorStream {
 public:
  virtual ~CoordinatorStream() = default;
  virtual Status SendPlan(const SetPlanRequest& request) = 0;
  /// Units for the task's feeds, after SendPlan. Blocks while the worker's queues for them are
  /// full (backpressure), until CancelSends.
  virtual Status SendWorkUnitBatch(const WorkUnitBatch& batch) = 0;
  /// No work units follow: every feed partition ends once its queued units are read.
  virtual Status SendWorkUnitEos() = 0;
  /// Thread-safe: a send blocked in another thread returns an error, and later sends fail (the
  /// query no longer needs the task's units).
  virtual void CancelSends() = 0;
  /// Tells the worker the coordinator is alive and still wants the task (its TTL starts again,
  /// worker_service.h). Thread-safe with the other sends: skipped while one is in flight (the
  /// worker counts a send held back by backpressure as contact).
  virtual Status SendHeartbeat() = 0;
  /// Closes the channel, which frees the task on the worker, and returns its metrics, or the error
  /// the worker reported for the task (a refused plan, say).
  virtual Result<TaskMetrics> Finish() = 0;
  /// The task's next LoadInfo, or nullopt at LoadInfoEos (adaptive mode only: a worker sends none
  /// otherwise, and this would wait until the channel closes). Blocks until one arrives.
  virtual Result<std::optional<LoadInfo>> ReadLoadInfo() {
    return Status::NotImplemented("this coordinator channel does not receive LoadInfo");
  }
  /// Before SendPlan: the task will report runtime filters, which go to `sink` (called from a
  /// transport thread) while the channel is open.
  /// (A transport without it never reports: the scans then run without the filter.)
  virtual void SetRuntimeFilterSink(const RuntimeFilterSink& /*sink*/) {}
  /// A merged runtime filter for the task's scans, after SendPlan. Thread-safe with the other
  /// sends.
  virtual Status SendRuntimeFilter(int, const std::shared_ptr<const exec::RuntimeFilter>&) {
    return Status::OK();
  }
};

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  /// The worker's address ("127.0.0.1:7001", or a name for in-process workers).
  virtual const std::string& address() const = 0;
  virtual Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) = 0;
  /// One stream per partition of [partition_start, partition_end), in order. `context` is the
  /// consumer's: cancellation and the memory pool received batches are counted in.
  virtual Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) = 0;
  virtual Result<WorkerInfo> GetWorkerInfo() = 0;
  /// The tasks of query `query_id` the worker holds now, and how far each is. Transports that do
  /// not carry it say NotImplemented (progress is then the coordinator's own).
  virtual Result<std::vector<TaskProgress>> GetTaskProgress(const std::string& /*query_id*/) {
    return Status::NotImplemented("task progress over this transport");
  }
};

using WorkerChannelPtr = std::shared_ptr<WorkerChannel>;

/// Finds the channel to a worker by address; shared by the coordinator and by workers (which call
/// their producers).
class ChannelResolver {
 public:
  virtual ~ChannelResolver() = default;
  virtual Result<WorkerChannelPtr> Connect(const std::string& address) = 0;
};

using ChannelResolverPtr = std::shared_ptr<ChannelResolver>;

/// How a transport words a lost worker in its errors: "worker HOST:PORT is unreachable: why".
/// The error travels through other tasks' errors as text (a consumer reports that its producer's
/// worker is unreachable), so the words are the one place its address survives.
Status UnreachableWorkerError(const std::string& address, const std::string& why);

/// The workers `status` says are unreachable (UnreachableWorkerError's words, anywhere in its
/// message and context), in order of mention, each once.
std::vector<std::string> UnreachableWorkers(const Status& status);

}  // namespace shoal::distributed

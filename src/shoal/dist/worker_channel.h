// WorkerChannel: the worker protocol of Shoal's distributed execution, as an abstract C++
// interface with two transports (in_process_channel.h for tests, grpc_worker_channel.h between
// processes).
//
// The protocol has three calls:
//  - OpenCoordinatorChannel: one bidirectional stream per task, opened by the coordinator. It
//    carries the task's encoded plan (SetPlanRequest) and the end of its work-unit feeds; the
//    worker answers with the task's metrics when the coordinator closes it. The worker keeps a
//    task's state exactly as long as its coordinator channel is open, so closing the channel
//    (normally, or because the coordinator died) frees the task.
//  - ExecuteTask: a consumer task asks a producer task for a range of partitions, with the
//    producer head the consumer needs (none: the plan's own partitions; repartition: hash
//    partitions of the plan's output; broadcast: the plan's partitions from a cache shared by all
//    consumers). One call per consumer-producer task pair; it returns one stream per partition of
//    the range. The head is added by the worker on demand, so one stage plan serves any number of
//    consumer tasks and any partitioning they ask for.
//  - GetWorkerInfo: the worker's version, threads and extension codecs, checked before planning.
//
// Thread safety: a WorkerChannel may be used from many threads at once; a CoordinatorStream from
// one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::dist {

/// Identifies one task of one stage of one query.
struct TaskKey {
  std::string query_id;
  int stage_id = 0;
  int task_number = 0;

  std::string ToString() const;
  friend auto operator<=>(const TaskKey&, const TaskKey&) = default;
};

/// Extra key-value pairs that travel with every call (passthrough headers).
using Headers = std::map<std::string, std::string>;

struct SetPlanRequest {
  TaskKey task_key;
  int task_count = 1;
  /// dist::proto::EncodedPlan, serialised (plan_codec.h). Both transports ship the encoded form,
  /// so every test exercises the codec.
  std::string encoded_plan;
  std::string target_worker;
  int64_t query_start_time_ns = 0;
  /// The session's non-default settings; the task runs with them.
  std::map<std::string, std::string> settings;
};

/// What a worker reports about a task when its coordinator channel closes.
struct TaskMetrics {
  int64_t output_rows = 0;
  int64_t output_batches = 0;
  int64_t elapsed_ns = 0;
};

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
};

/// The coordinator's end of one task's coordinator channel.
class CoordinatorStream {
 public:
  virtual ~CoordinatorStream() = default;
  virtual Status SendPlan(const SetPlanRequest& request) = 0;
  /// No work units follow (Shoal's scans get their units inside the plan today).
  virtual Status SendWorkUnitEos() = 0;
  /// Closes the channel, which frees the task on the worker, and returns its metrics, or the error
  /// the worker reported for the task (a refused plan, say).
  virtual Result<TaskMetrics> Finish() = 0;
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

}  // namespace shoal::dist

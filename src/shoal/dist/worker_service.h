// WorkerService: what a worker does, independent of the transport. The gRPC server
// (grpc_worker_server.h) and the in-process channel (in_process_channel.h) both call it.
//
// Lifecycle of a task: SetPlan (from the task's coordinator channel) decodes the plan with the
// worker's codecs and keeps it with a TaskContext built from the coordinator's settings; a plan
// the worker cannot run (missing codec ids, a table it does not have) is refused and the error
// kept, so consumers asking for the task get it too. ExecuteTask waits a bounded time for the
// plan (consumers may ask before the coordinator's message arrived), adds the producer head
// (repartition: one shared RepartitionExec per task and partitioning, so every consumer reads its
// own range of one hash split; broadcast: each partition computed once and replayed to every
// consumer) and returns one stream per partition. EndTask (the coordinator channel closed, for
// whatever reason) cancels whatever still runs for the task and forgets it; streams still held
// by consumers keep the task's memory alive until they are dropped.
//
// Thread safety: every method may be called concurrently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "shoal/dist/table_codec.h"
#include "shoal/dist/worker_channel.h"
#include "shoal/sql/catalog.h"

namespace shoal::dist {

struct WorkerServiceOptions {
  /// How the coordinator and other workers name this worker (for errors and self-calls).
  std::string address;
  /// Reported by GetWorkerInfo; a coordinator refuses a worker whose version differs.
  std::string version;
  /// Threads per task (0: the coordinator's `threads` setting).
  int threads = 0;
  /// Bytes all tasks together may hold (0: unlimited).
  int64_t memory_limit = 0;
  /// In-memory tables the worker has (for the "shoal.catalog/1" codec); may be null.
  std::shared_ptr<const sql::Catalog> catalog;
  /// Extra table codecs beyond the built-in ones.
  std::vector<std::shared_ptr<const TableCodec>> extra_codecs;
  /// Channels to producer workers, for the network exchanges inside task plans.
  ChannelResolverPtr channels;
  /// How long ExecuteTask waits for a task's plan to arrive.
  std::chrono::milliseconds plan_wait{10000};
};

class WorkerService {
 public:
  explicit WorkerService(WorkerServiceOptions options);
  ~WorkerService();

  const std::string& address() const { return options_.address; }

  Status SetPlan(const SetPlanRequest& request);
  /// Forgets the task (cancelling what still runs for it) and returns its metrics.
  TaskMetrics EndTask(const TaskKey& key);
  Result<std::vector<exec::StreamPtr>> ExecuteTask(const ExecuteTaskRequest& request);
  WorkerInfo GetWorkerInfo() const;

  /// Tasks currently held (for tests: zero once every query has ended).
  int num_tasks() const;

  struct Task;

 private:
  Result<std::shared_ptr<Task>> WaitForTask(const TaskKey& key);

  WorkerServiceOptions options_;
  TableCodecRegistryPtr codecs_;
  std::shared_ptr<MemoryPool> pool_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<TaskKey, std::shared_ptr<Task>> tasks_;
};

}  // namespace shoal::dist

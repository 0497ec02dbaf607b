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
// by consumers keep the task's memory alive until they are dropped. A sweeper thread also ends
// tasks that had no contact from their coordinator (plan, work units, heartbeats) for `task_ttl`,
// so a coordinator that hangs with its channels open cannot pin a worker's memory forever, while
// a query that merely runs long is never touched; consumers of an expired task get "task expired
// after N s without contact from the coordinator". In adaptive mode a task
// starts running at SetPlan: a LoadSampler samples its partitions for the coordinator, and
// consumers and producer heads execute the sampled plan, which continues the sampled streams.
// A task's network exchanges reach the producer tasks of this same worker (the address the
// coordinator gave it in SetPlanRequest.target_worker) in-process, without a loopback call.
//
// Thread safety: every method may be called concurrently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shoal/distributed/codec/table_codec.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/sql/catalog.h"

namespace shoal::distributed {

struct WorkerServiceOptions {
  /// How the coordinator and other workers name this worker (for errors and self-calls).
  std::string address;
  /// Reported by GetWorkerInfo; a coordinator refuses a worker whose version differs.
  std::string version;
  /// Threads per task (0: the coordinator's `threads` setting, capped at `max_threads`).
  int threads = 0;
  /// Bytes all tasks together may hold (0: unlimited). Each query's tasks on this worker share
  /// one pool under it, limited by the query's `memory_limit` setting, so they spill under it.
  int64_t memory_limit = 0;
  /// A coordinator's `threads` above this is lowered to it (0: the machine's hardware threads).
  int max_threads = 0;
  /// Queries that may hold tasks here at once; a plan of one more is refused (0: unlimited).
  int max_queries = 0;
  /// Tasks one query may hold here at once; one more is refused (0: unlimited).
  int max_tasks_per_query = 0;
  /// Where tasks spill: the worker's own directory, never the coordinator's `spill_dir` setting
  /// (a client must not choose where a worker writes). Empty: $TMPDIR or /tmp.
  std::string spill_directory;
  /// In-memory tables the worker has (for the "shoal.catalog/1" codec); may be null.
  std::shared_ptr<const sql::Catalog> catalog;
  /// Extra table codecs beyond the built-in ones.
  std::vector<std::shared_ptr<const TableCodec>> extra_codecs;
  /// Channels to producer workers, for the network exchanges inside task plans.
  ChannelResolverPtr channels;
  /// How long ExecuteTask waits for a task's plan to arrive.
  std::chrono::milliseconds plan_wait{10000};
  /// A task that had no message from its coordinator for this long is cancelled and dropped even
  /// if its coordinator channel is still open (a coordinator that hangs without closing it);
  /// 0: never. Coordinators send heartbeats several times a second (coordinator.h).
  std::chrono::milliseconds task_ttl{std::chrono::minutes(10)};
};

class WorkerService : public std::enable_shared_from_this<WorkerService> {
 public:
  explicit WorkerService(WorkerServiceOptions options);
  ~WorkerService();

  const std::string& address() const { return options_.address; }

  /// `headers`: the passthrough headers of the task's coordinator channel; the task's own calls to
  /// producer workers carry them on (passthrough_headers.h).
  /// `load_info`: where the task's LoadInfo feed goes; in adaptive mode (the task's
  /// `dist_adaptive_task_counts`) the task starts sampling now (load_sampler.h). A refused plan
  /// gets an empty feed, so a coordinator waiting for one is not left hanging.
  /// `runtime_filters`: where the task's joins report the filters the request lists in
  /// export_runtime_filters (runtime_filter_registry.h).
  Status SetPlan(const SetPlanRequest& request, const Headers& headers = {},
                 const LoadInfoSink& load_info = {}, const RuntimeFilterSink& runtime_filters = {});
  /// A merged runtime filter from the task's coordinator channel: the task's scans use it.
  void DeliverRuntimeFilter(const TaskKey& key, int id,
                            std::shared_ptr<const exec::RuntimeFilter> filter);
  /// Forgets the task (cancelling what still runs for it) and returns its metrics.
  TaskMetrics EndTask(const TaskKey& key);
  /// The worker is stopping: every task held is cancelled now (its streams and feeds fail with
  /// "worker ... is shutting down", SQLSTATE 57P01), later plans are refused and consumers stop
  /// waiting for plans. The tasks stay held until their coordinator channels end, which still
  /// report their metrics. Transports call it before they stop serving: a call waiting on a
  /// task's stream then returns at once, instead of whenever (if ever) something else ends it.
  void Shutdown();
  /// A WorkUnitBatch from the task's coordinator channel, routed to its feeds (work_unit_feed.h);
  /// waits while their queues are full, until `abandoned` (may be empty) says the sender is gone.
  Status PushWorkUnits(const TaskKey& key, WorkUnitBatch batch,
                       const std::function<bool()>& abandoned);
  /// WorkUnitEos from the task's coordinator channel.
  void EndWorkUnits(const TaskKey& key);
  /// A heartbeat from the task's coordinator channel: the coordinator is alive and still wants the
  /// task, so its TTL starts again.
  void Heartbeat(const TaskKey& key);
  /// Where a transport counts what it sends for the task (null: no such task).
  std::shared_ptr<NetworkSendCounters> SendCounters(const TaskKey& key) const;
  /// The streams of a task's partitions. Waits up to plan_wait for the task's plan, or until
  /// `abandoned` says the caller no longer wants them (its call was cancelled, its task ended).
  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const ExecuteTaskRequest& request, const Headers& headers = {},
      const std::function<bool()>& abandoned = nullptr);
  WorkerInfo GetWorkerInfo() const;
  /// How far each task of query `query_id` held now is.
  std::vector<TaskProgress> Progress(const std::string& query_id) const;

  /// Tasks currently held (for tests: zero once every query has ended).
  int num_tasks() const;
  /// Bytes the tasks' memory pools hold (for tests: zero once every query has ended and its
  /// streams were dropped).
  int64_t bytes_used() const;
  /// Test hook: the headers of the last ExecuteTask call for each of the last 64 tasks asked for
  /// (kept after the tasks are gone), oldest first, to check that consumers forward them.
  std::vector<std::pair<TaskKey, Headers>> ExecuteHeadersSeen() const;
  /// Tasks dropped because their coordinator was silent for `task_ttl`.
  int64_t tasks_expired() const;
  /// Rounds the TTL sweeper has made (for tests: time passed as the sweeper sees it).
  int64_t sweeps() const;

  struct Task;

 private:
  Result<std::shared_ptr<Task>> WaitForTask(const TaskKey& key,
                                            const std::function<bool()>& abandoned);
  // Per-operator metrics, producer heads and network counters of an ended task.
  void AddTaskDetails(Task& task, TaskMetrics* metrics) const;
  void SweepExpiredTasks();
  Status ExpiryStatus(const TaskKey& key) const;
  Status ShutdownStatus() const;
  // Shutdown's part for one task: its streams fail with ShutdownStatus (mutex_ held), then it is
  // cancelled (without the lock) so every stream and feed of it stops.
  void MarkShutDownLocked(Task& task) const;
  static void CancelTask(Task& task, const Status& why);
  // Threads a task may use: --threads, else --max-threads, else the hardware threads.
  int ThreadCap() const;
  // A coordinator's `threads` above max(kMinThreadsAccepted, 4 * ThreadCap()) is refused: it sets
  // the partitions per task, and each partition a consumer reads has a producer thread.
  static constexpr int64_t kMinThreadsAccepted = 64;
  Status CheckThreads(int64_t threads) const;
  // The worker-side caps on concurrent queries and tasks per query (mutex_ held).
  Status AdmitLocked(const TaskKey& key) const;
  // The pool of `query_id`'s tasks, made on first use with `limit` (0: no limit but the worker's).
  std::shared_ptr<MemoryPool> QueryPool(const std::string& query_id, int64_t limit);

  WorkerServiceOptions options_;
  TableCodecRegistryPtr codecs_;
  std::shared_ptr<MemoryPool> pool_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<TaskKey, std::shared_ptr<Task>> tasks_;
  // One pool per query with tasks here (limit: the query's memory_limit), shared by its tasks.
  std::map<std::string, std::weak_ptr<MemoryPool>> query_pools_;
  // Headers seen per task (test hook), oldest first.
  std::vector<std::pair<TaskKey, Headers>> execute_headers_;
  // Tasks the TTL dropped (oldest first, bounded): a consumer asking for one gets a clear error.
  std::vector<TaskKey> expired_;
  int64_t tasks_expired_ = 0;
  int64_t sweeps_ = 0;
  // Set by Shutdown: no task starts any more.
  bool shutting_down_ = false;
  // The TTL sweeper (runs while task_ttl > 0).
  bool stopping_ = false;
  std::condition_variable sweeper_cv_;
  std::thread sweeper_;
};

}  // namespace shoal::distributed

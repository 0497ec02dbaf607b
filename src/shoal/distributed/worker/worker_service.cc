#include "shoal/distributed/worker/worker_service.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/log_context.h"
#include "shoal/common/logging.h"
#include "shoal/common/prometheus_registry.h"
#include "shoal/common/thread_pool.h"
#include "shoal/distributed/adaptive/load_sampler.h"
#include "shoal/distributed/codec/memory_table_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/task_metrics.h"
#include "shoal/distributed/feeds/work_unit_feed_dispatch.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/physical_planner.h"

namespace shoal::distributed {

namespace {

// This worker's figures in ProcessMetrics() (`shoal worker --metrics`), looked up once.
struct WorkerCounters {
  Counter& tasks_started = ProcessMetrics().GetCounter("shoal_worker_tasks_started_total",
                                                       "Tasks whose plan this worker accepted.");
  Gauge& tasks_running =
      ProcessMetrics().GetGauge("shoal_worker_tasks_running", "Tasks this worker holds now.");
  // By boundary kind: "shuffle" when consumers read the task's rows repartitioned, else "gather".
  Counter& rows_shuffle = Rows("shuffle");
  Counter& rows_gather = Rows("gather");
  Counter& bytes_shuffle = Bytes("shuffle");
  Counter& bytes_gather = Bytes("gather");
  Counter& spilled = ProcessMetrics().GetCounter(
      "shoal_spilled_bytes_total", "Bytes operators of this process spilled to disk.");

  static Counter& Rows(const char* kind) {
    return ProcessMetrics().GetCounter("shoal_worker_rows_sent_total",
                                       "Rows the worker's tasks served to their consumers.",
                                       {{"boundary", kind}});
  }
  static Counter& Bytes(const char* kind) {
    return ProcessMetrics().GetCounter("shoal_worker_bytes_sent_total",
                                       "Bytes the worker's tasks sent over the network.",
                                       {{"boundary", kind}});
  }
};

WorkerCounters& WorkerServiceCounters() {
  // Never destroyed, as the registry.
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): counters are mutable
  static WorkerCounters* counters = new WorkerCounters();
  return *counters;
}

}  // namespace

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Wall-clock nanoseconds: comparable with the coordinator's query_start_time_ns.
int64_t UnixNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One partition of a broadcast head: computed by the first consumer that asks, replayed to all.
struct BroadcastPartition {
  std::mutex mutex;
  bool done = false;
  Status status;
  std::vector<columnar::RecordBatchPtr> batches;
};

}  // namespace

struct WorkerService::Task {
  TaskKey key;
  Status refused;  // the plan could not be decoded: every ExecuteTask gets this error
  exec::ExecPlanPtr plan;
  std::shared_ptr<exec::TaskContext> context;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // The last message from the task's coordinator (its plan, work units, heartbeats), in
  // steady-clock nanoseconds: the TTL counts from here, never from the start.
  std::atomic<int64_t> last_contact_ns{NowNs()};
  // PushWorkUnits calls waiting for room in the feed queues: the coordinator is sending, only
  // held back by backpressure, so the task is in contact.
  std::atomic<int> pushing{0};
  // Set (with `expiry`, under the service's mutex) before the TTL or the worker's shutdown
  // ends the task: its streams then fail with `expiry` instead of a plain cancellation.
  std::atomic<bool> expired{false};
  Status expiry;
  Headers headers;  // of the coordinator channel; forwarded on calls to producers
  std::atomic<int64_t> output_rows{0};
  std::atomic<int64_t> output_batches{0};
  // When the task began computing (its first stream opened, or its plan arrived when it is
  // sampled from then on) and when its last open stream ended, in wall-clock ns, and how many
  // streams consumers opened and ended: the task is done when every opened one has ended.
  // The console's timeline and the per-stage progress read them.
  int64_t query_start_ns = 0;  // the coordinator's, from the plan request
  std::atomic<int64_t> first_open_unix_ns{0};
  std::atomic<int64_t> last_end_unix_ns{0};
  std::atomic<int> streams_opened{0};
  std::atomic<int> streams_ended{0};
  WorkUnitFeedsPtr feeds;  // the plan's work-unit feeds (work_unit_feed.h); null if refused
  // What the transport wrote for this task's ExecuteTask calls (task_metrics.h).
  std::shared_ptr<NetworkSendCounters> sent = std::make_shared<NetworkSendCounters>();

  std::mutex mutex;
  std::map<std::string, exec::ExecPlanPtr> repartition_heads;
  std::map<int, std::shared_ptr<BroadcastPartition>> broadcast;

  // Adaptive mode: the task runs from SetPlan on, and consumers take over the sampled streams.
  std::unique_ptr<LoadSampler> sampler;
  const exec::ExecPlanPtr& source() const { return sampler ? sampler->plan() : plan; }
};

namespace {

void StreamOpened(WorkerService::Task& task) {
  int64_t expected = 0;
  task.first_open_unix_ns.compare_exchange_strong(expected, UnixNowNs());
  task.streams_opened.fetch_add(1);
}

void StreamEnded(WorkerService::Task& task) {
  task.last_end_unix_ns.store(UnixNowNs());
  task.streams_ended.fetch_add(1);
}

bool TaskDone(const WorkerService::Task& task) {
  const int ended = task.streams_ended.load();
  return ended > 0 && ended >= task.streams_opened.load();
}

// A task the TTL ended fails its consumers with the reason, not with the cancellation it caused.
Status ExpiryOr(const WorkerService::Task& task, Status status) {
  if (task.expired.load(std::memory_order_acquire) && status.code() == StatusCode::kCancelled)
    return task.expiry;
  return status;
}

// Counts what a task serves and keeps the task alive while a consumer reads it.
class TaskStream final : public exec::RecordBatchStream {
 public:
  TaskStream(std::shared_ptr<WorkerService::Task> task, exec::StreamPtr input)
      : task_(std::move(task)), input_(std::move(input)) {
    StreamOpened(*task_);
  }
  ~TaskStream() override { End(); }
  TaskStream(const TaskStream&) = delete;
  TaskStream& operator=(const TaskStream&) = delete;

  const columnar::SchemaPtr& schema() const override { return input_->schema(); }

  Result<columnar::RecordBatchPtr> Next() override {
    Result<columnar::RecordBatchPtr> next = input_->Next();
    if (!next.ok()) {
      End();
      return ExpiryOr(*task_, std::move(next).status());
    }
    columnar::RecordBatchPtr batch = std::move(next).MoveValueUnsafe();
    if (batch) {
      task_->output_rows += batch->num_rows();
      task_->output_batches += 1;
    } else {
      End();
    }
    return batch;
  }

 private:
  void End() {
    if (!ended_)
      StreamEnded(*task_);
    ended_ = true;
  }

  std::shared_ptr<WorkerService::Task> task_;
  exec::StreamPtr input_;
  bool ended_ = false;
};

// Replays one broadcast partition, computing it first if no consumer has yet.
class BroadcastStream final : public exec::RecordBatchStream {
 public:
  BroadcastStream(std::shared_ptr<WorkerService::Task> task, int partition,
                  std::shared_ptr<BroadcastPartition> cache)
      : task_(std::move(task)), partition_(partition), cache_(std::move(cache)) {
    StreamOpened(*task_);
  }
  ~BroadcastStream() override { End(); }
  BroadcastStream(const BroadcastStream&) = delete;
  BroadcastStream& operator=(const BroadcastStream&) = delete;

  const columnar::SchemaPtr& schema() const override { return task_->plan->schema(); }

  Result<columnar::RecordBatchPtr> Next() override {
    if (!filled_) {
      std::lock_guard<std::mutex> lock(cache_->mutex);
      if (!cache_->done) {
        cache_->status = Fill();
        cache_->done = true;
      }
      filled_ = true;
    }
    if (!cache_->status.ok()) {
      End();
      return ExpiryOr(*task_, cache_->status);
    }
    if (next_ >= cache_->batches.size()) {
      End();
      return columnar::RecordBatchPtr();
    }
    return cache_->batches[next_++];
  }

 private:
  void End() {
    if (!ended_)
      StreamEnded(*task_);
    ended_ = true;
  }

  Status Fill() {
    SHOAL_ASSIGN_OR_RETURN(exec::StreamPtr stream,
                           task_->source()->Execute(partition_, task_->context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
      if (!batch)
        return Status::OK();
      task_->output_rows += batch->num_rows();
      task_->output_batches += 1;
      cache_->batches.push_back(std::move(batch));
    }
  }

  std::shared_ptr<WorkerService::Task> task_;
  int partition_;
  std::shared_ptr<BroadcastPartition> cache_;
  bool filled_ = false;
  bool ended_ = false;
  size_t next_ = 0;
};

// This worker, as its own tasks' plans reach it: producer streams handed over in-process, as
// between in-process workers (in_process_channel.h). Only consumers' ExecuteTask calls come here.
class SelfChannel final : public WorkerChannel {
 public:
  SelfChannel(std::string address, std::shared_ptr<WorkerService> self)
      : address_(std::move(address)), self_(std::move(self)) {}

  const std::string& address() const override { return address_; }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(const Headers&) override {
    return Status::Internal("worker {} opened a coordinator channel to itself", address_);
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    return self_->ExecuteTask(request, headers,
                              [context] { return context && context->cancelled(); });
  }

  Result<WorkerInfo> GetWorkerInfo() override { return self_->GetWorkerInfo(); }

 private:
  std::string address_;
  std::shared_ptr<WorkerService> self_;
};

// What a worker's task plans reach producers through: the worker itself, under the name the
// coordinator gave it (SetPlanRequest.target_worker), in-process; every other worker through the
// worker's channels. A consumer reading a producer task of its own worker then costs no loopback
// connection, no Arrow IPC encoding and no TLS encryption: half of a shuffle's bytes on 2 workers.
// The worker is held weakly: its tasks' plans hold this resolver.
class LocalFirstResolver final : public ChannelResolver {
 public:
  LocalFirstResolver(ChannelResolverPtr inner, std::string self_address,
                     std::weak_ptr<WorkerService> self)
      : inner_(std::move(inner)), self_address_(std::move(self_address)), self_(std::move(self)) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    if (address == self_address_) {
      if (auto self = self_.lock())
        return WorkerChannelPtr(std::make_shared<SelfChannel>(address, std::move(self)));
    }
    return inner_->Connect(address);
  }

 private:
  ChannelResolverPtr inner_;
  std::string self_address_;
  std::weak_ptr<WorkerService> self_;
};

// `inner` itself when there is no name to recognise or the service is not held by a shared_ptr.
ChannelResolverPtr WithLocalWorker(ChannelResolverPtr inner, std::string self_address,
                                   std::weak_ptr<WorkerService> self) {
  if (!inner || self_address.empty() || self.expired())
    return inner;
  return std::make_shared<LocalFirstResolver>(std::move(inner), std::move(self_address),
                                              std::move(self));
}

}  // namespace

WorkerService::WorkerService(WorkerServiceOptions options) : options_(std::move(options)) {
  WorkerServiceCounters();  // on /metrics (at 0) from the start
  auto codecs = TableCodecRegistry::Builtin(options_.catalog);
  for (const auto& c : options_.extra_codecs)
    codecs->Add(c);
  codecs_ = std::move(codecs);
  pool_ = MemoryPool::MakeRoot("worker " + options_.address, options_.memory_limit > 0
                                                                 ? options_.memory_limit
                                                                 : MemoryPool::kUnlimited);
  // Weak: the registry outlives the worker, and a scrape after it then reads 0.
  const std::weak_ptr<MemoryPool> pool = pool_;
  ProcessMetrics().SetGaugeFunction(
      "shoal_worker_memory_used_bytes", "Memory the worker's tasks hold now.",
      {{"worker", options_.address}}, [pool] {
        auto p = pool.lock();
        return p != nullptr ? static_cast<double>(p->bytes_used()) : 0.0;
      });
  ProcessMetrics().SetGaugeFunction("shoal_worker_memory_limit_bytes",
                                    "The worker's memory limit (--memory-limit).",
                                    {{"worker", options_.address}}, [pool] {
                                      auto p = pool.lock();
                                      return p != nullptr && p->limit() != MemoryPool::kUnlimited
                                                 ? static_cast<double>(p->limit())
                                                 : 0.0;
                                    });
  if (options_.task_ttl.count() > 0)
    sweeper_ = std::thread([this] { SweepExpiredTasks(); });
}

WorkerService::~WorkerService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  sweeper_cv_.notify_all();
  if (sweeper_.joinable())
    sweeper_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, task] : tasks_) {
    if (task->context)
      task->context->Cancel();
  }
}

Status WorkerService::SetPlan(const SetPlanRequest& request, const Headers& headers,
                              const LoadInfoSink& load_info,
                              const RuntimeFilterSink& runtime_filters) {
  const ScopedLogContext log_context(request.task_key.query_id, request.task_key.ToString());
  auto task = std::make_shared<Task>();
  task->key = request.task_key;
  task->headers = headers;
  task->query_start_ns = request.query_start_time_ns;
  task->refused = [&]() -> Status {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shutting_down_)
        return ShutdownStatus();
      SHOAL_RETURN_IF_ERROR(AdmitLocked(request.task_key));
    }
    exec::TaskContext::Options options;
    for (const auto& [name, value] : request.settings)
      SHOAL_RETURN_IF_ERROR(options.settings.Set(name, value));
    // Worker-side caps on what the coordinator's settings ask for: its threads, its memory and
    // its spill directory (a client's `SET threads = 1024` or `SET spill_dir` stops here).
    // The coordinator plans `threads` partitions per stage, and each partition a consumer reads
    // is pulled by a producer thread of its own (grpc_worker_server.h): SET threads = 1024 meant
    // 1,024 threads per task whatever the pool's size, so such a query is refused here.
    const int64_t asked = options.settings.GetInt("threads");
    SHOAL_RETURN_IF_ERROR(CheckThreads(asked));
    const int64_t cap = ThreadCap();
    const int64_t threads = options_.threads > 0 ? options_.threads : std::min<int64_t>(asked, cap);
    SHOAL_RETURN_IF_ERROR(
        options.settings.Set("threads", std::to_string(std::max<int64_t>(1, threads))));
    options.spill_directory = options_.spill_directory;
    options.pool =
        QueryPool(request.task_key.query_id, options.settings.GetInt("memory_limit"))
            ->MakeChild(fmt::format("task {}/{}/{}", request.task_key.query_id,
                                    request.task_key.stage_id, request.task_key.task_number));
    options.query_id = request.task_key.query_id;
    options.task_key = request.task_key.ToString();
    task->context = std::make_shared<exec::TaskContext>(std::move(options));
    task->context->runtime_filters().Expect(
        std::set<int>(request.await_runtime_filters.begin(), request.await_runtime_filters.end()));
    if (runtime_filters && !request.export_runtime_filters.empty()) {
      // With more than one task, a partitioned join's partitions here are only a share of its
      // keys: their union goes to the coordinator, which merges all tasks' shares.
      task->context->runtime_filters().SetExport(
          std::set<int>(request.export_runtime_filters.begin(),
                        request.export_runtime_filters.end()),
          request.task_count > 1, runtime_filters);
    }
    PlanDecodeContext decode;
    decode.codecs = codecs_;
    // Producer tasks on this worker are read in-process (LocalFirstResolver): no loopback
    // connection, encoding or encryption for bytes that never leave the process.
    decode.channels = WithHeaders(
        WithLocalWorker(options_.channels, request.target_worker, weak_from_this()), headers);
    SHOAL_ASSIGN_OR_RETURN(
        task->feeds, WorkUnitFeeds::Make(request.work_unit_feeds, request.task_key.ToString()));
    decode.feeds = task->feeds;
    decode.refuse_stage_files = true;
    SHOAL_ASSIGN_OR_RETURN(task->plan, DecodePlan(request.encoded_plan, decode));
    return Status::OK();
  }();
  if (!task->refused.ok()) {
    task->refused = std::move(task->refused)
                        .WithContext(fmt::format("worker {} refused the plan of {}",
                                                 options_.address, request.task_key.ToString()));
  }
  if (load_info && !task->refused.ok())
    load_info(nullptr);
  else if (load_info && AdaptiveTaskCounts(task->context->settings())) {
    task->first_open_unix_ns.store(UnixNowNs());  // sampled from now on
    task->sampler = LoadSampler::Start(task->plan, task->context,
                                       SampleLimitsFrom(task->context->settings()), load_info);
  }
  bool stopping = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_[request.task_key] = task;
    // Shutdown ran between the admission above and here: it did not see this task.
    stopping = shutting_down_ && task->refused.ok();
    if (stopping)
      MarkShutDownLocked(*task);
  }
  if (stopping)
    CancelTask(*task, ShutdownStatus());
  WorkerServiceCounters().tasks_started.Add();
  WorkerServiceCounters().tasks_running.Add(1);
  cv_.notify_all();
  return task->refused;
}

void WorkerService::DeliverRuntimeFilter(const TaskKey& key, int id,
                                         std::shared_ptr<const exec::RuntimeFilter> filter) {
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tasks_.find(key);
    if (it == tasks_.end())
      return;  // ended: nothing scans any more
    task = it->second;
  }
  task->last_contact_ns.store(NowNs());
  if (task->context)
    task->context->runtime_filters().Publish(id, std::move(filter));
}

int WorkerService::ThreadCap() const {
  if (options_.threads > 0)
    return options_.threads;
  return options_.max_threads > 0 ? options_.max_threads : ThreadPool::HardwareConcurrency();
}

Status WorkerService::CheckThreads(int64_t threads) const {
  const int64_t most = std::max<int64_t>(kMinThreadsAccepted, 4LL * ThreadCap());
  if (threads <= most)
    return Status::OK();
  return Status::InvalidArgument(
             "the query's threads setting is {}; worker {} accepts at most {} (4 per thread of "
             "its thread cap {}, at least {})",
             threads, options_.address, most, ThreadCap(), kMinThreadsAccepted)
      .WithSqlState("53400")
      .WithHint(
          "lower the query's threads setting, or start the workers with a higher "
          "--max-threads");
}

Status WorkerService::AdmitLocked(const TaskKey& key) const {
  if (options_.max_queries <= 0 && options_.max_tasks_per_query <= 0)
    return Status::OK();
  int query_tasks = 0;
  std::vector<std::string> queries;
  for (const auto& [held, task] : tasks_) {
    if (!task->refused.ok())
      continue;
    if (held.query_id == key.query_id)
      ++query_tasks;
    else if (queries.empty() || queries.back() != held.query_id)
      queries.push_back(held.query_id);  // keys sort by query id first: one entry per query
  }
  if (options_.max_tasks_per_query > 0 && query_tasks >= options_.max_tasks_per_query)
    return Status::InvalidArgument(
               "worker {} already holds {} tasks of query {}, its limit per query "
               "(--max-tasks-per-query)",
               options_.address, query_tasks, key.query_id)
        .WithSqlState("53400")
        .WithHint("lower the query's task counts (dist_* settings) or raise the worker's limit");
  if (options_.max_queries > 0 && query_tasks == 0 &&
      static_cast<int>(queries.size()) >= options_.max_queries)
    return Status::Unavailable(
               "worker {} already runs tasks of {} queries, its limit (--max-queries)",
               options_.address, queries.size())
        .WithSqlState("53400")
        .WithHint("run the query again when others have finished, or raise the worker's limit");
  return Status::OK();
}

std::shared_ptr<MemoryPool> WorkerService::QueryPool(const std::string& query_id, int64_t limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(query_pools_, [](const auto& entry) { return entry.second.expired(); });
  std::shared_ptr<MemoryPool> pool = query_pools_[query_id].lock();
  if (!pool) {
    pool = pool_->MakeChild("query " + query_id, limit > 0 ? limit : MemoryPool::kUnlimited);
    query_pools_[query_id] = pool;
  }
  return pool;
}

TaskMetrics WorkerService::EndTask(const TaskKey& key) {
  const ScopedLogContext log_context(key.query_id, key.ToString());
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tasks_.find(key);
    if (it == tasks_.end())
      return {};
    task = std::move(it->second);
    tasks_.erase(it);
    // Operators watch this line (with SHOAL_LOG_LEVEL=info) to see a worker drain.
    SHOAL_LOG(kInfo, "worker {}: ended {} of query {} ({} tasks held)", options_.address,
              key.ToString(), key.query_id, tasks_.size());
  }
  if (task->context)
    task->context->Cancel();
  if (task->feeds)
    task->feeds->Fail(Status::Cancelled("{} ended before its work-unit feeds did", key.ToString()));
  if (task->sampler)
    task->sampler->Stop();
  TaskMetrics metrics;
  metrics.output_rows = task->output_rows.load();
  metrics.output_batches = task->output_batches.load();
  metrics.elapsed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - task->started)
                           .count();
  if (const int64_t opened = task->first_open_unix_ns.load();
      opened > 0 && task->query_start_ns > 0) {
    // A task whose streams did not all end ran until now (it was cut off).
    const int64_t ended = TaskDone(*task) ? task->last_end_unix_ns.load() : UnixNowNs();
    metrics.start_offset_ns = std::max<int64_t>(0, opened - task->query_start_ns);
    metrics.end_offset_ns = std::max(metrics.start_offset_ns, ended - task->query_start_ns);
  }
  AddTaskDetails(*task, &metrics);
  WorkerCounters& counters = WorkerServiceCounters();
  counters.tasks_running.Add(-1);
  const bool shuffle = !metrics.heads.empty();
  (shuffle ? counters.rows_shuffle : counters.rows_gather).Add(metrics.output_rows);
  (shuffle ? counters.bytes_shuffle : counters.bytes_gather).Add(metrics.bytes_sent);
  for (const auto& op : metrics.operators)
    counters.spilled.Add(op.spilled_bytes);
  return metrics;
}

void WorkerService::AddTaskDetails(Task& task, TaskMetrics* metrics) const {
  metrics->worker = options_.address;
  metrics->bytes_sent = task.sent->bytes.load();
  metrics->messages_sent = task.sent->messages.load();
  if (!task.plan || !task.context)
    return;
  metrics->operators = CollectOperatorMetrics(*task.plan, task.context->metrics());
  std::lock_guard<std::mutex> lock(task.mutex);
  for (const auto& [spec, head] : task.repartition_heads)
    metrics->heads.push_back(OperatorMetricsOf(*head, task.context->metrics()));
}

std::shared_ptr<NetworkSendCounters> WorkerService::SendCounters(const TaskKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tasks_.find(key);
  return it == tasks_.end() ? nullptr : it->second->sent;
}

Result<std::shared_ptr<WorkerService::Task>> WorkerService::WaitForTask(
    const TaskKey& key, const std::function<bool()>& abandoned) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto found = [&] { return shutting_down_ || tasks_.count(key) > 0; };
  if (std::find(expired_.begin(), expired_.end(), key) != expired_.end())
    return ExpiryStatus(key);
  // A plan that has not come yet may never come: its query failed before sending it. The caller
  // then stops asking (a consumer task ended by its coordinator; a join dropped after an error
  // opening the input it never read, so that a repartition below it does not wait for a reader;
  // a cancelled call), and must not hold its task's teardown, and the query's, for plan_wait.
  constexpr auto kAbandonedPoll = std::chrono::milliseconds(20);
  const auto deadline = std::chrono::steady_clock::now() + options_.plan_wait;
  while (!found()) {
    if (abandoned && abandoned())
      return Status::Cancelled("{} of query {} was no longer wanted before its plan came",
                               key.ToString(), key.query_id);
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return Status::NotFound("worker {} has no plan for {} of query {} after waiting {} ms",
                              options_.address, key.ToString(), key.query_id,
                              options_.plan_wait.count());
    const auto slice =
        abandoned ? std::min<std::chrono::steady_clock::duration>(deadline - now, kAbandonedPoll)
                  : deadline - now;
    cv_.wait_for(lock, slice);
  }
  if (shutting_down_)
    return ShutdownStatus();
  return tasks_[key];
}

Result<std::vector<exec::StreamPtr>> WorkerService::ExecuteTask(
    const ExecuteTaskRequest& request, const Headers& headers,
    const std::function<bool()>& abandoned) {
  const ScopedLogContext log_context(request.task_key.query_id, request.task_key.ToString());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    constexpr size_t kKeep = 64;
    std::erase_if(execute_headers_, [&](const auto& e) { return e.first == request.task_key; });
    if (execute_headers_.size() >= kKeep)
      execute_headers_.erase(execute_headers_.begin());
    execute_headers_.emplace_back(request.task_key, headers);
  }
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<Task> task, WaitForTask(request.task_key, abandoned));
  if (!task->refused.ok())
    return task->refused;
  exec::ExecPlanPtr source = task->source();
  int available = source->num_partitions();
  if (request.head.kind == ProducerHeadKind::kRepartition) {
    std::lock_guard<std::mutex> lock(task->mutex);
    const std::string spec = request.head.partitioning.ToString();
    auto& head = task->repartition_heads[spec];
    if (!head) {
      auto node = exec::RepartitionExec::Make(task->source(), request.head.partitioning);
      // The partitioning came from a consumer's request: one that does not fit the task's output
      // (no keys, keys over columns it lacks) is the request's fault, not a bug here.
      if (!node.ok() && node.status().code() == StatusCode::kInternal)
        return Status::InvalidArgument("{} on worker {} cannot be repartitioned by {}: {}",
                                       request.task_key.ToString(), options_.address, spec,
                                       node.status().message());
      SHOAL_RETURN_IF_ERROR(node.status());
      head = std::move(node).MoveValueUnsafe();
    }
    source = head;
    available = source->num_partitions();
  }
  if (request.partition_start < 0 || request.partition_end <= request.partition_start ||
      request.partition_end > available) {
    return Status::InvalidArgument("{} on worker {} has partitions [0, {}); asked for [{}, {})",
                                   request.task_key.ToString(), options_.address, available,
                                   request.partition_start, request.partition_end);
  }
  std::vector<exec::StreamPtr> streams;
  for (int p = request.partition_start; p < request.partition_end; ++p) {
    if (request.head.kind == ProducerHeadKind::kBroadcast) {
      std::shared_ptr<BroadcastPartition> cache;
      {
        std::lock_guard<std::mutex> lock(task->mutex);
        auto& slot = task->broadcast[p];
        if (!slot)
          slot = std::make_shared<BroadcastPartition>();
        cache = slot;
      }
      streams.push_back(exec::StreamPtr(new BroadcastStream(task, p, std::move(cache))));
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(exec::StreamPtr stream, source->Execute(p, task->context));
    streams.push_back(exec::StreamPtr(new TaskStream(task, std::move(stream))));
  }
  return streams;
}

std::vector<TaskProgress> WorkerService::Progress(const std::string& query_id) const {
  std::vector<TaskProgress> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = tasks_.lower_bound(TaskKey{query_id, INT_MIN, INT_MIN});
       it != tasks_.end() && it->first.query_id == query_id; ++it) {
    const Task& task = *it->second;
    TaskProgress p;
    p.stage_id = task.key.stage_id;
    p.task_number = task.key.task_number;
    if (task.context)
      p.bytes_read = task.context->progress().Read().bytes_read;
    p.output_rows = task.output_rows.load(std::memory_order_relaxed);
    p.done = TaskDone(task);
    out.push_back(p);
  }
  return out;
}

WorkerInfo WorkerService::GetWorkerInfo() const {
  WorkerInfo info;
  info.version = options_.version;
  info.codec_ids = codecs_->ids();
  info.threads = options_.threads;
  if (pool_ != nullptr) {
    info.memory_used = pool_->bytes_used();
    info.memory_limit = pool_->limit() != MemoryPool::kUnlimited ? pool_->limit() : 0;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  info.running_tasks = static_cast<int>(tasks_.size());
  return info;
}

Status WorkerService::PushWorkUnits(const TaskKey& key, WorkUnitBatch batch,
                                    const std::function<bool()>& abandoned) {
  WorkUnitFeedsPtr feeds;
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tasks_.find(key);
    if (it == tasks_.end())
      return Status::NotFound("worker {} has no task {} for its work units", options_.address,
                              key.ToString());
    feeds = it->second->feeds;
    task = it->second;
  }
  task->last_contact_ns.store(NowNs(), std::memory_order_relaxed);
  if (!feeds)
    return Status::OK();
  task->pushing.fetch_add(1);
  Status st = feeds->Push(std::move(batch), abandoned);
  task->pushing.fetch_sub(1);
  task->last_contact_ns.store(NowNs(), std::memory_order_relaxed);
  return st;
}

void WorkerService::EndWorkUnits(const TaskKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tasks_.find(key);
  if (it == tasks_.end())
    return;
  it->second->last_contact_ns.store(NowNs(), std::memory_order_relaxed);
  if (it->second->feeds)
    it->second->feeds->End();
}

void WorkerService::Heartbeat(const TaskKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tasks_.find(key);
  if (it != tasks_.end())
    it->second->last_contact_ns.store(NowNs(), std::memory_order_relaxed);
}

void WorkerService::Shutdown() {
  std::vector<std::shared_ptr<Task>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutting_down_)
      return;
    shutting_down_ = true;
    for (const auto& [key, task] : tasks_) {
      MarkShutDownLocked(*task);
      tasks.push_back(task);
    }
    SHOAL_LOG(kInfo, "worker {}: shutting down, cancelling {} tasks", options_.address,
              tasks.size());
  }
  cv_.notify_all();  // consumers waiting for a plan
  // Without this, a call serving a task's stream returns only once the task ends: at the
  // transport's shutdown deadline, when that cancels the task's coordinator channel, or never for
  // a task nothing ends (its stream waiting on work units or a peer), and gRPC's shutdown waits
  // for every handler to return. Cancelled now, every stream stops between batches.
  for (const auto& task : tasks)
    CancelTask(*task, ShutdownStatus());
}

void WorkerService::MarkShutDownLocked(Task& task) const {
  if (task.expired.load(std::memory_order_acquire))
    return;  // the TTL ended it first: its streams keep that reason
  task.expiry = ShutdownStatus();
  task.expired.store(true, std::memory_order_release);
}

void WorkerService::CancelTask(Task& task, const Status& why) {
  if (task.context)
    task.context->Cancel();
  if (task.feeds)
    task.feeds->Fail(why);
}

Status WorkerService::ShutdownStatus() const {
  return Status::Unavailable("worker {} is shutting down", options_.address).WithSqlState("57P01");
}

Status WorkerService::ExpiryStatus(const TaskKey& key) const {
  return Status::Cancelled(
             "worker {} ended {} of query {}: task expired after {:g} s without contact from the "
             "coordinator",
             options_.address, key.ToString(), key.query_id,
             static_cast<double>(options_.task_ttl.count()) / 1000.0)
      .WithHint(
          "the coordinator sends a heartbeat several times a second while its query runs: it "
          "hung or lost its connection to this worker");
}

int64_t WorkerService::sweeps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sweeps_;
}

int WorkerService::num_tasks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(tasks_.size());
}

int64_t WorkerService::bytes_used() const {
  return pool_->bytes_used();
}

std::vector<std::pair<TaskKey, Headers>> WorkerService::ExecuteHeadersSeen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return execute_headers_;
}

int64_t WorkerService::tasks_expired() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tasks_expired_;
}

void WorkerService::SweepExpiredTasks() {
  // Checks a few times per TTL (at most once a second), so a task lives at most ~1.25 TTL after
  // its coordinator's last message.
  const auto period = std::clamp<std::chrono::milliseconds>(
      options_.task_ttl / 4, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
  const int64_t ttl_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.task_ttl).count();
  std::unique_lock<std::mutex> lock(mutex_);
  int64_t last_sweep = NowNs();
  while (!sweeper_cv_.wait_for(lock, period, [&] { return stopping_; })) {
    const int64_t now = NowNs();
    ++sweeps_;
    // This process was stopped (SIGSTOP, a paused VM) for longer than the TTL: nothing could
    // reach it, so silence says nothing about the coordinators. They get a fresh TTL.
    const bool was_stopped = now - last_sweep >= ttl_ns;
    last_sweep = now;
    std::vector<std::shared_ptr<Task>> expired;
    for (const auto& [key, task] : tasks_) {
      if (was_stopped || task->pushing.load() > 0) {
        task->last_contact_ns.store(now, std::memory_order_relaxed);
        continue;
      }
      if (now - task->last_contact_ns.load(std::memory_order_relaxed) >= ttl_ns)
        expired.push_back(task);
    }
    if (expired.empty())
      continue;
    constexpr size_t kRemember = 1024;
    for (const auto& task : expired) {
      if (expired_.size() >= kRemember)
        expired_.erase(expired_.begin());
      expired_.push_back(task->key);
      if (!task->expired.load(std::memory_order_acquire)) {  // Shutdown may have set it: once
        task->expiry = ExpiryStatus(task->key);
        task->expired.store(true, std::memory_order_release);
      }
    }
    tasks_expired_ += static_cast<int64_t>(expired.size());
    lock.unlock();
    // Ended exactly as when the coordinator closes the channel (cancel, feeds, samplers).
    for (const auto& task : expired) {
      SHOAL_LOG(
          kWarning, "worker {}: dropping {} of query {}: no contact from its coordinator for {} ms",
          options_.address, task->key.ToString(), task->key.query_id, options_.task_ttl.count());
      (void)EndTask(task->key);
    }
    lock.lock();
  }
}

}  // namespace shoal::distributed

#include "shoal/distributed/coordinator/coordinator.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/log_context.h"
#include "shoal/common/logging.h"
#include "shoal/distributed/adaptive/adaptive_dispatch.h"
#include "shoal/distributed/adaptive/load_sampler.h"
#include "shoal/distributed/codec/memory_table_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/remote_progress.h"
#include "shoal/distributed/coordinator/runtime_filter_hub.h"
#include "shoal/distributed/coordinator/task_metrics.h"
#include "shoal/distributed/feeds/work_unit_feed_dispatch.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/passthrough_headers.h"

namespace shoal::distributed {

namespace {

std::string NewQueryId() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  return fmt::format("{:016x}", rng());
}

struct TaskToSend {
  SetPlanRequest request;
  std::string worker;
  std::vector<WorkUnit> units;  // for the plan's work-unit feeds, sent after it
};

// Builds the requests of an instantiated stage's tasks.
using MakeTasks = std::function<Result<std::vector<TaskToSend>>(const Stage&)>;

// Sends every task's plan once, before the head pulls its first batch, and closes the tasks'
// coordinator channels when the query's plan is dropped.
class QueryHandle final : public QueryDispatch {
 public:
  QueryHandle(ChannelResolverPtr channels, std::vector<TaskToSend> tasks,
              std::chrono::milliseconds heartbeat_interval,
              std::shared_ptr<RuntimeFilterHub> filters)
      : channels_(std::move(channels)),
        tasks_(std::move(tasks)),
        heartbeat_interval_(heartbeat_interval),
        filters_(std::move(filters)) {}

  ~QueryHandle() override {
    StopHeartbeats();
    sender_.Stop();
    filters_->Close();
    for (size_t i = 0; i < streams_.size() && !collected_; ++i) {
      Result<TaskMetrics> metrics = streams_[i]->Finish();
      if (!metrics.ok()) {
        SHOAL_LOG(kDebug, "{} on worker {}: {}", tasks_[i].request.task_key.ToString(),
                  tasks_[i].worker, metrics.status().ToString());
      }
    }
  }

  // Metrics: the plan EXPLAIN ANALYZE shows (weak: the plan owns this handle).
  void SetHead(std::weak_ptr<const exec::ExecutionPlan> head) { head_ = std::move(head); }

  // Metrics: ends every task now, consumers first (producers still running for them just stop),
  // and folds what the workers report into `registry`. Once; the destructor then has nothing to
  // close.
  void CollectMetrics(exec::MetricsRegistry* registry) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (collected_)
      return;
    collected_ = true;
    sender_.Stop();
    filters_->Close();
    std::map<int, std::vector<std::string>> filter_notes = filters_->Notes();
    if (auto head = head_.lock(); head != nullptr) {
      for (const std::string& line : filter_notes[RuntimeFilterHub::kHeadStage])
        registry->AddNote(head.get(), line, false);
    }
    std::map<int, std::vector<TaskReport>> reports;
    for (size_t i = streams_.size(); i-- > 0;) {
      const TaskKey& key = tasks_[i].request.task_key;
      reports[key.stage_id].push_back(
          TaskReport{key.task_number, tasks_[i].worker, streams_[i]->Finish()});
    }
    // Found now, not at planning: stages bound late have their display plans only now.
    for (const StageDisplay& stage : FindStageDisplays(head_.lock())) {
      AddAdaptiveNote(stage, registry);
      if (stage.exchange != nullptr) {
        for (const std::string& line : filter_notes[stage.stage_id])
          registry->AddNote(stage.exchange, line, false);
      }
      auto it = reports.find(stage.stage_id);
      if (it == reports.end())
        continue;
      std::sort(it->second.begin(), it->second.end(),
                [](const auto& a, const auto& b) { return a.task_number < b.task_number; });
      FoldStageMetrics(stage, it->second, registry);
    }
  }

  // Adaptive task counts: the stages are instantiated at dispatch, one by one, and their tasks
  // built then (adaptive_dispatch.h).
  void SetAdaptive(std::unique_ptr<AdaptiveDispatch> adaptive, MakeTasks make_tasks) {
    adaptive_ = std::move(adaptive);
    make_tasks_ = std::move(make_tasks);
  }

  Status EnsureDispatched() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dispatched_)
      return status_;
    dispatched_ = true;
    status_ = Dispatch();
    return status_;
  }

 private:
  Status Dispatch() {
    if (adaptive_) {
      Status st = adaptive_->Run([this](const Stage& stage) { return SendStage(stage); });
      adaptive_choices_ = adaptive_->choices();
      // The plan's stages hold the head (which owns this handle): let go of them.
      adaptive_.reset();
      make_tasks_ = nullptr;
      return st;
    }
    for (auto& task : tasks_)
      SHOAL_RETURN_IF_ERROR(Send(task));
    return Status::OK();
  }

  // Adaptive mode: builds and sends the tasks of a stage just instantiated.
  Result<std::vector<CoordinatorStream*>> SendStage(const Stage& stage) {
    SHOAL_ASSIGN_OR_RETURN(std::vector<TaskToSend> tasks, make_tasks_(stage));
    std::vector<CoordinatorStream*> sent;
    for (auto& task : tasks) {
      tasks_.push_back(std::move(task));
      SHOAL_RETURN_IF_ERROR(Send(tasks_.back()));
      sent.push_back(streams_.back().get());
    }
    return sent;
  }

  // Adaptive mode: EXPLAIN ANALYZE says under each exchange which task count its stage got.
  void AddAdaptiveNote(const StageDisplay& stage, exec::MetricsRegistry* registry) const {
    for (const StageChoice& choice : adaptive_choices_) {
      if (choice.stage_id == stage.stage_id && stage.exchange != nullptr)
        registry->AddNote(stage.exchange, choice.ToString(), false);
    }
  }

  // While the query's plan lives, every task sent hears from the coordinator several times a
  // second, so a worker ends a task only when the coordinator is gone or hung (the task TTL,
  // worker_service.h), never because the query runs long.
  void StartHeartbeats() {
    if (heartbeat_.joinable() || heartbeat_interval_.count() <= 0)
      return;
    heartbeat_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(streams_mutex_);
      while (!heartbeat_cv_.wait_for(lock, heartbeat_interval_, [&] { return stopping_; })) {
        for (const auto& stream : streams_)
          (void)stream->SendHeartbeat();
      }
    });
  }

  void StopHeartbeats() {
    {
      std::lock_guard<std::mutex> lock(streams_mutex_);
      stopping_ = true;
    }
    heartbeat_cv_.notify_all();
    if (heartbeat_.joinable())
      heartbeat_.join();
  }

  // Opens the task's coordinator channel (appended to streams_) and sends its plan.
  Status Send(TaskToSend& task) {
    auto label =
        fmt::format("sending {} to worker {}", task.request.task_key.ToString(), task.worker);
    Result<WorkerChannelPtr> channel = channels_->Connect(task.worker);
    if (!channel.ok())
      return std::move(channel).status().WithContext(label);
    Result<std::unique_ptr<CoordinatorStream>> stream =
        (*channel)->OpenCoordinatorChannel(Headers{});
    if (!stream.ok())
      return std::move(stream).status().WithContext(label);
    {
      std::lock_guard<std::mutex> lock(streams_mutex_);
      streams_.push_back(std::move(stream).MoveValueUnsafe());
    }
    StartHeartbeats();
    const TaskKey& key = task.request.task_key;
    if (!task.request.export_runtime_filters.empty())
      streams_.back()->SetRuntimeFilterSink(filters_->SinkFor(key.stage_id, key.task_number));
    Status st = streams_.back()->SendPlan(task.request);
    if (st.ok())
      filters_->AddStream(key.stage_id, streams_.back().get());
    if (st.ok())
      st = sender_.Start(streams_.back().get(), std::move(task.units), label);
    if (!st.ok())
      return std::move(st).WithContext(label);
    return Status::OK();
  }

  ChannelResolverPtr channels_;
  std::vector<TaskToSend> tasks_;
  std::mutex mutex_;
  bool dispatched_ = false;
  Status status_;
  std::vector<std::unique_ptr<CoordinatorStream>> streams_;
  // Guards streams_ growing against the heartbeat thread walking it (other uses are in the
  // threads that grow it, under mutex_).
  std::mutex streams_mutex_;
  std::condition_variable heartbeat_cv_;
  bool stopping_ = false;
  std::chrono::milliseconds heartbeat_interval_;
  std::thread heartbeat_;
  std::unique_ptr<AdaptiveDispatch> adaptive_;  // until dispatched
  std::vector<StageChoice> adaptive_choices_;
  MakeTasks make_tasks_;
  std::shared_ptr<RuntimeFilterHub> filters_;  // closed before streams_ are finished
  WorkUnitSender sender_;                      // after streams_: its threads use them
  std::weak_ptr<const exec::ExecutionPlan> head_;
  bool collected_ = false;
};

// Lets the planner hand the head's exchanges a dispatch that is filled in once the tasks are
// encoded (which needs the planner's output).
class DeferredDispatch final : public QueryDispatch {
 public:
  Status EnsureDispatched() override {
    if (!target)
      return Status::Internal("a distributed query was run before its tasks were encoded");
    return target->EnsureDispatched();
  }

  std::shared_ptr<QueryHandle> target;
};

}  // namespace

Result<std::shared_ptr<Coordinator>> Coordinator::Make(CoordinatorOptions options) {
  if (!options.resolver) {
    if (options.workers.empty())
      return Status::InvalidArgument("a coordinator needs at least one worker");
    options.resolver = std::make_shared<StaticWorkerResolver>(options.workers);
  }
  for (const auto& [key, value] : options.headers)
    SHOAL_RETURN_IF_ERROR(CheckHeader(key, value));
  if (!options.channels)
    return Status::InvalidArgument("a coordinator needs a channel resolver");
  if (!options.codecs)
    options.codecs = TableCodecRegistry::Builtin(nullptr);
  WorkerHealthOptions health;
  health.version = options.version;
  health.quarantine = options.quarantine;
  auto checker = std::make_shared<WorkerHealth>(WithHeaders(options.channels, options.headers),
                                                std::move(health));
  auto coordinator = std::shared_ptr<Coordinator>(new Coordinator(std::move(options)));
  coordinator->health_ = std::move(checker);
  return coordinator;
}

Status Coordinator::CheckWorkers() const {
  Result<std::vector<std::string>> workers = options_.resolver->Resolve();
  if (!workers.ok())
    return std::move(workers).status().WithContext("finding the workers");
  // Workers that do not answer are skipped with a warning: the session starts on the others.
  return health_->Usable(*workers).status();
}

Result<exec::ExecPlanPtr> Coordinator::Distribute(
    const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>& context) {
  const Settings& settings = context->settings();
  DistributedPlannerOptions planner;
  // Every query asks anew, so a changed worker file or DNS record applies from the next query.
  Result<std::vector<std::string>> workers = options_.resolver->Resolve();
  if (!workers.ok())
    return std::move(workers).status().WithContext("finding the workers");
  // Only workers that answer now: the router never places a task on a worker known dead, and a
  // connection a worker restart broke is re-established before any task is sent.
  SHOAL_ASSIGN_OR_RETURN(planner.workers, health_->Usable(*workers));
  planner.query_id = context->query_id().empty() ? NewQueryId() : context->query_id();
  // Head exchanges and coordinator channels alike carry the passthrough headers, and the query
  // id among them ("shoal-query-id" on the wire; a client's own query-id header wins), which
  // workers forward on their calls to producers: every call of the query names it.
  Headers headers = options_.headers;
  headers.emplace(std::string(kQueryIdHeader), planner.query_id);
  ChannelResolverPtr channels = WithHeaders(options_.channels, std::move(headers));
  planner.max_tasks = static_cast<int>(settings.GetInt("dist_max_tasks"));
  planner.bytes_per_task = settings.GetInt("dist_bytes_per_task");
  planner.broadcast_max_bytes = settings.GetInt("dist_broadcast_max_bytes");
  planner.first_worker = next_first_worker_++;
  planner.router = options_.router;
  auto deferred = std::make_shared<DeferredDispatch>();
  SHOAL_ASSIGN_OR_RETURN(DistributedPlanPtr distributed,
                         PlanDistributed(plan, planner, channels, deferred));
  {
    // Under the query's id, so that the coordinator's log has a line of every distributed query
    // (a statement on the server already logs under it; the shell's queries get it here).
    const ScopedLogContext log_context(distributed->query_id(), "");
    SHOAL_LOG(kInfo, "query {}: {} stages on {} workers", distributed->query_id(),
              distributed->stages().size(), planner.workers.size());
  }
  // The scans run on the workers: progress readers ask them (remote_progress.h).
  auto remote_progress =
      std::make_shared<RemoteProgress>(channels, planner.workers, distributed->query_id());
  context->progress().SetRemoteRead([remote_progress] { return remote_progress->Read(); });
  const int64_t start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  // The session bounds which in-memory tables travel inside the plans (memory_table_codec.h).
  TableCodecRegistryPtr query_codecs = MemoryTableCodec::ForQuery(options_.codecs, settings);
  // Runtime join filters whose join and scan run in different stages go through the coordinator.
  auto filters = std::make_shared<RuntimeFilterHub>(distributed->head(), context);
  MakeTasks make_tasks =
      [query_id = distributed->query_id(), start_ns, overrides = settings.overrides(),
       use_feeds = settings.GetBool("dist_work_unit_feeds"), codecs = query_codecs, filters,
       remote_progress](const Stage& stage) -> Result<std::vector<TaskToSend>> {
    std::vector<TaskToSend> tasks;
    {
      // Before the feeds take the scans' units out of the plans.
      int64_t scan_bytes = 0;
      for (const auto& task_plan : stage.task_plans)
        scan_bytes += RemoteProgress::ScanBytes(*task_plan);
      remote_progress->AddStage(stage.id, stage.task_count, scan_bytes);
    }
    if (!stage.task_plans.empty())
      filters->AddStage(stage.id, stage.task_count, *stage.task_plans.front());
    const std::vector<int> exports = filters->ExportsOf(stage.id);
    const std::vector<int> imports = filters->ImportsOf(stage.id);
    std::vector<exec::ExecPlanPtr> task_plans = stage.task_plans;
    std::vector<TaskWorkUnits> feeds;
    if (use_feeds) {
      SHOAL_ASSIGN_OR_RETURN(feeds, UseWorkUnitFeeds(stage.id, &task_plans));
    }
    for (int t = 0; t < stage.task_count; ++t) {
      TaskToSend task;
      task.worker = stage.task_workers[static_cast<size_t>(t)];
      task.request.task_key = {query_id, stage.id, t};
      task.request.task_count = stage.task_count;
      task.request.target_worker = task.worker;
      task.request.query_start_time_ns = start_ns;
      task.request.settings = overrides;
      task.request.export_runtime_filters = exports;
      task.request.await_runtime_filters = imports;
      SHOAL_ASSIGN_OR_RETURN(task.request.encoded_plan,
                             EncodePlan(task_plans[static_cast<size_t>(t)], *codecs));
      if (!feeds.empty()) {
        task.request.work_unit_feeds = std::move(feeds[static_cast<size_t>(t)].feeds);
        task.units = std::move(feeds[static_cast<size_t>(t)].units);
      }
      tasks.push_back(std::move(task));
    }
    return tasks;
  };
  const bool adaptive = AdaptiveTaskCounts(settings);
  std::vector<TaskToSend> tasks;
  if (!adaptive) {
    // Static mode: every stage gets its planned task count now.
    SHOAL_RETURN_IF_ERROR(distributed->InstantiateAll());
    for (const auto& description : distributed->stages()) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<TaskToSend> stage_tasks,
                             make_tasks(*distributed->instantiated(description.id)));
      for (auto& task : stage_tasks)
        tasks.push_back(std::move(task));
    }
  }
  deferred->target = std::make_shared<QueryHandle>(channels, std::move(tasks),
                                                   options_.heartbeat_interval, filters);
  if (adaptive) {
    AdaptiveDispatchOptions sizing;
    sizing.workers = planner.workers;
    sizing.max_tasks = planner.max_tasks;
    sizing.bytes_per_task = planner.bytes_per_task;
    sizing.router = planner.router;
    sizing.query_sequence = planner.first_worker;
    deferred->target->SetAdaptive(
        std::make_unique<AdaptiveDispatch>(distributed, std::move(sizing)), std::move(make_tasks));
    // A head exchange's partitions are its producers' tasks, which the head's operators count
    // when they start: the stages are sampled and sized now, at planning (EXPLAIN included).
    SHOAL_RETURN_IF_ERROR(deferred->target->EnsureDispatched());
  }
  // The head's own joins report like a task's (every stage is known now, adaptive ones too), and
  // its scans wait for filters from the stages.
  {
    std::vector<int> head_imports = filters->ImportsOf(RuntimeFilterHub::kHeadStage);
    context->runtime_filters().Expect(std::set<int>(head_imports.begin(), head_imports.end()));
  }
  if (std::vector<int> head_exports = filters->ExportsOf(RuntimeFilterHub::kHeadStage);
      !head_exports.empty()) {
    context->runtime_filters().SetExport(std::set<int>(head_exports.begin(), head_exports.end()),
                                         false, filters->SinkFor(RuntimeFilterHub::kHeadStage, 0));
  }
  // EXPLAIN ANALYZE collects the tasks' metrics before it prints; the registry must not keep
  // the query's tasks alive (the plan owns them), hence the weak pointer.
  deferred->target->SetHead(distributed->head());
  context->metrics().AddCollector(
      [handle = std::weak_ptr<QueryHandle>(deferred->target), registry = &context->metrics()] {
        if (auto h = handle.lock())
          h->CollectMetrics(registry);
      });
  return distributed->head();
}

}  // namespace shoal::distributed

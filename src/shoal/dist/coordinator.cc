#include "shoal/dist/coordinator.h"

#include <chrono>
#include <mutex>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "shoal/common/logging.h"
#include "shoal/dist/distributed_planner.h"
#include "shoal/dist/plan_codec.h"

namespace shoal::dist {

namespace {

std::string NewQueryId() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  return fmt::format("{:016x}", rng());
}

struct TaskToSend {
  SetPlanRequest request;
  std::string worker;
};

// Sends every task's plan once, before the head pulls its first batch, and closes the tasks'
// coordinator channels when the query's plan is dropped.
class QueryHandle final : public QueryDispatch {
 public:
  QueryHandle(ChannelResolverPtr channels, std::vector<TaskToSend> tasks)
      : channels_(std::move(channels)), tasks_(std::move(tasks)) {}

  ~QueryHandle() override {
    for (size_t i = 0; i < streams_.size(); ++i) {
      Result<TaskMetrics> metrics = streams_[i]->Finish();
      if (!metrics.ok()) {
        SHOAL_LOG(kDebug, "{} on worker {}: {}", tasks_[i].request.task_key.ToString(),
                  tasks_[i].worker, metrics.status().ToString());
      }
    }
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
    for (const auto& task : tasks_) {
      auto label =
          fmt::format("sending {} to worker {}", task.request.task_key.ToString(), task.worker);
      Result<WorkerChannelPtr> channel = channels_->Connect(task.worker);
      if (!channel.ok())
        return std::move(channel).status().WithContext(label);
      Result<std::unique_ptr<CoordinatorStream>> stream =
          (*channel)->OpenCoordinatorChannel(Headers{});
      if (!stream.ok())
        return std::move(stream).status().WithContext(label);
      streams_.push_back(std::move(stream).MoveValueUnsafe());
      Status st = streams_.back()->SendPlan(task.request);
      if (st.ok())
        st = streams_.back()->SendWorkUnitEos();
      if (!st.ok())
        return std::move(st).WithContext(label);
    }
    return Status::OK();
  }

  ChannelResolverPtr channels_;
  std::vector<TaskToSend> tasks_;
  std::mutex mutex_;
  bool dispatched_ = false;
  Status status_;
  std::vector<std::unique_ptr<CoordinatorStream>> streams_;
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
  if (options.workers.empty())
    return Status::InvalidArgument("a coordinator needs at least one worker");
  if (!options.channels)
    return Status::InvalidArgument("a coordinator needs a channel resolver");
  if (!options.codecs)
    options.codecs = TableCodecRegistry::Builtin(nullptr);
  SHOAL_RETURN_IF_ERROR(RegisterDistSettings());
  return std::shared_ptr<Coordinator>(new Coordinator(std::move(options)));
}

Status Coordinator::CheckWorkers() const {
  for (const auto& address : options_.workers) {
    auto label = fmt::format("worker {}", address);
    Result<WorkerChannelPtr> channel = options_.channels->Connect(address);
    if (!channel.ok())
      return std::move(channel).status().WithContext(label);
    Result<WorkerInfo> info = (*channel)->GetWorkerInfo();
    if (!info.ok())
      return std::move(info).status().WithContext(label);
    if (!options_.version.empty() && info->version != options_.version)
      return Status::InvalidArgument("worker {} runs shoal {} and this coordinator {}", address,
                                     info->version, options_.version)
          .WithHint("run the same shoal binary everywhere");
  }
  return Status::OK();
}

Result<exec::ExecPlanPtr> Coordinator::Distribute(
    const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>& context) {
  const Settings& settings = context->settings();
  DistributedPlannerOptions planner;
  planner.workers = options_.workers;
  planner.query_id = context->query_id().empty() ? NewQueryId() : context->query_id();
  planner.max_tasks = static_cast<int>(settings.GetInt("dist_max_tasks"));
  planner.bytes_per_task = settings.GetInt("dist_bytes_per_task");
  planner.broadcast_max_bytes = settings.GetInt("dist_broadcast_max_bytes");
  planner.first_worker = next_first_worker_++;
  auto deferred = std::make_shared<DeferredDispatch>();
  SHOAL_ASSIGN_OR_RETURN(DistributedPlan distributed,
                         PlanDistributed(plan, planner, options_.channels, deferred));
  std::vector<TaskToSend> tasks;
  const int64_t start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  for (const auto& stage : distributed.stages) {
    for (int t = 0; t < stage.task_count; ++t) {
      TaskToSend task;
      task.worker = stage.task_workers[static_cast<size_t>(t)];
      task.request.task_key = {distributed.query_id, stage.id, t};
      task.request.task_count = stage.task_count;
      task.request.target_worker = task.worker;
      task.request.query_start_time_ns = start_ns;
      task.request.settings = settings.overrides();
      SHOAL_ASSIGN_OR_RETURN(
          task.request.encoded_plan,
          EncodePlan(stage.task_plans[static_cast<size_t>(t)], *options_.codecs));
      tasks.push_back(std::move(task));
    }
  }
  deferred->target = std::make_shared<QueryHandle>(options_.channels, std::move(tasks));
  return distributed.head;
}

exec::QueryRunner::PlanTransform Coordinator::AsPlanTransform() {
  std::shared_ptr<Coordinator> self = shared_from_this();
  return [self](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>& context) {
    return self->Distribute(plan, context);
  };
}

}  // namespace shoal::dist

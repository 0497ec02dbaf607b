#include "shoal/distributed/transport/in_process_channel.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <utility>

namespace shoal::distributed {

namespace {

// Workers reach their peers through this, without owning the cluster (which owns them).
class WeakClusterResolver final : public ChannelResolver {
 public:
  explicit WeakClusterResolver(std::weak_ptr<InProcessCluster> cluster)
      : cluster_(std::move(cluster)) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    auto cluster = cluster_.lock();
    if (!cluster)
      return Status::Unavailable("the in-process cluster is gone");
    return cluster->Connect(address);
  }

 private:
  std::weak_ptr<InProcessCluster> cluster_;
};

// A task's LoadInfo feed, from the worker's sampler threads to the coordinator.
class LoadInfoQueue {
 public:
  static LoadInfoSink SinkOf(const std::shared_ptr<LoadInfoQueue>& queue) {
    return [queue](const LoadInfo* info) {
      {
        std::lock_guard<std::mutex> lock(queue->mutex_);
        queue->items_.push_back(info ? std::optional<LoadInfo>(*info) : std::nullopt);
      }
      queue->cv_.notify_all();
    };
  }

  template <typename GoneFn>
  Result<std::optional<LoadInfo>> Pop(GoneFn worker_gone) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return !items_.empty(); })) {
      if (worker_gone())
        return Status::Unavailable("worker is gone");
    }
    std::optional<LoadInfo> item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::optional<LoadInfo>> items_;
};

class InProcessCoordinatorStream final : public CoordinatorStream {
 public:
  InProcessCoordinatorStream(std::weak_ptr<WorkerService> service, Headers headers)
      : service_(std::move(service)), headers_(std::move(headers)) {}

  ~InProcessCoordinatorStream() override { (void)Finish(); }

  Status SendPlan(const SetPlanRequest& request) override {
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    key_ = request.task_key;
    has_task_ = true;
    // The worker keeps a refusal and reports it to consumers and at Finish.
    plan_status_ =
        service->SetPlan(request, headers_, LoadInfoQueue::SinkOf(load_info_), filter_sink_);
    return Status::OK();
  }

  void SetRuntimeFilterSink(const RuntimeFilterSink& sink) override { filter_sink_ = sink; }

  // No serialization in process: the worker's scans get the coordinator's merged filter itself.
  Status SendRuntimeFilter(int id,
                           const std::shared_ptr<const exec::RuntimeFilter>& filter) override {
    if (!has_task_.load())
      return Status::OK();
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    service->DeliverRuntimeFilter(key_, id, filter);
    return Status::OK();
  }

  Result<std::optional<LoadInfo>> ReadLoadInfo() override {
    if (!has_task_)
      return Status::Internal("LoadInfo asked of a coordinator channel without a task");
    return load_info_->Pop([&] { return service_.expired(); });
  }

  Status SendWorkUnitBatch(const WorkUnitBatch& batch) override {
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    if (sends_cancelled_.load())
      return Status::Cancelled("the work units of {} are no longer needed", key_.ToString());
    return service->PushWorkUnits(key_, batch, [this] { return sends_cancelled_.load(); });
  }

  Status SendWorkUnitEos() override {
    if (auto service = service_.lock())
      service->EndWorkUnits(key_);
    return Status::OK();
  }

  void CancelSends() override { sends_cancelled_.store(true); }

  Status SendHeartbeat() override {
    if (!has_task_.load())
      return Status::OK();
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    service->Heartbeat(key_);
    return Status::OK();
  }

  Result<TaskMetrics> Finish() override {
    if (!has_task_)
      return TaskMetrics{};
    has_task_ = false;
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    TaskMetrics metrics = service->EndTask(key_);
    if (!plan_status_.ok())
      return plan_status_;
    return metrics;
  }

 private:
  std::weak_ptr<WorkerService> service_;
  Headers headers_;
  TaskKey key_;
  // Atomic: the coordinator's heartbeat thread reads it while Finish clears it.
  std::atomic<bool> has_task_{false};
  Status plan_status_;
  std::atomic<bool> sends_cancelled_{false};
  std::shared_ptr<LoadInfoQueue> load_info_ = std::make_shared<LoadInfoQueue>();
  RuntimeFilterSink filter_sink_;
};

class InProcessChannel final : public WorkerChannel {
 public:
  InProcessChannel(std::string address, std::shared_ptr<WorkerService> service)
      : address_(std::move(address)), service_(std::move(service)) {}

  const std::string& address() const override { return address_; }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
      const Headers& headers) override {
    return std::unique_ptr<CoordinatorStream>(new InProcessCoordinatorStream(service_, headers));
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers& headers, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>& context) override {
    return service_->ExecuteTask(request, headers,
                                 [context] { return context && context->cancelled(); });
  }

  Result<WorkerInfo> GetWorkerInfo() override { return service_->GetWorkerInfo(); }

  Result<std::vector<TaskProgress>> GetTaskProgress(const std::string& query_id) override {
    return service_->Progress(query_id);
  }

 private:
  std::string address_;
  std::shared_ptr<WorkerService> service_;
};

}  // namespace

std::shared_ptr<InProcessCluster> InProcessCluster::Make() {
  return std::shared_ptr<InProcessCluster>(new InProcessCluster());
}

Status InProcessCluster::AddWorker(WorkerServiceOptions options) {
  options.channels = std::make_shared<WeakClusterResolver>(weak_from_this());
  std::string address = options.address;
  auto service = std::make_shared<WorkerService>(std::move(options));
  std::lock_guard<std::mutex> lock(mutex_);
  if (!workers_.emplace(address, std::move(service)).second)
    return Status::AlreadyExists("an in-process worker named {} already exists", address);
  return Status::OK();
}

void InProcessCluster::RemoveWorker(const std::string& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  workers_.erase(address);
}

std::shared_ptr<WorkerService> InProcessCluster::worker(const std::string& address) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = workers_.find(address);
  return it == workers_.end() ? nullptr : it->second;
}

std::vector<std::string> InProcessCluster::addresses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [address, service] : workers_)
    out.push_back(address);
  return out;
}

Result<WorkerChannelPtr> InProcessCluster::Connect(const std::string& address) {
  auto service = worker(address);
  if (!service)
    return Status::Unavailable("worker {} is not reachable (no such in-process worker)", address);
  return WorkerChannelPtr(std::make_shared<InProcessChannel>(address, std::move(service)));
}

}  // namespace shoal::distributed

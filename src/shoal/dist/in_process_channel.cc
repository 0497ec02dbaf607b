#include "shoal/dist/in_process_channel.h"

#include <utility>

namespace shoal::dist {

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

class InProcessCoordinatorStream final : public CoordinatorStream {
 public:
  explicit InProcessCoordinatorStream(std::weak_ptr<WorkerService> service)
      : service_(std::move(service)) {}

  ~InProcessCoordinatorStream() override { (void)Finish(); }

  Status SendPlan(const SetPlanRequest& request) override {
    auto service = service_.lock();
    if (!service)
      return Status::Unavailable("worker is gone");
    key_ = request.task_key;
    has_task_ = true;
    // The worker keeps a refusal and reports it to consumers and at Finish.
    plan_status_ = service->SetPlan(request);
    return Status::OK();
  }

  Status SendWorkUnitEos() override { return Status::OK(); }

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
  TaskKey key_;
  bool has_task_ = false;
  Status plan_status_;
};

class InProcessChannel final : public WorkerChannel {
 public:
  InProcessChannel(std::string address, std::shared_ptr<WorkerService> service)
      : address_(std::move(address)), service_(std::move(service)) {}

  const std::string& address() const override { return address_; }

  Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(const Headers&) override {
    return std::unique_ptr<CoordinatorStream>(new InProcessCoordinatorStream(service_));
  }

  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const Headers&, const ExecuteTaskRequest& request,
      const std::shared_ptr<exec::TaskContext>&) override {
    return service_->ExecuteTask(request);
  }

  Result<WorkerInfo> GetWorkerInfo() override { return service_->GetWorkerInfo(); }

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

}  // namespace shoal::dist

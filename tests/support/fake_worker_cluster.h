// FakeWorkerCluster: workers that answer the coordinator's polling calls (GetWorkerInfo,
// GetTaskProgress) as a test sets them, up or down, counting the calls; for the coordinator-side
// units that only poll (worker_health_test.cc, remote_progress_test.cc). The calls that run plans
// answer NotImplemented. Tests change a worker's state under its mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::testing {

struct FakeWorkerState {
  std::mutex mutex;
  bool up = true;
  std::string version = "v1";
  std::vector<distributed::TaskProgress> tasks;
  std::set<std::string> progress_queries;  // the query ids GetTaskProgress was asked about
  int info_calls = 0;
  int progress_calls = 0;
};

class FakeWorkerChannel final : public distributed::WorkerChannel {
 public:
  FakeWorkerChannel(std::string address, std::shared_ptr<FakeWorkerState> state)
      : address_(std::move(address)), state_(std::move(state)) {}

  const std::string& address() const override { return address_; }
  Result<std::unique_ptr<distributed::CoordinatorStream>> OpenCoordinatorChannel(
      const distributed::Headers&) override {
    return Status::NotImplemented("fake");
  }
  Result<std::vector<exec::StreamPtr>> ExecuteTask(
      const distributed::Headers&, const distributed::ExecuteTaskRequest&,
      const std::shared_ptr<exec::TaskContext>&) override {
    return Status::NotImplemented("fake");
  }
  Result<distributed::WorkerInfo> GetWorkerInfo() override {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->info_calls;
    if (!state_->up)
      return distributed::UnreachableWorkerError(address_, "connection refused");
    distributed::WorkerInfo info;
    info.version = state_->version;
    return info;
  }
  Result<std::vector<distributed::TaskProgress>> GetTaskProgress(
      const std::string& query_id) override {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->progress_calls;
    state_->progress_queries.insert(query_id);
    if (!state_->up)
      return distributed::UnreachableWorkerError(address_, "connection refused");
    return state_->tasks;
  }

 private:
  std::string address_;
  std::shared_ptr<FakeWorkerState> state_;
};

class FakeWorkerCluster final : public distributed::ChannelResolver {
 public:
  std::shared_ptr<FakeWorkerState> Add(const std::string& address) {
    return states_[address] = std::make_shared<FakeWorkerState>();
  }
  Result<distributed::WorkerChannelPtr> Connect(const std::string& address) override {
    auto it = states_.find(address);
    if (it == states_.end())
      return Status::Unavailable("no worker {}", address);
    return distributed::WorkerChannelPtr(std::make_shared<FakeWorkerChannel>(address, it->second));
  }

 private:
  std::map<std::string, std::shared_ptr<FakeWorkerState>> states_;
};

}  // namespace shoal::testing

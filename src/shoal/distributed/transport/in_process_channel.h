// InProcessCluster: workers that live in this process, reached through WorkerChannel without any
// serialization of batches (streams are handed over as they are) — for tests of the distributed
// planner and the worker logic with many workers and no ports. Plans still travel encoded, so every
// in-process run also exercises the plan codec.
//
// The cluster is the ChannelResolver of its coordinator and of its own workers (which call each
// other's producer tasks through it). Workers are named by the addresses given to AddWorker.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/distributed/worker/worker_service.h"

namespace shoal::distributed {

class InProcessCluster final : public ChannelResolver,
                               public std::enable_shared_from_this<InProcessCluster> {
 public:
  static std::shared_ptr<InProcessCluster> Make();

  /// Starts a worker named `options.address` (its `channels` are set to this cluster).
  Status AddWorker(WorkerServiceOptions options);
  /// Stops answering for `address`, as if the worker's process had died.
  void RemoveWorker(const std::string& address);
  std::shared_ptr<WorkerService> worker(const std::string& address) const;
  std::vector<std::string> addresses() const;

  Result<WorkerChannelPtr> Connect(const std::string& address) override;

 private:
  InProcessCluster() = default;

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<WorkerService>> workers_;
};

}  // namespace shoal::distributed

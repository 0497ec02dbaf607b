#include "shoal/engine/execution_modes.h"

#include <utility>

#include "shoal/distributed/coordinator/worker_resolver.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/engine/in_process_workers.h"

namespace shoal::engine {

void UseCoordinator(QueryRunner& runner,
                    const std::shared_ptr<distributed::Coordinator>& coordinator) {
  runner.SetExecutionMode(ExecutionMode::OnWorkers(coordinator));
}

Status UseShuffleDriver(QueryRunner& runner, distributed::shuffle::ShuffleDriverOptions options) {
  SHOAL_ASSIGN_OR_RETURN(auto driver,
                         distributed::shuffle::ShuffleDriver::Make(std::move(options)));
  runner.SetExecutionMode(ExecutionMode::ThroughShuffle(std::move(driver)));
  return Status::OK();
}

Status UseWorkers(QueryRunner& runner, const WorkerConnection& connection,
                  const std::string& tpch_scale) {
  std::shared_ptr<distributed::Coordinator> coordinator;
  std::shared_ptr<distributed::shuffle::ShuffleDriver> task_driver;
  if (IsInProcessWorkers(connection.workers)) {
    SHOAL_ASSIGN_OR_RETURN(coordinator,
                           StartInProcessWorkers(connection, runner.session().catalog()));
  } else {
    distributed::CoordinatorOptions options;
    SHOAL_ASSIGN_OR_RETURN(options.resolver, distributed::MakeWorkerResolver(connection.workers));
    for (const auto& header : connection.headers)
      SHOAL_RETURN_IF_ERROR(distributed::ParseHeader(header, &options.headers));
    options.channels = std::make_shared<distributed::GrpcChannelResolver>();
    options.version = connection.worker_version;
    SHOAL_ASSIGN_OR_RETURN(coordinator, distributed::Coordinator::Make(std::move(options)));
    // retry_policy = task: the same workers run the query as shuffle tasks; the driver asks the
    // coordinator's resolver and shares its health (a worker lost by one is skipped by both).
    distributed::shuffle::ShuffleDriverOptions shuffle;
    shuffle.tpch_scale = tpch_scale;
    shuffle.codecs = coordinator->options().codecs;
    shuffle.health = coordinator->health();
    shuffle.private_dir = true;
    std::weak_ptr<distributed::Coordinator> weak = coordinator;
    shuffle.resolve_workers = [weak]() -> Result<std::vector<std::string>> {
      auto c = weak.lock();
      if (!c)
        return Status::Cancelled("the session's coordinator is gone");
      return c->options().resolver->Resolve();
    };
    SHOAL_ASSIGN_OR_RETURN(task_driver,
                           distributed::shuffle::ShuffleDriver::Make(std::move(shuffle)));
  }
  SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
  runner.SetExecutionMode(ExecutionMode::OnWorkers(coordinator, std::move(task_driver)));
  return Status::OK();
}

}  // namespace shoal::engine

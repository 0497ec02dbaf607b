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

Status UseWorkers(QueryRunner& runner, const WorkerConnection& connection) {
  std::shared_ptr<distributed::Coordinator> coordinator;
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
  }
  SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
  UseCoordinator(runner, coordinator);
  return Status::OK();
}

}  // namespace shoal::engine

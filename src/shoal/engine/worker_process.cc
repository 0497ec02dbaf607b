#include "shoal/engine/worker_process.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/worker/worker_service.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/data_roots.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::engine {

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::Make(WorkerProcessOptions options) {
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess(std::move(options)));
  SHOAL_ASSIGN_OR_RETURN(io::DataRoots roots, io::DataRoots::Make(worker->options_.data_roots));
  io::SetProcessDataRoots(std::move(roots));
  if (worker->options_.spill_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    worker->options_.spill_dir = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(worker->options_.spill_dir, ec))
    return Status::InvalidArgument("--spill-dir '{}' is not a directory",
                                   worker->options_.spill_dir);
  worker->catalog_ = std::make_shared<sql::Catalog>();
  if (!worker->options_.tpch_scale.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse(worker->options_.tpch_scale));
    SHOAL_RETURN_IF_ERROR(RegisterTpchTables(scale, worker->catalog_.get()));
  }
  return worker;
}

Status WorkerProcess::Start() {
  if (server_)
    return Status::Internal("the worker is already serving on {}", server_->address());
  auto channels = std::make_shared<distributed::GrpcChannelResolver>();
  distributed::GrpcWorkerServerOptions server;
  server.listen = options_.listen;
  server.max_receive_bytes = options_.max_message_bytes;
  if (!options_.shuffle_dir.empty()) {
    distributed::shuffle::StageFileServiceOptions shuffle;
    shuffle.shuffle_dir = options_.shuffle_dir;
    shuffle.spill_dir = options_.spill_dir;
    shuffle.task_processes = options_.shuffle_task_processes;
    SHOAL_ASSIGN_OR_RETURN(stage_files_,
                           distributed::shuffle::StageFileService::Make(std::move(shuffle)));
    server.extra_services.push_back(stage_files_->grpc_service());
  }
  SHOAL_ASSIGN_OR_RETURN(
      server_, distributed::GrpcWorkerServer::Start(server, [&](const std::string& address) {
        distributed::WorkerServiceOptions service;
        service.address = address;
        service.version = options_.version;
        service.task_ttl = options_.task_ttl;
        service.threads = options_.threads;
        service.memory_limit = options_.memory_limit;
        service.max_threads = options_.max_threads;
        service.max_queries = options_.max_queries;
        service.max_tasks_per_query = options_.max_tasks_per_query;
        service.spill_directory = options_.spill_dir;
        service.catalog = catalog_;
        service.channels = channels;
        return std::make_shared<distributed::WorkerService>(std::move(service));
      }));
  if (stage_files_)
    stage_files_->set_address(server_->address());
  return Status::OK();
}

const std::string& WorkerProcess::address() const {
  static const std::string kNone;
  return server_ ? server_->address() : kNone;
}

void WorkerProcess::Shutdown() {
  if (server_)
    server_->Shutdown();
}

void WorkerProcess::Wait() {
  if (server_)
    server_->Wait();
}

}  // namespace shoal::engine

#include "shoal/cli/worker_command.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/common/version.h"
#include "shoal/dist/coordinator.h"
#include "shoal/dist/grpc_worker_channel.h"
#include "shoal/dist/grpc_worker_server.h"
#include "shoal/dist/worker_service.h"
#include "shoal/exec/tpch_tables.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::cli {
namespace {

struct WorkerArgs {
  std::string listen;
  int threads = 0;
  std::string memory_limit;
  std::string tpch_scale;
};

Status RunWorker(const WorkerArgs& args) {
  int64_t memory_limit = 0;
  if (!args.memory_limit.empty()) {
    SHOAL_ASSIGN_OR_RETURN(memory_limit, ParseByteSize(args.memory_limit));
  }
  if (args.threads < 0)
    return Status::InvalidArgument("--threads must be at least 1, got {}", args.threads);
  auto catalog = std::make_shared<sql::Catalog>();
  if (!args.tpch_scale.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse(args.tpch_scale));
    SHOAL_RETURN_IF_ERROR(exec::RegisterTpchTables(scale, catalog.get()));
  }
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto channels = std::make_shared<dist::GrpcChannelResolver>();
  dist::GrpcWorkerServerOptions options;
  options.listen = args.listen;
  SHOAL_ASSIGN_OR_RETURN(auto server,
                         dist::GrpcWorkerServer::Start(options, [&](const std::string& address) {
                           dist::WorkerServiceOptions service;
                           service.address = address;
                           service.version = kVersion;
                           service.threads = args.threads;
                           service.memory_limit = memory_limit;
                           service.catalog = catalog;
                           service.channels = channels;
                           return std::make_shared<dist::WorkerService>(std::move(service));
                         }));
  std::printf("listening on %s\n", server->address().c_str());
  std::fflush(stdout);
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    server->Shutdown();
  });
  server->Wait();
  stopper.join();
  return Status::OK();
}

}  // namespace

void RegisterWorkerCommand(CLI::App& app) {
  auto args = std::make_shared<WorkerArgs>();
  CLI::App* cmd = app.add_subcommand("worker", "Run a worker of the distributed engine");
  cmd->add_option("--listen", args->listen, "HOST:PORT to serve on (port 0: any free port)")
      ->required();
  cmd->add_option("--threads", args->threads, "Threads per task (default: the query's setting)");
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Bytes all tasks together may hold, e.g. 4GB (default: unlimited)");
  cmd->add_option("--tpch", args->tpch_scale,
                  "Generate the in-memory TPC-H tables of this scale factor (as shoal sql --tpch)");
  cmd->callback([args] {
    Status st = RunWorker(*args);
    if (!st.ok()) {
      std::cerr << "ERROR:  " << st.UserMessage() << "\n";
      if (!st.hint().empty())
        std::cerr << "HINT:  " << st.hint() << "\n";
      throw CLI::RuntimeError(1);
    }
  });
}

Status UseWorkers(exec::QueryRunner& runner, const std::string& list) {
  dist::CoordinatorOptions options;
  std::string_view rest = list;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string address(rest.substr(0, comma));
    if (!address.empty())
      options.workers.push_back(address);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (options.workers.empty())
    return Status::InvalidArgument("--workers needs HOST:PORT[,HOST:PORT...], got '{}'", list);
  options.channels = std::make_shared<dist::GrpcChannelResolver>();
  options.version = kVersion;
  SHOAL_ASSIGN_OR_RETURN(auto coordinator, dist::Coordinator::Make(std::move(options)));
  SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
  runner.SetPlanTransform(coordinator->AsPlanTransform());
  return Status::OK();
}

}  // namespace shoal::cli

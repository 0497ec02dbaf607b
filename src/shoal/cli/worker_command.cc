#include "shoal/cli/worker_command.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/common/version.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/coordinator/worker_resolver.h"
#include "shoal/distributed/shuffle/stage_file_service.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/passthrough_headers.h"
#include "shoal/distributed/worker/worker_service.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"

namespace shoal::cli {
namespace {

struct WorkerArgs {
  std::string listen;
  int threads = 0;
  std::string memory_limit;
  std::string tpch_scale;
  std::string version = DefaultWorkerVersion();
  std::string task_ttl = "10m";
  std::string shuffle_dir;
};

Status RunWorker(const WorkerArgs& args) {
  int64_t memory_limit = 0;
  if (!args.memory_limit.empty()) {
    SHOAL_ASSIGN_OR_RETURN(memory_limit, ParseByteSize(args.memory_limit));
  }
  if (args.threads < 0)
    return Status::InvalidArgument("--threads must be at least 1, got {}", args.threads);
  if (args.version.empty())
    return Status::InvalidArgument("--version must not be empty");
  SHOAL_ASSIGN_OR_RETURN(std::chrono::milliseconds task_ttl, ParseDuration(args.task_ttl));
  if (task_ttl.count() <= 0)
    return Status::InvalidArgument("--task-ttl must be positive, got '{}'", args.task_ttl);
  auto catalog = std::make_shared<sql::Catalog>();
  if (!args.tpch_scale.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auto scale, io::tpch::TpchScale::Parse(args.tpch_scale));
    SHOAL_RETURN_IF_ERROR(engine::RegisterTpchTables(scale, catalog.get()));
  }
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto channels = std::make_shared<distributed::GrpcChannelResolver>();
  distributed::GrpcWorkerServerOptions options;
  options.listen = args.listen;
  std::unique_ptr<distributed::shuffle::StageFileService> stage_files;
  if (!args.shuffle_dir.empty()) {
    distributed::shuffle::StageFileServiceOptions shuffle;
    shuffle.shuffle_dir = args.shuffle_dir;
    SHOAL_ASSIGN_OR_RETURN(stage_files,
                           distributed::shuffle::StageFileService::Make(std::move(shuffle)));
    options.extra_services.push_back(stage_files->grpc_service());
  }
  SHOAL_ASSIGN_OR_RETURN(
      auto server, distributed::GrpcWorkerServer::Start(options, [&](const std::string& address) {
        distributed::WorkerServiceOptions service;
        service.address = address;
        service.version = args.version;
        service.task_ttl = task_ttl;
        service.threads = args.threads;
        service.memory_limit = memory_limit;
        service.catalog = catalog;
        service.channels = channels;
        return std::make_shared<distributed::WorkerService>(std::move(service));
      }));
  if (stage_files)
    stage_files->set_address(server->address());
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
  cmd->add_option(
      "--version", args->version,
      "Version to report to coordinators (default: this binary's, " + DefaultWorkerVersion() + ")");
  cmd->add_option("--task-ttl", args->task_ttl,
                  "Drop a task this long after it started even if its coordinator did not end "
                  "it, e.g. 10m, 30s (default 10m)");
  cmd->add_option("--shuffle-dir", args->shuffle_dir,
                  "Also run materialized-shuffle tasks of `shoal sql --shuffle-workers` drivers, "
                  "keeping their stage files in this directory (one subdirectory per query)");
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

std::string DefaultWorkerVersion() {
  return kVersion;
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument("'{}' is not a duration", text)
        .WithHint("write a number with a unit: ms, s, m or h (e.g. 10m, 30s, 250ms)");
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  if (digits == 0 || digits > 12)
    return bad();
  const int64_t n = std::stoll(std::string(text.substr(0, digits)));
  const std::string_view unit = text.substr(digits);
  if (unit == "ms")
    return std::chrono::milliseconds(n);
  if (unit.empty() || unit == "s")
    return std::chrono::milliseconds(n * 1000);
  if (unit == "m" || unit == "min")
    return std::chrono::milliseconds(n * 60 * 1000);
  if (unit == "h")
    return std::chrono::milliseconds(n * 3600 * 1000);
  return bad();
}

Status UseWorkers(engine::QueryRunner& runner, const CoordinatorArgs& args) {
  distributed::CoordinatorOptions options;
  SHOAL_ASSIGN_OR_RETURN(options.resolver, distributed::MakeWorkerResolver(args.workers));
  for (const auto& header : args.headers)
    SHOAL_RETURN_IF_ERROR(distributed::ParseHeader(header, &options.headers));
  options.channels = std::make_shared<distributed::GrpcChannelResolver>();
  options.version = args.worker_version;
  SHOAL_ASSIGN_OR_RETURN(auto coordinator, distributed::Coordinator::Make(std::move(options)));
  SHOAL_RETURN_IF_ERROR(coordinator->CheckWorkers());
  runner.SetPlanTransform(coordinator->AsPlanTransform());
  return Status::OK();
}

}  // namespace shoal::cli

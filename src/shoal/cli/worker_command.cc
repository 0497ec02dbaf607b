#include "shoal/cli/worker_command.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "shoal/cli/node_security_flags.h"
#include "shoal/common/settings.h"
#include "shoal/common/version.h"
#include "shoal/engine/worker_process.h"

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
  // --tls-cert, --tls-key, --tls-ca, --cluster-secret-file, --insecure (node_security_flags.h).
  engine::NodeSecurityOptions node_security;
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
  // Before anything listens: how calls are secured.
  SHOAL_RETURN_IF_ERROR(SetUpNodeSecurity(
      args.node_security, "shoal worker",
      "calls to this worker (anyone who reaches its port can run plans on it) and from it"));
  engine::WorkerProcessOptions options;
  options.listen = args.listen;
  options.threads = args.threads;
  options.memory_limit = memory_limit;
  options.tpch_scale = args.tpch_scale;
  options.version = args.version;
  options.task_ttl = task_ttl;
  options.shuffle_dir = args.shuffle_dir;
  SHOAL_ASSIGN_OR_RETURN(auto worker, engine::WorkerProcess::Make(std::move(options)));
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  SHOAL_RETURN_IF_ERROR(worker->Start());
  std::printf("listening on %s\n", worker->address().c_str());
  std::fflush(stdout);
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    worker->Shutdown();
  });
  worker->Wait();
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
                  "Drop a task whose coordinator was silent this long (no heartbeat: it hung or "
                  "lost its connection), e.g. 10m, 30s (default 10m); a long query is never "
                  "dropped");
  cmd->add_option("--shuffle-dir", args->shuffle_dir,
                  "Also run materialized-shuffle tasks of `shoal sql --shuffle-workers` drivers, "
                  "keeping their stage files in this directory (one subdirectory per query)");
  // Mutual TLS and request signing (docs/security.md).
  AddNodeSecurityFlags(cmd, &args->node_security);
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

}  // namespace shoal::cli

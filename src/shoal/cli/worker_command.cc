#include "shoal/cli/worker_command.h"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "shoal/cli/node_security_flags.h"
#include "shoal/common/log_context.h"
#include "shoal/common/settings.h"
#include "shoal/common/thread_pool.h"
#include "shoal/common/version.h"
#include "shoal/engine/worker_process.h"
#include "shoal/io/data_roots.h"
#include "shoal/server/http_console.h"

namespace shoal::cli {
namespace {

struct WorkerArgs {
  std::string listen;
  std::string metrics;  // --metrics HOST:PORT: Prometheus's /metrics
  std::string log_format = "text";
  int threads = 0;
  std::string memory_limit;
  std::string tpch_scale;
  std::string version = DefaultWorkerVersion();
  std::string task_ttl = "10m";
  std::string shuffle_dir;
  bool shuffle_task_processes = false;
  // --tls-cert, --tls-key, --tls-ca, --cluster-secret-file, --insecure (node_security_flags.h).
  engine::NodeSecurityOptions node_security;
  // Confinement and resource caps (issue 15 items 3-5; docs/security.md).
  std::vector<std::string> data_roots;
  std::string spill_dir;
  int max_threads = 0;
  int max_queries = 64;
  int max_tasks_per_query = 1024;
  std::string max_message_size = "256MB";
};

// The worker's memory budget when --memory-limit is not given: half the machine's memory, so a
// worker spills or fails a query before the kernel's OOM killer ends the whole process.
int64_t DefaultWorkerMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0)
    return 0;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page_size) / 2;
}

bool IsLoopbackHost(std::string_view listen) {
  const size_t colon = listen.rfind(':');
  std::string_view host = listen.substr(0, colon == std::string_view::npos ? 0 : colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

// What the worker tells its operator at start-up, after "listening on": who may reach it and
// what its plans may touch.
void PrintStartupNotes(const WorkerArgs& args, int64_t memory_limit, const std::string& address) {
  if (!IsLoopbackHost(address)) {
    if (args.node_security.insecure) {
      std::fprintf(stderr,
                   "WARNING:  listening on %s without TLS, reachable from other machines: anyone "
                   "who can connect can run plans on this worker (see docs/security.md)\n",
                   address.c_str());
    } else {
      std::fprintf(stderr,
                   "WARNING:  listening on %s, reachable from other machines: only peers with a "
                   "certificate of --tls-ca and the cluster secret are served (docs/security.md)\n",
                   address.c_str());
    }
  }
  if (args.data_roots.empty()) {
    std::printf(
        "data roots: none (plans may read and write any file this process can; "
        "--data-root DIR confines them)\n");
  } else {
    std::string roots;
    for (const auto& root : io::ProcessDataRoots()->roots())
      roots += (roots.empty() ? "" : ", ") + root;
    std::printf("data roots: %s\n", roots.c_str());
  }
  const std::string memory =
      memory_limit > 0 ? fmt::format("{} MiB", memory_limit >> 20) : std::string("unlimited");
  std::printf("memory limit: %s; threads per task at most %d\n", memory.c_str(),
              args.threads > 0
                  ? args.threads
                  : (args.max_threads > 0 ? args.max_threads : ThreadPool::HardwareConcurrency()));
  std::fflush(stdout);
}

Status RunWorker(const WorkerArgs& args) {
  int64_t memory_limit = DefaultWorkerMemoryLimit();
  if (!args.memory_limit.empty()) {
    SHOAL_ASSIGN_OR_RETURN(memory_limit, ParseByteSize(args.memory_limit));
  }
  SHOAL_ASSIGN_OR_RETURN(const int64_t max_message_bytes, ParseByteSize(args.max_message_size));
  if (max_message_bytes < 1024 || max_message_bytes > INT32_MAX)
    return Status::InvalidArgument("--max-message-size must be between 1KB and 2GB, got '{}'",
                                   args.max_message_size);
  if (args.max_threads < 0 || args.max_queries < 0 || args.max_tasks_per_query < 0)
    return Status::InvalidArgument(
        "--max-threads, --max-queries and --max-tasks-per-query must not be negative");
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
  if (args.log_format == "json")
    SetLogFormat(LogFormat::kJson);
  engine::WorkerProcessOptions options;
  options.listen = args.listen;
  options.threads = args.threads;
  options.memory_limit = memory_limit;
  options.tpch_scale = args.tpch_scale;
  options.version = args.version;
  options.task_ttl = task_ttl;
  options.shuffle_dir = args.shuffle_dir;
  options.shuffle_task_processes = args.shuffle_task_processes;
  options.data_roots = args.data_roots;
  options.spill_dir = args.spill_dir;
  options.max_threads = args.max_threads;
  options.max_queries = args.max_queries;
  options.max_tasks_per_query = args.max_tasks_per_query;
  options.max_message_bytes = max_message_bytes;
  SHOAL_ASSIGN_OR_RETURN(auto worker, engine::WorkerProcess::Make(std::move(options)));
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  SHOAL_RETURN_IF_ERROR(worker->Start());
  std::printf("listening on %s\n", worker->address().c_str());
  std::unique_ptr<server::HttpConsole> metrics;
  if (!args.metrics.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auto address, server::ParseHttpAddress(args.metrics));
    metrics = std::make_unique<server::HttpConsole>(
        server::HttpConsoleOptions{address.first, address.second, "", ""}, nullptr);
    SHOAL_RETURN_IF_ERROR(metrics->Start());
    std::printf("metrics on %s/metrics\n", metrics->url().c_str());
  }
  std::fflush(stdout);
  PrintStartupNotes(args, memory_limit, worker->address());
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
  cmd->add_option("--log-format", args->log_format,
                  "text, or json: one JSON object a line with the query id and task key (also "
                  "SHOAL_LOG_FORMAT=json)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--metrics", args->metrics,
                  "HOST:PORT serving Prometheus's /metrics over HTTP (off by default)");
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Bytes all tasks together may hold, e.g. 4GB; each query's tasks also stay "
                  "under its memory_limit (default: half the machine's memory)");
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
                  "Also run materialized-shuffle tasks (of `shoal sql --shuffle-workers` drivers, "
                  "and of sessions under retry_policy = task), keeping their stage files in this "
                  "directory (one subdirectory per query); without it, no task runs here");
  cmd->add_flag("--shuffle-task-processes", args->shuffle_task_processes,
                "Run each of those tasks as a `shoal task` child process (isolated from the "
                "worker, but paying a process start per task) instead of on a worker thread");
  // Mutual TLS and request signing (docs/security.md).
  AddNodeSecurityFlags(cmd, &args->node_security);
  // Confinement and resource caps (docs/security.md).
  cmd->add_option("--data-root", args->data_roots,
                  "Plans may read and write table files only under this directory (repeatable; "
                  "symlinks and .. are resolved first); default: anywhere")
      ->allow_extra_args(false);
  cmd->add_option("--spill-dir", args->spill_dir,
                  "Where tasks spill (default: $TMPDIR or /tmp); a client's spill_dir setting "
                  "is ignored");
  cmd->add_option("--max-threads", args->max_threads,
                  "Lower a query's threads setting to this (default: the hardware threads)");
  cmd->add_option(
      "--max-queries", args->max_queries,
      "Queries that may hold tasks at once; more are refused (default 64, 0: no limit)");
  cmd->add_option("--max-tasks-per-query", args->max_tasks_per_query,
                  "Tasks one query may hold at once; more are refused (default 1024, 0: no limit)");
  cmd->add_option("--max-message-size", args->max_message_size,
                  "Largest message a call may send this worker (default 256MB)");
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

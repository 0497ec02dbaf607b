// `shoal worker`: a worker process of the distributed engine (dist/worker_service.h served over
// gRPC by dist/grpc_worker_server.h), and the coordinator side of `shoal sql --workers`.
//
//   shoal worker --listen HOST:PORT [--threads N] [--memory-limit B] [--tpch SF] [--version V]
//                [--task-ttl DURATION] [--shuffle-dir WDIR]
//
// The worker prints "listening on HOST:PORT" (the real port when PORT is 0) on stdout once it
// accepts calls, and runs until SIGINT or SIGTERM. --version sets the version it reports (default:
// this binary's), which coordinators compare with theirs (`shoal sql --worker-version`); a task
// older than --task-ttl (default 10m) is dropped even if its coordinator never closed it. --tpch
// generates the in-memory TPC-H tables, so that plans over `shoal sql --tpch SF` tables can run on
// it; external tables need no flag (their files must be at the same paths on every machine).
// --shuffle-dir also serves the materialized shuffle's tasks and stage files
// (dist/shuffle/stage_file_service.h) for `shoal sql --shuffle-dir DIR --shuffle-workers ...`.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"

namespace shoal::cli {

void RegisterWorkerCommand(CLI::App& app);

/// What `shoal sql` says about its workers.
struct CoordinatorArgs {
  /// "HOST:PORT,HOST:PORT", "file:PATH" or "dns:NAME:PORT" (dist/worker_resolver.h).
  std::string workers;
  /// Passthrough headers, "KEY=VALUE" each.
  std::vector<std::string> headers;
  /// The version workers must report; empty: not checked.
  std::string worker_version;
};

/// The version a worker reports without --version, and a coordinator expects by default.
std::string DefaultWorkerVersion();

/// Makes `runner` run its queries across the workers of `args`: checks first that every worker
/// answers and reports the expected version.
Status UseWorkers(engine::QueryRunner& runner, const CoordinatorArgs& args);

/// Parses a duration such as "10m", "30s", "250ms", "1h" or a plain number of seconds.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

}  // namespace shoal::cli

// `shoal worker`: a worker process of the distributed engine (dist/worker_service.h served over
// gRPC by dist/grpc_worker_server.h), and the coordinator side of `shoal sql --workers`.
//
//   shoal worker --listen HOST:PORT [--threads N] [--memory-limit B] [--tpch SF]
//
// The worker prints "listening on HOST:PORT" (the real port when PORT is 0) on stdout once it
// accepts calls, and runs until SIGINT or SIGTERM. --tpch generates the in-memory TPC-H tables, so
// that plans over `shoal sql --tpch SF` tables can run on it; external tables need no flag (their
// files must be at the same paths on every machine).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "shoal/common/result.h"
#include "shoal/exec/query_runner.h"

namespace shoal::cli {

void RegisterWorkerCommand(CLI::App& app);

/// Makes `runner` run its queries across the workers of `list` ("HOST:PORT,HOST:PORT"): checks
/// that every worker answers and runs this version first.
Status UseWorkers(exec::QueryRunner& runner, const std::string& list);

}  // namespace shoal::cli

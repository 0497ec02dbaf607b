// `shoal worker`: a worker process of the distributed engine (engine/worker_process.h: a worker
// service served over gRPC), and the flag parsing `shoal sql --workers` shares with it.
//
//   shoal worker --listen HOST:PORT [--threads N] [--memory-limit B] [--tpch SF] [--version V]
//                [--task-ttl DURATION] [--shuffle-dir WDIR]
//                (--tls-cert F --tls-key F --tls-ca F --cluster-secret-file F | --insecure)
//
// The worker prints "listening on HOST:PORT" (the real port when PORT is 0) on stdout once it
// accepts calls, and runs until SIGINT or SIGTERM. --version sets the version it reports (default:
// this binary's), which coordinators compare with theirs (`shoal sql --worker-version`); a task
// whose coordinator sent nothing (it heartbeats several times a second) for --task-ttl (default
// 10m) is dropped even if its coordinator never closed it. --tpch
// generates the in-memory TPC-H tables, so that plans over `shoal sql --tpch SF` tables can run on
// it; external tables need no flag (their files must be at the same paths on every machine).
// --shuffle-dir also serves the materialized shuffle's tasks and stage files
// (distributed/shuffle/stage_file_service.h) for `shoal sql --shuffle-dir DIR --shuffle-workers
// ...`.
// Every call to and from the worker is mutual TLS with a signed request (docs/security.md), or,
// with --insecure, plain TCP (and a warning at start-up); with neither the worker does not start.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "shoal/common/result.h"

namespace shoal::cli {

void RegisterWorkerCommand(CLI::App& app);

/// The version a worker reports without --version, and a coordinator expects by default.
std::string DefaultWorkerVersion();

/// Parses a duration such as "10m", "30s", "250ms", "1h" or a plain number of seconds.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

}  // namespace shoal::cli

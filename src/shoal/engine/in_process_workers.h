// `--workers inproc:N`: N workers inside the session's own process, reached over the in-process
// transport (distributed/transport/in_process_channel.h) instead of gRPC.
//
// Queries go through the same coordinator, distributed planner, plan and table codecs and worker
// services as with `shoal worker` processes; only the wire is missing. That makes it the cheap way
// to run the distributed engine from the shell (tests, CI, benchmarks) without starting processes.
// The workers share the session's catalog, so in-memory tables (--tpch, CREATE TABLE AS) resolve
// there, and external tables read the same files.
#pragma once

#include <memory>
#include <string>

#include "shoal/common/result.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/engine/worker_connection.h"
#include "shoal/sql/catalog.h"

namespace shoal::engine {

inline constexpr int kMaxInProcessWorkers = 256;

/// Whether `workers` (the --workers value) asks for in-process workers ("inproc:N").
bool IsInProcessWorkers(const std::string& workers);

/// Starts the N in-process workers of `connection.workers` ("inproc:N", 1 <= N <=
/// kMaxInProcessWorkers) over `catalog`, and a coordinator for them (not yet checked).
Result<std::shared_ptr<distributed::Coordinator>> StartInProcessWorkers(
    const WorkerConnection& connection, std::shared_ptr<const sql::Catalog> catalog);

}  // namespace shoal::engine

// `shoal sql --workers inproc:N`: N workers inside the shell's own process, reached over the
// in-process transport (dist/in_process_channel.h) instead of gRPC.
//
// Queries go through the same coordinator, distributed planner, plan and table codecs and worker
// services as with `shoal worker` processes; only the wire is missing. That makes it the cheap way
// to run the distributed engine from the shell (tests, CI, benchmarks) without starting processes.
// The workers share the shell's catalog, so in-memory tables (--tpch, CREATE TABLE AS) resolve
// there, and external tables read the same files.
#pragma once

#include <string>

#include "shoal/cli/worker_command.h"
#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"

namespace shoal::cli {

/// Whether `workers` (the --workers value) asks for in-process workers ("inproc:N").
bool IsInProcessWorkers(const std::string& workers);

/// Starts the N in-process workers of `args.workers` ("inproc:N", 1 <= N <= kMaxInProcessWorkers)
/// and makes `runner` run its queries across them.
Status UseInProcessWorkers(engine::QueryRunner& runner, const CoordinatorArgs& args);

inline constexpr int kMaxInProcessWorkers = 256;

}  // namespace shoal::cli

// Choosing a QueryRunner's execution mode from what a user asked for: `shoal worker` processes
// (a static list, a file, a DNS name: distributed/coordinator/worker_resolver.h), in-process
// workers (in_process_workers.h), or the materialized shuffle. Each checks what it can before the
// first query (every worker answers and reports the expected version) and then sets the mode on
// the runner (execution_mode.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/common/status.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/worker_connection.h"

namespace shoal::engine {

/// Runs `runner`'s queries across `coordinator`'s workers.
void UseCoordinator(QueryRunner& runner,
                    const std::shared_ptr<distributed::Coordinator>& coordinator);

/// Runs `runner`'s queries through the materialized shuffle, whenever `shuffle_dir` is set.
Status UseShuffleDriver(QueryRunner& runner, distributed::shuffle::ShuffleDriverOptions options);

/// Runs `runner`'s queries across the workers of `connection` (in-process ones for "inproc:N",
/// sharing the runner's catalog), after checking that every worker answers and reports the
/// expected version. Under `retry_policy = task` queries on `shoal worker`s run as a
/// materialized shuffle on those workers (their --shuffle-dir service), whose tasks regenerate
/// the TPC-H tables of `tpch_scale` (the session's --tpch; empty: none).
Status UseWorkers(QueryRunner& runner, const WorkerConnection& connection,
                  const std::string& tpch_scale = "");

}  // namespace shoal::engine

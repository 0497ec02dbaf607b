// SessionSetup: what a session is given before its first statement, as `shoal sql` (and the
// coming server) take it from their flags: in-memory TPC-H tables, and where queries run (workers,
// or the materialized shuffle's directory and workers). SetUpSession turns it into tables in the
// runner's catalog and the runner's execution mode, checking the combination first.
#pragma once

#include <string>
#include <vector>

#include "shoal/common/status.h"
#include "shoal/engine/execution_modes.h"
#include "shoal/engine/query_runner.h"

namespace shoal::engine {

struct SessionSetup {
  /// --tpch SF: the TPC-H tables of that scale factor, in memory; empty: none.
  std::string tpch_scale;
  /// --workers (and its headers and expected version); empty `workers.workers`: no workers.
  WorkerConnection workers;
  /// --shuffle-dir DIR: stages run as `shoal task` processes exchanging files in DIR.
  std::string shuffle_dir;
  /// --shuffle-workers H:P,...: `shoal worker --shuffle-dir`s that run those tasks instead.
  std::string shuffle_workers;
};

/// Registers the TPC-H tables of `setup`, then sets the execution mode: across the workers when
/// there are some, else the materialized shuffle (which runs queries locally until `shuffle_dir`
/// is set, by `setup` or later by SET). InvalidArgument for combinations that cannot work.
Status SetUpSession(const SessionSetup& setup, QueryRunner& runner);

}  // namespace shoal::engine

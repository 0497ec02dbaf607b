// Execution modes of a QueryRunner: on one node (the default), on workers through a distributed
// Coordinator, or through the materialized file shuffle. Each installs the distributed layer's
// plan transform on the runner.
#pragma once

#include <memory>

#include "shoal/common/status.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/engine/query_runner.h"

namespace shoal::engine {

/// Runs `runner`'s queries across `coordinator`'s workers.
void UseCoordinator(QueryRunner& runner,
                    const std::shared_ptr<distributed::Coordinator>& coordinator);

/// Runs `runner`'s queries through the materialized shuffle (the `shuffle_*` settings become
/// known).
Status UseShuffleDriver(QueryRunner& runner, distributed::shuffle::ShuffleDriverOptions options);

}  // namespace shoal::engine

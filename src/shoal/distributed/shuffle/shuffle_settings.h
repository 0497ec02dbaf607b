// The session settings of the materialized shuffle (issue 7), registered in the global settings
// registry by the processes that use it (`shoal sql`, `shoal task`):
//  - shuffle_dir: where stage files go; set, it switches the mode on (one directory per query);
//  - shuffle_compression: none | lz4 | zstd, the body compression of stage files;
//  - shuffle_max_concurrent_tasks: task processes the driver runs at once;
//  - shuffle_task_retries: times a failed or killed task is run again before the query fails.
#pragma once

#include "shoal/common/result.h"

namespace shoal::distributed::shuffle {

/// Idempotent.
Status RegisterShuffleSettings();

}  // namespace shoal::distributed::shuffle

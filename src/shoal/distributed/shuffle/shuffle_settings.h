// The session settings of the materialized shuffle (issue 7), read by the shuffle driver,
// declared once (engine/settings_catalog.h registers this table at start-up):
//  - shuffle_dir: where stage files go; set, it switches the mode on (one directory per query);
//  - shuffle_compression: none | lz4 | zstd, the body compression of stage files;
//  - shuffle_max_concurrent_tasks: task processes the driver runs at once;
//  - shuffle_task_retries: times a failed or killed task is run again before the query fails.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed::shuffle {

/// The shuffle part's setting declarations.
std::span<const SettingDefinition> ShuffleSettingDeclarations();

}  // namespace shoal::distributed::shuffle

// The settings of adaptive task counts (dist_adaptive_task_counts, dist_sample_rows,
// dist_sample_bytes, dist_sample_time_ms), read by the coordinator and the workers' load
// samplers, declared once. engine/settings_catalog.h registers this table at start-up.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed {

/// The adaptive part's setting declarations.
std::span<const SettingDefinition> AdaptiveSettingDeclarations();

}  // namespace shoal::distributed

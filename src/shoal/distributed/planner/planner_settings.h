// The settings the distributed planner's callers read to size stages (dist_max_tasks,
// dist_bytes_per_task, dist_broadcast_max_bytes), declared once. engine/settings_catalog.h
// registers this table with every other layer's at start-up.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed {

/// The distributed planner's setting declarations.
std::span<const SettingDefinition> PlannerSettingDeclarations();

}  // namespace shoal::distributed

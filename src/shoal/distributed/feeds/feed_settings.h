// The setting that switches work-unit feeds on (dist_work_unit_feeds), read by the coordinator
// when it dispatches leaf stages, declared once. engine/settings_catalog.h registers this table at
// start-up.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed {

/// The feeds part's setting declarations.
std::span<const SettingDefinition> FeedSettingDeclarations();

}  // namespace shoal::distributed

// The settings of a session as a whole rather than of one layer's operators: statement_timeout,
// which `shoal server` enforces on each statement it runs (server/statement_timer.h). Declared here
// because engine/settings_catalog.h registers every table and sits below the server.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::engine {

std::span<const SettingDefinition> EngineSettingDeclarations();

}  // namespace shoal::engine

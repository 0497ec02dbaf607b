// The transport's setting (dist_compression: how record batches are compressed between
// processes), read by the gRPC worker channel, declared once. engine/settings_catalog.h registers
// this table at start-up.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed {

/// The transport part's setting declarations.
std::span<const SettingDefinition> TransportSettingDeclarations();

}  // namespace shoal::distributed

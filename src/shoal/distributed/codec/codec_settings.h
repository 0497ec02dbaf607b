// The codec part's setting (dist_memory_table_max_bytes: how large an in-memory table may be and
// still travel inside a distributed plan, memory_table_codec.h), declared once.
// engine/settings_catalog.h registers this table at start-up.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::distributed {

/// The codec part's setting declarations.
std::span<const SettingDefinition> CodecSettingDeclarations();

}  // namespace shoal::distributed

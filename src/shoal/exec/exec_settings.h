// The settings the exec layer reads (batch_size, threads, memory_limit, spill_dir, read by every
// TaskContext; join_collect_build_rows, read by the physical planner's callers;
// max_recursion_rounds, read by RecursiveCteExec), declared once.
// engine/settings_catalog.h registers this table with every other layer's at start-up; nothing
// here registers anything.
#pragma once

#include <span>

#include "shoal/common/settings.h"

namespace shoal::exec {

/// The exec layer's setting declarations.
std::span<const SettingDefinition> ExecSettingDeclarations();

}  // namespace shoal::exec

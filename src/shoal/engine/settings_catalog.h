// The settings catalog: every layer's table of setting declarations (exec/exec_settings.h and the
// distributed parts' *_settings.h), registered together once at start-up.
//
// Each setting is declared once, next to the code that reads it, with its type, default, range
// or allowed values, help text and owner; no code registers a setting on first use. Every process
// entry point (`shoal`'s main, the test mains, the SQL logic test runner, benchmarks) calls
// RegisterSettings before it does anything else and exits non-zero when it fails: an error here
// (a name declared twice, a default outside its own range) is a bug in a table, and a process
// that went on without its settings would fail later and further from the cause.
#pragma once

#include <span>
#include <vector>

#include "shoal/common/settings.h"

namespace shoal::engine {

/// Every layer's declaration table, lower layers first.
std::vector<std::span<const SettingDefinition>> SettingCatalog();

/// Registers every table of the catalog in `registry`. Call once per registry: a second call
/// fails with AlreadyExists (each setting is registered once).
Status RegisterSettings(SettingsRegistry& registry = SettingsRegistry::Global());

}  // namespace shoal::engine

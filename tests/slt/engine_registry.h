// Process-wide table of named engine factories for the shoal_slt executable. Whatever links the
// runner registers its engines (before calling SltMain) and `--config NAME` picks one, so the
// runner library itself depends on no SQL layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tests/slt/engine.h"

namespace shoal::slt {

/// Registers (or replaces) the factory for configuration `name`. Not thread-safe: call from main.
void RegisterSltEngine(std::string name, SltEngineFactory factory);
/// The factory registered as `name`, or null.
const SltEngineFactory* FindSltEngine(std::string_view name);
/// Registered names in registration order; the first one is the default configuration.
std::vector<std::string> RegisteredSltEngines();
/// Forgets every registration (tests).
void ClearSltEngines();

}  // namespace shoal::slt

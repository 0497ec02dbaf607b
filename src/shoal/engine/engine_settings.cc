#include "shoal/engine/engine_settings.h"

#include <cstdint>
#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::engine {

std::span<const SettingDefinition> EngineSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareInt("statement_timeout", 0, 0, INT32_MAX, "server",
                 "Milliseconds a statement of a `shoal server` session may run before it is "
                 "cancelled (57014); 0: no limit"),
  };
  return kDeclarations;
}

}  // namespace shoal::engine

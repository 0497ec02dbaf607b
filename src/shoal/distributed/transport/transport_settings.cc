#include "shoal/distributed/transport/transport_settings.h"

#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::distributed {

std::span<const SettingDefinition> TransportSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareEnum("dist_compression", "auto", {"auto", "none", "lz4", "zstd"},
                  "distributed/transport",
                  "Compression of record batches sent between processes (auto: none over "
                  "loopback, lz4 between machines)"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed

#include "shoal/distributed/codec/codec_settings.h"

#include <cstdint>
#include <vector>

#include "shoal/common/setting_declaration.h"
#include "shoal/distributed/codec/memory_table_codec.h"

namespace shoal::distributed {

std::span<const SettingDefinition> CodecSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareBytes(MemoryTableCodec::kMaxBytesSetting, MemoryTableCodec::kDefaultMaxBytes, 0,
                   INT64_MAX, "distributed/codec",
                   "Largest in-memory table (CREATE TABLE, INSERT, CREATE TABLE AS) shipped inside "
                   "a distributed plan; a larger one must exist on every worker (0: none is "
                   "shipped)"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed

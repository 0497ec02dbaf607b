#include "shoal/distributed/adaptive/adaptive_settings.h"

#include <cstdint>
#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::distributed {

std::span<const SettingDefinition> AdaptiveSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareBool("dist_adaptive_task_counts", false, "distributed/adaptive",
                  "Start each stage's tasks first and size the consumer stage from samples of "
                  "their output"),
      DeclareInt("dist_sample_rows", 8192, 1, 1LL << 30, "distributed/adaptive",
                 "Adaptive task counts: rows sampled (and buffered) per task output partition"),
      DeclareBytes("dist_sample_bytes", 8LL << 20, 1, INT64_MAX, "distributed/adaptive",
                   "Adaptive task counts: most bytes sampled per task output partition"),
      DeclareInt("dist_sample_time_ms", 2000, 1, 3600 * 1000, "distributed/adaptive",
                 "Adaptive task counts: longest a task output partition is sampled"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed

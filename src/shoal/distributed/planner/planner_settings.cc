#include "shoal/distributed/planner/planner_settings.h"

#include <cstdint>
#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::distributed {

std::span<const SettingDefinition> PlannerSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareInt("dist_max_tasks", 0, 0, 100000, "distributed/planner",
                 "Most tasks per distributed stage (0: one per worker)"),
      DeclareBytes("dist_bytes_per_task", 64LL << 20, 1, INT64_MAX, "distributed/planner",
                   "Bytes a leaf stage's task scans; sizes leaf stages"),
      DeclareBytes("dist_broadcast_max_bytes", 64LL << 20, 0, INT64_MAX, "distributed/planner",
                   "Largest scanned size of a join build side replicated to every task of its "
                   "consumer stage"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed

#include "shoal/distributed/feeds/feed_settings.h"

#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::distributed {

std::span<const SettingDefinition> FeedSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareBool("dist_work_unit_feeds", false, "distributed/feeds",
                  "Leaf tasks receive their scan units from the coordinator at run time "
                  "(work-unit feeds) instead of inside their plans"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed

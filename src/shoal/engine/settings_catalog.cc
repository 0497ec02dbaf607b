#include "shoal/engine/settings_catalog.h"

#include "shoal/distributed/adaptive/adaptive_settings.h"
#include "shoal/distributed/codec/codec_settings.h"
#include "shoal/distributed/feeds/feed_settings.h"
#include "shoal/distributed/planner/planner_settings.h"
#include "shoal/distributed/shuffle/shuffle_settings.h"
#include "shoal/distributed/transport/transport_settings.h"
#include "shoal/engine/engine_settings.h"
#include "shoal/exec/exec_settings.h"

namespace shoal::engine {

std::vector<std::span<const SettingDefinition>> SettingCatalog() {
  return {
      exec::ExecSettingDeclarations(),
      distributed::PlannerSettingDeclarations(),
      distributed::TransportSettingDeclarations(),
      distributed::CodecSettingDeclarations(),
      distributed::FeedSettingDeclarations(),
      distributed::AdaptiveSettingDeclarations(),
      distributed::shuffle::ShuffleSettingDeclarations(),
      EngineSettingDeclarations(),
  };
}

Status RegisterSettings(SettingsRegistry& registry) {
  for (std::span<const SettingDefinition> table : SettingCatalog()) {
    Status st = registry.RegisterAll(table);
    if (!st.ok())
      return std::move(st).WithContext("registering the settings catalog");
  }
  return Status::OK();
}

}  // namespace shoal::engine

#include "shoal/distributed/shuffle/shuffle_settings.h"

#include <mutex>

#include "shoal/common/settings.h"

namespace shoal::distributed::shuffle {

namespace {

Status DoRegister() {
  SettingsRegistry& registry = SettingsRegistry::Global();
  SettingDefinition dir;
  dir.name = "shuffle_dir";
  dir.type = SettingType::kString;
  dir.default_value = "";
  dir.description =
      "Directory of a materialized shuffle: stages run as `shoal task` processes exchanging files "
      "(empty: off; one directory per query)";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(dir)));

  SettingDefinition compression;
  compression.name = "shuffle_compression";
  compression.type = SettingType::kEnum;
  compression.default_value = "lz4";
  compression.choices = {"none", "lz4", "zstd"};
  compression.description = "Compression of materialized-shuffle stage files";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(compression)));

  SettingDefinition concurrent;
  concurrent.name = "shuffle_max_concurrent_tasks";
  concurrent.type = SettingType::kInt;
  concurrent.default_value = "4";
  concurrent.min = 1;
  concurrent.max = 4096;
  concurrent.description = "Task processes a materialized-shuffle driver runs at once";
  SHOAL_RETURN_IF_ERROR(registry.Register(std::move(concurrent)));

  SettingDefinition retries;
  retries.name = "shuffle_task_retries";
  retries.type = SettingType::kInt;
  retries.default_value = "2";
  retries.min = 0;
  retries.max = 100;
  retries.description = "Times a failed or killed materialized-shuffle task is run again";
  return registry.Register(std::move(retries));
}

}  // namespace

Status RegisterShuffleSettings() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = DoRegister(); });
  return status;
}

}  // namespace shoal::distributed::shuffle

#include "shoal/distributed/shuffle/shuffle_settings.h"

#include <vector>

#include "shoal/common/setting_declaration.h"

namespace shoal::distributed::shuffle {

std::span<const SettingDefinition> ShuffleSettingDeclarations() {
  static const std::vector<SettingDefinition> kDeclarations = {
      DeclareString("shuffle_dir", "", "distributed/shuffle",
                    "Directory of a materialized shuffle: stages run as `shoal task` processes "
                    "exchanging files (empty: off; one directory per query)"),
      DeclareEnum("shuffle_compression", "lz4", {"none", "lz4", "zstd"}, "distributed/shuffle",
                  "Compression of materialized-shuffle stage files"),
      DeclareInt("shuffle_max_concurrent_tasks", 4, 1, 4096, "distributed/shuffle",
                 "Task processes a materialized-shuffle driver runs at once"),
      DeclareInt("shuffle_task_retries", 2, 0, 100, "distributed/shuffle",
                 "Times a failed or killed materialized-shuffle task is run again"),
      DeclareBytes("shuffle_build_stage_bytes", 8 << 20, 0, INT64_MAX, "distributed/shuffle",
                   "With local task processes, a hash join's build side that reads at least this "
                   "much of its files becomes a stage of its own instead of being built again in "
                   "each task of the join's stage"),
  };
  return kDeclarations;
}

}  // namespace shoal::distributed::shuffle

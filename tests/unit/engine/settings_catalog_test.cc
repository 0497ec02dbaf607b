// The settings catalog: every layer's declarations register once, each with its help text and
// owner; a second registration fails; SHOW ALL lists every registered setting with its value and
// help.
#include "shoal/engine/settings_catalog.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/engine/query_runner.h"
#include "tests/support/gtest_util.h"

namespace shoal::engine {
namespace {

TEST(SettingsCatalogTest, EverySettingIsDeclaredOnceWithHelpAndAnOwner) {
  std::set<std::string> names;
  size_t declared = 0;
  for (auto table : SettingCatalog()) {
    for (const SettingDefinition& d : table) {
      SCOPED_TRACE(d.name);
      ++declared;
      EXPECT_TRUE(names.insert(d.name).second) << "declared twice";
      EXPECT_FALSE(d.description.empty());
      EXPECT_FALSE(d.owner.empty());
    }
  }
  // What the layers read today (a new setting is added here on purpose).
  EXPECT_EQ(declared, 32u);
  for (const char* name : {"batch_size",
                           "threads",
                           "memory_limit",
                           "spill_dir",
                           "join_collect_build_rows",
                           "max_recursion_rounds",
                           "runtime_filters",
                           "runtime_filter_wait",
                           "scan_filters",
                           "shared_subplans",
                           "dist_max_tasks",
                           "dist_bytes_per_task",
                           "dist_broadcast_max_bytes",
                           "dist_compression",
                           "dist_memory_table_max_bytes",
                           "dist_work_unit_feeds",
                           "dist_adaptive_task_counts",
                           "dist_sample_rows",
                           "dist_sample_bytes",
                           "dist_sample_time_ms",
                           "shuffle_dir",
                           "shuffle_compression",
                           "shuffle_max_concurrent_tasks",
                           "shuffle_task_retries",
                           "shuffle_build_stage_bytes",
                           "statement_timeout",
                           "retry_policy",
                           "query_retry_attempts",
                           "extra_float_digits",
                           "application_name"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

TEST(SettingsCatalogTest, RegistersEveryDeclarationOnceAndOnlyOnce) {
  SettingsRegistry registry;
  ASSERT_OK(RegisterSettings(registry));
  size_t declared = 0;
  for (auto table : SettingCatalog())
    declared += table.size();
  EXPECT_EQ(registry.All().size(), declared);
  // dist_compression belongs to the transport, which reads it, not to the planner.
  ASSERT_OK_AND_ASSIGN(const SettingDefinition* compression, registry.Find("dist_compression"));
  EXPECT_EQ(compression->owner, "distributed/transport");
  ASSERT_OK_AND_ASSIGN(const SettingDefinition* threads, registry.Find("threads"));
  EXPECT_EQ(threads->owner, "exec");
  // Registration happens once, at start-up: a second attempt is an error, not a no-op.
  Status again = RegisterSettings(registry);
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.ToString();
  EXPECT_NE(again.ToString().find("registering the settings catalog"), std::string::npos);
}

TEST(SettingsCatalogTest, TheProcessRegistryHoldsTheCatalog) {
  // The test main registered the catalog in the global registry, as shoal's main does.
  size_t declared = 0;
  for (auto table : SettingCatalog())
    declared += table.size();
  EXPECT_EQ(SettingsRegistry::Global().All().size(), declared);
  EXPECT_EQ(RegisterSettings().code(), StatusCode::kAlreadyExists);
}

TEST(SettingsCatalogTest, ShowAllListsEverySettingWithItsValueAndHelp) {
  QueryRunner runner;
  ASSERT_OK(runner.RunOne("SET batch_size = 3").status());
  ASSERT_OK_AND_ASSIGN(auto result, runner.RunOne("SHOW ALL"));
  ASSERT_NE(result.schema, nullptr);
  ASSERT_EQ(result.schema->num_fields(), 3);
  EXPECT_EQ(result.schema->field(0).name, "name");
  EXPECT_EQ(result.schema->field(1).name, "setting");
  EXPECT_EQ(result.schema->field(2).name, "description");
  EXPECT_EQ(result.command_tag, "SHOW");
  std::set<std::string> listed;
  for (const auto& batch : result.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      const std::string name = columnar::FormatValue(*batch->column(0), r);
      const std::string value = columnar::FormatValue(*batch->column(1), r);
      const std::string help = columnar::FormatValue(*batch->column(2), r);
      listed.insert(name);
      EXPECT_FALSE(help.empty()) << name;
      if (name == "batch_size") {
        EXPECT_EQ(value, "3");
      }
      if (name == "dist_compression") {
        EXPECT_NE(help.find("Compression of record batches"), std::string::npos) << help;
      }
    }
  }
  for (auto table : SettingCatalog())
    for (const SettingDefinition& d : table)
      EXPECT_EQ(listed.count(d.name), 1u) << d.name;
}

}  // namespace
}  // namespace shoal::engine

#include "shoal/common/settings.h"

#include <gtest/gtest.h>

#include "shoal/common/edit_distance.h"

namespace shoal {
namespace {

SettingDefinition Def(std::string name, SettingType type, std::string value,
                      int64_t min = INT64_MIN, int64_t max = INT64_MAX) {
  SettingDefinition d;
  d.name = std::move(name);
  d.type = type;
  d.default_value = std::move(value);
  d.description = "test setting";
  d.min = min;
  d.max = max;
  return d;
}

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_.Register(Def("batch_size", SettingType::kInt, "8192", 1, 1 << 20)).ok());
    ASSERT_TRUE(registry_.Register(Def("memory_limit", SettingType::kBytes, "1GB")).ok());
    ASSERT_TRUE(registry_.Register(Def("enable_spill", SettingType::kBool, "on")).ok());
    SettingDefinition codec = Def("compression", SettingType::kEnum, "lz4");
    codec.choices = {"none", "lz4", "zstd"};
    ASSERT_TRUE(registry_.Register(codec).ok());
  }

  SettingsRegistry registry_;
};

TEST_F(SettingsTest, DefaultsAreNormalised) {
  Settings s(&registry_);
  EXPECT_EQ(*s.Get("memory_limit"), "1073741824");
  EXPECT_TRUE(s.GetBool("enable_spill"));
  EXPECT_EQ(s.GetInt("batch_size"), 8192);
  EXPECT_TRUE(s.overrides().empty());
}

TEST_F(SettingsTest, SetValidatesAndResetRestores) {
  Settings s(&registry_);
  ASSERT_TRUE(s.Set("BATCH_SIZE", " 2 ").ok());
  EXPECT_EQ(s.GetInt("batch_size"), 2);
  EXPECT_EQ(s.Set("batch_size", "0").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Set("batch_size", "abc").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(s.Set("compression", "ZSTD").ok());
  EXPECT_EQ(s.GetString("compression"), "zstd");
  Status bad = s.Set("compression", "gzip");
  EXPECT_NE(bad.UserMessage().find("none, lz4, zstd"), std::string::npos);
  ASSERT_TRUE(s.Set("memory_limit", "64 MB").ok());
  EXPECT_EQ(s.GetInt("memory_limit"), 64 << 20);
  EXPECT_EQ(s.overrides().size(), 3u);
  ASSERT_TRUE(s.Reset("memory_limit").ok());
  EXPECT_EQ(s.GetInt("memory_limit"), 1 << 30);
}

TEST_F(SettingsTest, UnknownNameSuggestsTheClosest) {
  Settings s(&registry_);
  Status st = s.Set("batch_sise", "4");
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_EQ(st.hint(), "did you mean \"batch_size\"?");
  EXPECT_EQ(st.sqlstate(), "42704");
}

TEST_F(SettingsTest, ShowAllListsEverySetting) {
  Settings s(&registry_);
  auto all = s.All();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].first, "batch_size");
}

TEST(ByteSizeTest, Units) {
  EXPECT_EQ(*ParseByteSize("1024"), 1024);
  EXPECT_EQ(*ParseByteSize("1.5kB"), 1536);
  EXPECT_EQ(*ParseByteSize("2GiB"), 2LL << 30);
  EXPECT_FALSE(ParseByteSize("12 parsecs").ok());
  EXPECT_FALSE(ParseByteSize("").ok());
}

TEST(EditDistanceTest, ClosestMatch) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(ClosestMatch("l_shipdat", {"l_shipdate", "l_commitdate"}), "l_shipdate");
  EXPECT_EQ(ClosestMatch("xyz", {"l_shipdate"}), "");
}

}  // namespace
}  // namespace shoal

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
  d.owner = "test";
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

TEST_F(SettingsTest, ShowAllListsEverySettingWithItsValueAndHelp) {
  Settings s(&registry_);
  ASSERT_TRUE(s.Set("batch_size", "16").ok());
  auto all = s.All();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].name, "batch_size");
  EXPECT_EQ(all[0].value, "16");
  EXPECT_EQ(all[0].description, "test setting");
  EXPECT_EQ(all[1].name, "compression");
  EXPECT_EQ(all[1].value, "lz4");
}

TEST_F(SettingsTest, ASettingIsDeclaredOnce) {
  SettingDefinition again = Def("Batch_Size", SettingType::kInt, "8192", 1, 1 << 20);
  again.owner = "elsewhere";
  Status st = registry_.Register(again);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(st.message().find("batch_size"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("by test and by elsewhere"), std::string::npos) << st.ToString();
}

TEST_F(SettingsTest, ADeclarationNeedsHelpAnOwnerAndAValidDefault) {
  SettingDefinition no_help = Def("a", SettingType::kBool, "on");
  no_help.description.clear();
  EXPECT_EQ(registry_.Register(no_help).code(), StatusCode::kInvalidArgument);
  SettingDefinition no_owner = Def("b", SettingType::kBool, "on");
  no_owner.owner.clear();
  EXPECT_EQ(registry_.Register(no_owner).code(), StatusCode::kInvalidArgument);
  Status bad_default = registry_.Register(Def("c", SettingType::kInt, "0", 1, 10));
  EXPECT_EQ(bad_default.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_default.ToString().find("the default of setting \"c\""), std::string::npos)
      << bad_default.ToString();
  EXPECT_FALSE(registry_.Find("a").ok());
  EXPECT_FALSE(registry_.Find("c").ok());
}

TEST_F(SettingsTest, RegisterAllStopsAtTheFirstError) {
  const SettingDefinition table[] = {Def("x1", SettingType::kBool, "on"),
                                     Def("batch_size", SettingType::kInt, "1"),
                                     Def("x2", SettingType::kBool, "on")};
  EXPECT_EQ(registry_.RegisterAll(table).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(registry_.Find("x1").ok());
  EXPECT_FALSE(registry_.Find("x2").ok());
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

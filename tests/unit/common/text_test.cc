#include "shoal/common/text.h"

#include <gtest/gtest.h>

namespace shoal {
namespace {

TEST(TextTest, TrimRemovesAsciiWhitespaceOnly) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("\v\fx\f"), "x");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim("x"), "x");
  EXPECT_EQ(Trim(";a;"), ";a;");
  EXPECT_EQ(Trim("\xC2\xA0x"), "\xC2\xA0x");  // a UTF-8 no-break space is text, not a blank
}

TEST(TextTest, AsciiLowerAndEqualsIgnoreCase) {
  EXPECT_EQ(AsciiLower("SELECT Zstd_1"), "select zstd_1");
  EXPECT_EQ(AsciiLower("\xC3\x89"), "\xC3\x89");  // É stays
  EXPECT_TRUE(EqualsIgnoreCase("TRUE", "true"));
  EXPECT_TRUE(EqualsIgnoreCase("tRuE", "TrUe"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("true", "tru"));
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));  // '[' + 32 is '{': only letters fold
  EXPECT_FALSE(EqualsIgnoreCase("@", "`"));
}

}  // namespace
}  // namespace shoal

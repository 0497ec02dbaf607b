#include "shoal/sql/parser.h"

#include <gtest/gtest.h>

#include "tests/support/gtest_util.h"

namespace shoal::sql {
namespace {

TEST(ParserTest, SplitsStatementsWithTheirText) {
  ASSERT_OK_AND_ASSIGN(ParsedScript script, ParseSql("SELECT 1; select a from t ;\n\n"));
  ASSERT_EQ(script.statements.size(), 2u);
  EXPECT_EQ(script.statements[0].text, "SELECT 1");
  EXPECT_EQ(script.statements[1].text, "select a from t");
  EXPECT_NE(script.statements[1].node, nullptr);
}

TEST(ParserTest, EmptyScriptHasNoStatements) {
  ASSERT_OK_AND_ASSIGN(ParsedScript script, ParseSql("  ;; -- nothing\n"));
  EXPECT_TRUE(script.statements.empty());
}

TEST(ParserTest, SyntaxErrorKeepsPostgresMessageAndPosition) {
  auto result = ParseSql("SELECT a FORM t");
  ASSERT_FALSE(result.ok());
  const Status& s = result.status();
  EXPECT_EQ(s.code(), StatusCode::kSyntaxError);
  EXPECT_EQ(s.sqlstate(), "42601");
  EXPECT_EQ(s.message(), "syntax error at or near \"t\"");
  EXPECT_EQ(s.position(), 15);
}

TEST(ParserTest, SyntaxErrorPositionCountsCharactersNotBytes) {
  // 'é' is two bytes in UTF-8; the cursor must still point at FROMM's neighbour by characters.
  auto result = ParseSql("SELECT 'é' FROMM t");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "syntax error at or near \"t\"");
  EXPECT_EQ(result.status().position(), 18) << result.status().ToString();
}

TEST(ParserTest, UnterminatedStringIsASyntaxError) {
  auto result = ParseSql("SELECT 'abc");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "42601");
  EXPECT_GT(result.status().position(), 0);
}

TEST(ParserTest, EmbeddedNulIsRefused) {
  auto result = ParseSql(std::string_view("SELECT 1\0; DROP TABLE x", 23));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kSyntaxError);
  EXPECT_EQ(result.status().position(), 9);
}

TEST(ParserTest, InvalidUtf8Is22021NamingTheBytesAndPosition) {
  struct Case {
    std::string sql;
    std::string bytes;
    int position;
  };
  const Case cases[] = {
      {"SELECT 'ab\xC3('", "0xc3 0x28", 11},                    // lead byte, no continuation
      {"SELECT '\xC3\xA9\xFF'", "0xff", 10},                    // after a valid two-byte é
      {"SELECT 1 -- \xC0\xAF", "0xc0 0xaf", 13},                // overlong, inside a comment
      {"SELECT '\xED\xA0\x80'", "0xed 0xa0 0x80", 9},           // a UTF-16 surrogate
      {"SELECT '\xF4\x90\x80\x80'", "0xf4 0x90 0x80 0x80", 9},  // past U+10FFFF
      {"SELECT 'x\xE2\x82", "0xe2 0x82", 10},                   // cut short at the end
  };
  for (const auto& c : cases) {
    auto result = ParseSql(c.sql);
    ASSERT_FALSE(result.ok()) << c.bytes;
    EXPECT_EQ(result.status().sqlstate(), "22021") << c.bytes;
    EXPECT_EQ(result.status().message(), "invalid byte sequence for encoding \"UTF8\": " + c.bytes);
    EXPECT_EQ(result.status().position(), c.position) << c.bytes;
  }
  // Valid multi-byte text passes: two-, three- and four-byte sequences.
  EXPECT_TRUE(ParseSql("SELECT '\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80'").ok());
}

// A left-deep chain of n additions: n levels of parse tree.
std::string Chain(int n) {
  std::string sql = "SELECT 1";
  for (int i = 1; i < n; ++i)
    sql += "+1";
  return sql;
}

TEST(ParserTest, DeepTreesDecode) {
  // protobuf's default recursion limit (100) refused 48 levels; 30,000 levels parse on a stack
  // sized for them.
  for (int n : {60, 1000, 30000}) {
    auto result = ParseSql(Chain(n));
    ASSERT_TRUE(result.ok()) << n << ": " << result.status().ToString();
    EXPECT_EQ(result->statements.size(), 1u);
  }
  std::string unions = "SELECT 1";
  for (int i = 1; i < 5000; ++i)
    unions += " UNION ALL SELECT 1";
  EXPECT_TRUE(ParseSql(unions).ok());
}

TEST(ParserTest, CharPositionOfByteOffset) {
  EXPECT_EQ(BytePositionToCharPosition("abc", 0), 1);
  EXPECT_EQ(BytePositionToCharPosition("abc", 2), 3);
  EXPECT_EQ(BytePositionToCharPosition("\xC3\xA9x", 2), 2);
}

}  // namespace
}  // namespace shoal::sql

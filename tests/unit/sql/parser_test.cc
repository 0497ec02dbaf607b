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

TEST(ParserTest, CharPositionOfByteOffset) {
  EXPECT_EQ(BytePositionToCharPosition("abc", 0), 1);
  EXPECT_EQ(BytePositionToCharPosition("abc", 2), 3);
  EXPECT_EQ(BytePositionToCharPosition("\xC3\xA9x", 2), 2);
}

}  // namespace
}  // namespace shoal::sql

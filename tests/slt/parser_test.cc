#include "tests/slt/parser.h"

#include <gtest/gtest.h>

namespace shoal::slt {
namespace {

SltScript Parse(std::string_view text) {
  Result<SltScript> script = ParseSlt(text, "t.slt");
  EXPECT_TRUE(script.ok()) << script.status().ToString();
  return script.ok() ? std::move(script).value() : SltScript{};
}

std::string ParseError(std::string_view text) {
  Result<SltScript> script = ParseSlt(text, "t.slt");
  EXPECT_FALSE(script.ok());
  return script.ok() ? "" : script.status().message();
}

TEST(SltParserTest, StatementsAndComments) {
  SltScript s = Parse(
      "# a comment\n"
      "statement ok\n"
      "CREATE TABLE t (a INT)\n"
      "\n"
      "  # indented comment\n"
      "statement error\n"
      "INSERT INTO nope\n"
      "VALUES (1)\n"
      "\n"
      "statement error 42P01\n"
      "SELECT * FROM nope\n"
      "\n"
      "statement error table \"nope\" # not a comment\n"
      "SELECT 1\n"
      "\n"
      "statement error\n"
      "SELECT 1\n"
      "----\n"
      "first line\n"
      "second line\n");
  ASSERT_EQ(s.records.size(), 5u);
  const Record& ok = s.records[0];
  EXPECT_EQ(ok.kind, RecordKind::kStatement);
  EXPECT_FALSE(ok.expect_error);
  EXPECT_EQ(ok.sql, "CREATE TABLE t (a INT)");
  EXPECT_EQ(ok.header_line, 1);
  EXPECT_EQ(ok.sql_begin, 2);
  EXPECT_EQ(ok.sql_end, 3);
  EXPECT_EQ(ok.end_line, 3);

  EXPECT_TRUE(s.records[1].expect_error);
  EXPECT_EQ(s.records[1].error_pattern, "");
  EXPECT_EQ(s.records[1].sql, "INSERT INTO nope\nVALUES (1)");
  EXPECT_EQ(s.records[2].error_pattern, "42P01");
  EXPECT_EQ(s.records[3].error_pattern, "table \"nope\" # not a comment");
  EXPECT_EQ(s.records[4].error_pattern, "first line\nsecond line");
  EXPECT_TRUE(s.records[4].has_separator);
  EXPECT_TRUE(s.records[4].expected_lines.empty());
  EXPECT_EQ(s.records[4].end_line, 20);
}

TEST(SltParserTest, Queries) {
  SltScript s = Parse(
      "query ITR\n"
      "SELECT 1, 'a', 2.5\n"
      "----\n"
      "1 a 2.5\n"
      "\n"
      "query I rowsort\n"
      "SELECT 1\n"
      "----\n"
      "1\n"
      "\n"
      "query T valuesort my_label\n"
      "SELECT 'x'\n"
      "\n"
      "query B nosort other # trailing comment\n"
      "SELECT true\n"
      "----\n"
      "\n"
      "query I lbl\n"
      "SELECT 1\n"
      "----\n"
      "1\n"
      "\n"
      "query error /does not exist/\n"
      "SELECT * FROM nope\n");
  ASSERT_EQ(s.records.size(), 6u);
  const Record& q = s.records[0];
  EXPECT_EQ(q.kind, RecordKind::kQuery);
  EXPECT_EQ(q.types, "ITR");
  EXPECT_EQ(q.sort_mode, SortMode::kNoSort);
  EXPECT_TRUE(q.has_separator);
  EXPECT_EQ(q.expected_lines, std::vector<std::string>{"1 a 2.5"});
  EXPECT_EQ(q.expected_begin, 3);
  EXPECT_EQ(q.end_line, 4);

  EXPECT_EQ(s.records[1].sort_mode, SortMode::kRowSort);
  EXPECT_EQ(s.records[2].sort_mode, SortMode::kValueSort);
  EXPECT_EQ(s.records[2].label, "my_label");
  EXPECT_FALSE(s.records[2].has_separator);
  EXPECT_EQ(s.records[3].sort_mode, SortMode::kNoSort);
  EXPECT_EQ(s.records[3].label, "other");
  EXPECT_TRUE(s.records[3].has_separator);
  EXPECT_TRUE(s.records[3].expected_lines.empty());
  EXPECT_EQ(s.records[4].label, "lbl");
  EXPECT_TRUE(s.records[5].expect_error);
  EXPECT_EQ(s.records[5].error_pattern, "/does not exist/");
}

TEST(SltParserTest, ControlRecords) {
  SltScript s = Parse(
      "require tpch\n"
      "hash-threshold 8\n"
      "mode skip\n"
      "mode unskip\n"
      "loop i 0 3\n"
      "loop j 1 2\n"
      "statement ok\n"
      "SELECT ${i}, ${j}\n"
      "\n"
      "endloop\n"
      "endloop\n"
      "skipif local\n"
      "onlyif distributed\n"
      "statement ok\n"
      "SELECT 1\n"
      "\n"
      "onlyif x\n"
      "halt\n");
  ASSERT_EQ(s.records.size(), 11u);
  EXPECT_EQ(s.records[0].kind, RecordKind::kRequire);
  EXPECT_EQ(s.records[0].name, "tpch");
  EXPECT_EQ(s.records[1].kind, RecordKind::kHashThreshold);
  EXPECT_EQ(s.records[1].threshold, 8);
  EXPECT_EQ(s.records[2].kind, RecordKind::kModeSkip);
  EXPECT_EQ(s.records[3].kind, RecordKind::kModeUnskip);
  const Record& outer = s.records[4];
  EXPECT_EQ(outer.kind, RecordKind::kLoop);
  EXPECT_EQ(outer.name, "i");
  EXPECT_EQ(outer.loop_start, 0);
  EXPECT_EQ(outer.loop_end, 3);
  EXPECT_EQ(outer.matching_index, 8);
  EXPECT_EQ(s.records[5].matching_index, 7);
  EXPECT_EQ(s.records[7].kind, RecordKind::kEndLoop);
  EXPECT_EQ(s.records[7].matching_index, 5);
  EXPECT_EQ(s.records[8].matching_index, 4);
  const Record& cond = s.records[9];
  ASSERT_EQ(cond.conditions.size(), 2u);
  EXPECT_FALSE(cond.conditions[0].only_if);
  EXPECT_EQ(cond.conditions[0].label, "local");
  EXPECT_TRUE(cond.conditions[1].only_if);
  EXPECT_EQ(cond.conditions[1].label, "distributed");
  EXPECT_EQ(s.records[10].kind, RecordKind::kHalt);
  EXPECT_EQ(s.records[10].conditions.size(), 1u);
}

TEST(SltParserTest, HaltWithCondition) {
  SltScript s = Parse("onlyif x\nhalt\n\nstatement ok\nSELECT 1\n");
  ASSERT_EQ(s.records.size(), 2u);
  EXPECT_EQ(s.records[0].kind, RecordKind::kHalt);
  ASSERT_EQ(s.records[0].conditions.size(), 1u);
}

TEST(SltParserTest, CrLfAndNoFinalNewline) {
  SltScript s = Parse("query I\r\nSELECT 1\r\n----\r\n1\r\n\r\nstatement ok\r\nSELECT 2");
  ASSERT_EQ(s.records.size(), 2u);
  EXPECT_EQ(s.records[0].sql, "SELECT 1");
  EXPECT_EQ(s.records[0].expected_lines, std::vector<std::string>{"1"});
  EXPECT_EQ(s.records[1].sql, "SELECT 2");
  EXPECT_EQ(s.lines.size(), 7u);
}

TEST(SltParserTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(ParseError("statement ok\nSELECT 1\n\nfrobnicate\n"),
            "t.slt:4: parse error: unknown or malformed directive 'frobnicate'");
  EXPECT_EQ(ParseError("statement ok\n\n"), "t.slt:1: parse error: statement without SQL");
  EXPECT_EQ(ParseError("statement maybe\nSELECT 1\n"),
            "t.slt:1: parse error: expected 'statement ok' or 'statement error [pattern]'");
  EXPECT_EQ(ParseError("statement ok\nSELECT 1\n----\nx\n"),
            "t.slt:3: parse error: 'statement ok' takes no ---- section");
  EXPECT_EQ(ParseError("query X\nSELECT 1\n"),
            "t.slt:1: parse error: unknown type character 'X' (expected one of IRTBDP?)");
  EXPECT_EQ(ParseError("query I rowsort label extra\nSELECT 1\n"),
            "t.slt:1: parse error: unexpected 'extra' after the query header");
  EXPECT_EQ(ParseError("statement error abc\nSELECT 1\n----\nabc\n"),
            "t.slt:1: parse error: error pattern given both on the header and after ----");
  EXPECT_EQ(ParseError("loop i 0 3\nstatement ok\nSELECT 1\n"),
            "t.slt:1: parse error: loop without endloop");
  EXPECT_EQ(ParseError("endloop\n"), "t.slt:1: parse error: endloop without loop");
  EXPECT_EQ(ParseError("loop i 0 x\nendloop\n"),
            "t.slt:1: parse error: expected 'loop <var> <start> <end>' with integer bounds");
  EXPECT_EQ(ParseError("skipif x\n\nstatement ok\nSELECT 1\n"),
            "t.slt:2: parse error: skipif/onlyif must directly precede its record");
  EXPECT_EQ(ParseError("statement ok\nSELECT 1\n\nskipif x\n"),
            "t.slt:5: parse error: skipif/onlyif at the end of the file");
  EXPECT_EQ(ParseError("onlyif x\nmode skip\n"),
            "t.slt:2: parse error: skipif/onlyif cannot apply to 'mode'");
  EXPECT_EQ(ParseError("mode output\n"),
            "t.slt:1: parse error: unknown or malformed directive 'mode output'");
  EXPECT_EQ(ParseError("hash-threshold -1\n"),
            "t.slt:1: parse error: hash-threshold needs a non-negative integer");
}

}  // namespace
}  // namespace shoal::slt

#include "tests/slt/runner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/slt/fake_engine.h"

namespace shoal::slt {
namespace {

using columnar::DataType;

class SltRunnerTest : public ::testing::Test {
 protected:
  ScriptOutcome Run(std::string_view text, RunnerOptions options = {}) {
    return SltRunner(script_.Factory(), options).RunScript("t.slt", text);
  }

  ScriptOutcome Complete(std::string_view text) {
    RunnerOptions options;
    options.complete = true;
    return Run(text, options);
  }

  FakeScript script_;
};

// Evaluates `outcome` once: it is often a RunScript call.
#define EXPECT_COUNTS(outcome, p, f, s)                \
  do {                                                 \
    const ScriptOutcome& counted_ = (outcome);         \
    EXPECT_EQ(counted_.passed, p) << counted_.report;  \
    EXPECT_EQ(counted_.failed, f) << counted_.report;  \
    EXPECT_EQ(counted_.skipped, s) << counted_.report; \
  } while (false)

TEST_F(SltRunnerTest, PassingScript) {
  script_.On("CREATE TABLE t (a INT)", QueryResult{});
  script_.On("SELECT a FROM t", Ints({"1", "2", "NULL"}));
  ScriptOutcome out =
      Run("statement ok\n"
          "CREATE TABLE t (a INT)\n"
          "\n"
          "query I\n"
          "SELECT a FROM t\n"
          "----\n"
          "1\n"
          "2\n"
          "NULL\n");
  EXPECT_COUNTS(out, 2, 0, 0);
  EXPECT_EQ(out.report, "");
  EXPECT_EQ(script_.log, (std::vector<std::string>{"CREATE TABLE t (a INT)", "SELECT a FROM t"}));
  EXPECT_FALSE(out.rewritten);
}

TEST_F(SltRunnerTest, MismatchIsAFailureWithDiagnostics) {
  script_.On("SELECT a\nFROM t", Ints({"1", "3"}));
  ScriptOutcome out =
      Run("# leading comment\n"
          "query I\n"
          "SELECT a\n"
          "FROM t\n"
          "----\n"
          "1\n"
          "2\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_EQ(out.report,
            "t.slt:2: query result mismatch\n"
            "    SELECT a\n"
            "    FROM t\n"
            "  --- expected\n"
            "  +++ actual\n"
            "   1\n"
            "  -2\n"
            "  +3\n");
}

TEST_F(SltRunnerTest, EmptyResultVersusRows) {
  script_.On("SELECT 1", Ints({"1"}));
  script_.On("SELECT none", Ints({}));
  EXPECT_COUNTS(Run("query I\nSELECT 1\n"), 0, 1, 0);  // no ---- means no rows
  EXPECT_COUNTS(Run("query I\nSELECT none\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query I\nSELECT none\n----\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query I\nSELECT none\n----\n1\n"), 0, 1, 0);
}

TEST_F(SltRunnerTest, StatementFailureReportsTheError) {
  script_.OnError("DROP TABLE t", Status::NotFound("table \"t\" does not exist"));
  ScriptOutcome out = Run("statement ok\nDROP TABLE t\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_EQ(out.report,
            "t.slt:1: statement failed\n"
            "    DROP TABLE t\n"
            "  error: [42704] NotFound: table \"t\" does not exist\n");
}

TEST_F(SltRunnerTest, ErrorPatterns) {
  script_.OnError("DROP TABLE t",
                  Status::NotFound("table \"t\" does not exist").WithSqlState("42P01"));
  script_.On("SELECT 1", Ints({"1"}));
  auto run = [&](const std::string& header) { return Run(header + "\nDROP TABLE t\n"); };
  EXPECT_COUNTS(run("statement error"), 1, 0, 0);
  EXPECT_COUNTS(run("statement error 42P01"), 1, 0, 0);
  EXPECT_COUNTS(run("statement error 42704"), 0, 1, 0);  // the explicit SQLSTATE wins
  EXPECT_COUNTS(run("statement error does not exist"), 1, 0, 0);
  EXPECT_COUNTS(run("statement error NotFound"), 1, 0, 0);
  EXPECT_COUNTS(run("statement error does not exists"), 0, 1, 0);
  EXPECT_COUNTS(run("statement error /^table \"[a-z]+\" does not exist$/"), 1, 0, 0);
  EXPECT_COUNTS(run("statement error /^table \"[0-9]+\"/"), 0, 1, 0);
  EXPECT_COUNTS(run("query error does not exist"), 1, 0, 0);
  EXPECT_COUNTS(Run("statement error\nDROP TABLE t\n----\ndoes not exist\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query error\nDROP TABLE t\n----\n42P01\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query error\nDROP TABLE t\n----\nsomething else\n"), 0, 1, 0);

  ScriptOutcome mismatch = run("statement error permission denied");
  EXPECT_EQ(mismatch.report,
            "t.slt:1: the error does not match 'permission denied'\n"
            "    DROP TABLE t\n"
            "  actual error: [42P01] NotFound: table \"t\" does not exist\n");
  ScriptOutcome bad_regex = run("statement error /(/");
  EXPECT_COUNTS(bad_regex, 0, 1, 0);
  EXPECT_NE(bad_regex.report.find("invalid regex /(/"), std::string::npos) << bad_regex.report;

  ScriptOutcome succeeded = Run("statement error 42P01\nSELECT 1\n");
  EXPECT_COUNTS(succeeded, 0, 1, 0);
  EXPECT_EQ(succeeded.report,
            "t.slt:1: expected an error matching '42P01', but the statement succeeded\n"
            "    SELECT 1\n");
  EXPECT_COUNTS(Run("query error\nSELECT 1\n"), 0, 1, 0);
}

TEST_F(SltRunnerTest, QueryErrorWhenRowsExpected) {
  script_.OnError("SELECT x", Status::NotFound("column x"));
  ScriptOutcome out = Run("query I\nSELECT x\n----\n1\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_EQ(out.report,
            "t.slt:1: query failed\n"
            "    SELECT x\n"
            "  error: [42704] NotFound: column x\n");
}

TEST_F(SltRunnerTest, SortModes) {
  script_.On("SELECT pairs", MakeResult({{"a", DataType::Int64()}, {"b", DataType::Utf8()}},
                                        {{"2", "b"}, {"1", "z"}, {"1", "a"}}));
  const std::string sorted_rows = "----\n1 a\n1 z\n2 b\n";
  EXPECT_COUNTS(Run("query IT rowsort\nSELECT pairs\n" + sorted_rows), 1, 0, 0);
  EXPECT_COUNTS(Run("query IT rowsort\nSELECT pairs\n----\n2 b\n1 a\n1 z\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query IT nosort\nSELECT pairs\n" + sorted_rows), 0, 1, 0);
  EXPECT_COUNTS(Run("query IT\nSELECT pairs\n----\n2 b\n1 z\n1 a\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query IT valuesort\nSELECT pairs\n----\n1 1\n2 a\nb z\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query IT valuesort\nSELECT pairs\n----\n1 1\n2 a\nb y\n"), 0, 1, 0);
  EXPECT_COUNTS(Run("query IT rowsort\nSELECT pairs\n----\n1 1\n2 a\nb z\n"), 0, 1, 0);
}

TEST_F(SltRunnerTest, SqliteValuePerLineForm) {
  // SQLite's corpus writes each value on a line of its own, row after row.
  script_.On("SELECT pairs", MakeResult({{"a", DataType::Int64()}, {"b", DataType::Int64()}},
                                        {{"2", "20"}, {"1", "10"}}));
  EXPECT_COUNTS(Run("query II rowsort\nSELECT pairs\n----\n1\n10\n2\n20\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query II nosort\nSELECT pairs\n----\n2\n20\n1\n10\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query II nosort\nSELECT pairs\n----\n2\n20\n1\n11\n"), 0, 1, 0);
  // A count of lines that is no multiple of the columns stays a shape error.
  EXPECT_COUNTS(Run("query II nosort\nSELECT pairs\n----\n2\n20\n1\n"), 0, 1, 0);
}

TEST_F(SltRunnerTest, SqliteTypesPrintValuesAsDeclared) {
  script_.On("SELECT mixed", MakeResult({{"i", DataType::Int32()}, {"f", DataType::Float64()}},
                                        {{"7", "2.5"}, {"NULL", "NULL"}}));
  const std::string script = "query TR nosort\nSELECT mixed\n----\n7\n2.500\nNULL\nNULL\n";
  EXPECT_COUNTS(Run(script), 0, 1, 0);  // strict by default: column 1 is no text
  RunnerOptions sqlite;
  sqlite.sqlite_types = true;
  EXPECT_COUNTS(Run(script, sqlite), 1, 0, 0);
  EXPECT_COUNTS(Run("query II nosort\nSELECT mixed\n----\n7\n2\nNULL\nNULL\n", sqlite), 1, 0, 0);
}

TEST_F(SltRunnerTest, SqliteTypesReadOneValuePerLineEvenWhenALineHasAsManyWords) {
  // select5's "table t29 row 6" under TTTT: four words, four columns, yet one value.
  script_.On("SELECT words",
             MakeResult({{"a", DataType::Utf8()}, {"b", DataType::Utf8()}}, {{"t1 r2", "x y"}}));
  const std::string script = "query TT valuesort\nSELECT words\n----\nt1 r2\nx y\n";
  RunnerOptions sqlite;
  sqlite.sqlite_types = true;
  EXPECT_COUNTS(Run(script, sqlite), 1, 0, 0);
}

TEST_F(SltRunnerTest, ValueSeparatorsAndRendering) {
  script_.On("SELECT mixed", MakeResult({{"n", DataType::Int32()},
                                         {"s", DataType::Utf8()},
                                         {"b", DataType::Boolean()},
                                         {"f", DataType::Float64()},
                                         {"d", DataType::Decimal(9, 2)}},
                                        {{"1", "hello world", "t", "0.30000000000000004", "2.5"},
                                         {"NULL", "", "f", "NULL", "-1"}}));
  EXPECT_COUNTS(Run("query ITBRR\nSELECT mixed\n----\n"
                    "1\thello world\ttrue\t0.3\t2.50\n"
                    "NULL\t(empty)\tfalse\tNULL\t-1.00\n"),
                1, 0, 0);
  // Spaces cannot separate values that contain spaces: the line has one value too many.
  ScriptOutcome spaced =
      Run("query ITBRR\nSELECT mixed\n----\n"
          "1 hello world true 0.3 2.50\n"
          "NULL (empty) false NULL -1.00\n");
  EXPECT_COUNTS(spaced, 0, 1, 0);
  EXPECT_NE(spaced.report.find("expected line 4 has 6 value(s) for 5 column(s)"), std::string::npos)
      << spaced.report;
  // Runs of spaces are one separator, so columns may be aligned by hand.
  script_.On("SELECT two", MakeResult({{"a", DataType::Int64()}, {"b", DataType::Int64()}},
                                      {{"1", "100"}, {"20", "2"}}));
  EXPECT_COUNTS(Run("query II\nSELECT two\n----\n1   100\n20  2\n"), 1, 0, 0);
  // A one-column line is one value, spaces and all.
  script_.On("SELECT text", MakeResult({{"s", DataType::Utf8()}}, {{"a  b"}}));
  EXPECT_COUNTS(Run("query T\nSELECT text\n----\na  b\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query T\nSELECT text\n----\na b\n"), 0, 1, 0);
}

TEST_F(SltRunnerTest, TypeCharactersAreChecked) {
  script_.On("SELECT 1", Ints({"1"}));
  script_.On("SELECT NULL", MakeResult({{"n", DataType::Null()}}, {{"NULL"}}));
  EXPECT_COUNTS(Run("query ?\nSELECT 1\n----\n1\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("query T\nSELECT NULL\n----\nNULL\n"), 1, 0, 0);
  ScriptOutcome wrong_type = Run("query T\nSELECT 1\n----\n1\n");
  EXPECT_COUNTS(wrong_type, 0, 1, 0);
  EXPECT_EQ(wrong_type.report,
            "t.slt:1: query result has the wrong shape\n"
            "    SELECT 1\n"
            "  column 1 (x) is int64 but declared 'T'\n");
  ScriptOutcome wrong_count = Run("query II\nSELECT 1\n----\n1\n");
  EXPECT_COUNTS(wrong_count, 0, 1, 0);
  EXPECT_NE(wrong_count.report.find("the header declares 2 column(s) but the result has 1"),
            std::string::npos)
      << wrong_count.report;
}

TEST_F(SltRunnerTest, MalformedEngineResultFails) {
  QueryResult bad = Ints({"1"});
  bad.schema =
      std::make_shared<columnar::Schema>(std::vector<columnar::Field>{{"x", DataType::Utf8()}});
  script_.On("SELECT bad", bad);
  ScriptOutcome out = Run("query T\nSELECT bad\n----\n1\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_NE(out.report.find("the engine returned a malformed result"), std::string::npos);
}

TEST_F(SltRunnerTest, LoopsSubstituteVariables) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 10; j < 12; ++j)
      script_.On(fmt::format("SELECT {} + {}", i, j), Ints({std::to_string(i + j)}));
  }
  ScriptOutcome out =
      Run("loop i 0 3\n"
          "loop j 10 12\n"
          "query I\n"
          "SELECT ${i} + ${j}\n"
          "----\n"
          "${j}\n"
          "\n"
          "endloop\n"
          "endloop\n"
          "\n"
          "loop k 5 5\n"
          "statement ok\n"
          "never run\n"
          "\n"
          "endloop\n");
  // i + j == j only for i = 0, so four iterations fail and name their variables.
  EXPECT_COUNTS(out, 2, 4, 0);
  EXPECT_EQ(script_.log.size(), 6u);
  EXPECT_EQ(script_.log[0], "SELECT 0 + 10");
  EXPECT_EQ(script_.log[5], "SELECT 2 + 11");
  EXPECT_NE(out.report.find("t.slt:3: query result mismatch [i=1, j=10]\n    SELECT 1 + 10\n"),
            std::string::npos)
      << out.report;
  EXPECT_NE(out.report.find("  -10\n  +11\n"), std::string::npos) << out.report;
}

TEST_F(SltRunnerTest, UnknownVariablesStayAsWritten) {
  script_.On("SELECT '${nope}'", Ints({"1"}));
  EXPECT_COUNTS(Run("query I\nSELECT '${nope}'\n----\n1\n"), 1, 0, 0);
}

TEST_F(SltRunnerTest, SkipifAndOnlyif) {
  script_.config = "local";
  script_.labels = {"single-node"};
  script_.On("SELECT 1", Ints({"1"}));
  ScriptOutcome out =
      Run("skipif local\n"
          "statement ok\n"
          "SELECT skipped1\n"
          "\n"
          "onlyif distributed\n"
          "statement ok\n"
          "SELECT skipped2\n"
          "\n"
          "skipif single-node\n"
          "statement ok\n"
          "SELECT skipped3\n"
          "\n"
          "onlyif local\n"
          "skipif distributed\n"
          "query I\n"
          "SELECT 1\n"
          "----\n"
          "1\n"
          "\n"
          "onlyif local\n"
          "onlyif distributed\n"
          "statement ok\n"
          "SELECT skipped4\n");
  EXPECT_COUNTS(out, 1, 0, 4);
  EXPECT_EQ(script_.log, std::vector<std::string>{"SELECT 1"});
}

TEST_F(SltRunnerTest, RequireSkipsTheRestOfTheFile) {
  script_.features = {"parquet"};
  script_.On("SELECT 1", Ints({"1"}));
  const std::string body =
      "\n"
      "statement ok\n"
      "SELECT 1\n"
      "\n"
      "loop i 0 5\n"
      "statement ok\n"
      "SELECT 1\n"
      "\n"
      "endloop\n";
  EXPECT_COUNTS(Run("require parquet\n" + body), 6, 0, 0);
  EXPECT_COUNTS(Run("statement ok\nSELECT 1\n\nrequire tpch\n" + body), 1, 0, 2);
  EXPECT_COUNTS(Run("onlyif other\nrequire tpch\n" + body), 6, 0, 0);
}

TEST_F(SltRunnerTest, Halt) {
  script_.On("SELECT 1", Ints({"1"}));
  EXPECT_COUNTS(Run("statement ok\nSELECT 1\n\nhalt\n\nstatement ok\nSELECT 2\n"), 1, 0, 1);
  EXPECT_COUNTS(Run("onlyif other\nhalt\n\nstatement ok\nSELECT 1\n"), 1, 0, 0);
  EXPECT_COUNTS(Run("onlyif fake\nhalt\n\nstatement ok\nSELECT 1\n"), 0, 0, 1);
}

TEST_F(SltRunnerTest, ModeSkip) {
  script_.On("SELECT 1", Ints({"1"}));
  ScriptOutcome out =
      Run("mode skip\n"
          "\n"
          "statement ok\n"
          "SELECT broken\n"
          "\n"
          "halt\n"
          "\n"
          "mode unskip\n"
          "\n"
          "statement ok\n"
          "SELECT 1\n");
  EXPECT_COUNTS(out, 1, 0, 1);
}

TEST_F(SltRunnerTest, HashedResults) {
  script_.On("SELECT n", Ints({"2", "1"}));
  // md5("1\n2\n"): the values after rowsort, each followed by a newline.
  EXPECT_COUNTS(Run("query I rowsort\nSELECT n\n----\n2 values hashing to "
                    "6ddb4095eb719e2a9f0a3f95677d24e0\n"),
                1, 0, 0);
  ScriptOutcome wrong =
      Run("query I nosort\nSELECT n\n----\n2 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0\n");
  EXPECT_COUNTS(wrong, 0, 1, 0);
  EXPECT_NE(wrong.report.find("  actual:   2 values hashing to "), std::string::npos)
      << wrong.report;
}

TEST_F(SltRunnerTest, FreshLazyEnginePerScript) {
  script_.On("SELECT 1", Ints({"1"}));
  SltRunner runner(script_.Factory());
  EXPECT_COUNTS(runner.RunScript("a.slt", "statement ok\nSELECT 1\n"), 1, 0, 0);
  EXPECT_COUNTS(runner.RunScript("b.slt", "statement ok\nSELECT 1\n"), 1, 0, 0);
  EXPECT_EQ(script_.sessions, 2);
  EXPECT_COUNTS(runner.RunScript("c.slt", "# nothing to run\nhalt\n"), 0, 0, 0);
  EXPECT_EQ(script_.sessions, 2);
}

TEST_F(SltRunnerTest, EngineThatCannotStartFailsTheScriptOnce) {
  SltEngineFactory broken = []() -> Result<std::unique_ptr<SltEngine>> {
    return Status::NotImplemented("no SQL engine linked yet");
  };
  ScriptOutcome out =
      SltRunner(broken).RunScript("t.slt", "statement ok\nSELECT 1\n\nstatement ok\nSELECT 2\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_EQ(out.report,
            "t.slt: cannot start an engine: NotImplemented: no SQL engine linked yet\n");
}

TEST_F(SltRunnerTest, ParseErrorFailsTheScript) {
  ScriptOutcome out = Run("statement ok\nSELECT 1\n\nbogus\n");
  EXPECT_COUNTS(out, 0, 1, 0);
  EXPECT_EQ(out.report, "t.slt:4: parse error: unknown or malformed directive 'bogus'\n");
  EXPECT_TRUE(script_.log.empty());
}

TEST_F(SltRunnerTest, ReportsAreCapped) {
  RunnerOptions options;
  options.max_reports = 2;
  ScriptOutcome out = Run("loop i 0 5\nstatement ok\nSELECT ${i}\n\nendloop\n", options);
  EXPECT_COUNTS(out, 0, 5, 0);
  EXPECT_NE(out.report.find("t.slt: 3 more failures not shown\n"), std::string::npos);
  EXPECT_EQ(out.report.find("[i=2]"), std::string::npos);
}

// --complete

TEST_F(SltRunnerTest, CompleteRewritesOnlyMismatchingRecords) {
  script_.On("SELECT pairs", MakeResult({{"a", DataType::Int64()}, {"b", DataType::Utf8()}},
                                        {{"2", "b c"}, {"1", "z"}}));
  script_.On("SELECT 1", Ints({"1"}));
  const std::string text =
      "# header comment\n"
      "query I\n"
      "SELECT 1\n"
      "----\n"
      "1\n"
      "\n"
      "skipif other\n"
      "query T rowsort lbl\n"
      "SELECT pairs\n"
      "----\n"
      "old\n"
      "rows\n"
      "\n"
      "# trailing comment\n";
  ScriptOutcome out = Complete(text);
  EXPECT_COUNTS(out, 2, 0, 0);
  EXPECT_TRUE(out.rewritten);
  EXPECT_EQ(out.report, "t.slt:8: completed\n");
  EXPECT_EQ(out.completed_text,
            "# header comment\n"
            "query I\n"
            "SELECT 1\n"
            "----\n"
            "1\n"
            "\n"
            "skipif other\n"
            "query IT rowsort lbl\n"
            "SELECT pairs\n"
            "----\n"
            "1 z\n"
            "2\tb c\n"
            "\n"
            "# trailing comment\n");
  // The completed script passes as is.
  EXPECT_COUNTS(Run(out.completed_text), 2, 0, 0);
}

TEST_F(SltRunnerTest, CompleteLeavesPassingScriptsAlone) {
  script_.On("SELECT 1", Ints({"1"}));
  const std::string text = "query I nosort\nSELECT 1\n----\n1";  // no final newline
  ScriptOutcome out = Complete(text);
  EXPECT_COUNTS(out, 1, 0, 0);
  EXPECT_FALSE(out.rewritten);
  EXPECT_EQ(out.completed_text, text);
}

TEST_F(SltRunnerTest, CompleteSwitchesBetweenOkAndError) {
  script_.OnError("DROP t", Status::NotFound("table t does not exist"));
  script_.OnError("SELECT err", Status::InvalidArgument("bad /value/"));
  script_.OnError("SELECT state", Status::Internal("XX000"));
  script_.On("SELECT 1", Ints({"1"}));
  script_.On("SELECT none", QueryResult{});
  ScriptOutcome out = Complete(
      "statement ok\n"
      "DROP t\n"
      "\n"
      "statement error\n"
      "SELECT 1\n"
      "\n"
      "query error\n"
      "SELECT 1\n"
      "\n"
      "query error\n"
      "SELECT none\n"
      "\n"
      "query I\n"
      "SELECT err\n"
      "----\n"
      "1\n"
      "\n"
      "statement error does not match\n"
      "SELECT state\n"
      "\n"
      "statement error\n"
      "DROP t\n"
      "----\n"
      "some other text\n");
  EXPECT_COUNTS(out, 7, 0, 0);
  EXPECT_EQ(out.completed_text,
            "statement error table t does not exist\n"
            "DROP t\n"
            "\n"
            "statement ok\n"
            "SELECT 1\n"
            "\n"
            "query I\n"
            "SELECT 1\n"
            "----\n"
            "1\n"
            "\n"
            "statement ok\n"
            "SELECT none\n"
            "\n"
            "query error bad /value/\n"
            "SELECT err\n"
            "\n"
            "statement error /XX000/\n"
            "SELECT state\n"
            "\n"
            "statement error table t does not exist\n"
            "DROP t\n");
}

TEST_F(SltRunnerTest, CompleteUsesHashesAboveTheThreshold) {
  script_.On("SELECT n", Ints({"2", "1", "3"}));
  ScriptOutcome out = Complete(
      "hash-threshold 2\n"
      "\n"
      "query I rowsort\n"
      "SELECT n\n"
      "----\n");
  EXPECT_EQ(out.completed_text,
            "hash-threshold 2\n\nquery I rowsort\nSELECT n\n----\n"
            "3 values hashing to c0710d6b4f15dfa88f600b0e6b624077\n");
  EXPECT_COUNTS(Run(out.completed_text), 1, 0, 0);
}

TEST_F(SltRunnerTest, CompleteInALoopKeepsTheFirstIteration) {
  script_.On("SELECT 0", Ints({"0"}));
  script_.On("SELECT 1", Ints({"1"}));
  ScriptOutcome out = Complete("loop i 0 2\nquery I\nSELECT ${i}\n----\n7\n\nendloop\n");
  EXPECT_COUNTS(out, 1, 1, 0);
  EXPECT_NE(out.report.find("--complete rewrites a record only on its first execution"),
            std::string::npos)
      << out.report;
  EXPECT_EQ(out.completed_text, "loop i 0 2\nquery I\nSELECT ${i}\n----\n0\n\nendloop\n");
}

}  // namespace
}  // namespace shoal::slt

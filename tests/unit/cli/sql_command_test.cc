// Tests of `shoal sql`'s rendering (csv / json / table) and script handling (meta-commands, stop at
// the first error).
#include "shoal/cli/sql_command.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace shoal::cli {
namespace {

class SqlCommandTest : public ::testing::Test {
 protected:
  Status Script(const std::string& sql, SqlOutputFormat format = SqlOutputFormat::kTable) {
    out_.str("");
    err_.str("");
    return RunSqlScript(runner_, sql, format, &timing_, &quit_, out_, err_);
  }

  engine::QueryRunner runner_;
  bool timing_ = false;
  bool quit_ = false;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(SqlCommandTest, Csv) {
  ASSERT_TRUE(Script("CREATE TABLE t (a int, b text, c decimal(5,2), d date);"
                     "INSERT INTO t VALUES (1, 'x,y', 1.5, '2024-01-02'), (NULL, '', NULL, NULL),"
                     " (3, 'q\"t', 2, NULL);",
                     SqlOutputFormat::kCsv)
                  .ok());
  EXPECT_EQ(out_.str(), "");  // no rows, no tags in csv
  ASSERT_TRUE(Script("SELECT * FROM t ORDER BY a NULLS LAST", SqlOutputFormat::kCsv).ok());
  EXPECT_EQ(out_.str(), "a,b,c,d\n1,\"x,y\",1.50,2024-01-02\n3,\"q\"\"t\",2.00,\n,\"\",,\n");
}

TEST_F(SqlCommandTest, Json) {
  ASSERT_TRUE(Script("SELECT 1 AS a, 'x\"' AS b, NULL::int AS c, true AS d, 1.50 AS e",
                     SqlOutputFormat::kJson)
                  .ok());
  EXPECT_EQ(out_.str(), "[\n{\"a\":1,\"b\":\"x\\\"\",\"c\":null,\"d\":true,\"e\":1.50}\n]\n");
  ASSERT_TRUE(Script("SELECT 1 AS a WHERE false", SqlOutputFormat::kJson).ok());
  EXPECT_EQ(out_.str(), "[]\n");
}

TEST_F(SqlCommandTest, TableShowsTagsAndRows) {
  ASSERT_TRUE(Script("CREATE TABLE t (a int);\nINSERT INTO t VALUES (1), (2);\nSELECT a FROM t "
                     "ORDER BY a;")
                  .ok());
  EXPECT_EQ(out_.str(), "CREATE TABLE\nINSERT 0 2\n a \n---\n 1\n 2\n(2 rows)\n\n");
}

TEST_F(SqlCommandTest, TimingAndQuit) {
  ASSERT_TRUE(Script("SELECT 1;\n\\timing on\nSELECT 2;\n\\q\nSELECT 1/0;\n").ok());
  EXPECT_TRUE(timing_);
  EXPECT_TRUE(quit_);
  // One timing line: the statement after \timing on; nothing after \q runs.
  EXPECT_EQ(err_.str().rfind("Time: ", 0), 0u) << err_.str();
  EXPECT_EQ(err_.str().find("Time: ", 1), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find(" ms\n"), std::string::npos);
}

TEST_F(SqlCommandTest, StopsAtFirstError) {
  Status st = Script("CREATE TABLE t (a int);\nSELECT 1/0;\nCREATE TABLE u (a int);");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.sqlstate(), "22012");
  EXPECT_EQ(out_.str(), "CREATE TABLE\n");
  EXPECT_FALSE(runner_.RunOne("SELECT * FROM u").ok());
}

TEST_F(SqlCommandTest, ErrorShowsLineAndCaret) {
  ASSERT_TRUE(Script("CREATE TABLE t (total int)").ok());
  std::string failed;
  const std::string sql = "SELECT 1;\nSELECT totl\n  FROM t;";
  Status st =
      RunSqlScript(runner_, sql, SqlOutputFormat::kTable, &timing_, &quit_, out_, err_, &failed);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(failed, sql + "\n");
  std::string text = FormatSqlError(st, failed);
  EXPECT_EQ(text.substr(0, text.find("HINT")),
            "ERROR:  column \"totl\" does not exist\n"
            "LINE 2: SELECT totl\n"
            "               ^\n");
  EXPECT_NE(text.find("\nHINT:  Perhaps you meant"), std::string::npos) << text;
  EXPECT_EQ(FormatSqlError(Status::InvalidArgument("bad"), ""), "ERROR:  bad\n");
}

TEST_F(SqlCommandTest, FileErrorsNameTheStatementsLineAndCountLinesWithinIt) {
  // As psql reports errors of a file: the failing statement alone, LINE n within it, and the
  // file's line where the statement ends; statements before it have run.
  std::string failed;
  int line = 0;
  const std::string sql = "SELECT 1;\n\nCREATE TABLE t (total int);\nSELECT\n  totl\nFROM t;\n";
  Status st = RunSqlScript(runner_, sql, SqlOutputFormat::kTable, &timing_, &quit_, out_, err_,
                           &failed, &line);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(line, 6);
  EXPECT_EQ(failed, "SELECT\n  totl\nFROM t;");
  std::string text = FormatSqlError(st, failed);
  EXPECT_EQ(text.substr(0, text.find("HINT")),
            "ERROR:  column \"totl\" does not exist\n"
            "LINE 2:   totl\n"
            "          ^\n");
  EXPECT_TRUE(runner_.RunOne("SELECT * FROM t").ok());
}

}  // namespace
}  // namespace shoal::cli

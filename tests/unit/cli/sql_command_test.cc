// Tests of `shoal sql`'s rendering (csv / json / table) and script handling (meta-commands, stop at
// the first error).
#include "shoal/cli/sql_command.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <stdlib.h>

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

// Arrays: JSON arrays (nested for lists of lists), records JSON objects of their fields; csv
// writes array_out's text as PostgreSQL's COPY ... CSV does.
TEST_F(SqlCommandTest, ArraysAndRecords) {
  const std::string query =
      "SELECT ARRAY[1,2,NULL] AS a, ARRAY['x','y z'] AS t, ROW(1,'a') AS r, "
      "ARRAY[[1],[2]] AS m, NULL::int[] AS n";
  ASSERT_TRUE(Script(query, SqlOutputFormat::kJson).ok());
  EXPECT_EQ(out_.str(),
            "[\n{\"a\":[1,2,null],\"t\":[\"x\",\"y z\"],\"r\":{\"f1\":1,\"f2\":\"a\"},"
            "\"m\":[[1],[2]],\"n\":null}\n]\n");
  ASSERT_TRUE(Script(query, SqlOutputFormat::kCsv).ok());
  EXPECT_EQ(out_.str(), "a,t,r,m,n\n\"{1,2,NULL}\",\"{x,\"\"y z\"\"}\",\"(1,a)\",\"{{1},{2}}\",\n");
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

namespace shoal::cli {
namespace {

// psql's \x layout, compared with PostgreSQL 15's own output of the same query.
TEST_F(SqlCommandTest, ExpandedOutputAsPsql) {
  ASSERT_TRUE(Script("\\x\nselect 1 as a, 'hello world' as bbbbbbbbbbbb union all "
                     "select 22, null order by 1;")
                  .ok());
  EXPECT_EQ(out_.str(),
            "-[ RECORD 1 ]+------------\n"
            "a            | 1\n"
            "bbbbbbbbbbbb | hello world\n"
            "-[ RECORD 2 ]+------------\n"
            "a            | 22\n"
            "bbbbbbbbbbbb | \n"
            "\n");
  ASSERT_TRUE(
      Script("\\x on\nselect 1 as a, 'hello world, long value' as b;\n"
             "select 'multi\nline' as a;\nselect 1 as a where false;\n\\x off\nselect 1 as a;")
          .ok());
  EXPECT_EQ(out_.str(),
            "-[ RECORD 1 ]--------------\n"
            "a | 1\n"
            "b | hello world, long value\n"
            "\n"
            "-[ RECORD 1 ]\n"
            "a | multi+\n"
            "  | line\n"
            "\n"
            "(0 rows)\n"
            "\n"
            " a \n"
            "---\n"
            " 1\n"
            "(1 row)\n"
            "\n");
}

// SHOW TABLES and DESCRIBE (as DuckDB users type them) and psql's \d family list and describe
// through pg_catalog; \o sends results to a file; \i runs one.
TEST_F(SqlCommandTest, CatalogCommandsAndFiles) {
  ASSERT_TRUE(Script("create table t1 (a int not null, b numeric(10,2)); create view v1 as select "
                     "a from t1;")
                  .ok());
  ASSERT_TRUE(Script("SHOW TABLES;").ok());
  EXPECT_EQ(out_.str(),
            " Schema | Name | Type  \n"
            "--------+------+-------\n"
            " public | t1   | table\n"
            " public | v1   | view\n"
            "(2 rows)\n\n");
  ASSERT_TRUE(Script("\\dt").ok());
  EXPECT_NE(out_.str().find("t1"), std::string::npos);
  EXPECT_EQ(out_.str().find("v1"), std::string::npos);
  ASSERT_TRUE(Script("describe T1;").ok());
  EXPECT_EQ(out_.str(),
            " Column |     Type      | Nullable \n"
            "--------+---------------+----------\n"
            " a      | integer       | not null\n"
            " b      | numeric(10,2) | \n"
            "(2 rows)\n\n");
  std::ostringstream before(out_.str());
  ASSERT_TRUE(Script("\\d public.t1").ok());
  EXPECT_EQ(out_.str(), before.str());
  Status bad = Script("\\dz");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.hint(), "Try \\? for help.");

  char dir_pattern[] = "/tmp/shoal-shell-XXXXXX";
  ASSERT_NE(mkdtemp(dir_pattern), nullptr);
  const std::string dir = dir_pattern;
  {
    std::ofstream script(dir + "/in.sql");
    script << "select 41 + 1 as answer;\n";
  }
  ASSERT_TRUE(
      Script("\\o " + dir + "/out.txt\n\\i " + dir + "/in.sql\n\\o\nselect 7 as seven;").ok());
  EXPECT_EQ(out_.str(), " seven \n-------\n     7\n(1 row)\n\n");
  std::ifstream written(dir + "/out.txt");
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_EQ(text.str(), " answer \n--------\n     42\n(1 row)\n\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shoal::cli

// COPY ... TO end to end through the QueryRunner (engine/): the command tag, CSV text exactly as
// written, Arrow and Parquet files read back as external tables, the option errors and their
// SQLSTATEs, and that a COPY that fails leaves no file behind.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/engine/query_runner.h"
#include "tests/support/gtest_util.h"

namespace shoal::exec {
namespace {

class CopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal_copy_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ASSERT_OK(runner_
                  .RunAll("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a,b', 1.50, DATE "
                          "'2020-01-31', true), (2, NULL, NULL, NULL, NULL), (3, '', -2.25, DATE "
                          "'1999-12-31', false), (4, 'say \"hi\"', 0.10, DATE '2000-02-29', true)) "
                          "v(i, s, d, dt, b)")
                  .status());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string Read(const std::string& name) const {
    std::ifstream in(Path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  // The rows of `sql` as psql-style text, one line per row, values separated by '|'.
  std::string Rows(const std::string& sql) {
    auto result = runner_.RunOne(sql);
    EXPECT_OK(result.status());
    std::string out;
    if (!result.ok()) {
      return out;
    }
    for (const auto& batch : result->batches) {
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        for (int c = 0; c < batch->num_columns(); ++c) {
          out += c ? "|" : "";
          if (!batch->column(c)->IsNull(r)) {
            out += columnar::FormatValue(*batch->column(c), r);
          }
        }
        out += "\n";
      }
    }
    return out;
  }

  Status Error(const std::string& sql) { return runner_.RunOne(sql).status(); }

  std::filesystem::path dir_;
  engine::QueryRunner runner_;
};

const char kRows[] =
    "1|a,b|1.50|2020-01-31|t\n2||||\n3||-2.25|1999-12-31|f\n4|say \"hi\"|0.10|2000-02-29|t\n";

TEST_F(CopyTest, CsvIsRfc4180WithPostgresSpellings) {
  ASSERT_OK_AND_ASSIGN(
      auto result, runner_.RunOne("COPY (SELECT * FROM t ORDER BY i) TO '" + Path("t.csv") + "'"));
  EXPECT_EQ(result.command_tag, "COPY 4");
  EXPECT_EQ(Read("t.csv"),
            "i,s,d,dt,b\n"
            "1,\"a,b\",1.50,2020-01-31,t\n"
            "2,,,,\n"
            "3,\"\",-2.25,1999-12-31,f\n"
            "4,\"say \"\"hi\"\"\",0.10,2000-02-29,t\n");
  ASSERT_OK(runner_
                .RunOne("COPY t (i, b) TO '" + Path("t2.csv") +
                        "' (FORMAT csv, HEADER false, DELIMITER '|')")
                .status());
  EXPECT_EQ(Read("t2.csv"), "1|t\n2|\n3|f\n4|t\n");
}

TEST_F(CopyTest, ArrowAndParquetReadBackAsExternalTables) {
  ASSERT_OK(runner_.RunOne("COPY t TO '" + Path("t.arrow") + "' (COMPRESSION zstd)").status());
  ASSERT_OK(runner_
                .RunOne("COPY (SELECT * FROM t) TO '" + Path("t.out") +
                        "' (FORMAT parquet, COMPRESSION gzip, ROW_GROUP_SIZE 3)")
                .status());
  ASSERT_OK(runner_
                .RunAll("CREATE EXTERNAL TABLE a STORED AS ARROW LOCATION '" + Path("t.arrow") +
                        "'; CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION '" + Path("t.out") +
                        "'")
                .status());
  EXPECT_EQ(Rows("SELECT * FROM a ORDER BY i"), kRows);
  EXPECT_EQ(Rows("SELECT * FROM p ORDER BY i"), kRows);
  EXPECT_EQ(Rows("SELECT count(*), sum(d) FROM a"), "4|-0.65\n");
}

TEST_F(CopyTest, OptionErrorsCarrySqlStates) {
  const std::string to = " TO '" + Path("x.parquet") + "' ";
  auto st = Error("COPY t" + to + "(FORMAT parquet, COMPRESION zstd)");
  EXPECT_EQ(st.sqlstate(), "42601") << st.ToString();
  EXPECT_NE(st.ToString().find("compression"), std::string::npos) << st.ToString();  // the hint
  EXPECT_EQ(Error("COPY t" + to + "(FORMAT xml)").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(COMPRESSION brotli)").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(ROW_GROUP_SIZE 0)").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(HEADER false)").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(FORMAT csv, DELIMITER ';;')").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(FORMAT csv, COMPRESSION zstd)").sqlstate(), "22023");
  EXPECT_EQ(Error("COPY t" + to + "(FORMAT csv, FORMAT csv)").sqlstate(), "42601");
  EXPECT_EQ(Error("COPY t FROM '" + Path("x.csv") + "'").sqlstate(), "0A000");
  EXPECT_EQ(Error("COPY t TO STDOUT").sqlstate(), "0A000");
  EXPECT_EQ(Error("COPY nosuch" + to).sqlstate(), "42P01");
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(CopyTest, FailedCopyLeavesNoFile) {
  // The query fails after the file was opened: no target, no temporary file.
  auto st = Error("COPY (SELECT i / (i - 3) FROM t) TO '" + Path("bad.parquet") + "'");
  EXPECT_FALSE(st.ok());
  st = Error("COPY (SELECT i / (i - 3) FROM t) TO '" + Path("bad.csv") + "'");
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  // A file that exists is replaced only by a complete new one.
  ASSERT_OK(runner_.RunOne("COPY t TO '" + Path("keep.csv") + "'").status());
  const std::string before = Read("keep.csv");
  EXPECT_FALSE(Error("COPY (SELECT i / (i - 3) FROM t) TO '" + Path("keep.csv") + "'").ok());
  EXPECT_EQ(Read("keep.csv"), before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

}  // namespace
}  // namespace shoal::exec

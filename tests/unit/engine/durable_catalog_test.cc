// The catalog of a server's --data-dir (engine/durable_catalog.h): what one catalog creates, a
// second opening of the directory finds; a damaged catalog file is refused rather than read as
// empty; a table directory no catalog names (a CREATE TABLE killed before its catalog save) is
// removed at start-up; a second catalog on a directory in use is refused.
#include "shoal/engine/durable_catalog.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/engine/query_runner.h"
#include "tests/support/gtest_util.h"

namespace shoal::engine {
namespace {

namespace fs = std::filesystem;

class DurableCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal_durable_catalog_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The rows of `sql` as a psql-style table, run on a session over the catalog in dir_.
  static std::string Run(const std::shared_ptr<sql::Catalog>& catalog, const std::string& sql) {
    QueryRunner runner(std::make_shared<sql::Session>(catalog));
    auto result = runner.RunOne(sql);
    if (!result.ok())
      return "ERROR " + result.status().sqlstate() + " " + result.status().ToString();
    return result->schema ? columnar::FormatTable(*result->schema, result->batches)
                          : result->command_tag;
  }

  fs::path dir_;
};

TEST_F(DurableCatalogTest, WhatOneOpeningCreatesTheNextFinds) {
  std::string rows;
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
    for (const char* sql :
         {"CREATE TABLE t (a int PRIMARY KEY, b text)",
          "INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'z')", "DELETE FROM t WHERE a = 3",
          "UPDATE t SET b = 'y' WHERE a = 2", "CREATE VIEW v AS SELECT count(*) AS n FROM t",
          "CREATE INDEX t_b ON t (b)"})
      ASSERT_NE(Run(catalog, sql).rfind("ERROR", 0), 0u) << sql;
    rows = Run(catalog, "SELECT * FROM t ORDER BY a");
    EXPECT_EQ(Run(catalog, "SELECT n FROM v"), " n \n---\n 2\n(1 row)\n");
  }
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
  EXPECT_EQ(Run(catalog, "SELECT * FROM t ORDER BY a"), rows);
  EXPECT_EQ(Run(catalog, "SELECT n FROM v"), " n \n---\n 2\n(1 row)\n");
  EXPECT_EQ(catalog->IndexesOf("public", "t").size(), 2u);  // t_pkey and t_b
  // The primary key reads its keys from the rows again.
  EXPECT_NE(Run(catalog, "INSERT INTO t VALUES (1, 'again')").find("ERROR 23505"),
            std::string::npos);
}

TEST_F(DurableCatalogTest, DamagedCatalogIsRefused) {
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
    Run(catalog, "CREATE TABLE t (a int)");
  }
  fs::resize_file(dir_ / "catalog", fs::file_size(dir_ / "catalog") - 3);
  auto reopened = OpenDurableCatalog(dir_.string());
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), StatusCode::kInvalidData);
}

TEST_F(DurableCatalogTest, UnnamedTableDirectoriesGoAndSecondOpeningIsRefused) {
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
    Run(catalog, "CREATE TABLE t (a int)");
    // While it is open, the directory is its own.
    EXPECT_STATUS_CODE(StatusCode::kUnavailable, OpenDurableCatalog(dir_.string()).status());
  }
  fs::create_directories(dir_ / "tables" / "00000000deadbeef");
  std::ofstream(dir_ / "tables" / "00000000deadbeef" / "manifest") << "half";
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
  EXPECT_FALSE(fs::exists(dir_ / "tables" / "00000000deadbeef"));
  EXPECT_EQ(Run(catalog, "SELECT count(*) FROM t"), " count \n-------\n     0\n(1 row)\n");
}

}  // namespace
}  // namespace shoal::engine

// The catalog of a server's --data-dir (engine/durable_catalog.h): what one catalog creates, a
// second opening of the directory finds; a damaged catalog file is refused rather than read as
// empty; a table directory no catalog names (a CREATE TABLE killed before its catalog save) is
// removed at start-up; a second catalog on a directory in use is refused.
#include "shoal/engine/durable_catalog.h"

#include <algorithm>
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

// name -> mtime of the data files of the table in `dir`, in commit order.
std::vector<std::pair<std::string, fs::file_time_type>> DataFiles(const std::string& dir) {
  std::vector<std::pair<std::string, fs::file_time_type>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".parquet")
      files.emplace_back(e.path().filename().string(), fs::last_write_time(e.path()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_F(DurableCatalogTest, DeleteAndUpdateRewriteOnlyTheFilesTheyChange) {
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
  for (const char* sql :
       {"CREATE TABLE t (a int PRIMARY KEY, b text)", "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
        "INSERT INTO t VALUES (3, 'z')", "INSERT INTO t VALUES (4, 'w')"})
    ASSERT_NE(Run(catalog, sql).rfind("ERROR", 0), 0u) << sql;
  ASSERT_OK_AND_ASSIGN(auto table, catalog->LookupTable("public", "t"));
  const std::string location = table.storage->location();
  table = {};
  const auto inserted = DataFiles(location);
  ASSERT_EQ(inserted.size(), 3u);  // one per INSERT
  EXPECT_EQ(Run(catalog, "DELETE FROM t WHERE a = 3"), "DELETE 1");
  EXPECT_EQ(DataFiles(location), (decltype(inserted){inserted[0], inserted[2]}));
  EXPECT_EQ(Run(catalog, "DELETE FROM t WHERE a > 10"), "DELETE 0");
  EXPECT_EQ(Run(catalog, "UPDATE t SET b = 'v' WHERE b = 'w'"), "UPDATE 1");
  auto updated = DataFiles(location);
  ASSERT_EQ(updated.size(), 2u);
  EXPECT_EQ(updated[0], inserted[0]);  // same name, same mtime: not written again
  EXPECT_NE(updated[1].first, inserted[2].first);
  // A duplicate key made by an UPDATE is refused and leaves every file as it was.
  EXPECT_NE(Run(catalog, "UPDATE t SET a = 1 WHERE a = 4").find("ERROR 23505"), std::string::npos);
  EXPECT_EQ(DataFiles(location), updated);
  EXPECT_EQ(Run(catalog, "SELECT * FROM t ORDER BY a"),
            " a | b \n---+---\n 1 | x\n 2 | y\n 4 | v\n(3 rows)\n");
}

TEST_F(DurableCatalogTest, AddColumnWritesNoRowsAndDefaultsOutliveRestarts) {
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
    for (const char* sql : {"CREATE TABLE t (a int, b text DEFAULT 'bee')",
                            "INSERT INTO t (a) VALUES (1)", "INSERT INTO t VALUES (2, 'x')"})
      ASSERT_NE(Run(catalog, sql).rfind("ERROR", 0), 0u) << sql;
    ASSERT_OK_AND_ASSIGN(auto table, catalog->LookupTable("public", "t"));
    const std::string location = table.storage->location();
    table = {};
    const auto inserted = DataFiles(location);
    EXPECT_EQ(Run(catalog, "ALTER TABLE t ADD COLUMN c int DEFAULT 7"), "ALTER TABLE");
    EXPECT_EQ(DataFiles(location), inserted);  // no row written again
    EXPECT_EQ(Run(catalog, "INSERT INTO t (a) VALUES (3)"), "INSERT 0 1");
  }
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenDurableCatalog(dir_.string()));
  EXPECT_EQ(Run(catalog, "INSERT INTO t (a) VALUES (4)"), "INSERT 0 1");
  EXPECT_EQ(Run(catalog, "SELECT * FROM t ORDER BY a"),
            " a |  b  | c \n---+-----+---\n 1 | bee | 7\n 2 | x   | 7\n 3 | bee | 7\n"
            " 4 | bee | 7\n(4 rows)\n");
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

// Tests of the physical planner and the QueryRunner (engine/): plan shapes for one and several
// partitions, and that SQL run end to end gives the same rows whatever the partitioning and batch
// size.
#include "shoal/exec/physical_planner.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/engine/query_runner.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

std::vector<std::string> SortedRows(const engine::QueryResult& result) {
  auto rows = testutil::Rows(result.batches);
  std::sort(rows.begin(), rows.end());
  return rows;
}

class PhysicalPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Run("CREATE TABLE t (a int, b text, c decimal(10,2))");
    // One INSERT per row: each becomes a batch, so a scan of t has several units (partitions).
    for (const char* row : {"(1, 'x', 1.50)", "(2, 'y', NULL)", "(1, NULL, 2.25)",
                            "(NULL, 'z', 3.00)", "(3, 'x', 4.00)"}) {
      Run(std::string("INSERT INTO t VALUES ") + row);
    }
    Run("CREATE TABLE u (a int, d text)");
    for (const char* row : {"(1, 'one')", "(3, 'three')", "(NULL, 'null')", "(4, 'four')"}) {
      Run(std::string("INSERT INTO u VALUES ") + row);
    }
  }

  engine::QueryResult Run(const std::string& sql) {
    auto result = runner_.RunOne(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
    return result.ok() ? *result : engine::QueryResult{};
  }

  std::string Explain(const std::string& sql) {
    auto result = Run("EXPLAIN " + sql);
    std::string text;
    for (const auto& row : testutil::Rows(result.batches)) {
      text += row + "\n";
    }
    return text;
  }

  // The sorted rows of each query in one partition, in four, and with partitioned joins (the
  // settings apply one after another).
  void ExpectRowsInEveryLayout(
      const std::vector<std::pair<std::string, std::vector<std::string>>>& expected) {
    for (const char* setting : {"threads = 1", "threads = 4", "join_collect_build_rows = 0"}) {
      Run(std::string("SET ") + setting);
      for (const auto& [query, rows] : expected)
        EXPECT_EQ(SortedRows(Run(query)), rows) << setting << ": " << query;
    }
  }

  engine::QueryRunner runner_;
};

TEST_F(PhysicalPlannerTest, CommandTags) {
  EXPECT_EQ(Run("CREATE TABLE v (x int)").command_tag, "CREATE TABLE");
  EXPECT_EQ(Run("INSERT INTO v SELECT a FROM t WHERE a IS NOT NULL").command_tag, "INSERT 0 4");
  EXPECT_EQ(Run("SELECT count(*) FROM v").command_tag, "SELECT 1");
  EXPECT_EQ(Run("DROP TABLE v").command_tag, "DROP TABLE");
  EXPECT_FALSE(runner_.RunOne("SELECT * FROM v").ok());
}

TEST_F(PhysicalPlannerTest, SamePartitioningIndependentResults) {
  const std::vector<std::string> queries = {
      "SELECT a, count(*), sum(c) FROM t GROUP BY a",
      "SELECT count(*), sum(c), max(b) FROM t",
      "SELECT DISTINCT b FROM t",
      "SELECT t.a, u.d FROM t JOIN u ON t.a = u.a",
      "SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a",
      "SELECT t.a, u.d FROM t FULL JOIN u ON t.a = u.a",
      "SELECT a FROM t WHERE a NOT IN (SELECT a FROM u WHERE a > 1)",
      "SELECT a, b FROM t ORDER BY a DESC NULLS LAST, b LIMIT 3",
  };
  std::vector<std::vector<std::string>> expected;
  for (const auto& q : queries) {
    expected.push_back(SortedRows(Run(q)));
  }
  Run("SET threads = 4");
  Run("SET batch_size = 1");
  Run("SET join_collect_build_rows = 0");
  for (size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(SortedRows(Run(queries[i])), expected[i]) << queries[i];
  }
}

TEST_F(PhysicalPlannerTest, JoinModes) {
  Run("SET threads = 4");
  const std::string sql = "SELECT t.a, u.d FROM t JOIN u ON t.a = u.a";
  EXPECT_NE(Explain(sql).find("collect"), std::string::npos) << Explain(sql);
  Run("SET join_collect_build_rows = 0");
  std::string plan = Explain(sql);
  EXPECT_NE(plan.find("partitioned"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Repartition"), std::string::npos) << plan;
  EXPECT_EQ(SortedRows(Run(sql)), (std::vector<std::string>{"1|one", "1|one", "3|three"}));
  // NOT IN needs the whole build side: always collect-build.
  EXPECT_NE(Explain("SELECT a FROM t WHERE a NOT IN (SELECT a FROM u)").find("collect"),
            std::string::npos);
}

// EXISTS / NOT EXISTS whose outer side is the smaller: the hash table is built on the outer rows
// (a right semi / anti join), the larger side probes it and its scan takes the outer keys as a
// runtime filter; the residual (a condition over both sides) still decides each pair. The same
// rows in one partition, in four, and with partitioned joins.
TEST_F(PhysicalPlannerTest, ASemiJoinBuildsOnItsSmallerOuterSide) {
  Run("CREATE TABLE big (a int, e int)");
  Run("INSERT INTO big SELECT g % 7, g FROM generate_series(1, 100) AS s(g)");
  const std::string where = "WHERE big.a = u.a AND big.e > u.a * 30)";
  const std::string semi = "SELECT a, d FROM u WHERE EXISTS (SELECT 1 FROM big " + where;
  const std::string anti = "SELECT a, d FROM u WHERE NOT EXISTS (SELECT 1 FROM big " + where;
  const std::string semi_plan = Explain(semi);
  EXPECT_NE(semi_plan.find("type=RightSemi"), std::string::npos) << semi_plan;
  EXPECT_NE(semi_plan.find("runtime_filters=[rf1 on a]"), std::string::npos) << semi_plan;
  EXPECT_NE(Explain(anti).find("type=RightAnti"), std::string::npos) << Explain(anti);
  ExpectRowsInEveryLayout({{semi, {"1|one", "3|three"}}, {anti, {"4|four", "NULL|null"}}});
}

// A LEFT JOIN whose preserved side is the smaller builds on it (a right join with the inputs
// swapped, TPC-H Q13's shape): the columns come out in the query's order, preserved rows without a
// match (a NULL key among them) padded with NULLs, and the ON conditions on the other side still
// decide the matches. The same rows in one partition, in four, and with partitioned joins.
TEST_F(PhysicalPlannerTest, ALeftJoinBuildsOnItsSmallerPreservedSide) {
  Run("CREATE TABLE big (a int, e int, note text)");
  Run("INSERT INTO big SELECT g % 7, g, 'n' || g FROM generate_series(1, 100) AS s(g)");
  const std::string query =
      "SELECT u.d, big.e, u.a FROM u LEFT JOIN big ON big.a = u.a AND big.e > 80 "
      "AND big.note NOT LIKE 'n9%'";
  const std::string plan = Explain(query);
  EXPECT_NE(plan.find("type=Right,"), std::string::npos) << plan;
  ExpectRowsInEveryLayout(
      {{query, {"four|81|4", "four|88|4", "null|NULL|NULL", "one|85|1", "three|87|3"}}});
}

// A right semi join outputs its build side's columns: a runtime filter passing through it on an
// output column targets the build side's scan, never the probe side's column of the same
// position (which dropped big's rows by u2.a's keys and returned nothing).
TEST_F(PhysicalPlannerTest, ARuntimeFilterThroughARightSemiJoinTargetsItsBuildSide) {
  Run("CREATE TABLE big (a int, e int)");
  Run("INSERT INTO big SELECT g % 10, g + 1000 FROM generate_series(1, 100) AS s(g)");
  Run("CREATE TABLE u2 (a int, k int)");
  Run("INSERT INTO u2 VALUES (5, 1), (6, 2), (7, 3)");
  Run("CREATE TABLE small (x int)");
  Run("INSERT INTO small VALUES (5), (6)");
  const std::string query =
      "SELECT s.a, s.k FROM (SELECT a, k FROM u2 WHERE EXISTS "
      "(SELECT 1 FROM big WHERE big.a = u2.k)) s JOIN small ON s.a = small.x";
  const std::string plan = Explain(query);
  EXPECT_NE(plan.find("type=RightSemi"), std::string::npos) << plan;
  EXPECT_NE(plan.find("rf1: #0 -> u2.a"), std::string::npos) << plan;
  ExpectRowsInEveryLayout({{query, {"5|1", "6|2"}}});
}

TEST_F(PhysicalPlannerTest, GroupByResults) {
  Run("SET threads = 3");
  auto rows = SortedRows(Run("SELECT a, count(*) FROM t GROUP BY a"));
  EXPECT_EQ(rows, (std::vector<std::string>{"1|2", "2|1", "3|1", "NULL|1"}));
}

TEST_F(PhysicalPlannerTest, ManyPartitionsAggregateIsPartialThenFinal) {
  Run("SET threads = 4");
  std::string plan = Explain("SELECT a, count(*) FROM t GROUP BY a");
  EXPECT_NE(plan.find("Repartition"), std::string::npos) << plan;
  EXPECT_NE(plan.find("artial"), std::string::npos) << plan;
  EXPECT_NE(plan.find("inal"), std::string::npos) << plan;
}

TEST_F(PhysicalPlannerTest, OnePartitionHasNoExchange) {
  Run("SET threads = 1");
  std::string plan = Explain("SELECT a, count(*) FROM t GROUP BY a ORDER BY a");
  EXPECT_EQ(plan.find("Repartition"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("SortPreservingMerge"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Sort"), std::string::npos) << plan;
}

// An ORDER BY of few estimated rows is one sort over a coalesce, whose threads run the input's
// partitions at once (a merge pulls its sorted partitions one after another); of many rows, a
// sort per partition and a merge.
TEST_F(PhysicalPlannerTest, FewRowsSortInOnePartitionManyInEach) {
  Run("SET threads = 4");
  std::string plan = Explain("SELECT a FROM t ORDER BY a");
  EXPECT_EQ(plan.find("SortPreservingMerge"), std::string::npos) << plan;
  EXPECT_NE(plan.find("CoalescePartitions"), std::string::npos) << plan;
  Run("CREATE TABLE big (a int)");
  for (int i = 0; i < 4; ++i)
    Run("INSERT INTO big SELECT * FROM generate_series(1, 50000)");
  plan = Explain("SELECT a FROM big ORDER BY a");
  EXPECT_NE(plan.find("SortPreservingMerge"), std::string::npos) << plan;
  EXPECT_EQ(testutil::Rows(Run("SELECT a FROM big ORDER BY a DESC LIMIT 3").batches),
            (std::vector<std::string>{"50000", "50000", "50000"}));
}

TEST_F(PhysicalPlannerTest, OrderByIsOrdered) {
  Run("SET threads = 4");
  Run("SET batch_size = 2");
  auto rows = testutil::Rows(Run("SELECT a FROM t ORDER BY a NULLS FIRST").batches);
  EXPECT_EQ(rows, (std::vector<std::string>{"NULL", "1", "1", "2", "3"}));
}

TEST_F(PhysicalPlannerTest, ErrorsKeepSqlState) {
  auto result = runner_.RunOne("SELECT aa FROM t");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "42703");
  auto division = runner_.RunOne("SELECT a / 0 FROM t");
  ASSERT_FALSE(division.ok());
  EXPECT_EQ(division.status().sqlstate(), "22012");
}

// Runtime join filters (runtime_filter_planner.h) are planned only where dropping an unmatched
// probe row cannot change the answer, and not at all with the setting off.
TEST_F(PhysicalPlannerTest, RuntimeFiltersOnlyWhereUnmatchedProbeRowsAreDropped) {
  const std::string inner = Explain("SELECT t.b FROM t JOIN u ON t.a = u.a");
  EXPECT_NE(inner.find("runtime_filters=[rf1: #0 -> t.a]"), std::string::npos) << inner;
  EXPECT_NE(inner.find("runtime_filters=[rf1 on a]"), std::string::npos) << inner;
  EXPECT_NE(Explain("SELECT b FROM t WHERE a IN (SELECT a FROM u)").find("rf1"), std::string::npos);
  for (const char* sql :
       {"SELECT t.b FROM t LEFT JOIN u ON t.a = u.a", "SELECT t.b FROM t FULL JOIN u ON t.a = u.a",
        "SELECT b FROM t WHERE a NOT IN (SELECT a FROM u)",
        "SELECT b FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
        "SELECT t.b FROM t JOIN u ON t.a + 1 = u.a"}) {
    const std::string text = Explain(sql);
    EXPECT_EQ(text.find("runtime_filters"), std::string::npos) << sql << "\n" << text;
  }
  // Through an aggregate grouped by the key (TPC-H Q17's shape).
  const std::string grouped = Explain(
      "SELECT g.a, g.n FROM (SELECT a, count(*) AS n FROM t GROUP BY a) g JOIN u ON g.a = u.a");
  EXPECT_NE(grouped.find("runtime_filters=[rf1 on a]"), std::string::npos) << grouped;
  Run("SET runtime_filters = off");
  EXPECT_EQ(Explain("SELECT t.b FROM t JOIN u ON t.a = u.a").find("runtime_filters"),
            std::string::npos);
}

// A join the query reads in two places (TPC-H Q11's shape: the main query and its HAVING
// subquery) is computed once when its result is small (sql/optimizer/subplan_sharing.cc), and the
// join inside the shared subplan still filters its own probe scan at run time. Before, the copies
// read different columns of `fact` (only the main one needs k), so neither the plans nor the
// scans were alike.
TEST_F(PhysicalPlannerTest, AJoinReadTwiceIsComputedOnceAndKeepsItsRuntimeFilter) {
  Run("CREATE TABLE fact AS SELECT g AS k, g % 100 AS s, g % 7 AS v FROM generate_series(1, "
      "100000) g");
  Run("CREATE TABLE dim AS SELECT g AS s, g % 10 AS grp FROM generate_series(0, 99) g");
  const std::string sql =
      "SELECT f.k / 1000 % 10 AS bucket, sum(f.v) AS total FROM fact f JOIN dim d ON f.s = d.s "
      "WHERE d.grp = 3 GROUP BY f.k / 1000 % 10 HAVING sum(f.v) > (SELECT sum(f.v) / 10 FROM "
      "fact f JOIN dim d ON f.s = d.s WHERE d.grp = 3) ORDER BY bucket";
  const std::string plan = Explain(sql);
  EXPECT_NE(plan.find("SharedResult: references=2"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(the same node as above, computed once)"), std::string::npos) << plan;
  size_t scans = 0;
  for (size_t at = plan.find("TableScan: fact"); at != std::string::npos;
       at = plan.find("TableScan: fact", at + 1))
    ++scans;
  EXPECT_EQ(scans, 1u) << plan;
  EXPECT_NE(plan.find("runtime_filters=[rf1 on s]"), std::string::npos) << plan;
  // PostgreSQL 15's answer.
  const std::vector<std::string> expected = {"1|3006", "4|3002", "5|3003", "8|3006"};
  EXPECT_EQ(testutil::Rows(Run(sql).batches), expected);
  // A join above one reference must not filter the shared scan: the other reference reads all
  // of its rows (2,000 of them have s in (3, 13), 10,000 have grp 3).
  const std::string filtered =
      "WITH j AS (SELECT f.k, f.s FROM fact f JOIN dim d ON f.s = d.s WHERE d.grp = 3) "
      "SELECT (SELECT count(*) FROM j JOIN (VALUES (3), (13)) x(s) ON j.s = x.s), "
      "(SELECT count(*) FROM j)";
  const std::string filtered_plan = Explain(filtered);
  EXPECT_NE(filtered_plan.find("SharedResult: references=2"), std::string::npos) << filtered_plan;
  EXPECT_EQ(filtered_plan.find("rf2"), std::string::npos) << filtered_plan;
  EXPECT_EQ(testutil::Rows(Run(filtered).batches), std::vector<std::string>{"2000|10000"});
  Run("SET shared_subplans = off");
  const std::string unshared_plan = Explain(sql);
  EXPECT_EQ(unshared_plan.find("SharedResult"), std::string::npos) << unshared_plan;
  EXPECT_EQ(testutil::Rows(Run(sql).batches), expected);
  EXPECT_EQ(testutil::Rows(Run(filtered).batches), std::vector<std::string>{"2000|10000"});
}

// EXPLAIN ANALYZE shows what a runtime filter did in a Parquet scan: the row groups its range
// ruled out and the rows it removed from the others.
TEST_F(PhysicalPlannerTest, RuntimeFilterPrunesParquetRowGroups) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("shoal_runtime_filter_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "sorted.parquet").string();
  Run("COPY (SELECT CAST(g AS bigint) AS k, g * 2 AS v FROM generate_series(1, 10000) g) TO '" +
      file + "' (FORMAT parquet, row_group_size 1000)");
  Run("CREATE EXTERNAL TABLE sorted STORED AS PARQUET LOCATION '" + file + "'");
  Run("CREATE TABLE keys (k bigint)");
  Run("INSERT INTO keys VALUES (9001), (9500), (NULL)");
  const std::string sql = "SELECT count(*), sum(s.v) FROM sorted s JOIN keys ON s.k = keys.k";
  EXPECT_EQ(testutil::Rows(Run(sql).batches), std::vector<std::string>{"2|37002"});
  const std::string analyzed = Explain("ANALYZE " + sql);
  EXPECT_NE(analyzed.find("rf1_row_groups_pruned=9"), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("rf1_rows_removed=998"), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("runtime filter rf1 -> sorted.k: bitmap"), std::string::npos) << analyzed;
  std::filesystem::remove_all(dir);
}

// A scan whose only filter is a runtime join filter merges the slivers the filter leaves, as a
// scan with a WHERE does: a filter keeping 2% of each batch would otherwise hand the operators
// above (and, on workers, the network) batches of a few rows each.
TEST_F(PhysicalPlannerTest, RuntimeFilteredScanMergesItsSlivers) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("shoal_runtime_sliver_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "wide.parquet").string();
  Run("COPY (SELECT CAST(g AS bigint) AS k, g * 2 AS v FROM generate_series(1, 100000) g) TO '" +
      file + "' (FORMAT parquet, row_group_size 50000)");
  Run("CREATE EXTERNAL TABLE wide STORED AS PARQUET LOCATION '" + file + "'");
  Run("CREATE TABLE every50 AS SELECT CAST(g * 50 AS bigint) AS k FROM generate_series(1, 2000) g");
  const std::string sql = "SELECT count(*), sum(w.v) FROM wide w JOIN every50 e ON w.k = e.k";
  EXPECT_EQ(testutil::Rows(Run(sql).batches), std::vector<std::string>{"2000|200100000"});
  const std::string analyzed = Explain("ANALYZE " + sql);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(analyzed, m,
                                std::regex(R"(TableScan: wide [^\n]*\(rows=(\d+), batches=(\d+))")))
      << analyzed;
  EXPECT_EQ(m[1].str(), "2000") << analyzed;
  // 100,000 rows are read as about 13 batches of 8,192: one batch per partition is left.
  EXPECT_LE(std::stoi(m[2].str()), 2) << analyzed;
  EXPECT_NE(analyzed.find("rf1_rows_removed=98000"), std::string::npos) << analyzed;
  std::filesystem::remove_all(dir);
}

// A WHERE right above a Parquet scan goes into the scan (scan_filter_expr.h): the conjuncts that
// cannot fail are evaluated while decoding, and EXPLAIN shows them on the scan with no Filter
// left; a conjunct that can fail (a division, a cast) stays in a Filter above and sees only the
// rows the scan kept. Results equal those over the same rows in memory.
TEST_F(PhysicalPlannerTest, ParquetScanTakesTheFilterAbove) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("shoal_scan_filter_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "t.parquet").string();
  Run("COPY t TO '" + file + "' (FORMAT parquet)");
  Run("CREATE EXTERNAL TABLE tp STORED AS PARQUET LOCATION '" + file + "'");
  auto physical = [&](const std::string& sql) {
    const std::string text = Explain(sql);
    const size_t at = text.find("Physical Plan:");
    return at == std::string::npos ? text : text.substr(at);
  };
  const std::string folded = physical("SELECT a, b FROM tp WHERE a > 1 AND b LIKE 'x%'");
  EXPECT_NE(folded.find("TableScan: tp (parquet)"), std::string::npos) << folded;
  EXPECT_NE(folded.find("filter=(a > 1) AND (b LIKE 'x%'),"), std::string::npos) << folded;
  EXPECT_EQ(folded.find("Filter:"), std::string::npos) << folded;
  // The division stays above; its guard goes into the scan, so it never divides by zero.
  const std::string split = physical("SELECT a FROM tp WHERE a <> 1 AND 6 / (a - 1) > 2");
  EXPECT_NE(split.find("filter=a <> 1,"), std::string::npos) << split;
  EXPECT_NE(split.find("Filter: "), std::string::npos) << split;
  EXPECT_EQ(SortedRows(Run("SELECT a FROM tp WHERE a <> 1 AND 6 / (a - 1) > 2")),
            (std::vector<std::string>{"2", "3"}));
  // A cast can fail: it stays above too.
  const std::string cast = physical("SELECT a FROM tp WHERE CAST(b AS int) > 1");
  EXPECT_EQ(cast.find("filter="), std::string::npos) << cast;
  // In-memory tables filter above the scan, as before; and so does any scan with the setting off.
  EXPECT_EQ(physical("SELECT a FROM t WHERE a > 1").find("filter="), std::string::npos);
  Run("SET scan_filters = off");
  const std::string off = physical("SELECT a FROM tp WHERE a > 1");
  EXPECT_EQ(off.find("filter="), std::string::npos) << off;
  EXPECT_NE(off.find("Filter: "), std::string::npos) << off;
  Run("RESET scan_filters");
  for (const std::string where :
       {"a > 1", "a IS NULL", "b IN ('x', 'z') OR c > 2", "c BETWEEN 1.5 AND 3",
        "a = 1 AND b IS NOT NULL", "a > 100", "a IS NULL OR a IS NOT NULL", "NOT (b = 'x')"}) {
    SCOPED_TRACE(where);
    const auto want = SortedRows(Run("SELECT a, b, c FROM t WHERE " + where));
    EXPECT_EQ(SortedRows(Run("SELECT a, b, c FROM tp WHERE " + where)), want);
  }
  const std::string analyzed = Explain("ANALYZE SELECT count(*) FROM tp WHERE a > 1");
  EXPECT_NE(analyzed.find("filter_rows_in=5"), std::string::npos) << analyzed;
  EXPECT_NE(analyzed.find("filter_rows_out=2"), std::string::npos) << analyzed;
  Run("DROP TABLE tp");
  std::filesystem::remove_all(dir);
}

// A Parquet struct column read through field accesses only is scanned with just those fields
// (optimizer/struct_field_pruning.cc): EXPLAIN names them after the column, both in the logical
// and in the physical plan, and the answers equal those of a plan that reads the whole column.
TEST_F(PhysicalPlannerTest, ParquetScanReadsOnlyTheStructFieldsUsed) {
  Run("CREATE EXTERNAL TABLE sf STORED AS PARQUET LOCATION '" +
      std::string(SHOAL_PARQUET_TEST_DATA_DIR) + "/struct_fields.parquet'");
  const std::string grouped = Explain("SELECT (s).b.c, count(*) FROM sf GROUP BY 1");
  EXPECT_NE(grouped.find("s.{b.c}"), std::string::npos) << grouped;
  const std::string filtered = Explain("SELECT (s).b.c, (s).e FROM sf WHERE (s).a > 3");
  EXPECT_NE(filtered.find("s.{a,b.c,e}"), std::string::npos) << filtered;
  const std::string nested = Explain("SELECT (s).b.c, (s).b.d FROM sf WHERE (s).a > 3");
  // Common subexpression elimination computes (s).b once, so b is read whole.
  EXPECT_NE(nested.find("s.{a,b}"), std::string::npos) << nested;
  const std::string deeper = Explain("SELECT sum((s).b.d) FROM sf WHERE (s).b.c = 'c1'");
  EXPECT_NE(deeper.find("s.{b.{c,d}}"), std::string::npos) << deeper;
  // The whole column used anywhere: read whole.
  const std::string whole = Explain("SELECT (s).a FROM sf WHERE s IS NOT NULL");
  EXPECT_EQ(whole.find("s.{"), std::string::npos) << whole;
  EXPECT_EQ(Explain("SELECT s FROM sf").find("s.{"), std::string::npos);
  // Every field used: nothing to prune.
  EXPECT_EQ(Explain("SELECT (s).a, (s).b, (s).e, (s).f FROM sf").find("s.{"), std::string::npos);
  for (const auto& [pruned, unpruned] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT (s).b.c, count(*) FROM sf GROUP BY 1 ORDER BY 1",
            "SELECT (s).b.c, count(*) FROM sf WHERE s IS NULL OR s IS NOT NULL GROUP BY 1 "
            "ORDER BY 1"},
           {"SELECT id, (s).b.d, (s).e FROM sf WHERE (s).a > 3 ORDER BY id",
            "SELECT id, (s).b.d, (s).e FROM sf WHERE (s).a > 3 AND (s IS NULL) IS NOT TRUE "
            "ORDER BY id"},
           {"SELECT id, (s).b FROM sf ORDER BY id",
            "SELECT id, (s).b FROM sf WHERE s IS NULL OR s IS NOT NULL ORDER BY id"}}) {
    const auto a = testutil::Rows(Run(pruned).batches);
    EXPECT_EQ(a.size() > 0, true) << pruned;
    EXPECT_EQ(a, testutil::Rows(Run(unpruned).batches)) << pruned;
  }
  Run("DROP TABLE sf");
}

}  // namespace
}  // namespace shoal::exec

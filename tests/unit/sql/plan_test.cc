// Golden logical plans, before and after the optimizer, for representative queries over the
// TPC-H schema.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class PlanTest : public ::testing::Test {
 protected:
  PlanTest() : session_(testing::MakeTpchCatalog()) {}

  std::string Optimized(std::string_view sql, bool verbose = false) {
    auto bound = BindSql(&session_, sql);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok())
      return "";
    auto plan = OptimizePlan(bound->plan, &session_.column_ids());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? FormatLogicalPlan(**plan, verbose) : "";
  }

  Session session_;
};

std::string ReadQuery(int n) {
  std::string path = fmt::format("{}/q{:02d}.sql", SHOAL_TPCH_QUERY_DIR, n);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(PlanTest, TpchQ1) {
  EXPECT_EQ(
      Optimized(ReadQuery(1)),
      "Sort: l_returnflag ASC NULLS LAST, l_linestatus ASC NULLS LAST\n"
      "  Projection: l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) "
      "AS sum_base_price, sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, "
      "sum((l_extendedprice * (1 - l_discount)) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS "
      "avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS "
      "count_order\n"
      // Common subexpression elimination: the discounted price is computed once, below.
      "    Aggregate: groupBy=[l_returnflag, l_linestatus], aggr=[sum(l_quantity), "
      "sum(l_extendedprice), sum($cse1), sum($cse1 * (1 + l_tax)), avg(l_quantity), "
      "avg(l_extendedprice), avg(l_discount), count(*)]\n"
      "      Projection: l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, "
      "l_linestatus, l_extendedprice * (1 - l_discount) AS $cse1\n"
      "        Filter: l_shipdate <= DATE '1998-09-02'\n"
      "          Scan: lineitem projection=[l_quantity, l_extendedprice, l_discount, l_tax, "
      "l_returnflag, l_linestatus, l_shipdate] predicates=[l_shipdate <= DATE '1998-09-02']\n");
}

TEST_F(PlanTest, TpchQ3CommaJoinsBecomeEquiJoins) {
  // Join ordering puts lineitem (the largest input) on the probe side and builds the hash table
  // from the smaller join of filtered orders with BUILDING customers (the right inputs). Columns
  // that only a filter or an inner join read go no higher.
  EXPECT_EQ(Optimized(ReadQuery(3)),
            "Limit: offset=0, fetch=10\n"
            "  Sort: revenue DESC NULLS FIRST, o_orderdate ASC NULLS LAST\n"
            "    Projection: l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, "
            "o_orderdate, o_shippriority\n"
            "      Aggregate: groupBy=[l_orderkey, o_orderdate, o_shippriority], "
            "aggr=[sum(l_extendedprice * (1 - l_discount))]\n"
            "        InnerJoin: keys=[l_orderkey = o_orderkey]\n"
            "          Projection: l_orderkey, l_extendedprice, l_discount\n"
            "            Filter: l_shipdate > DATE '1995-03-15'\n"
            "              Scan: lineitem projection=[l_orderkey, l_extendedprice, l_discount, "
            "l_shipdate] predicates=[l_shipdate > DATE '1995-03-15']\n"
            "          Projection: o_orderkey, o_orderdate, o_shippriority\n"
            "            InnerJoin: keys=[o_custkey = c_custkey]\n"
            "              Filter: o_orderdate < DATE '1995-03-15'\n"
            "                Scan: orders projection=[o_orderkey, o_custkey, o_orderdate, "
            "o_shippriority] predicates=[o_orderdate < DATE '1995-03-15']\n"
            "              Projection: c_custkey\n"
            "                Filter: c_mktsegment = 'BUILDING'\n"
            "                  Scan: customer projection=[c_custkey, c_mktsegment] "
            "predicates=[c_mktsegment = 'BUILDING']\n");
}

TEST_F(PlanTest, OuterJoinsOnlyTakePredicatesOnTheirSafeSide) {
  // WHERE on the preserved side goes down; ON on the null-supplying side goes down; a WHERE
  // conjunct on the null-supplying side must stay above the join. Columns only those filters
  // read do not reach the join.
  EXPECT_EQ(Optimized("select c_name from customer left join orders on c_custkey = o_custkey "
                      "and o_totalprice > 10 where c_acctbal > 0 and o_orderdate is null"),
            "Projection: c_name\n"
            "  Filter: o_orderdate IS NULL\n"
            "    LeftJoin: keys=[c_custkey = o_custkey]\n"
            "      Projection: c_custkey, c_name\n"
            "        Filter: c_acctbal > 0.00\n"
            "          Scan: customer projection=[c_custkey, c_name, c_acctbal] "
            "predicates=[c_acctbal > 0.00]\n"
            "      Projection: o_custkey, o_orderdate\n"
            "        Filter: o_totalprice > 10.00\n"
            "          Scan: orders projection=[o_custkey, o_totalprice, o_orderdate] "
            "predicates=[o_totalprice > 10.00]\n");
}

TEST_F(PlanTest, FiltersGoThroughProjectionsAndConstantsFold) {
  EXPECT_EQ(Optimized("select x from (select n_nationkey + 1 as x, n_name from nation) t "
                      "where x = 5 and 1 = 1"),
            "Projection: x\n"
            "  Projection: n_nationkey + 1 AS x\n"
            "    Filter: (n_nationkey + 1) = 5\n"
            "      Scan: nation projection=[n_nationkey]\n");
  EXPECT_EQ(Optimized("select n_name from nation where 1 = 0"),
            "Projection: n_name\n"
            "  Values: rows=0\n");
}

TEST_F(PlanTest, AggregateFiltersOnKeysGoBelowTheAggregate) {
  EXPECT_EQ(Optimized("select n_regionkey, count(*) c from nation group by n_regionkey "
                      "having n_regionkey = 1 and count(*) > 2"),
            "Projection: n_regionkey, count(*) AS c\n"
            "  Filter: count(*) > 2\n"
            "    Aggregate: groupBy=[n_regionkey], aggr=[count(*)]\n"
            "      Filter: n_regionkey = 1\n"
            "        Scan: nation projection=[n_regionkey] predicates=[n_regionkey = 1]\n");
}

TEST_F(PlanTest, GroupingSetFiltersGoBelowOnlyOnKeysOfEverySet) {
  // n_regionkey is in both sets of (n_regionkey), ROLLUP (n_name): the filter goes to the scan.
  std::string every = Optimized(
      "select n_regionkey, n_name, count(*) from nation group by n_regionkey, rollup (n_name) "
      "having n_regionkey = 1");
  EXPECT_NE(every.find("predicates=[n_regionkey = 1]"), std::string::npos) << every;
  // ROLLUP (n_regionkey) has the empty set, where n_regionkey is NULL: the filter stays above.
  std::string rollup = Optimized(
      "select n_regionkey, count(*) from nation group by rollup (n_regionkey) "
      "having n_regionkey = 1");
  EXPECT_EQ(rollup.find("predicates="), std::string::npos) << rollup;
  EXPECT_LT(rollup.find("Filter: n_regionkey = 1"), rollup.find("Aggregate:")) << rollup;
}

TEST_F(PlanTest, PruningKeepsColumnsOfCorrelatedSubqueries) {
  // A correlated subquery under LIMIT is unnested with the domain of p_partkey (a row number per
  // value); p_partkey is read only by it (l_partkey = p_partkey); the part scan must keep it.
  std::string plan = Optimized(
      "select p_name from part where p_retailprice > (select l_extendedprice from "
      "lineitem where l_partkey = p_partkey limit 1)");
  EXPECT_NE(plan.find("Scan: part projection=[p_partkey, p_name, p_retailprice]"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("Window: row_number() OVER (PARTITION BY p_partkey)"), std::string::npos)
      << plan;
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
}

TEST_F(PlanTest, VerboseShowsIdsAndTypes) {
  EXPECT_EQ(Optimized("select n_nationkey * 2 as d from nation", true),
            "Projection: n_nationkey * 2 AS d output=[#4 d: int64 not null] rows=25\n"
            "  Scan: nation projection=[n_nationkey] output=[#0 n_nationkey: int64 not null] "
            "rows=25\n");
}

TEST_F(PlanTest, RepeatedProjectionExpressionIsComputedOnce) {
  std::string plan =
      Optimized("select n_nationkey * 2 + 1 as a, n_nationkey * 2 - 1 as b from nation");
  EXPECT_NE(plan.find("Projection: $cse1 + 1 AS a, $cse1 - 1 AS b"), std::string::npos) << plan;
  EXPECT_NE(plan.find("n_nationkey * 2 AS $cse1"), std::string::npos) << plan;
}

TEST_F(PlanTest, GuardedExpressionsAreNotHoisted) {
  // l_tax / l_discount only runs where l_discount <> 0: computing it for every row below the
  // projection could divide by zero. The guard itself is evaluated for every row and may move.
  std::string plan = Optimized(
      "select case when l_discount <> 0 then l_tax / l_discount end as a, "
      "case when l_discount <> 0 then l_tax / l_discount + 1 end as b, "
      "l_quantity > 1 and l_tax / l_discount > 2 as c, "
      "l_quantity > 1 and l_tax / l_discount > 3 as d from lineitem");
  EXPECT_EQ(plan.find("CAST(l_discount AS double precision) AS"), std::string::npos) << plan;
  EXPECT_NE(plan.find("l_discount <> 0.00 AS $cse1, l_quantity > 1.00 AS $cse2"), std::string::npos)
      << plan;
}

TEST_F(PlanTest, FilteredAggregateArgumentsAreNotHoisted) {
  // An aggregate with FILTER evaluates its argument only on the rows that pass the filter.
  std::string plan = Optimized(
      "select sum(l_tax * 2) filter (where l_discount > 0) as a, sum(l_tax * 2) as b "
      "from lineitem");
  EXPECT_EQ(plan.find("$cse"), std::string::npos) << plan;
  plan = Optimized(
      "select sum(l_tax * 2) as a, max(l_tax * 2) as b, l_returnflag from lineitem "
      "group by l_returnflag");
  EXPECT_NE(plan.find("aggr=[sum($cse1), max($cse1)]"), std::string::npos) << plan;
}

}  // namespace
}  // namespace shoal::sql

// Subplan sharing (optimizer/subplan_sharing.cc) and the cost choice projection pruning makes for
// it: alike subtrees that read a table and join or aggregate it are marked with one number and
// pruned to the same columns when their result is small and their scans are not; everything else
// keeps its own copy, pruned to its own needs.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class SubplanSharingTest : public ::testing::Test {
 protected:
  SubplanSharingTest() : session_(testing::MakeTpchCatalog()) {}

  LogicalPlanPtr Optimized(std::string_view sql) {
    auto bound = BindSql(&session_, sql);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok())
      return nullptr;
    auto plan = OptimizePlan(bound->plan, &session_.column_ids());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? *plan : nullptr;
  }

  // The optimized plan of `sql`, its nodes that carry a shared-subplan number and its scans of
  // `table`, in pre-order.
  struct Found {
    LogicalPlanPtr plan;
    std::vector<const LogicalPlan*> shared;
    std::vector<const LogicalPlan*> scans;
  };

  Found Find(std::string_view sql, const std::string& table) {
    Found found{Optimized(sql), {}, {}};
    if (found.plan != nullptr)
      Collect(*found.plan, table, &found);
    return found;
  }

  Session session_;

 private:
  static void Collect(const LogicalPlan& plan, const std::string& table, Found* found) {
    if (plan.shared_subplan >= 0)
      found->shared.push_back(&plan);
    if (plan.kind == LogicalKind::kScan && plan.table_name == table)
      found->scans.push_back(&plan);
    for (const auto& child : plan.children)
      Collect(*child, table, found);
  }
};

// TPC-H Q11's shape: the main query groups the partsupp x supplier x nation join by part, the
// HAVING subquery sums it whole; only the main query reads ps_partkey.
constexpr const char* kQ11 =
    "SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value "
    "FROM partsupp, supplier, nation "
    "WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY' "
    "GROUP BY ps_partkey HAVING sum(ps_supplycost * ps_availqty) > ("
    "  SELECT sum(ps_supplycost * ps_availqty) * 0.0001 FROM partsupp, supplier, nation "
    "  WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY') "
    "ORDER BY value DESC";

TEST_F(SubplanSharingTest, AJoinReadByTheQueryAndItsSubqueryIsMarkedAndReadsTheUnionOfColumns) {
  const Found found = Find(kQ11, "partsupp");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(shared.size(), 2u) << FormatLogicalPlan(*plan, true);
  EXPECT_EQ(shared[0]->kind, LogicalKind::kJoin);
  EXPECT_EQ(shared[0]->shared_subplan, shared[1]->shared_subplan);
  // The copies produce the same columns in the same order (under their own ids).
  ASSERT_EQ(shared[0]->output.size(), shared[1]->output.size());
  for (size_t i = 0; i < shared[0]->output.size(); ++i) {
    EXPECT_EQ(shared[0]->output[i].name, shared[1]->output[i].name);
    EXPECT_NE(shared[0]->output[i].id, shared[1]->output[i].id);
  }
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0]->projection, scans[1]->projection);
  EXPECT_EQ(scans[0]->projection.size(), 4u)
      << "ps_partkey, ps_suppkey, ps_availqty, ps_supplycost";
}

TEST_F(SubplanSharingTest, WithoutSharingEachCopyReadsOnlyItsOwnColumns) {
  // The subquery's nation filter differs: nothing is alike, and its partsupp scan drops
  // ps_partkey as before.
  std::string sql = kQ11;
  sql.replace(sql.rfind("'GERMANY'"), 9, "'FRANCE'");
  const Found found = Find(sql, "partsupp");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_NE(scans[0]->projection.size(), scans[1]->projection.size());
}

TEST_F(SubplanSharingTest, ALargeResultIsComputedAgainAtEachPlace) {
  // lineitem x orders: 6M rows at SF1, far above what is kept for a second reader.
  const Found found = Find(
      "WITH j AS (SELECT l_quantity, o_orderdate FROM lineitem JOIN orders ON l_orderkey = "
      "o_orderkey) SELECT (SELECT sum(l_quantity) FROM j), (SELECT max(o_orderdate) FROM j)",
      "lineitem");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_NE(scans[0]->projection, scans[1]->projection) << "each copy reads its own columns";
}

TEST_F(SubplanSharingTest, ASmallInputIsReadAgain) {
  // nation x region (TPC-H Q2's): 30 rows read; sharing would cost more than it saves.
  const Found found = Find(
      "WITH e AS (SELECT n_nationkey, n_name FROM nation JOIN region ON n_regionkey = "
      "r_regionkey WHERE r_name = 'EUROPE') SELECT (SELECT count(*) FROM e), (SELECT max(n_name) "
      "FROM e)",
      "nation");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
}

TEST_F(SubplanSharingTest, AFilteredScanIsReadAgain) {
  // TPC-H Q21's l1 / l3 shape: the same filtered lineitem twice, no join or aggregation inside
  // the alike part. Each copy keeps its scan and so its own runtime join filters.
  const Found found = Find(
      "WITH late AS (SELECT l_orderkey, l_suppkey FROM lineitem WHERE l_receiptdate > "
      "l_commitdate) SELECT count(*) FROM late a JOIN late b ON a.l_orderkey = b.l_orderkey",
      "lineitem");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
  EXPECT_EQ(scans.size(), 2u);
}

TEST_F(SubplanSharingTest, ASelfJoinOfAnAggregatedCteSharesItWithBothSidesAlike) {
  const Found found = Find(
      "WITH r AS (SELECT l_suppkey, sum(l_extendedprice) AS revenue FROM lineitem GROUP BY "
      "l_suppkey) SELECT a.l_suppkey FROM r a JOIN r b ON a.revenue = b.revenue AND a.l_suppkey "
      "<> b.l_suppkey",
      "lineitem");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(shared.size(), 2u) << FormatLogicalPlan(*plan, true);
  EXPECT_EQ(shared[0]->shared_subplan, shared[1]->shared_subplan);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0]->projection, scans[1]->projection);
}

// Scalar subqueries over one table with other aggregates and WHERE clauses: one group of three
// copies, each computing all three aggregates (under FILTERs) over the same scan.
TEST_F(SubplanSharingTest, ScalarSubqueriesOverOneTableComputeAllTheirAggregatesOnce) {
  const Found found = Find(
      "SELECT (SELECT count(*) FROM lineitem WHERE l_quantity < 10), "
      "(SELECT sum(l_extendedprice) FROM lineitem WHERE l_quantity > 40), "
      "(SELECT max(l_shipdate) FROM lineitem)",
      "lineitem");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(shared.size(), 3u) << FormatLogicalPlan(*plan, true);
  for (const LogicalPlan* copy : shared) {
    EXPECT_EQ(copy->kind, LogicalKind::kAggregate);
    EXPECT_EQ(copy->shared_subplan, shared[0]->shared_subplan);
    ASSERT_EQ(copy->aggregates.size(), 3u) << FormatLogicalPlan(*copy, true);
    EXPECT_NE(copy->aggregates[0]->filter, nullptr) << "count(*) keeps its WHERE as a FILTER";
    EXPECT_NE(copy->aggregates[1]->filter, nullptr);
    EXPECT_EQ(copy->aggregates[2]->filter, nullptr) << "max() had no WHERE";
  }
  ASSERT_EQ(scans.size(), 3u);
  EXPECT_EQ(scans[0]->projection, scans[1]->projection);
  EXPECT_EQ(scans[0]->projection, scans[2]->projection);
  // The third subquery reads every row, so no pruning hint of the others may stay.
  EXPECT_TRUE(scans[0]->pushed_predicates.empty());
}

TEST_F(SubplanSharingTest, ScalarSubqueriesOverASmallTableAreNotMerged) {
  // nation's 25 rows: a wider filter and FILTERs would cost more than reading it twice.
  const Found found = Find(
      "SELECT (SELECT count(*) FROM nation WHERE n_regionkey = 1), "
      "(SELECT max(n_name) FROM nation WHERE n_regionkey = 2)",
      "nation");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
  ASSERT_EQ(scans.size(), 2u);
  // Each subquery keeps its own WHERE, not a FILTER under the OR of both.
  const std::string text = FormatLogicalPlan(*plan);
  EXPECT_EQ(text.find("FILTER"), std::string::npos) << text;
  EXPECT_EQ(text.find(" OR "), std::string::npos) << text;
}

TEST_F(SubplanSharingTest, DistinctAggregatesUnderOtherWheresAreNotMerged) {
  const Found found = Find(
      "SELECT (SELECT count(DISTINCT l_suppkey) FROM lineitem WHERE l_quantity < 10), "
      "(SELECT count(*) FROM lineitem WHERE l_quantity > 40)",
      "lineitem");
  const auto& [plan, shared, scans] = found;
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(shared.empty()) << FormatLogicalPlan(*plan, true);
}

TEST_F(SubplanSharingTest, OptimizingAgainGivesTheSameNumbers) {
  LogicalPlanPtr once = Optimized(kQ11);
  ASSERT_NE(once, nullptr);
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr twice, OptimizePlan(once, &session_.column_ids()));
  EXPECT_EQ(FormatLogicalPlan(*twice, true), FormatLogicalPlan(*once, true));
}

}  // namespace
}  // namespace shoal::sql

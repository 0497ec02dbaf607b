// Cardinality estimates and join ordering over the TPC-H catalog (SF 1 statistics).
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class JoinOrderTest : public ::testing::Test {
 protected:
  JoinOrderTest() : session_(testing::MakeTpchCatalog()) {}

  LogicalPlanPtr Optimized(std::string_view sql) {
    auto bound = BindSql(&session_, sql);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok())
      return nullptr;
    auto plan = OptimizePlan(bound->plan, &session_.column_ids());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? *plan : nullptr;
  }

  Session session_;
};

const LogicalPlan* FindKind(const LogicalPlan& plan, LogicalKind kind) {
  if (plan.kind == kind)
    return &plan;
  for (const auto& c : plan.children) {
    if (const LogicalPlan* found = FindKind(*c, kind))
      return found;
  }
  return nullptr;
}

void CollectJoins(const LogicalPlan& plan, std::vector<const LogicalPlan*>* out) {
  if (plan.kind == LogicalKind::kJoin)
    out->push_back(&plan);
  for (const auto& c : plan.children)
    CollectJoins(*c, out);
}

TEST_F(JoinOrderTest, EstimatesUseStatistics) {
  // 25 nations, 5 distinct region keys: n_regionkey = 1 keeps 5.
  auto plan = Optimized("select n_name from nation where n_regionkey = 1");
  ASSERT_NE(plan, nullptr);
  EXPECT_DOUBLE_EQ(FindKind(*plan, LogicalKind::kScan)->estimated_rows, 25);
  EXPECT_DOUBLE_EQ(FindKind(*plan, LogicalKind::kFilter)->estimated_rows, 5);
  // A range over o_orderdate (1992-01-01 .. 1998-08-02) interpolates: about a seventh per year.
  plan = Optimized("select o_orderkey from orders where o_orderdate < date '1993-01-01'");
  ASSERT_NE(plan, nullptr);
  double rows = FindKind(*plan, LogicalKind::kFilter)->estimated_rows;
  EXPECT_GT(rows, 200000);
  EXPECT_LT(rows, 250000);
  // Equi-join: 1 / max(distinct keys). orders x customer on the customer key gives ~ orders.
  plan = Optimized("select o_orderkey from orders, customer where o_custkey = c_custkey");
  ASSERT_NE(plan, nullptr);
  EXPECT_NEAR(FindKind(*plan, LogicalKind::kJoin)->estimated_rows, 1500000, 1);
}

TEST_F(JoinOrderTest, ReorderingAvoidsCrossJoinsOfTheFromOrder) {
  // part and supplier come first in FROM but share no condition; partsupp connects them.
  auto plan = Optimized(
      "select count(*) from part, supplier, partsupp where p_partkey = ps_partkey and "
      "s_suppkey = ps_suppkey and p_size = 15");
  ASSERT_NE(plan, nullptr);
  std::vector<const LogicalPlan*> joins;
  CollectJoins(*plan, &joins);
  ASSERT_EQ(joins.size(), 2u) << FormatLogicalPlan(*plan);
  for (const auto* j : joins) {
    EXPECT_FALSE(j->left_keys.empty()) << FormatLogicalPlan(*plan);
    // The hash table is built from the right input: it is the smaller one.
    EXPECT_LE(j->children[1]->estimated_rows, j->children[0]->estimated_rows)
        << FormatLogicalPlan(*plan, true);
  }
}

TEST_F(JoinOrderTest, TransitiveEqualitiesConnectRelations) {
  // p_partkey = l_partkey and l_partkey = ps_partkey imply p_partkey = ps_partkey: part and
  // partsupp (both smaller than lineitem) may be joined first.
  auto plan = Optimized(
      "select count(*) from lineitem, part, partsupp where p_partkey = l_partkey and "
      "l_partkey = ps_partkey and p_name like 'x%'");
  ASSERT_NE(plan, nullptr);
  std::string text = FormatLogicalPlan(*plan);
  EXPECT_NE(text.find("keys=[ps_partkey = p_partkey]"), std::string::npos) << text;
  EXPECT_EQ(text.find("CrossJoin"), std::string::npos) << text;
}

TEST_F(JoinOrderTest, UnconnectedRelationsStillCrossJoin) {
  auto plan = Optimized("select n_name, r_name from nation, region");
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(FormatLogicalPlan(*plan).find("CrossJoin"), std::string::npos);
}

TEST_F(JoinOrderTest, SelectStarKeepsTheColumnOrder) {
  auto plan = Optimized("select * from region, nation where n_regionkey = r_regionkey");
  ASSERT_NE(plan, nullptr);
  std::vector<std::string> names;
  for (const auto& c : plan->output)
    names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"r_regionkey", "r_name", "r_comment", "n_nationkey",
                                             "n_name", "n_regionkey", "n_comment"}));
}

// A comma join of `n` aliases of nation with the given WHERE text; `edge(i)` gives the equality
// of edge i (chain, star and cycle shapes over 20 relations, as in SQLite's select5).
std::string ManyTableJoin(int n, const std::function<std::string(int)>& edge, int edges) {
  std::string sql = "select count(*) from ";
  for (int i = 0; i < n; ++i)
    sql += (i ? ", nation t" : "nation t") + std::to_string(i);
  sql += " where ";
  for (int i = 0; i < edges; ++i)
    sql += (i ? " and " : "") + edge(i);
  return sql;
}

void ExpectNoCrossJoinAndBoundedSearch(const LogicalPlanPtr& plan, int n) {
  ASSERT_NE(plan, nullptr);
  std::string text = FormatLogicalPlan(*plan);
  EXPECT_EQ(text.find("CrossJoin"), std::string::npos) << text;
  std::vector<const LogicalPlan*> joins;
  CollectJoins(*plan, &joins);
  EXPECT_EQ(joins.size(), static_cast<size_t>(n - 1)) << text;
  for (const auto* j : joins)
    EXPECT_FALSE(j->left_keys.empty()) << text;
  // Greedy ordering costs at most n^3 / 6 pairs; a search over all orders would cost ~3^n.
  optimizer::JoinOrderingStats stats;
  auto again = optimizer::ReorderJoins(plan, &stats);
  ASSERT_NE(again, nullptr);
  EXPECT_LE(stats.pairs_costed, static_cast<uint64_t>(n * n * n / 6)) << stats.pairs_costed;
  EXPECT_EQ(FormatLogicalPlan(*again).find("CrossJoin"), std::string::npos);
}

TEST_F(JoinOrderTest, TwentyTableChainStarAndCycleJoinWithoutCrossProducts) {
  constexpr int n = 20;
  auto chain = [](int i) {
    return "t" + std::to_string(i) + ".n_regionkey = t" + std::to_string(i + 1) + ".n_nationkey";
  };
  ExpectNoCrossJoinAndBoundedSearch(Optimized(ManyTableJoin(n, chain, n - 1)), n);
  auto star = [](int i) {
    return "t0.n_nationkey + " + std::to_string(i) + " = t" + std::to_string(i + 1) +
           ".n_regionkey";
  };
  ExpectNoCrossJoinAndBoundedSearch(Optimized(ManyTableJoin(n, star, n - 1)), n);
  auto cycle = [&](int i) {
    return i == n - 1 ? std::string("t19.n_regionkey = t0.n_nationkey") : chain(i);
  };
  ExpectNoCrossJoinAndBoundedSearch(Optimized(ManyTableJoin(n, cycle, n)), n);
  // In reverse FROM order too: the order of FROM must not matter.
  auto backwards = [](int i) {
    return "t" + std::to_string(19 - i) + ".n_regionkey = t" + std::to_string(18 - i) +
           ".n_nationkey";
  };
  ExpectNoCrossJoinAndBoundedSearch(Optimized(ManyTableJoin(n, backwards, n - 1)), n);
}

TEST_F(JoinOrderTest, TwelveTablesUseTheExhaustiveSearchOverConnectedSubsets) {
  constexpr int n = 12;
  auto chain = [](int i) {
    return "t" + std::to_string(i) + ".n_regionkey = t" + std::to_string(i + 1) + ".n_nationkey";
  };
  auto plan = Optimized(ManyTableJoin(n, chain, n - 1));
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(FormatLogicalPlan(*plan).find("CrossJoin"), std::string::npos);
  optimizer::JoinOrderingStats stats;
  optimizer::ReorderJoins(plan, &stats);
  // A chain of n has (n^3 - n) / 6 connected pairs of connected subsets.
  EXPECT_LE(stats.pairs_costed, static_cast<uint64_t>((n * n * n - n) / 6));
  EXPECT_GT(stats.pairs_costed, 0u);
}

}  // namespace
}  // namespace shoal::sql

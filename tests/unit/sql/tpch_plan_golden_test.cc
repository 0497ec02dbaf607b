// The optimized logical plan of every TPC-H query against golden files in tests/data/tpch/plans
// (regenerate them with SHOAL_UPDATE_GOLDEN=1 and review the diff), plus the properties every
// TPC-H plan must have whatever the golden text says: no subquery left, no cross join, every
// equality between the two sides of a join used as a hash key, and row estimates on every node.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"
#include "tests/support/golden_file.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string QueryPath(int n) {
  return fmt::format("{}/q{:02d}.sql", SHOAL_TPCH_QUERY_DIR, n);
}

std::string GoldenPath(int n) {
  return fmt::format("{}/q{:02d}.txt", SHOAL_TPCH_PLAN_DIR, n);
}

Result<LogicalPlanPtr> OptimizedQuery(int n) {
  Session session(testing::MakeTpchCatalog());
  SHOAL_ASSIGN_OR_RETURN(BoundStatement bound, BindSql(&session, ReadFile(QueryPath(n))));
  return OptimizePlan(bound.plan, &session.column_ids());
}

class TpchPlanTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchPlanTest, MatchesGoldenPlan) {
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr plan, OptimizedQuery(GetParam()));
  EXPECT_TRUE(shoal::testing::MatchesGoldenFile(FormatLogicalPlan(*plan), GoldenPath(GetParam())))
      << "plan of q" << GetParam();
}

/// Every violation of the TPC-H plan properties, one line each.
void CheckPlan(const LogicalPlan& plan, std::vector<std::string>* problems) {
  auto line = [&plan] { return FormatLogicalPlan(plan).substr(0, 200); };
  auto check_expr = [&](const ExprPtr& e) {
    VisitExpr(e, [&](const Expr& x) {
      if (x.kind == ExprKind::kSubquery)
        problems->push_back("subquery left in: " + line());
    });
  };
  optimizer::MapNodeExprs(plan, [&](const ExprPtr& e) {
    check_expr(e);
    return e;
  });
  if (plan.estimated_rows < 0)
    problems->push_back("no row estimate: " + line());
  if (plan.kind == LogicalKind::kJoin) {
    const LogicalPlan& left = *plan.children[0];
    const LogicalPlan& right = *plan.children[1];
    if (plan.left_keys.empty()) {
      // Only the single-row join of an uncorrelated scalar subquery may go without keys.
      bool single_row = plan.join_type == JoinType::kLeft && right.estimated_rows <= 1;
      if (!single_row)
        problems->push_back("join without keys: " + line());
    }
    auto within = [](const std::set<ColumnId>& cols, const LogicalPlan& side) {
      auto ids = optimizer::OutputIds(side);
      for (ColumnId id : cols) {
        if (ids.count(id) == 0)
          return false;
      }
      return !cols.empty();
    };
    for (const auto& c : optimizer::SplitConjunction(plan.predicate)) {
      if (c->kind != ExprKind::kCall || c->name != "=" || c->args.size() != 2)
        continue;
      auto a = optimizer::ExprColumns(c->args[0]);
      auto b = optimizer::ExprColumns(c->args[1]);
      if ((within(a, left) && within(b, right)) || (within(a, right) && within(b, left)))
        problems->push_back("equality not used as a key: " + c->ToString());
    }
  }
  for (const auto& child : plan.children)
    CheckPlan(*child, problems);
}

TEST_P(TpchPlanTest, HashJoinsOnlyAndNoSubqueries) {
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr plan, OptimizedQuery(GetParam()));
  std::vector<std::string> problems;
  CheckPlan(*plan, &problems);
  std::string all;
  for (const auto& p : problems)
    all += p + "\n";
  EXPECT_TRUE(problems.empty()) << all << FormatLogicalPlan(*plan, true);
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchPlanTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return fmt::format("q{:02d}", info.param);
                         });

// The property check itself must be able to fail: a plan with a subquery, a cross join and an
// equality left in a residual condition trips all three.
TEST(TpchPlanPropertiesTest, CheckCatchesViolations) {
  Session session(testing::MakeTpchCatalog());
  ASSERT_OK_AND_ASSIGN(BoundStatement bound,
                       BindSql(&session,
                               "select n_name from nation, region where n_regionkey + 0 = "
                               "r_regionkey + 0 and exists (select 1 from supplier)"));
  std::vector<std::string> problems;
  CheckPlan(*bound.plan, &problems);
  std::string all;
  for (const auto& p : problems)
    all += p + "\n";
  EXPECT_NE(all.find("subquery left in"), std::string::npos) << all;
  EXPECT_NE(all.find("join without keys"), std::string::npos) << all;
  EXPECT_NE(all.find("no row estimate"), std::string::npos) << all;

  auto n = bound.plan;
  while (n->kind != LogicalKind::kJoin)
    n = n->children[0];
  auto residual = n->Clone();
  residual->predicate = MakeCall("=",
                                 {optimizer::MakeRef(n->children[0]->output[0]),
                                  optimizer::MakeRef(n->children[1]->output[0])},
                                 DataType::Boolean(), false);
  problems.clear();
  CheckPlan(*residual, &problems);
  all.clear();
  for (const auto& p : problems)
    all += p + "\n";
  EXPECT_NE(all.find("equality not used as a key"), std::string::npos) << all;
}

}  // namespace
}  // namespace shoal::sql

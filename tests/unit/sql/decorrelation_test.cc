// Subquery decorrelation, outer join simplification and disjunction factoring, on small tables
// with nullable and non-nullable columns so that the NULL rules of each rewrite show:
//   t(a int64 NULL, b int64 NOT NULL), u(x int64 NULL, y int64 NOT NULL)
#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

std::shared_ptr<Catalog> MakeCatalog() {
  using columnar::DataType;
  using columnar::Field;
  auto catalog = std::make_shared<Catalog>();
  auto add = [&](const char* name, std::vector<Field> fields, int64_t rows) {
    auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
    io::TableStatistics stats;
    stats.num_rows = rows;
    auto status =
        catalog->RegisterTable(name, std::make_shared<testing::SchemaOnlyProvider>(schema, stats));
    (void)status;
  };
  add("t", {{"a", DataType::Int64(), true}, {"b", DataType::Int64(), false}}, 1000);
  add("u", {{"x", DataType::Int64(), true}, {"y", DataType::Int64(), false}}, 100);
  return catalog;
}

class DecorrelationTest : public ::testing::Test {
 protected:
  DecorrelationTest() : session_(MakeCatalog()) {}

  std::string Optimized(std::string_view sql) {
    auto bound = BindSql(&session_, sql);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok())
      return "";
    auto plan = OptimizePlan(bound->plan, &session_.column_ids());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    if (!plan.ok())
      return "";
    // The rewrites must keep the statement's result columns.
    EXPECT_EQ((*plan)->output.size(), bound->plan->output.size());
    for (size_t i = 0; i < (*plan)->output.size() && i < bound->plan->output.size(); ++i)
      EXPECT_EQ((*plan)->output[i].id, bound->plan->output[i].id);
    return FormatLogicalPlan(**plan);
  }

  Session session_;
};

TEST_F(DecorrelationTest, ExistsBecomesSemiJoinOnTheCorrelatedEquality) {
  EXPECT_EQ(Optimized("select b from t where exists (select * from u where u.y = t.b and u.x > 3)"),
            "Projection: b\n"
            "  SemiJoin: keys=[b = y]\n"
            "    Scan: t projection=[b]\n"
            "    Projection: y\n"
            "      Filter: x > 3\n"
            "        Scan: u projection=[x, y] predicates=[x > 3]\n");
}

TEST_F(DecorrelationTest, NotExistsBecomesAntiJoinWithResidualForNonEqualities) {
  EXPECT_EQ(Optimized("select b from t where not exists (select * from u where u.y = t.b and "
                      "u.x <> t.a)"),
            "Projection: b\n"
            "  AntiJoin: keys=[b = y], filter=x <> a\n"
            "    Scan: t projection=[a, b]\n"
            "    Projection: y, x\n"
            "      Scan: u projection=[x, y]\n");
}

TEST_F(DecorrelationTest, InBecomesSemiJoin) {
  EXPECT_EQ(Optimized("select b from t where a in (select x from u)"),
            "Projection: b\n"
            "  SemiJoin: keys=[a = x]\n"
            "    Scan: t projection=[a, b]\n"
            "    Projection: x\n"
            "      Scan: u projection=[x]\n");
}

TEST_F(DecorrelationTest, NotInKeepsNullSemantics) {
  // x can be NULL: one NULL in the subquery makes NOT IN NULL for every row, and a NULL a is
  // never NOT IN a non-empty set. Only the null-aware anti join does that.
  EXPECT_NE(Optimized("select b from t where a not in (select x from u)")
                .find("NullAwareAntiJoin: keys=[a = x]"),
            std::string::npos);
  EXPECT_NE(Optimized("select b from t where b not in (select x from u)")
                .find("NullAwareAntiJoin: keys=[b = x]"),
            std::string::npos);
  EXPECT_NE(Optimized("select b from t where a not in (select y from u)")
                .find("NullAwareAntiJoin: keys=[a = y]"),
            std::string::npos);
  // Neither side can be NULL: NOT IN is NOT EXISTS, a plain anti join.
  EXPECT_EQ(Optimized("select b from t where b not in (select y from u)"),
            "Projection: b\n"
            "  AntiJoin: keys=[b = y]\n"
            "    Scan: t projection=[b]\n"
            "    Projection: y\n"
            "      Scan: u projection=[y]\n");
  // <> ALL is NOT IN.
  EXPECT_NE(Optimized("select b from t where a <> all (select x from u)")
                .find("NullAwareAntiJoin: keys=[a = x]"),
            std::string::npos);
}

TEST_F(DecorrelationTest, CorrelatedNotInOverNullableColumnsIsAnAntiJoinOnNotFalse) {
  // The NULL rule per correlation value: an outer row goes when one of its rows compares TRUE or
  // NULL, i.e. not FALSE.
  std::string plan = Optimized("select b from t where a not in (select x from u where u.y = t.b)");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("AntiJoin: keys=[b = y], filter=is_not_false(a = x)"), std::string::npos)
      << plan;
}

TEST_F(DecorrelationTest, CorrelatedInInsideADisjunctionIsTwoMarks) {
  // TRUE when a row compares TRUE, NULL when one compares NULL, else FALSE.
  std::string plan =
      Optimized("select b from t where a in (select x from u where u.y = t.b) or b = 1");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("MarkJoin: keys=[a = x, b = y]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("MarkJoin: keys=[b = y], filter=(a = x) IS NULL"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, NonEqualityCorrelationUnderAnAggregateJoinsTheDomain) {
  // count(*) per distinct outer value a, computed over the pairs with u.x < a; outer rows whose
  // value no u row reaches still count 0.
  std::string plan = Optimized("select b, (select count(*) from u where u.x < t.a) from t");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Distinct"), std::string::npos) << plan;
  EXPECT_NE(plan.find("filter=x < "), std::string::npos) << plan;
  EXPECT_EQ(plan.find("scalar_subquery_check"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, ExistsWithNonEqualityInsideADisjunctionIsANestedLoopMark) {
  std::string plan =
      Optimized("select b from t where exists (select * from u where u.x < t.a) or b = 1");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("MarkJoin: filter=x < a"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, InInsideADisjunctionBecomesAMarkJoin) {
  std::string plan = Optimized("select b from t where a in (select x from u) or b = 1");
  EXPECT_NE(plan.find("Filter: mark OR (b = 1)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("MarkJoin: keys=[a = x] mark=#"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, ExistsInAProjectionIsAMarkThatIsNeverNull) {
  std::string plan = Optimized("select b, exists (select * from u where u.y = t.b) from t");
  EXPECT_NE(plan.find("Projection: b, coalesce(mark, false)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("MarkJoin: keys=[b = y]"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, ComparisonsWithAnyAndAll) {
  std::string any = Optimized("select b from t where a > any (select x from u)");
  EXPECT_NE(any.find("SemiJoin: filter=a > x"), std::string::npos) << any;
  // ALL: no row of u may make the comparison FALSE or NULL.
  std::string all = Optimized("select b from t where a > all (select x from u)");
  EXPECT_NE(all.find("AntiJoin: filter=NOT ((a > x) IS TRUE)"), std::string::npos) << all;
}

TEST_F(DecorrelationTest, CorrelatedCountKeepsZeroForOuterRowsWithoutMatches) {
  // For a t row without u rows, the subquery counts zero rows: 0, not the NULL a left join gives.
  EXPECT_EQ(Optimized("select b, (select count(*) from u where u.y = t.b) as c from t"),
            "Projection: b, CASE WHEN y IS NULL THEN 0 ELSE count END AS c\n"
            "  LeftJoin: keys=[b = y]\n"
            "    Scan: t projection=[b]\n"
            "    Projection: count(*) AS count, y\n"
            "      Aggregate: groupBy=[y], aggr=[count(*)]\n"
            "        Scan: u projection=[y]\n");
  // COUNT under arithmetic: the empty-group value is computed from 0 (and folded).
  std::string plus = Optimized("select b, (select count(x) + 1 from u where u.y = t.b) from t");
  EXPECT_NE(plus.find("CASE WHEN y IS NULL THEN 1 ELSE"), std::string::npos) << plus;
}

TEST_F(DecorrelationTest, CorrelatedSumIsNullForOuterRowsWithoutMatches) {
  // SUM over no rows is NULL, exactly what the left join yields: no CASE needed.
  EXPECT_EQ(Optimized("select b from t where a > (select sum(x) from u where u.y = t.b)"),
            "Projection: b\n"
            "  InnerJoin: keys=[b = y], filter=a > sum\n"
            "    Scan: t projection=[a, b]\n"
            "    Projection: sum(x) AS sum, y\n"
            "      Aggregate: groupBy=[y], aggr=[sum(x)]\n"
            "        Scan: u projection=[x, y]\n");
}

TEST_F(DecorrelationTest, UncorrelatedScalarSubqueryIsASingleRowLeftJoin) {
  // An empty subquery result must give NULL, so the join stays a left join (without keys: the
  // right side is one row).
  EXPECT_EQ(Optimized("select b from t where a > (select max(x) from u)"),
            "Projection: b\n"
            "  Filter: a > max\n"
            "    LeftJoin\n"
            "      Scan: t projection=[a, b]\n"
            "      Projection: max(x) AS max\n"
            "        Aggregate: groupBy=[], aggr=[max(x)]\n"
            "          Scan: u projection=[x]\n");
}

TEST_F(DecorrelationTest, CorrelatedScalarSubqueryWithoutAggregateIsCheckedPerKey) {
  // Several u rows for one b must raise 21000: the rows are counted per correlation key (which
  // also keeps the join from duplicating t rows) and the check reads the count.
  std::string plan = Optimized("select b, (select x from u where u.y = t.b) from t");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("scalar_subquery_check("), std::string::npos) << plan;
  EXPECT_NE(plan.find("Aggregate: groupBy=[y], aggr=[count(*), min(x)]"), std::string::npos)
      << plan;
}

TEST_F(DecorrelationTest, UncorrelatedScalarSubqueryIsCheckedOnlyWhenItMayReturnSeveralRows) {
  std::string checked = Optimized("select b, (select x from u) from t");
  EXPECT_NE(checked.find("scalar_subquery_check("), std::string::npos) << checked;
  for (const char* single :
       {"select b, (select x from u limit 1) from t", "select b, (select max(x) from u) from t",
        "select b, (select 1) from t"}) {
    std::string plan = Optimized(single);
    EXPECT_EQ(plan.find("scalar_subquery_check"), std::string::npos) << plan;
  }
}

TEST_F(DecorrelationTest, CorrelationInsideEveryOrBranchIsFactoredOut) {
  std::string plan = Optimized(
      "select b from t where (select count(*) from u where (u.y = t.b and u.x = 1) or (u.y = t.b "
      "and u.x = 2)) > 0");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("keys=[b = y]"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, NestedCorrelatedSubqueries) {
  // The inner subquery refers to u (one level out); once it is a join inside the middle query,
  // the middle query becomes a semi join of t.
  std::string plan = Optimized(
      "select b from t where b in (select y from u where u.x > (select count(*) from t t2 where "
      "t2.b = u.y))");
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  EXPECT_NE(plan.find("SemiJoin: keys=[b = y]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("LeftJoin: keys=[y = b]"), std::string::npos) << plan;
}

TEST_F(DecorrelationTest, OuterJoinBecomesInnerWhenAFilterRejectsItsNulls) {
  auto expect_join = [this](std::string_view sql, std::string_view join) {
    std::string plan = Optimized(sql);
    EXPECT_NE(plan.find(join), std::string::npos) << sql << "\n" << plan;
  };
  expect_join("select b from t left join u on t.a = u.x where u.y > 5", "InnerJoin: keys=[a = x]");
  // IS NULL keeps exactly the NULL-extended rows.
  expect_join("select b from t left join u on t.a = u.x where u.y is null",
              "LeftJoin: keys=[a = x]");
  // A disjunction with a branch on the preserved side lets NULL-extended rows through.
  expect_join("select b from t left join u on t.a = u.x where t.b > 5 or u.y > 5",
              "LeftJoin: keys=[a = x]");
  expect_join("select b from t full join u on t.a = u.x where t.b > 5", "LeftJoin: keys=[a = x]");
  expect_join("select b from t full join u on t.a = u.x where t.b > 5 and u.y > 5",
              "InnerJoin: keys=[a = x]");
}

TEST_F(DecorrelationTest, SharedConjunctsOfADisjunctionBecomeJoinKeys) {
  EXPECT_EQ(
      Optimized("select b from t, u where (t.a = u.x and t.b = 1) or (t.a = u.x and u.y = 2)"),
      "Projection: b\n"
      "  InnerJoin: keys=[a = x], filter=(b = 1) OR (y = 2)\n"
      "    Scan: t projection=[a, b]\n"
      "    Scan: u projection=[x, y]\n");
}

// A correlated WITH RECURSIVE runs once per domain value: the working table carries the domain
// column, which the recursive term reads (here in its filter) instead of the outer reference.
TEST_F(DecorrelationTest, CorrelatedRecursiveCteCarriesTheDomainThroughItsWorkingTable) {
  const std::string plan = Optimized(
      "select b, (with recursive r(n) as (select 1 union all select n + 1 from r where n < t.b) "
      "select count(*) from r) from t");
  EXPECT_NE(plan.find("RecursiveCte"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Subquery"), std::string::npos) << plan;
  // The recursive term's filter compares n with the domain column the working table carries.
  EXPECT_NE(plan.find("Filter: CAST(n AS bigint) < b\n"
                      "                    WorkingTable:"),
            std::string::npos)
      << plan;
}

}  // namespace
}  // namespace shoal::sql

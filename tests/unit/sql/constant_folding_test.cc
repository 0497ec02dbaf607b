// Constant folding of strict calls with a NULL constant argument (PostgreSQL's
// eval_const_expressions rule) and of date-versus-timestamp-constant comparisons, on plans over the
// TPC-H schema.
#include <gtest/gtest.h>

#include "shoal/sql/binder.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal::sql {
namespace {

class ConstantFoldingTest : public ::testing::Test {
 protected:
  ConstantFoldingTest() : session_(testing::MakeTpchCatalog()) {}

  std::string Optimized(std::string_view sql) {
    auto bound = BindSql(&session_, sql);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok())
      return "";
    auto plan = OptimizePlan(bound->plan, &session_.column_ids());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? FormatLogicalPlan(**plan) : "";
  }

  Session session_;
};

TEST(StrictFunctions, EveryCallIsStrictButLogicNullTestsAndConditionals) {
  for (const char* name : {"+", "*", "/", "=", "<", "negate", "not", "like", "in", "substring",
                           "round", "extract", "||", "upper"})
    EXPECT_TRUE(optimizer::IsStrictFunction(name)) << name;
  for (const char* name :
       {"and", "or", "is_null", "is_not_null", "is_true", "is_false", "is_distinct_from",
        "is_not_distinct_from", "coalesce", "nullif", "greatest", "least", "concat"})
    EXPECT_FALSE(optimizer::IsStrictFunction(name)) << name;
}

TEST_F(ConstantFoldingTest, StrictCallOfNullIsNullWithoutItsOtherArguments) {
  // a*a = NULL, BETWEEN NULL AND NULL, NULL IN (...): the filter is never true, nothing is read.
  for (const char* where :
       {"n_nationkey * n_nationkey = NULL", "n_nationkey * n_nationkey NOT BETWEEN NULL AND NULL",
        "NULL IN (n_nationkey / n_regionkey)", "length(NULL) > n_nationkey / 0",
        "NULL < n_nationkey OR n_regionkey > NULL"}) {
    EXPECT_EQ(Optimized(std::string("select n_name from nation where ") + where),
              "Projection: n_name\n"
              "  Values: rows=0\n")
        << where;
  }
  // In the select list the call becomes a NULL constant.
  std::string plan = Optimized("select n_nationkey / 0 + NULL from nation");
  EXPECT_EQ(plan.find("/"), std::string::npos) << plan;
}

TEST_F(ConstantFoldingTest, NonStrictCallsKeepTheirArguments) {
  // IN with a NULL in its list, COALESCE and CASE still evaluate the rest.
  for (const char* where : {"n_nationkey IN (NULL, 1)", "coalesce(NULL, n_nationkey) = 1",
                            "CASE WHEN n_nationkey = 1 THEN NULL ELSE true END"}) {
    std::string plan = Optimized(std::string("select n_name from nation where ") + where);
    EXPECT_EQ(plan.find("Values: rows=0"), std::string::npos) << where << "\n" << plan;
    EXPECT_NE(plan.find("n_nationkey"), std::string::npos) << where << "\n" << plan;
  }
}

TEST_F(ConstantFoldingTest, DateAgainstTimestampConstantComparesDates) {
  // date + interval is a timestamp; compared with a date column it still reaches the scan as a
  // date predicate (midnight: the same date; otherwise the bound moves to the date before).
  EXPECT_EQ(Optimized("select l_orderkey from lineitem where l_shipdate < date '1995-03-01' + "
                      "interval '1 month' and l_commitdate >= date '1995-03-01' + interval '36 "
                      "hours'"),
            "Projection: l_orderkey\n"
            "  Filter: (l_shipdate < DATE '1995-04-01') AND (l_commitdate > DATE '1995-03-02')\n"
            "    Scan: lineitem projection=[l_orderkey, l_shipdate, l_commitdate] "
            "predicates=[l_shipdate < DATE '1995-04-01', l_commitdate > DATE '1995-03-02']\n");
}

}  // namespace
}  // namespace shoal::sql

namespace shoal::sql {
namespace {

// A rule with nothing to change on a plan gives the same plan back, not a copy of every node:
// every statement passes through every rule, and most change nothing (`SELECT 1`, or a filter
// with no constant to fold, no OR to factor and no subquery).
TEST_F(ConstantFoldingTest, RulesThatChangeNothingCopyNothing) {
  for (const char* sql :
       {"select 1", "select n_name from nation where n_nationkey > n_regionkey order by 1",
        "select n_regionkey, count(*) from nation group by n_regionkey"}) {
    auto bound = BindSql(&session_, sql);
    ASSERT_TRUE(bound.ok()) << bound.status().ToString();
    optimizer::OptimizerContext context;
    context.column_ids = &session_.column_ids();
    for (auto make : {optimizer::MakeConstantFoldingRule, optimizer::MakeDisjunctionFactoringRule,
                      optimizer::MakeSubqueryDecorrelationRule}) {
      auto rule = make();
      auto out = rule->Apply(bound->plan, context);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(out->get(), bound->plan.get()) << sql << ": " << rule->name();
    }
  }
}

}  // namespace
}  // namespace shoal::sql

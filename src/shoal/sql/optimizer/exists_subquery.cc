// EXISTS / NOT EXISTS subqueries as joins (see decorrelation.h). As a whole conjunct of a filter,
// EXISTS keeps the outer rows with a match (semi join) and NOT EXISTS those without (anti join);
// the correlated equalities are the join keys, other correlated conjuncts its residual condition.
// Anywhere else (under OR, NOT of a larger expression, a select-list item) the join adds a mark
// column. EXISTS is never NULL, so the mark is read through coalesce(mark, false): a NULL
// correlation value simply finds no match. A correlation the pull-up cannot handle is unnested
// with the domain (domain_unnesting.cc) and joined on it.
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

std::optional<SubqueryRewrite> RewriteExistsSubquery(const LogicalPlanPtr& input,
                                                     const Expr& subquery, bool negated,
                                                     bool top_level, ColumnIdSource& ids) {
  auto pulled = Decorrelate(subquery.subquery, input, ids);
  if (!pulled)
    return std::nullopt;
  JoinCondition condition =
      SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
  if (top_level) {
    return SubqueryRewrite{MakeJoinNode(negated ? JoinType::kAnti : JoinType::kSemi, input,
                                        pulled->plan, std::move(condition)),
                           nullptr};
  }
  ColumnId mark = ids.Next();
  auto join = MakeJoinNode(JoinType::kMark, input, pulled->plan, std::move(condition), mark);
  ExprPtr value = MakeCall(
      "coalesce",
      {MakeColumnRef(mark, "mark", DataType::Boolean(), true), MakeLiteral(Scalar::Boolean(false))},
      DataType::Boolean(), false);
  if (negated)
    value = MakeCall("not", {value}, DataType::Boolean(), false);
  return SubqueryRewrite{join, value};
}

}  // namespace shoal::sql::optimizer

// Scalar subqueries as joins (see decorrelation.h).
//
// Uncorrelated: a left join without keys against the subquery's result, which the execution
// engine evaluates once and broadcasts (no match, i.e. an empty result, gives NULL as SQL wants).
//
// Correlated: only the shape `SELECT f(aggregates) FROM ... WHERE correlated equalities` is
// rewritten, because grouping by the correlation keys then yields at most one row per outer row.
// The aggregate becomes `GROUP BY <inner sides of the equalities>` and is left-joined on them. An
// outer row without a matching group would have seen the aggregate over zero rows — COUNT is 0
// there, not NULL (the "COUNT bug") — so when f(empty aggregates) is not simply NULL the value is
// CASE WHEN <group key> IS NULL THEN f(empty aggregates) ELSE <joined value> END.
#include "shoal/sql/optimizer/decorrelation.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

/// Whether `e` is NULL for sure: NULL literals, and operators that return NULL on a NULL input.
bool IsDefinitelyNull(const ExprPtr& e) {
  if (e->kind == ExprKind::kLiteral)
    return e->value.is_null();
  if (e->kind == ExprKind::kCast && !e->try_cast)
    return IsDefinitelyNull(e->args[0]);
  if (e->kind != ExprKind::kCall)
    return false;
  static const std::set<std::string> kStrict = {"+",  "-", "*",  "/", "%",  "negate", "=",
                                                "<>", "<", "<=", ">", ">=", "abs",    "round"};
  if (kStrict.count(e->name) == 0)
    return false;
  for (const auto& a : e->args) {
    if (IsDefinitelyNull(a))
      return true;
  }
  return false;
}

/// The aggregate's value over no rows: 0 for counts, NULL for the others.
ExprPtr EmptyAggregateValue(const Expr& aggregate) {
  if (aggregate.name == "count")
    return MakeLiteral(Scalar::FromInt(aggregate.type, 0));
  return MakeLiteral(Scalar(aggregate.type));
}

}  // namespace

std::optional<SubqueryRewrite> RewriteScalarSubquery(const LogicalPlanPtr& input,
                                                     const Expr& subquery, ColumnIdSource& ids) {
  const LogicalPlanPtr& plan = subquery.subquery;
  if (!plan || plan->output.size() != 1)
    return std::nullopt;
  std::set<ColumnId> outer_refs;
  CollectOuterRefs(*plan, 1, &outer_refs);
  if (outer_refs.empty()) {
    auto join = MakeJoinNode(JoinType::kLeft, input, plan, {});
    return SubqueryRewrite{join, MakeRef(join->output.back())};
  }

  // The value in terms of the aggregate's outputs: projections down to a scalar aggregate.
  ExprPtr value = MakeRef(plan->output[0]);
  const LogicalPlan* node = plan.get();
  while (node->kind == LogicalKind::kProject) {
    std::map<ColumnId, ExprPtr> map;
    for (size_t i = 0; i < node->exprs.size(); ++i)
      map[node->output[i].id] = node->exprs[i];
    value = SubstituteColumns(value, map);
    node = node->children[0].get();
  }
  if (node->kind != LogicalKind::kAggregate || !node->group_by.empty() ||
      !node->grouping_sets.empty())
    return std::nullopt;
  std::map<ColumnId, ExprPtr> empty_values;
  for (size_t i = 0; i < node->aggregates.size(); ++i)
    empty_values[node->output[i].id] = EmptyAggregateValue(*node->aggregates[i]);
  ExprPtr empty_value = SubstituteColumns(value, empty_values);

  auto pulled = PullUpCorrelation(plan, /*allow_scalar_aggregate=*/true, ids);
  if (!pulled)
    return std::nullopt;
  JoinCondition condition =
      SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
  // Every condition must have become a grouping-key equality, or a group could match twice.
  if (!condition.residual.empty() || condition.right_keys.empty())
    return std::nullopt;
  for (const auto& k : condition.right_keys) {
    if (k->kind != ExprKind::kColumnRef)
      return std::nullopt;
  }
  ExprPtr marker = condition.right_keys[0];
  auto join = MakeJoinNode(JoinType::kLeft, input, pulled->plan, std::move(condition));
  ColumnInfo result = join->output[input->output.size()];
  ExprPtr joined = MakeRef(result);
  if (IsDefinitelyNull(empty_value))
    return SubqueryRewrite{join, joined};
  ExprPtr no_group =
      MakeCall("is_null", {MakeColumnRef(marker->column, marker->name, marker->type, true)},
               DataType::Boolean(), false);
  if (empty_value->type != result.type)
    empty_value = MakeCast(empty_value, result.type);
  ExprPtr replacement = MakeCase({no_group, empty_value, joined}, /*has_else=*/true, result.type,
                                 result.nullable || empty_value->nullable);
  return SubqueryRewrite{join, replacement};
}

}  // namespace shoal::sql::optimizer

// Scalar subqueries as joins (see decorrelation.h).
//
// Uncorrelated: a left join without keys against the subquery's result, which the execution
// engine evaluates once and broadcasts (no match, i.e. an empty result, gives NULL as SQL wants).
//
// An uncorrelated subquery that may return several rows is grouped into count(*) and its value
// (min of at most one), and scalar_subquery_check raises SQLSTATE 21000 when the count exceeds 1;
// an aggregate without GROUP BY, LIMIT 1 or a single VALUES row needs no check.
//
// Correlated, the fast shape is `SELECT f(aggregates) FROM ... WHERE correlated equalities`,
// because grouping by the correlation keys then yields at most one row per outer row.
// The aggregate becomes `GROUP BY <inner sides of the equalities>` and is left-joined on them. An
// outer row without a matching group would have seen the aggregate over zero rows — COUNT is 0
// there, not NULL (the "COUNT bug") — so when f(empty aggregates) is not simply NULL the value is
// CASE WHEN <group key> IS NULL THEN f(empty aggregates) ELSE <joined value> END. Every other shape
// is decorrelated generally (pull-up, else the domain of domain_unnesting.cc), then counted per
// correlation key like the uncorrelated case, so that the error is raised per outer row.
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

bool MinSupports(const DataType& type) {
  switch (type.id()) {
    case columnar::TypeId::kBoolean:
    case columnar::TypeId::kInt8:
    case columnar::TypeId::kInt16:
    case columnar::TypeId::kInt32:
    case columnar::TypeId::kInt64:
    case columnar::TypeId::kUInt8:
    case columnar::TypeId::kUInt16:
    case columnar::TypeId::kUInt32:
    case columnar::TypeId::kUInt64:
    case columnar::TypeId::kFloat32:
    case columnar::TypeId::kFloat64:
    case columnar::TypeId::kDate32:
    case columnar::TypeId::kTimestamp:
    case columnar::TypeId::kDecimal:
    case columnar::TypeId::kInterval:
    case columnar::TypeId::kUtf8:
    case columnar::TypeId::kBinary: return true;
    default: return false;
  }
}

/// `plan` (first column: the value) grouped by `keys` (columns of `plan`) into count(*) and the
/// value, so that the join with the enclosing query cannot multiply its rows and
/// scalar_subquery_check can raise the error where a group has more than one row. Output: the
/// keys (new ids, in `*key_columns`), the count, the value.
LogicalPlanPtr CountPerKey(const LogicalPlanPtr& plan, const std::vector<ColumnInfo>& keys,
                           ColumnIdSource& ids, std::vector<ColumnInfo>* key_columns) {
  const ColumnInfo& v = plan->output[0];
  auto agg = std::make_shared<LogicalPlan>();
  agg->kind = LogicalKind::kAggregate;
  agg->children = {plan};
  for (const auto& k : keys) {
    agg->group_by.push_back(MakeRef(k));
    ColumnInfo key{ids.Next(), k.name, "", k.type, k.nullable};
    agg->output.push_back(key);
    key_columns->push_back(key);
  }
  agg->aggregates.push_back(MakeAggregate("count", {}, DataType::Int64(), false));
  agg->output.push_back(ColumnInfo{ids.Next(), "count", "", DataType::Int64(), false});
  if (v.type.id() != columnar::TypeId::kNull) {
    agg->aggregates.push_back(MakeAggregate("min", {MakeRef(v)}, v.type, true));
    agg->output.push_back(ColumnInfo{ids.Next(), v.name, "", v.type, true});
  }
  return agg;
}

/// The replacement reading a CountPerKey result joined into `join` (count and value are its last
/// columns).
ExprPtr CheckedValue(const LogicalPlan& join, const ColumnInfo& original) {
  const auto& out = join.output;
  if (original.type.id() == columnar::TypeId::kNull) {
    const ColumnInfo& count = out.back();
    return MakeCall(
        "scalar_subquery_check",
        {MakeColumnRef(count.id, count.name, count.type, true), MakeLiteral(Scalar(original.type))},
        original.type, true);
  }
  const ColumnInfo& count = out[out.size() - 2];
  const ColumnInfo& value = out.back();
  return MakeCall("scalar_subquery_check",
                  {MakeColumnRef(count.id, count.name, count.type, true),
                   MakeColumnRef(value.id, value.name, value.type, true)},
                  original.type, true);
}

/// The general correlated case: the subquery decorrelated (pull-up or domain), counted per
/// correlation key and left-joined on it.
std::optional<SubqueryRewrite> RewriteCorrelatedGeneral(const LogicalPlanPtr& input,
                                                        const LogicalPlanPtr& plan,
                                                        ColumnIdSource& ids) {
  const ColumnInfo original = plan->output[0];
  LogicalPlanPtr decorrelated;
  std::vector<ExprPtr> conditions;
  std::vector<ColumnInfo> keys;
  bool checked = true;
  // Pulled-up equalities never match NULL; the domain's join-back matches NULL to NULL.
  bool null_safe = false;
  if (auto pulled = PullUpCorrelation(plan, /*allow_scalar_aggregate=*/false, ids)) {
    JoinCondition condition =
        SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
    bool plain = condition.residual.empty() && !condition.right_keys.empty();
    for (const auto& k : condition.right_keys)
      plain = plain && k->kind == ExprKind::kColumnRef;
    if (plain) {
      decorrelated = pulled->plan;
      for (size_t i = 0; i < condition.right_keys.size(); ++i) {
        for (const auto& info : decorrelated->output) {
          if (info.id == condition.right_keys[i]->column)
            keys.push_back(info);
        }
        conditions.push_back(condition.left_keys[i]);
      }
      if (keys.size() != condition.right_keys.size())
        decorrelated = nullptr;
    }
  }
  if (!decorrelated) {
    conditions.clear();
    keys.clear();
    auto unnested = UnnestWithDomain(plan, input, ids);
    if (!unnested)
      return std::nullopt;
    decorrelated = unnested->plan;
    keys = unnested->domain;
    for (const auto& c : unnested->conditions)
      conditions.push_back(c->args[0]);
    checked = !unnested->one_row_per_value;
    null_safe = true;
  }
  const char* equals = null_safe ? "is_not_distinct_from" : "=";
  if (!checked) {
    std::vector<ExprPtr> on;
    for (size_t i = 0; i < keys.size(); ++i)
      on.push_back(MakeCall(equals, {conditions[i], MakeRef(keys[i])}, DataType::Boolean(), false));
    auto join = MakeJoinNode(JoinType::kLeft, input, decorrelated,
                             SplitJoinCondition(on, OutputIds(*input), OutputIds(*decorrelated)));
    ColumnInfo result = join->output[input->output.size()];
    return SubqueryRewrite{join, MakeRef(result)};
  }
  if (!MinSupports(original.type) && original.type.id() != columnar::TypeId::kNull)
    return std::nullopt;
  std::vector<ColumnInfo> key_columns;
  auto counted = CountPerKey(decorrelated, keys, ids, &key_columns);
  std::vector<ExprPtr> on;
  for (size_t i = 0; i < keys.size(); ++i)
    on.push_back(
        MakeCall(equals, {conditions[i], MakeRef(key_columns[i])}, DataType::Boolean(), false));
  auto join = MakeJoinNode(JoinType::kLeft, input, counted,
                           SplitJoinCondition(on, OutputIds(*input), OutputIds(*counted)));
  return SubqueryRewrite{join, CheckedValue(*join, original)};
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
    // Uncorrelated with this level, it may still read a query further out: those references
    // now count from this level.
    const LogicalPlanPtr joined = DecrementPlanDepth(plan, 0);
    if (AtMostOneRow(*joined)) {
      auto join = MakeJoinNode(JoinType::kLeft, input, joined, {});
      return SubqueryRewrite{join, MakeRef(join->output.back())};
    }
    if (!MinSupports(plan->output[0].type) && plan->output[0].type.id() != columnar::TypeId::kNull)
      return std::nullopt;
    std::vector<ColumnInfo> no_keys;
    auto counted = CountPerKey(joined, {}, ids, &no_keys);
    auto join = MakeJoinNode(JoinType::kLeft, input, counted, {});
    return SubqueryRewrite{join, CheckedValue(*join, plan->output[0])};
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
    return RewriteCorrelatedGeneral(input, plan, ids);
  std::map<ColumnId, ExprPtr> empty_values;
  for (size_t i = 0; i < node->aggregates.size(); ++i)
    empty_values[node->output[i].id] = EmptyAggregateValue(*node->aggregates[i]);
  ExprPtr empty_value = SubstituteColumns(value, empty_values);

  auto pulled = PullUpCorrelation(plan, /*allow_scalar_aggregate=*/true, ids);
  if (!pulled)
    return RewriteCorrelatedGeneral(input, plan, ids);
  JoinCondition condition =
      SplitJoinCondition(pulled->conditions, OutputIds(*input), OutputIds(*pulled->plan));
  // Every condition must have become a grouping-key equality, or a group could match twice.
  if (!condition.residual.empty() || condition.right_keys.empty())
    return RewriteCorrelatedGeneral(input, plan, ids);
  for (const auto& k : condition.right_keys) {
    if (k->kind != ExprKind::kColumnRef)
      return RewriteCorrelatedGeneral(input, plan, ids);
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

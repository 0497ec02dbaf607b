// Outer join simplification: a filter directly above an outer join that can never be TRUE when
// the columns of the NULL-extended side are all NULL throws away every NULL-extended row, so the
// join may as well not produce them: LEFT becomes INNER, FULL becomes LEFT or RIGHT (or INNER).
// Inner joins then take part in predicate pushdown (the filter's equalities become keys) and join
// ordering. Predicate pushdown has left exactly those filters directly above their joins.
//
// A left join without keys whose filter offers no equality between the two sides stays a left
// join: it is the single-row join of an uncorrelated scalar subquery, and an inner join without
// keys would be a nested-loop cross join.
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

bool IsStrict(const std::string& name) {
  static const std::set<std::string> kStrict = {
      "+",       "-",           "*",          "/",        "%",      "negate", "=",   "<>",
      "<",       "<=",          ">",          ">=",       "like",   "ilike",  "in",  "substring",
      "upper",   "lower",       "trim",       "ltrim",    "rtrim",  "length", "abs", "round",
      "extract", "starts_with", "date_trunc", "position", "replace"};
  return kStrict.count(name) > 0;
}

/// Whether `e` is NULL whenever every column in `side` is NULL.
bool NullWhenSideNull(const ExprPtr& e, const std::set<ColumnId>& side) {
  switch (e->kind) {
    case ExprKind::kColumnRef: return e->outer_depth == 0 && side.count(e->column) > 0;
    case ExprKind::kCast: return !e->try_cast && NullWhenSideNull(e->args[0], side);
    case ExprKind::kCall:
      if (!IsStrict(e->name))
        return false;
      for (const auto& a : e->args) {
        if (NullWhenSideNull(a, side))
          return true;
      }
      return false;
    default: return false;
  }
}

/// Whether the predicate is never TRUE when every column in `side` is NULL.
bool RejectsNulls(const ExprPtr& e, const std::set<ColumnId>& side) {
  if (e->kind == ExprKind::kCall) {
    if (e->name == "and") {
      for (const auto& a : e->args) {
        if (RejectsNulls(a, side))
          return true;
      }
      return false;
    }
    if (e->name == "or") {
      for (const auto& a : e->args) {
        if (!RejectsNulls(a, side))
          return false;
      }
      return !e->args.empty();
    }
    if (e->name == "is_not_null" || e->name == "is_true")
      return NullWhenSideNull(e->args[0], side) || RejectsNulls(e->args[0], side);
    if (e->name == "not")
      return NullWhenSideNull(e->args[0], side);
  }
  return NullWhenSideNull(e, side);
}

/// An equality between an expression of each side, which would become a key once inner.
bool HasCrossEquality(const ExprPtr& predicate, const std::set<ColumnId>& left,
                      const std::set<ColumnId>& right) {
  auto within = [](const std::set<ColumnId>& cols, const std::set<ColumnId>& side) {
    if (cols.empty())
      return false;
    for (ColumnId id : cols) {
      if (side.count(id) == 0)
        return false;
    }
    return true;
  };
  for (const auto& c : SplitConjunction(predicate)) {
    if (c->kind != ExprKind::kCall || c->name != "=" || c->args.size() != 2)
      continue;
    auto a = ExprColumns(c->args[0]);
    auto b = ExprColumns(c->args[1]);
    if ((within(a, left) && within(b, right)) || (within(a, right) && within(b, left)))
      return true;
  }
  return false;
}

LogicalPlanPtr Simplify(const LogicalPlanPtr& plan) {
  auto node = plan->Clone();
  for (auto& child : node->children)
    child = Simplify(child);
  if (node->kind != LogicalKind::kFilter || node->children[0]->kind != LogicalKind::kJoin)
    return node;
  const LogicalPlan& join = *node->children[0];
  JoinType type = join.join_type;
  if (type != JoinType::kLeft && type != JoinType::kRight && type != JoinType::kFull)
    return node;
  std::set<ColumnId> left = OutputIds(*join.children[0]);
  std::set<ColumnId> right = OutputIds(*join.children[1]);
  bool left_nulls_rejected = RejectsNulls(node->predicate, left);
  bool right_nulls_rejected = RejectsNulls(node->predicate, right);
  JoinType next = type;
  if (type == JoinType::kLeft && right_nulls_rejected)
    next = JoinType::kInner;
  else if (type == JoinType::kRight && left_nulls_rejected)
    next = JoinType::kInner;
  else if (type == JoinType::kFull && left_nulls_rejected && right_nulls_rejected)
    next = JoinType::kInner;
  else if (type == JoinType::kFull && left_nulls_rejected)
    next = JoinType::kLeft;  // the rows that NULL-extend the left side are gone
  else if (type == JoinType::kFull && right_nulls_rejected)
    next = JoinType::kRight;
  if (next == type)
    return node;
  if (next == JoinType::kInner && join.left_keys.empty() &&
      !HasCrossEquality(node->predicate, left, right) &&
      !HasCrossEquality(join.predicate, left, right))
    return node;
  auto converted = join.Clone();
  converted->join_type = next;
  // Columns of a side that is no longer NULL-extended regain their own nullability.
  std::map<ColumnId, bool> own;
  for (const auto& child : join.children) {
    for (const auto& c : child->output)
      own[c.id] = c.nullable;
  }
  for (auto& c : converted->output) {
    bool from_left = left.count(c.id) > 0;
    bool extended = from_left ? (next == JoinType::kRight || next == JoinType::kFull)
                              : (next == JoinType::kLeft || next == JoinType::kFull);
    c.nullable = own[c.id] || extended;
  }
  node->children[0] = converted;
  node->output = converted->output;
  return node;
}

class OuterJoinSimplificationRule : public OptimizerRule {
 public:
  const char* name() const override { return "outer_join_simplification"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    return Simplify(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeOuterJoinSimplificationRule() {
  return std::make_unique<OuterJoinSimplificationRule>();
}

}  // namespace shoal::sql::optimizer

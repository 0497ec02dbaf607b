#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

std::vector<ExprPtr> SplitConjunction(const ExprPtr& predicate) {
  std::vector<ExprPtr> out;
  if (!predicate)
    return out;
  if (predicate->kind == ExprKind::kCall && predicate->name == "and") {
    for (const auto& a : predicate->args) {
      auto sub = SplitConjunction(a);
      out.insert(out.end(), sub.begin(), sub.end());
    }
    return out;
  }
  out.push_back(predicate);
  return out;
}

ExprPtr MakeConjunction(const std::vector<ExprPtr>& conjuncts) {
  if (conjuncts.empty())
    return nullptr;
  if (conjuncts.size() == 1)
    return conjuncts[0];
  bool nullable = false;
  for (const auto& c : conjuncts)
    nullable = nullable || c->nullable;
  return MakeCall("and", conjuncts, DataType::Boolean(), nullable);
}

std::set<ColumnId> OutputIds(const LogicalPlan& plan) {
  std::set<ColumnId> out;
  for (const auto& c : plan.output)
    out.insert(c.id);
  return out;
}

void CollectExprOuterRefs(const ExprPtr& e, int depth, std::set<ColumnId>* out) {
  VisitExpr(e, [&](const Expr& x) {
    if (x.kind == ExprKind::kColumnRef && x.outer_depth == depth)
      out->insert(x.column);
    if (x.kind == ExprKind::kSubquery && x.subquery)
      CollectOuterRefs(*x.subquery, depth + 1, out);
  });
}

ExprPtr MakeRef(const ColumnInfo& column) {
  return MakeColumnRef(column.id, column.name, column.type, column.nullable);
}

LogicalPlanPtr MakeIdentityProjection(LogicalPlanPtr input,
                                      const std::vector<ColumnInfo>& columns) {
  auto project = std::make_shared<LogicalPlan>();
  project->kind = LogicalKind::kProject;
  for (const auto& c : columns)
    project->exprs.push_back(MakeRef(c));
  project->output = columns;
  project->children.push_back(std::move(input));
  return project;
}

bool IsIdentityProjection(const LogicalPlan& plan) {
  if (plan.kind != LogicalKind::kProject || plan.exprs.size() != plan.output.size())
    return false;
  for (size_t i = 0; i < plan.exprs.size(); ++i) {
    const Expr& e = *plan.exprs[i];
    if (e.kind != ExprKind::kColumnRef || e.outer_depth != 0 || e.column != plan.output[i].id)
      return false;
  }
  return true;
}

bool SameColumnIds(const std::vector<ColumnInfo>& a, const std::vector<ColumnInfo>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id)
      return false;
  }
  return true;
}

namespace {

void ForEachExpr(const LogicalPlan& plan, const std::function<void(const ExprPtr&)>& fn) {
  if (plan.predicate)
    fn(plan.predicate);
  for (const auto& e : plan.exprs)
    fn(e);
  for (const auto& e : plan.group_by)
    fn(e);
  for (const auto& e : plan.aggregates)
    fn(e);
  for (const auto& e : plan.left_keys)
    fn(e);
  for (const auto& e : plan.right_keys)
    fn(e);
  for (const auto& k : plan.sort_keys)
    fn(k.expr);
  for (const auto& row : plan.rows) {
    for (const auto& e : row)
      fn(e);
  }
}

}  // namespace

void CollectOuterRefs(const LogicalPlan& plan, int depth, std::set<ColumnId>* out) {
  ForEachExpr(plan, [&](const ExprPtr& e) { CollectExprOuterRefs(e, depth, out); });
  for (const auto& child : plan.children)
    CollectOuterRefs(*child, depth, out);
}

std::set<ColumnId> ExprColumns(const ExprPtr& expr) {
  std::set<ColumnId> out;
  CollectExprOuterRefs(expr, 0, &out);
  return out;
}

bool IsLiteral(const ExprPtr& e) {
  return e && e->kind == ExprKind::kLiteral;
}

bool ContainsSubquery(const ExprPtr& expr) {
  bool found = false;
  VisitExpr(expr, [&](const Expr& x) {
    if (x.kind == ExprKind::kSubquery)
      found = true;
  });
  return found;
}

namespace {

// Calls `fn` on every expression slot of `plan` in one fixed order (the predicate only when set).
template <typename Plan, typename Fn>
void ForEachExprSlot(Plan& plan, Fn&& fn) {
  if (plan.predicate)
    fn(plan.predicate);
  for (auto& e : plan.exprs)
    fn(e);
  for (auto& e : plan.group_by)
    fn(e);
  for (auto& e : plan.aggregates)
    fn(e);
  for (auto& e : plan.left_keys)
    fn(e);
  for (auto& e : plan.right_keys)
    fn(e);
  for (auto& k : plan.sort_keys)
    fn(k.expr);
  for (auto& row : plan.rows) {
    for (auto& e : row)
      fn(e);
  }
}

}  // namespace

bool HasSubqueryExpr(const LogicalPlan& plan) {
  bool any = false;
  ForEachExprSlot(plan, [&](const ExprPtr& e) { any = any || ContainsSubquery(e); });
  return any;
}

std::shared_ptr<LogicalPlan> MapNodeExprsIfChanged(
    const LogicalPlan& plan, const std::function<ExprPtr(const ExprPtr&)>& fn) {
  std::vector<ExprPtr> mapped;
  bool changed = false;
  ForEachExprSlot(plan, [&](const ExprPtr& e) {
    mapped.push_back(fn(e));
    changed = changed || mapped.back() != e;
  });
  if (!changed)
    return nullptr;
  auto copy = plan.Clone();
  size_t next = 0;
  ForEachExprSlot(*copy, [&](ExprPtr& e) { e = std::move(mapped[next++]); });
  return copy;
}

std::shared_ptr<LogicalPlan> MapNodeExprs(const LogicalPlan& plan,
                                          const std::function<ExprPtr(const ExprPtr&)>& fn) {
  auto copy = MapNodeExprsIfChanged(plan, fn);
  return copy ? copy : plan.Clone();
}

Result<std::shared_ptr<LogicalPlan>> MapSubqueryPlansIfChanged(
    const LogicalPlan& plan,
    const std::function<Result<LogicalPlanPtr>(const LogicalPlanPtr&)>& fn) {
  if (!HasSubqueryExpr(plan))
    return std::shared_ptr<LogicalPlan>();
  Status status;
  auto copy = MapNodeExprsIfChanged(plan, [&](const ExprPtr& e) {
    return TransformExpr(e, [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind != ExprKind::kSubquery || !x->subquery || !status.ok())
        return nullptr;
      auto rewritten = fn(x->subquery);
      if (!rewritten.ok()) {
        status = rewritten.status();
        return nullptr;
      }
      if (*rewritten == x->subquery)
        return nullptr;
      auto node = std::make_shared<Expr>(*x);
      node->subquery = *rewritten;
      return node;
    });
  });
  SHOAL_RETURN_IF_ERROR(status);
  return copy;
}

Result<std::shared_ptr<LogicalPlan>> MapSubqueryPlans(
    const LogicalPlan& plan,
    const std::function<Result<LogicalPlanPtr>(const LogicalPlanPtr&)>& fn) {
  SHOAL_ASSIGN_OR_RETURN(auto copy, MapSubqueryPlansIfChanged(plan, fn));
  return copy ? copy : plan.Clone();
}

bool IsVolatileFunction(const std::string& name) {
  return name == "random" || name == "gen_random_uuid" || name == "nextval" ||
         name == "clock_timestamp" || name == "timeofday" || name == "setseed";
}

ExprPtr SubstituteColumns(const ExprPtr& expr, const std::map<ColumnId, ExprPtr>& map) {
  return TransformExpr(expr, [&](const ExprPtr& e) -> ExprPtr {
    if (e->kind != ExprKind::kColumnRef || e->outer_depth != 0)
      return nullptr;
    auto it = map.find(e->column);
    return it == map.end() ? nullptr : it->second;
  });
}

}  // namespace shoal::sql::optimizer

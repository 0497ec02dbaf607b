// Binding of the queries that are not a plain SELECT: UNION / INTERSECT / EXCEPT (with the
// casts to the columns' common types), VALUES lists, and the ORDER BY / LIMIT / OFFSET they
// take (ApplyLimit is shared with SELECT).

#include <algorithm>

#include "shoal/common/stack_depth.h"
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

Result<LogicalPlanPtr> StatementBinder::ApplyLimit(LogicalPlanPtr plan,
                                                   const pg_query::SelectStmt& s) {
  if (!s.has_limit_count() && !s.has_limit_offset())
    return plan;
  if (s.limit_option() == pg_query::LIMIT_OPTION_WITH_TIES)
    return Status::NotImplemented("FETCH ... WITH TIES is not supported");
  auto constant = [&](const PgNode& n, const char* what) -> Result<int64_t> {
    Scope empty;
    ExprContext ctx;
    ctx.scope = &empty;
    ctx.clause = what;
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
    if (e->kind == ExprKind::kLiteral && e->value.is_null())
      return -1;
    if (e->kind != ExprKind::kLiteral || !e->type.is_integer())
      return Status::InvalidArgument("argument of {} must be an integer constant", what)
          .WithSqlState("42804");
    if (e->value.int_value() < 0)
      return Status::InvalidArgument("{} must not be negative", what).WithSqlState("2201W");
    return e->value.int_value();
  };
  auto limit = NewNode(LogicalKind::kLimit);
  if (s.has_limit_count()) {
    SHOAL_ASSIGN_OR_RETURN(limit->fetch, constant(s.limit_count(), "LIMIT"));
  }
  if (s.has_limit_offset()) {
    SHOAL_ASSIGN_OR_RETURN(int64_t offset, constant(s.limit_offset(), "OFFSET"));
    limit->offset = std::max<int64_t>(offset, 0);
  }
  limit->output = plan->output;
  limit->children.push_back(std::move(plan));
  return LogicalPlanPtr(limit);
}

Result<StatementBinder::QueryResult> StatementBinder::ApplySortLimit(QueryResult input,
                                                                     const pg_query::SelectStmt& s,
                                                                     const CteScope* ctes) {
  // ORDER BY over a set operation or VALUES: names and ordinals of the output only.
  if (!s.sort_clause().empty()) {
    Scope scope;
    for (size_t i = 0; i < input.plan->output.size(); ++i) {
      const auto& c = input.plan->output[i];
      scope.columns.push_back({"", input.names[i], c.id, c.type, c.nullable, false});
    }
    auto sort = NewNode(LogicalKind::kSort);
    for (const auto& item : s.sort_clause()) {
      const auto& sb = item.sort_by();
      SortKey key;
      if (sb.node().has_a_const() && sb.node().a_const().has_ival()) {
        SHOAL_ASSIGN_OR_RETURN(size_t index,
                               OutputOrdinal(sb.node().a_const().ival().ival(),
                                             input.plan->output.size(), "ORDER BY", sb.location()));
        const auto& c = input.plan->output[index];
        key.expr = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      } else {
        ExprContext ctx;
        ctx.scope = &scope;
        ctx.ctes = ctes;
        ctx.clause = "ORDER BY";
        SHOAL_ASSIGN_OR_RETURN(key.expr, BindExpr(sb.node(), ctx));
      }
      key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
      key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                            ? !key.ascending
                            : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
      sort->sort_keys.push_back(std::move(key));
    }
    sort->output = input.plan->output;
    sort->children.push_back(input.plan);
    input.plan = sort;
  }
  SHOAL_ASSIGN_OR_RETURN(input.plan, ApplyLimit(input.plan, s));
  return input;
}

Result<StatementBinder::QueryResult> StatementBinder::BindValues(
    const pg_query::SelectStmt& s, const Scope* outer, const CteScope* ctes,
    const std::vector<DataType>* target_types) {
  QueryLevel level;
  Scope empty;
  empty.outer = outer;
  empty.level = &level;
  ExprContext ctx;
  ctx.scope = &empty;
  ctx.ctes = ctes;
  ctx.clause = "VALUES";
  std::vector<std::vector<ExprPtr>> rows;
  size_t width = 0;
  for (const auto& list : s.values_lists()) {
    std::vector<ExprPtr> row;
    for (const auto& item : list.list().items()) {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(item, ctx));
      row.push_back(e);
    }
    if (!rows.empty() && row.size() != width)
      return Status::InvalidArgument("VALUES lists must all be the same length")
          .WithSqlState("42601");
    width = row.size();
    rows.push_back(std::move(row));
  }
  auto values = NewNode(LogicalKind::kValues);
  QueryResult q;
  for (size_t c = 0; c < width; ++c) {
    DataType type;
    if (target_types != nullptr && c < target_types->size()) {
      type = (*target_types)[c];
    } else {
      std::vector<ExprPtr> column;
      column.reserve(rows.size());
      for (const auto& row : rows)
        column.push_back(row[c]);
      SHOAL_ASSIGN_OR_RETURN(type, CommonType(column, "VALUES", -1));
    }
    bool nullable = false;
    for (auto& row : rows) {
      auto coerced = Coerce(row[c], type);
      if (!coerced.ok())
        return coerced.status();
      row[c] = *coerced;
      nullable = nullable || row[c]->nullable;
    }
    std::string name = fmt::format("column{}", c + 1);
    values->output.push_back({NewId(), name, "", type, nullable});
    q.names.push_back(name);
  }
  values->rows = std::move(rows);
  q.plan = values;
  return ApplySortLimit(std::move(q), s, ctes);
}

Result<StatementBinder::QueryResult> StatementBinder::BindSetOp(const pg_query::SelectStmt& s,
                                                                const Scope* outer,
                                                                const CteScope* ctes) {
  SHOAL_CHECK_STACK_DEPTH();
  SHOAL_ASSIGN_OR_RETURN(QueryResult left, BindSelect(s.larg(), outer, ctes));
  SHOAL_ASSIGN_OR_RETURN(QueryResult right, BindSelect(s.rarg(), outer, ctes));
  const char* op_name = s.op() == pg_query::SETOP_UNION       ? "UNION"
                        : s.op() == pg_query::SETOP_INTERSECT ? "INTERSECT"
                                                              : "EXCEPT";
  if (left.plan->output.size() != right.plan->output.size()) {
    return Status::InvalidArgument("each {} query must have the same number of columns", op_name)
        .WithSqlState("42601");
  }
  std::vector<DataType> types;
  for (size_t i = 0; i < left.plan->output.size(); ++i) {
    const auto& l = left.plan->output[i].type;
    const auto& r = right.plan->output[i].type;
    auto common = CommonSuperType(l, r);
    if (!common) {
      return Status::TypeError("{} types {} and {} cannot be matched", op_name, SqlTypeName(l),
                               SqlTypeName(r))
          .WithSqlState("42804");
    }
    types.push_back(*common);
  }
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr lp, CastPlanColumns(left.plan, types));
  SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr rp, CastPlanColumns(right.plan, types));
  std::shared_ptr<LogicalPlan> node;
  if (s.op() == pg_query::SETOP_UNION) {
    node = NewNode(LogicalKind::kUnion);
  } else {
    node = NewNode(LogicalKind::kSetOp);
    node->set_op = s.op() == pg_query::SETOP_INTERSECT ? SetOpKind::kIntersect : SetOpKind::kExcept;
    node->all = s.all();
  }
  node->children = {lp, rp};
  for (size_t i = 0; i < types.size(); ++i) {
    node->output.push_back(
        {NewId(), left.names[i], "", types[i], lp->output[i].nullable || rp->output[i].nullable});
  }
  LogicalPlanPtr plan = node;
  if (s.op() == pg_query::SETOP_UNION && !s.all()) {
    auto distinct = NewNode(LogicalKind::kDistinct);
    distinct->output = node->output;
    distinct->children.push_back(plan);
    plan = distinct;
  }
  return ApplySortLimit(QueryResult{plan, left.names}, s, ctes);
}

}  // namespace shoal::sql::internal

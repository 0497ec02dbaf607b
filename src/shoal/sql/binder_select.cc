// Binding of a SELECT, one step per clause in the order PostgreSQL binds them: WITH, FROM,
// WHERE, the select list, GROUP BY and HAVING (binder_grouping.cc), DISTINCT, ORDER BY, the
// aggregation, window functions, then the projection, DISTINCT, sort and LIMIT on top.

#include <algorithm>
#include <functional>
#include <map>

#include "shoal/common/stack_depth.h"
#include "shoal/sql/binder_internal.h"

namespace shoal::sql::internal {

namespace {

/// Output name PostgreSQL gives an unnamed select-list expression.
std::string DeriveName(const PgNode& n) {
  switch (n.node_case()) {
    case PgNode::kColumnRef: {
      const auto& f = n.column_ref().fields();
      if (!f.empty() && f[f.size() - 1].has_string())
        return Str(f[f.size() - 1]);
      return "?column?";
    }
    case PgNode::kFuncCall: return LastName(n.func_call().funcname());
    case PgNode::kTypeCast: {
      // PostgreSQL: a name from the argument wins unless it is only a type name itself (a cast of
      // a cast is named after the outer type).
      const PgNode& arg = n.type_cast().arg();
      std::string inner = DeriveName(arg);
      if (inner != "?column?" && !arg.has_type_cast())
        return inner;
      std::string type = LastName(n.type_cast().type_name().names());
      static const std::map<std::string, std::string> kInternal = {
          {"int", "int4"},        {"integer", "int4"}, {"bigint", "int8"},
          {"smallint", "int2"},   {"real", "float4"},  {"double", "float8"},
          {"decimal", "numeric"}, {"boolean", "bool"}, {"varchar", "varchar"}};
      auto it = kInternal.find(type);
      return it == kInternal.end() ? type : it->second;
    }
    case PgNode::kCaseExpr: return "case";
    case PgNode::kAExpr: return n.a_expr().kind() == pg_query::AEXPR_NULLIF ? "nullif" : "?column?";
    case PgNode::kGroupingFunc: return "grouping";
    case PgNode::kCoalesceExpr: return "coalesce";
    case PgNode::kMinMaxExpr:
      return n.min_max_expr().op() == pg_query::IS_GREATEST ? "greatest" : "least";
    case PgNode::kSubLink:
      if (n.sub_link().sub_link_type() == pg_query::EXISTS_SUBLINK)
        return "exists";
      if (n.sub_link().sub_link_type() == pg_query::EXPR_SUBLINK &&
          n.sub_link().subselect().has_select_stmt()) {
        const auto& targets = n.sub_link().subselect().select_stmt().target_list();
        if (targets.size() == 1 && targets[0].has_res_target()) {
          const auto& rt = targets[0].res_target();
          return rt.name().empty() ? DeriveName(rt.val()) : rt.name();
        }
      }
      return "?column?";
    case PgNode::kSqlvalueFunction:
      switch (n.sqlvalue_function().op()) {
        case pg_query::SVFOP_CURRENT_DATE: return "current_date";
        case pg_query::SVFOP_CURRENT_TIMESTAMP:
        case pg_query::SVFOP_CURRENT_TIMESTAMP_N: return "current_timestamp";
        case pg_query::SVFOP_LOCALTIMESTAMP:
        case pg_query::SVFOP_LOCALTIMESTAMP_N: return "localtimestamp";
        case pg_query::SVFOP_CURRENT_USER: return "current_user";
        case pg_query::SVFOP_CURRENT_ROLE: return "current_role";
        case pg_query::SVFOP_SESSION_USER: return "session_user";
        case pg_query::SVFOP_USER: return "user";
        case pg_query::SVFOP_CURRENT_SCHEMA: return "current_schema";
        case pg_query::SVFOP_CURRENT_CATALOG: return "current_catalog";
        default: return "?column?";
      }
    default: return "?column?";
  }
}

}  // namespace

Result<StatementBinder::QueryResult> StatementBinder::BindQuery(const PgNode& node,
                                                                const Scope* outer,
                                                                const CteScope* ctes) {
  if (!node.has_select_stmt())
    return Status::NotImplemented("only SELECT / VALUES queries are supported here");
  auto recursive = recursive_ctes_.find(&node);
  if (recursive != recursive_ctes_.end())
    return BindRecursiveCte(recursive->second, outer, ctes);
  return BindSelect(node.select_stmt(), outer, ctes);
}

Result<StatementBinder::QueryResult> StatementBinder::BindSelect(const pg_query::SelectStmt& s,
                                                                 const Scope* outer,
                                                                 const CteScope* outer_ctes) {
  SHOAL_CHECK_STACK_DEPTH();
  CteScope cte_scope;
  SHOAL_ASSIGN_OR_RETURN(const CteScope* ctes, BindWith(s, outer, outer_ctes, &cte_scope));
  if (s.op() != pg_query::SETOP_NONE && s.op() != pg_query::SET_OPERATION_UNDEFINED)
    return BindSetOp(s, outer, ctes);
  if (!s.values_lists().empty())
    return BindValues(s, outer, ctes, nullptr);
  if (s.has_into_clause())
    return Status::NotImplemented("SELECT INTO is not supported inside a query");
  if (!s.locking_clause().empty())
    return Status::NotImplemented("FOR UPDATE / FOR SHARE is not supported");

  SelectState st(s, ctes);
  int working_tables = 0;
  int* saved_working_tables = working_tables_in_from_;
  working_tables_in_from_ = &working_tables;
  auto from = BindFromList(s, outer, ctes);
  working_tables_in_from_ = saved_working_tables;
  SHOAL_ASSIGN_OR_RETURN(st.from, std::move(from));
  if (working_tables > 0)
    SHOAL_RETURN_IF_ERROR(CheckRecursiveTermAggregates(s));
  st.scope = Scope{st.from.columns, outer};
  st.level.hosts_aggregates = true;
  st.scope.level = &st.level;
  st.plan = st.from.plan;
  SHOAL_RETURN_IF_ERROR(BindWhere(st));
  SHOAL_RETURN_IF_ERROR(BindSelectList(st));
  SHOAL_RETURN_IF_ERROR(BindGroupBy(st));
  SHOAL_RETURN_IF_ERROR(BindHaving(st));
  SHOAL_RETURN_IF_ERROR(BindDistinct(st));
  SHOAL_RETURN_IF_ERROR(BindOrderBy(st));
  SHOAL_RETURN_IF_ERROR(PlanAggregate(st));
  PlanWindows(st);
  return PlanOutput(st);
}

Result<const CteScope*> StatementBinder::BindWith(const pg_query::SelectStmt& s,
                                                  const Scope* outer_scope, const CteScope* outer,
                                                  CteScope* storage) {
  // WITH: visible to this query and everything below it.
  CteScope& cte_scope = *storage;
  const CteScope* ctes = outer;
  if (s.has_with_clause()) {
    cte_scope.outer = outer;
    for (const auto& c : s.with_clause().ctes()) {
      const auto& cte = c.common_table_expr();
      if (cte_scope.ctes.count(cte.ctename()) > 0)
        return At(
            Status::AlreadyExists("WITH query name \"{}\" specified more than once", cte.ctename())
                .WithSqlState("42712"),
            cte.location());
      cte_scope.ctes[cte.ctename()] = CteDefinition{&cte, outer_scope};
    }
    if (s.with_clause().recursive())
      SHOAL_RETURN_IF_ERROR(PrepareRecursiveWith(s.with_clause()));
    ctes = &cte_scope;
  }
  return ctes;
}

Status StatementBinder::BindWhere(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  LogicalPlanPtr& plan = st.plan;
  // WHERE.
  if (s.has_where_clause()) {
    ExprContext ctx = st.Context("WHERE", false, false);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr pred, BindExpr(s.where_clause(), ctx));
    SHOAL_ASSIGN_OR_RETURN(pred, CoerceToBoolean(pred, "WHERE", -1));
    auto filter = NewNode(LogicalKind::kFilter);
    filter->predicate = pred;
    filter->output = plan->output;
    filter->children.push_back(plan);
    plan = filter;
  }
  return Status::OK();
}

Status StatementBinder::BindSelectList(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  const BoundRelation& from = st.from;
  std::vector<ExprPtr>& targets = st.targets;
  std::vector<std::string>& names = st.names;
  // Select list.
  for (const auto& t : s.target_list()) {
    const auto& rt = t.res_target();
    const PgNode& val = rt.val();
    if (val.has_column_ref() && !val.column_ref().fields().empty() &&
        val.column_ref().fields(val.column_ref().fields_size() - 1).has_a_star()) {
      const auto& fields = val.column_ref().fields();
      std::string qualifier = fields.size() >= 2 ? Str(fields[fields.size() - 2]) : "";
      bool any = false;
      for (const auto& c : from.columns) {
        if (qualifier.empty() ? c.hidden : c.qualifier != qualifier)
          continue;
        targets.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
        names.push_back(c.name);
        any = true;
      }
      if (!any && !qualifier.empty())
        return At(Status::NotFound("missing FROM-clause entry for table \"{}\"", qualifier)
                      .WithSqlState("42P01"),
                  val.column_ref().location());
      if (!any && s.from_clause().empty())
        return At(Status::InvalidArgument("SELECT * with no tables specified is not valid")
                      .WithSqlState("42601"),
                  val.column_ref().location());
      continue;
    }
    ExprContext ctx = st.Context("SELECT", true, true);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(val, ctx));
    if (IsUnknownLiteral(e)) {
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(e, DataType::Utf8()));
    }
    targets.push_back(e);
    names.push_back(rt.name().empty() ? DeriveName(val) : rt.name());
  }
  return Status::OK();
}

Status StatementBinder::BindHaving(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  ExprPtr& having = st.having;
  if (s.has_having_clause()) {
    ExprContext ctx = st.Context("HAVING", true, false);
    SHOAL_ASSIGN_OR_RETURN(having, BindExpr(s.having_clause(), ctx));
    SHOAL_ASSIGN_OR_RETURN(having, CoerceToBoolean(having, "HAVING", -1));
  }
  return Status::OK();
}

Status StatementBinder::BindDistinct(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  st.distinct = !s.distinct_clause().empty();
  if (!st.distinct ||
      (s.distinct_clause_size() == 1 && s.distinct_clause(0).node_case() == PgNode::NODE_NOT_SET))
    return Status::OK();
  // DISTINCT ON (...): each expression names an output column (position or name) or is an
  // expression over the input, as in ORDER BY.
  st.distinct = false;
  st.has_distinct_on = true;
  for (const PgNode& n : s.distinct_clause()) {
    OrderItem oi;
    int location = -1;
    if (n.has_a_const() && n.a_const().has_ival()) {
      location = n.a_const().location();
      SHOAL_ASSIGN_OR_RETURN(
          size_t index,
          OutputOrdinal(n.a_const().ival().ival(), st.targets.size(), "DISTINCT ON", location));
      oi.target = static_cast<int>(index);
    } else if (n.has_column_ref() && n.column_ref().fields_size() == 1 &&
               n.column_ref().fields(0).has_string()) {
      location = n.column_ref().location();
      const std::string name = Str(n.column_ref().fields(0));
      for (size_t i = 0; i < st.names.size(); ++i) {
        if (st.names[i] == name) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
    }
    if (oi.target < 0) {
      ExprContext ctx = st.Context("DISTINCT ON", true, true);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
      for (size_t i = 0; i < st.targets.size(); ++i) {
        if (ExprEquals(*st.targets[i], *e)) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
      if (oi.target < 0)
        oi.key.expr = e;
    }
    st.distinct_on.push_back(std::move(oi));
    st.distinct_on_locations.push_back(location);
  }
  return Status::OK();
}

// PostgreSQL's rule (transformDistinctOnClause): the ORDER BY items that are DISTINCT ON items
// must come first, and with an ORDER BY every DISTINCT ON item must be among them.
Status StatementBinder::CheckDistinctOnOrder(const SelectState& st) const {
  // Whether an ORDER BY item and a DISTINCT ON item name the same value.
  auto same_item = [](const OrderItem& a, const OrderItem& b) {
    if (a.target >= 0 || b.target >= 0)
      return a.target == b.target;
    return ExprEquals(*a.key.expr, *b.key.expr);
  };
  bool skipped = false;
  auto mismatch = [&](size_t d) {
    return At(Status::InvalidArgument(
                  "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
                  .WithSqlState("42P10"),
              st.distinct_on_locations[d]);
  };
  for (const OrderItem& o : st.order) {
    bool found = false;
    for (size_t d = 0; d < st.distinct_on.size(); ++d) {
      if (same_item(o, st.distinct_on[d])) {
        if (skipped)
          return mismatch(d);
        found = true;
        break;
      }
    }
    skipped = skipped || !found;
  }
  if (!skipped)
    return Status::OK();
  for (size_t d = 0; d < st.distinct_on.size(); ++d) {
    const bool ordered = std::any_of(st.order.begin(), st.order.end(), [&](const OrderItem& o) {
      return same_item(o, st.distinct_on[d]);
    });
    if (!ordered)
      return mismatch(d);
  }
  return Status::OK();
}

Status StatementBinder::BindOrderBy(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  const std::vector<ExprPtr>& targets = st.targets;
  const std::vector<std::string>& names = st.names;
  const bool distinct = st.distinct;
  std::vector<OrderItem>& order = st.order;
  // ORDER BY: output names and ordinals, else expressions over the input.
  for (const auto& item : s.sort_clause()) {
    const auto& sb = item.sort_by();
    OrderItem oi;
    oi.key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
    if (sb.sortby_dir() == pg_query::SORTBY_USING)
      return At(Status::NotImplemented("ORDER BY USING is not supported"), sb.location());
    oi.key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                             ? !oi.key.ascending
                             : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
    const PgNode& n = sb.node();
    if (n.has_a_const() && n.a_const().has_ival()) {
      SHOAL_ASSIGN_OR_RETURN(size_t index, OutputOrdinal(n.a_const().ival().ival(), targets.size(),
                                                         "ORDER BY", n.a_const().location()));
      oi.target = static_cast<int>(index);
    } else if (n.has_column_ref() && n.column_ref().fields_size() == 1 &&
               n.column_ref().fields(0).has_string()) {
      std::string name = Str(n.column_ref().fields(0));
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
    }
    if (oi.target < 0) {
      ExprContext ctx = st.Context("ORDER BY", true, true);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(n, ctx));
      for (size_t i = 0; i < targets.size(); ++i) {
        if (ExprEquals(*targets[i], *e)) {
          oi.target = static_cast<int>(i);
          break;
        }
      }
      if (oi.target < 0) {
        if (distinct)
          return At(Status::InvalidArgument(
                        "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
                        .WithSqlState("42P10"),
                    sb.location());
        oi.key.expr = e;
      }
    }
    order.push_back(std::move(oi));
  }
  if (st.has_distinct_on)
    return CheckDistinctOnOrder(st);
  return Status::OK();
}

void StatementBinder::PlanWindows(SelectState& st) {
  std::vector<ExprPtr>& targets = st.targets;
  std::vector<OrderItem>& order = st.order;
  LogicalPlanPtr& plan = st.plan;
  // Window functions: a Window node appends one column per distinct window expression.
  std::vector<ExprPtr> windows;
  for (const auto& t : targets)
    CollectKind(t, ExprKind::kWindow, &windows);
  for (const auto& o : order)
    CollectKind(o.key.expr, ExprKind::kWindow, &windows);
  for (const auto& o : st.distinct_on)
    CollectKind(o.key.expr, ExprKind::kWindow, &windows);
  if (!windows.empty()) {
    auto window = NewNode(LogicalKind::kWindow);
    window->exprs = windows;
    window->output = plan->output;
    std::vector<std::pair<ExprPtr, ColumnInfo>> replacements;
    for (const auto& w : windows) {
      ColumnInfo c{NewId(), w->ToString(), "", w->type, w->nullable};
      window->output.push_back(c);
      replacements.emplace_back(w, c);
    }
    window->children.push_back(plan);
    plan = window;
    auto replace = [&](const ExprPtr& e) -> ExprPtr {
      if (e->kind != ExprKind::kWindow)
        return nullptr;
      for (const auto& [w, c] : replacements) {
        if (ExprEquals(*w, *e))
          return MakeColumnRef(c.id, c.name, c.type, c.nullable);
      }
      return nullptr;
    };
    // Windows are leaves of the rewrite: their inner expressions stay as bound.
    std::function<ExprPtr(const ExprPtr&)> top_down = [&](const ExprPtr& e) -> ExprPtr {
      if (!e)
        return e;
      if (ExprPtr r = replace(e))
        return r;
      if (e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kLiteral)
        return e;
      auto copy = std::make_shared<Expr>(*e);
      for (auto& a : copy->args)
        a = top_down(a);
      return copy;
    };
    for (auto& t : targets)
      t = top_down(t);
    for (auto& o : order)
      o.key.expr = top_down(o.key.expr);
    for (auto& o : st.distinct_on)
      o.key.expr = top_down(o.key.expr);
  }
}

Result<StatementBinder::QueryResult> StatementBinder::PlanOutput(SelectState& st) {
  const pg_query::SelectStmt& s = st.s;
  const std::vector<ExprPtr>& targets = st.targets;
  const std::vector<std::string>& names = st.names;
  std::vector<OrderItem>& order = st.order;
  LogicalPlanPtr& plan = st.plan;
  SHOAL_RETURN_IF_ERROR(PlanSelectListUnnest(st));
  // Projection: the select list, then hidden ORDER BY expressions.
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i < targets.size(); ++i) {
    project->exprs.push_back(targets[i]);
    project->output.push_back({NewId(), names[i], "", targets[i]->type, targets[i]->nullable});
  }
  for (auto& o : order) {
    if (o.target >= 0)
      continue;
    o.target = static_cast<int>(project->exprs.size());
    project->exprs.push_back(o.key.expr);
    project->output.push_back(
        {NewId(), o.key.expr->ToString(), "", o.key.expr->type, o.key.expr->nullable});
  }
  for (auto& d : st.distinct_on) {
    if (d.target >= 0)
      continue;
    d.target = static_cast<int>(project->exprs.size());
    project->exprs.push_back(d.key.expr);
    project->output.push_back(
        {NewId(), d.key.expr->ToString(), "", d.key.expr->type, d.key.expr->nullable});
  }
  project->children.push_back(plan);
  plan = project;
  size_t visible = targets.size();
  if (st.has_distinct_on)
    PlanDistinctOn(st);

  if (st.distinct) {
    auto d = NewNode(LogicalKind::kDistinct);
    d->output = plan->output;
    d->children.push_back(plan);
    plan = d;
  }
  if (!order.empty()) {
    auto sort = NewNode(LogicalKind::kSort);
    for (const auto& o : order) {
      const auto& c = plan->output[static_cast<size_t>(o.target)];
      SortKey key = o.key;
      key.expr = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      sort->sort_keys.push_back(key);
    }
    sort->output = plan->output;
    sort->children.push_back(plan);
    plan = sort;
  }
  SHOAL_ASSIGN_OR_RETURN(plan, ApplyLimit(plan, s));
  if (plan->output.size() > visible) {
    auto drop = NewNode(LogicalKind::kProject);
    for (size_t i = 0; i < visible; ++i) {
      const auto& c = plan->output[i];
      drop->exprs.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
      drop->output.push_back({NewId(), c.name, "", c.type, c.nullable});
    }
    drop->children.push_back(plan);
    plan = drop;
  }
  return QueryResult{plan, names};
}

// DISTINCT ON: the first row of each DISTINCT ON group in the ORDER BY order (any row without
// an ORDER BY), as row_number() OVER (PARTITION BY distinct-on ORDER BY order-by) = 1. The window
// operator sorts each partition once and distributes by the DISTINCT ON keys, so the plan is a
// hash partitioning plus one sort per partition; the ORDER BY sort above sees only the kept rows.
void StatementBinder::PlanDistinctOn(SelectState& st) {
  LogicalPlanPtr& plan = st.plan;
  auto column = [&](int target) {
    const auto& c = plan->output[static_cast<size_t>(target)];
    return MakeColumnRef(c.id, c.name, c.type, c.nullable);
  };
  auto row_number = std::make_shared<Expr>();
  row_number->kind = ExprKind::kWindow;
  row_number->name = "row_number";
  row_number->type = DataType::Int64();
  row_number->nullable = false;
  for (const auto& d : st.distinct_on)
    row_number->partition_by.push_back(column(d.target));
  for (const auto& o : st.order) {
    // A DISTINCT ON key is constant within its partition: ordering by it is redundant.
    const bool partition_key =
        std::any_of(st.distinct_on.begin(), st.distinct_on.end(),
                    [&](const OrderItem& d) { return d.target == o.target; });
    if (partition_key)
      continue;
    SortKey key = o.key;
    key.expr = column(o.target);
    row_number->order_by.push_back(std::move(key));
  }
  auto window = NewNode(LogicalKind::kWindow);
  window->exprs = {row_number};
  window->output = plan->output;
  ColumnInfo rn{NewId(), "$distinct_on_row", "", DataType::Int64(), false};
  window->output.push_back(rn);
  window->children.push_back(plan);
  plan = window;
  auto filter = NewNode(LogicalKind::kFilter);
  filter->predicate =
      MakeCall("=", {MakeColumnRef(rn.id, rn.name, rn.type, false), MakeLiteral(Scalar::Int64(1))},
               DataType::Boolean(), false);
  filter->output = plan->output;
  filter->children.push_back(plan);
  plan = filter;
}

}  // namespace shoal::sql::internal

// Binding of functions in FROM. generate_series(start, stop [, step]) becomes a TableFunction
// node (its rows come from exec/operators/table_function_exec.h); any other scalar function is a
// relation of one row holding its value, as in PostgreSQL (`SELECT * FROM upper('a')`). Both may
// read the FROM items before them, as PostgreSQL's functions in FROM are implicitly LATERAL: the
// arguments are bound one level in, seeing those items at depth 1, and MakeFromJoin makes the
// join a LATERAL one when they are read (the decorrelator then runs the function per row).

#include <algorithm>
#include <string>
#include <vector>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

namespace {

bool IsIntervalLike(const ExprPtr& e, bool unknown) {
  return e->type.id() == TypeId::kInterval || unknown;
}

bool IsTimestampLike(const ExprPtr& e, bool unknown) {
  return e->type.id() == TypeId::kTimestamp || e->type.id() == TypeId::kDate32 || unknown;
}

}  // namespace

Result<BoundRelation> StatementBinder::BindRangeFunction(const pg_query::RangeFunction& rf,
                                                         const Scope* outer, const CteScope* ctes,
                                                         const std::vector<ScopeColumn>* lateral) {
  reusable_ = false;  // read_parquet and the like list and read files as they are now
  if (rf.is_rowsfrom() || rf.functions_size() != 1)
    return Status::NotImplemented("ROWS FROM with several functions is not supported")
        .WithSqlState("0A000");
  const auto& pair = rf.functions(0).list();
  if (pair.items_size() < 1 || !pair.items(0).has_func_call())
    return Status::NotImplemented("this kind of function in FROM is not supported")
        .WithSqlState("0A000");
  if ((pair.items_size() > 1 && pair.items(1).has_list() &&
       pair.items(1).list().items_size() > 0) ||
      !rf.coldeflist().empty())
    return Status::NotImplemented(
               "a column definition list for a function in FROM is not "
               "supported")
        .WithSqlState("0A000");
  const pg_query::FuncCall& f = pair.items(0).func_call();
  const std::string name = LastName(f.funcname());
  const int loc = f.location();

  // The function's own level sees nothing; the FROM items before it are one level out.
  QueryLevel level;
  level.clause = "functions in FROM";
  Scope before{lateral != nullptr ? *lateral : std::vector<ScopeColumn>{}, outer, &level};
  Scope own{{}, &before, &level};
  ExprContext ctx;
  ctx.scope = &own;
  ctx.ctes = ctes;
  ctx.clause = "functions in FROM";

  const std::string alias = rf.has_alias() ? rf.alias().aliasname() : "";
  const NodeList* colnames = rf.has_alias() ? &rf.alias().colnames() : nullptr;
  const std::string qualifier = alias.empty() ? name : alias;
  // PostgreSQL names the value column after the alias when no column names are given.
  const std::string value_name =
      colnames != nullptr && !colnames->empty() ? Str((*colnames)[0]) : qualifier;
  const int wanted =
      (name == "unnest" ? std::max(f.args_size(), 1) : 1) + (rf.ordinality() ? 1 : 0);
  if (colnames != nullptr && colnames->size() > wanted)
    return At(Status::InvalidArgument("too many column aliases specified for function {}", name)
                  .WithSqlState("42P10"),
              loc);
  const std::string ordinality_name =
      colnames != nullptr && colnames->size() > 1 ? Str((*colnames)[1]) : "ordinality";

  BoundRelation rel;
  rel.lateral = true;
  if (name == "unnest")
    return BindUnnestFunction(rf, f, ctx, qualifier);
  if (name != "generate_series") {
    if (rf.ordinality())
      return At(Status::NotImplemented("WITH ORDINALITY is only supported for generate_series")
                    .WithSqlState("0A000"),
                loc);
    pg_query::Node call;
    *call.mutable_func_call() = f;
    SHOAL_ASSIGN_OR_RETURN(ExprPtr value, BindExpr(call, ctx));
    if (IsUnknownLiteral(value)) {
      SHOAL_ASSIGN_OR_RETURN(value, Coerce(value, DataType::Utf8()));
    }
    auto values = NewNode(LogicalKind::kValues);
    values->rows.push_back({value});
    const ColumnId id = NewId();
    values->output.push_back({id, value_name, qualifier, value->type, value->nullable});
    rel.plan = values;
    rel.columns.push_back({qualifier, value_name, id, value->type, value->nullable, false});
    return rel;
  }

  if (f.agg_star() || f.agg_distinct() || f.has_over() || !f.agg_order().empty() ||
      f.has_agg_filter())
    return At(Status::InvalidArgument("generate_series is not an aggregate or window function")
                  .WithSqlState("42809"),
              loc);
  std::vector<ExprPtr> args;
  std::vector<bool> unknown;
  for (const auto& a : f.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    unknown.push_back(IsUnknownLiteral(e));
    args.push_back(std::move(e));
  }
  auto signature = [&]() {
    std::string list;
    for (size_t i = 0; i < args.size(); ++i)
      list +=
          (i > 0 ? ", " : "") + (unknown[i] ? std::string("unknown") : SqlTypeName(args[i]->type));
    return list;
  };
  auto no_such_function = [&]() {
    return At(Status::NotFound("function generate_series({}) does not exist", signature())
                  .WithSqlState("42883")
                  .WithHint("Shoal's generate_series takes (integer, integer [, integer]), "
                            "(bigint, bigint [, bigint]) or (timestamp, timestamp, interval)."),
              loc);
  };
  if (args.size() != 2 && args.size() != 3)
    return no_such_function();
  DataType type;
  if (args.size() == 3 && IsIntervalLike(args[2], unknown[2]) &&
      IsTimestampLike(args[0], unknown[0]) && IsTimestampLike(args[1], unknown[1]) &&
      !(unknown[0] && unknown[1] && unknown[2])) {
    type = DataType::Timestamp(columnar::TimeUnit::kMicro);
    SHOAL_ASSIGN_OR_RETURN(args[2], Coerce(args[2], DataType::Interval(), loc));
    for (int i = 0; i < 2; ++i) {
      SHOAL_ASSIGN_OR_RETURN(args[static_cast<size_t>(i)],
                             Coerce(args[static_cast<size_t>(i)], type, loc));
    }
  } else {
    bool any_known = false;
    for (size_t i = 0; i < args.size(); ++i)
      any_known = any_known || !unknown[i];
    if (!any_known)
      return At(Status::InvalidArgument("function generate_series({}) is not unique", signature())
                    .WithSqlState("42725")
                    .WithHint("Could not choose a best candidate function. You might need to add "
                              "explicit type casts."),
                loc);
    SHOAL_ASSIGN_OR_RETURN(DataType common, CommonType(args, "generate_series", loc));
    switch (common.id()) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32: type = DataType::Int32(); break;
      case TypeId::kInt64: type = DataType::Int64(); break;
      case TypeId::kDecimal:
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        return At(Status::NotImplemented("generate_series({}) is not supported yet", signature())
                      .WithSqlState("0A000")
                      .WithHint("Generate integers and scale them: generate_series(1, 10) * 0.5."),
                  loc);
      default: return no_such_function();
    }
    for (auto& a : args) {
      SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, loc));
    }
  }
  auto node = NewNode(LogicalKind::kTableFunction);
  node->function_name = name;
  node->with_ordinality = rf.ordinality();
  node->exprs = std::move(args);
  const ColumnId value_id = NewId();
  node->output.push_back({value_id, value_name, qualifier, type, false});
  rel.columns.push_back({qualifier, value_name, value_id, type, false, false});
  if (rf.ordinality()) {
    const ColumnId ord_id = NewId();
    node->output.push_back({ord_id, ordinality_name, qualifier, DataType::Int64(), false});
    rel.columns.push_back({qualifier, ordinality_name, ord_id, DataType::Int64(), false, false});
  }
  rel.plan = node;
  return rel;
}

// unnest(array [, array ...]) [WITH ORDINALITY] in FROM: a TableFunction "unnest" whose columns
// are the arrays' elements, zipped (exec/operators/unnest_exec.h), then the ordinality.
Result<BoundRelation> StatementBinder::BindUnnestFunction(const pg_query::RangeFunction& rf,
                                                          const pg_query::FuncCall& f,
                                                          ExprContext& ctx,
                                                          const std::string& qualifier) {
  const int loc = f.location();
  if (f.agg_star() || f.agg_distinct() || f.has_over() || !f.agg_order().empty() ||
      f.has_agg_filter() || f.args().empty())
    return At(Status::NotFound("function unnest() does not exist").WithSqlState("42883"), loc);
  std::vector<ExprPtr> args;
  for (const auto& a : f.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    if (IsUnknownLiteral(e))
      return At(Status::InvalidArgument("function unnest(unknown) is not unique")
                    .WithSqlState("42725")
                    .WithHint("Could not choose a best candidate function. You might need to "
                              "add explicit type casts."),
                loc);
    if (e->type.id() != TypeId::kList)
      return At(Status::NotFound("function unnest({}) does not exist", SqlTypeName(e->type))
                    .WithSqlState("42883")
                    .WithHint("unnest takes arrays."),
                loc);
    args.push_back(std::move(e));
  }
  const NodeList* colnames = rf.has_alias() ? &rf.alias().colnames() : nullptr;
  auto column_name = [&](size_t i, const std::string& fallback) {
    return colnames != nullptr && static_cast<int>(i) < colnames->size()
               ? Str((*colnames)[static_cast<int>(i)])
               : fallback;
  };
  BoundRelation rel;
  rel.lateral = true;
  auto node = NewNode(LogicalKind::kTableFunction);
  node->function_name = "unnest";
  node->with_ordinality = rf.ordinality();
  // PostgreSQL names a single array's column after the alias (or "unnest"), several "unnest".
  const std::string single = rf.has_alias() ? qualifier : "unnest";
  for (size_t i = 0; i < args.size(); ++i) {
    const DataType item = args[i]->type.item_field().type;
    const std::string col = column_name(i, args.size() == 1 ? single : "unnest");
    const ColumnId id = NewId();
    node->output.push_back({id, col, qualifier, item, true});
    rel.columns.push_back({qualifier, col, id, item, true, false});
  }
  if (rf.ordinality()) {
    const std::string col = column_name(args.size(), "ordinality");
    const ColumnId id = NewId();
    node->output.push_back({id, col, qualifier, DataType::Int64(), false});
    rel.columns.push_back({qualifier, col, id, DataType::Int64(), false, false});
  }
  node->exprs = std::move(args);
  rel.plan = node;
  return rel;
}

}  // namespace shoal::sql::internal

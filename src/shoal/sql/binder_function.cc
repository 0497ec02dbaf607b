// Binding of function calls: PostgreSQL spellings to canonical names, the rules on where
// aggregates and window functions may appear, aggregate calls (DISTINCT, FILTER, ORDER BY) and
// window calls with their PARTITION BY / ORDER BY / frame.

#include <algorithm>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::sql::internal {

namespace {

bool IsAggregateName(std::string_view name) {
  return FunctionRegistry::Global().Find(name, FunctionKind::kAggregate) != nullptr;
}

/// Canonical function name for PostgreSQL spellings.
std::string CanonicalFunctionName(const std::string& name) {
  static const std::map<std::string, std::string> kAliases = {
      {"substr", "substring"},   {"char_length", "length"}, {"character_length", "length"},
      {"date_part", "extract"},  {"ceiling", "ceil"},       {"pow", "power"},
      {"stddev", "stddev_samp"}, {"variance", "var_samp"},  {"btrim", "trim"},
      {"every", "bool_and"},     {"strpos", "position"},    {"textcat", "||"},
  };
  auto it = kAliases.find(name);
  return it == kAliases.end() ? name : it->second;
}

}  // namespace

Result<ExprPtr> StatementBinder::BindFuncCall(const pg_query::FuncCall& f, ExprContext& ctx) {
  std::string name = CanonicalFunctionName(LastName(f.funcname()));
  int loc = f.location();
  // now() and its synonyms are the statement's start, one value for every row and every node:
  // a constant taken when the statement is bound (PostgreSQL: the transaction's start; every
  // statement is its own transaction here).
  if ((name == "now" || name == "transaction_timestamp" || name == "statement_timestamp") &&
      f.args().empty() && !f.has_over() && !f.agg_star())
    return MakeLiteral(StatementTimestamp(/*zoned=*/true));
  // unnest(array) is a set-returning function: only a select list (PlanSelectListUnnest) or FROM
  // (BindUnnestFunction) may hold it.
  if (name == "unnest" && !f.has_over()) {
    if (ctx.in_aggregate)
      return At(Status::InvalidArgument(
                    "aggregate function calls cannot contain set-returning function calls")
                    .WithSqlState("0A000")
                    .WithHint("You might be able to move the set-returning function into a "
                              "LATERAL FROM item."),
                loc);
    if (std::string_view(ctx.clause) != "SELECT")
      return At(Status::InvalidArgument("set-returning functions are not allowed in {}", ctx.clause)
                    .WithSqlState("0A000"),
                loc);
  }
  // array_to_string and array_upper over the system catalogs' text arrays are rewritten below;
  // over real arrays they are the array functions.
  bool real_array = false;
  if ((name == "array_to_string" || name == "array_upper") && f.args_size() >= 1) {
    auto first = BindExpr(f.args(0), ctx);
    real_array = first.ok() && (*first)->type.id() == TypeId::kList;
  }
  if (!f.has_over() && !f.agg_star() && !real_array) {
    auto catalog_call = BindCatalogFunction(name, f, ctx);
    if (catalog_call) {
      reusable_ = false;  // the session's or the catalog's state now
      return std::move(*catalog_call);
    }
  }
  // log(b, x) is a function of its own beside log(x) (the base-10 logarithm).
  if (name == "log" && f.args_size() == 2)
    name = "log_base";
  if (f.func_variadic())
    return At(Status::NotImplemented("VARIADIC is not supported"), loc);
  const bool ordered_set = IsOrderedSetAggregate(name);
  // PostgreSQL looks WITHIN GROUP calls up among ordered-set aggregates only (and the others
  // among the rest), so a mismatch is a function that does not exist.
  if (f.agg_within_group() && !ordered_set)
    return At(Status::NotFound("function {} does not exist with WITHIN GROUP", name)
                  .WithSqlState("42883")
                  .WithHint(fmt::format("{} is not an ordered-set aggregate; the ordered-set "
                                        "aggregates are percentile_cont, percentile_disc and mode",
                                        name)),
              loc);
  if (ordered_set && !f.agg_within_group())
    return At(Status::NotFound("function {} does not exist without WITHIN GROUP", name)
                  .WithSqlState("42883")
                  .WithHint(fmt::format(
                      "{} is an ordered-set aggregate: write {}(...) WITHIN GROUP (ORDER BY value)",
                      name, name)),
              loc);
  if (ordered_set && f.has_over())
    return At(Status::NotImplemented("OVER is not supported for ordered-set aggregate {}", name)
                  .WithSqlState("0A000"),
              loc);
  bool is_aggregate = ordered_set || IsAggregateName(name);
  bool is_window = f.has_over();
  if (is_window && !f.agg_order().empty())
    return At(Status::NotImplemented("aggregate ORDER BY is not implemented for window functions")
                  .WithSqlState("0A000"),
              loc);
  if (is_window && ctx.in_window)
    return At(
        Status::InvalidArgument("window function calls cannot be nested").WithSqlState("42P20"),
        loc);
  if (is_window && ctx.in_aggregate)
    return At(Status::InvalidArgument("aggregate function calls cannot contain window function "
                                      "calls")
                  .WithSqlState("42803"),
              loc);
  if (is_window && ctx.in_aggregate) {
    return At(
        Status::InvalidArgument("aggregate function calls cannot be nested").WithSqlState("42803"),
        loc);
  }
  if (is_window && !ctx.allow_windows) {
    return At(Status::InvalidArgument("window functions are not allowed in {}", ctx.clause)
                  .WithSqlState("42P20"),
              loc);
  }
  // A plain aggregate is checked once its arguments are bound (PlaceAggregate): which query it
  // belongs to, and so which clause it stands in, depends on the columns they reference.
  ExprContext inner = ctx;
  if (is_window) {
    // A window function's arguments may hold aggregates (sum(sum(x)) OVER ...): they are
    // computed by the aggregate below the window.
    inner.in_window = true;
    inner.allow_windows = false;
  } else if (is_aggregate) {
    inner.in_aggregate = true;
    inner.allow_aggregates = false;
    inner.allow_windows = false;
  }
  if (ordered_set) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr agg, BindOrderedSetAggregate(f, name, inner));
    return PlaceAggregate(std::move(agg), ctx, loc);
  }
  std::vector<ExprPtr> args;
  for (const auto& a : f.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, inner));
    args.push_back(e);
  }
  if (is_window)
    return BindWindow(f, std::move(args), ctx);
  if (is_aggregate) {
    if (f.agg_star() && name != "count")
      return At(Status::InvalidArgument("{}(*) is not allowed", name).WithSqlState("42809"), loc);
    std::vector<DataType> types;
    types.reserve(args.size());
    for (const auto& a : args)
      types.push_back(IsUnknownLiteral(a) ? DataType::Utf8() : a->type);
    auto res = FunctionRegistry::Global().Resolve(name, FunctionKind::kAggregate, types);
    if (!res.ok())
      return At(res.status(), loc);
    for (size_t i = 0; i < args.size(); ++i) {
      SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], res->arg_types[i], loc));
    }
    ExprPtr filter;
    if (f.has_agg_filter()) {
      SHOAL_ASSIGN_OR_RETURN(filter, BindExpr(f.agg_filter(), inner));
      SHOAL_ASSIGN_OR_RETURN(filter, CoerceToBoolean(filter, "FILTER", loc));
    }
    // sum / min / max / avg of no rows is NULL; count never is.
    auto agg = std::const_pointer_cast<Expr>(MakeAggregate(
        name, std::move(args), res->result_type, res->nullable_result, f.agg_distinct(), filter));
    if (!f.agg_order().empty()) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<SortKey> order, BindSortList(f.agg_order(), inner));
      if (agg->distinct) {
        // PostgreSQL: with DISTINCT the ordering must be computable from the distinct values.
        for (size_t i = 0; i < order.size(); ++i) {
          const bool in_args =
              std::any_of(agg->args.begin(), agg->args.end(),
                          [&](const ExprPtr& a) { return ExprEquals(*a, *order[i].expr); });
          if (!in_args)
            return At(Status::InvalidArgument("in an aggregate with DISTINCT, ORDER BY "
                                              "expressions must appear in argument list")
                          .WithSqlState("42P10"),
                      f.agg_order(static_cast<int>(i)).sort_by().location());
        }
      }
      // Only an order-sensitive aggregate keeps its ORDER BY; sum, count, min, ... ignore it,
      // so it costs nothing there.
      if (IsOrderSensitiveAggregate(name))
        agg->order_by = std::move(order);
    }
    return PlaceAggregate(std::move(agg), ctx, loc);
  }
  if (f.agg_star() || f.agg_distinct() || f.has_agg_filter() || !f.agg_order().empty()) {
    return At(
        Status::InvalidArgument("{} is not an aggregate function", name).WithSqlState("42809"),
        loc);
  }
  if (name == "extract" && !args.empty() && IsUnknownLiteral(args[0])) {
    // Field names are case-insensitive; normalise them for the kernels.
    std::string field = args[0]->value.string_value();
    for (char& ch : field)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    args[0] = MakeLiteral(Scalar::Utf8(field));
  }
  if (name == "concat") {
    for (auto& a : args) {
      if (IsUnknownLiteral(a))
        unknown_literals_.erase(a.get());
    }
  }
  if (name == "coalesce" || name == "greatest" || name == "least") {
    SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(args, "COALESCE", loc));
    for (auto& a : args) {
      SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, loc));
    }
  }
  if (FunctionRegistry::Global().Find(name, FunctionKind::kScalar) == nullptr &&
      FunctionRegistry::Global().Find(name, FunctionKind::kWindow) != nullptr) {
    return At(Status::InvalidArgument("window function {} requires an OVER clause", name)
                  .WithSqlState("42809"),
              loc);
  }
  if ((name == "round" || name == "trunc") && args.size() == 2) {
    // round(numeric, n) has n fraction digits in PostgreSQL (round(1.25, 1) is 1.3, round(5, 2)
    // is 5.00, round(1234.5, -2) is 1200): with a constant n, so has the result's decimal type.
    SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall(name, std::move(args), loc));
    ExprPtr digits = call->kind == ExprKind::kCall ? call->args[1] : nullptr;
    if (digits && digits->kind == ExprKind::kLiteral && !digits->value.is_null() &&
        digits->type.is_integer() && call->type.id() == TypeId::kDecimal) {
      const DataType& in = call->args[0]->type;
      int64_t n = digits->value.int_value();
      int scale = static_cast<int>(std::clamp<int64_t>(n, 0, DataType::kMaxDecimalPrecision));
      int integer_digits = in.precision() - in.scale() + 1;
      if (integer_digits + scale <= DataType::kMaxDecimalPrecision) {
        auto copy = std::make_shared<Expr>(*call);
        copy->type = DataType::Decimal(integer_digits + scale, scale);
        call = copy;
      }
    }
    return call;
  }
  if (name == "extract") {
    // PostgreSQL 15's EXTRACT returns numeric: exact, with 6 fraction digits for second and
    // epoch (3 for millisecond) of a timestamp or interval; date_part the same as double
    // precision. Both share the extract kernels, which write the decimal the call is given here.
    SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall(name, std::move(args), loc));
    ExprPtr field_arg = call->kind == ExprKind::kCall ? call->args[0] : nullptr;
    if (field_arg && field_arg->kind == ExprKind::kLiteral && !field_arg->value.is_null() &&
        call->type.id() == TypeId::kDecimal) {
      std::string field = field_arg->value.string_value();
      bool point = call->args[1]->type.id() != TypeId::kDate32;
      int scale = (field == "second" || field == "seconds" || field == "epoch") && point ? 6
                  : (field == "millisecond" || field == "milliseconds") && point         ? 3
                                                                                         : 0;
      if (scale != call->type.scale()) {
        auto copy = std::make_shared<Expr>(*call);
        copy->type = DataType::Decimal(DataType::kMaxDecimal64Precision, scale);
        call = copy;
      }
    }
    if (LastName(f.funcname()) == "date_part")
      return MakeCast(std::move(call), DataType::Float64());
    return call;
  }
  return MakeResolvedCall(name, std::move(args), loc);
}

Result<ExprPtr> StatementBinder::BindOrderedSetAggregate(const pg_query::FuncCall& f,
                                                         const std::string& name,
                                                         ExprContext& inner) {
  const int loc = f.location();
  const bool percentile = name != "mode";
  const size_t num_direct = percentile ? 1 : 0;
  auto no_such_function = [&](const std::vector<ExprPtr>& direct, const ExprPtr& value) {
    std::string types;
    for (const auto& a : direct)
      types += (types.empty() ? "" : ", ") + a->type.ToString();
    if (value)
      types += (types.empty() ? "" : ", ") + value->type.ToString();
    return At(Status::NotFound("function {}({}) does not exist", name, types)
                  .WithSqlState("42883")
                  .WithHint("No function matches the given name and argument types."),
              loc);
  };
  if (percentile && f.args_size() == 1 && f.args(0).has_a_array_expr())
    return At(Status::NotImplemented("{} with an array of fractions is not supported: Shoal has "
                                     "no array type yet; call {} once per fraction",
                                     name, name)
                  .WithSqlState("0A000"),
              f.args(0).a_array_expr().location());
  std::vector<ExprPtr> direct;
  for (const auto& a : f.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, inner));
    direct.push_back(std::move(e));
  }
  SHOAL_ASSIGN_OR_RETURN(std::vector<SortKey> order, BindSortList(f.agg_order(), inner));
  if (direct.size() != num_direct || order.size() != 1)
    return no_such_function(direct, order.empty() ? nullptr : order[0].expr);
  ExprPtr& value = order[0].expr;
  if (IsUnknownLiteral(value)) {
    SHOAL_ASSIGN_OR_RETURN(value, Coerce(value, DataType::Utf8(), loc));
  }
  if (percentile) {
    const TypeId id = direct[0]->type.id();
    if (!(IsUnknownLiteral(direct[0]) || direct[0]->type.is_integer() || id == TypeId::kDecimal ||
          id == TypeId::kFloat32 || id == TypeId::kFloat64 || id == TypeId::kNull))
      return no_such_function(direct, value);
    SHOAL_ASSIGN_OR_RETURN(direct[0], Coerce(direct[0], DataType::Float64(), loc));
  }
  DataType type = value->type.decoded_type();
  if (name == "percentile_cont") {
    const TypeId id = type.id();
    if (type.is_integer() || id == TypeId::kDecimal || id == TypeId::kFloat32 ||
        id == TypeId::kFloat64) {
      SHOAL_ASSIGN_OR_RETURN(value, Coerce(value, DataType::Float64(), loc));
      type = DataType::Float64();
    } else if (id != TypeId::kInterval) {
      return no_such_function(direct, value);
    }
  }
  if (type.id() == TypeId::kNull)
    return At(Status::InvalidArgument("could not determine polymorphic type because input has "
                                      "type unknown")
                  .WithSqlState("42804"),
              loc);
  ExprPtr filter;
  if (f.has_agg_filter()) {
    SHOAL_ASSIGN_OR_RETURN(filter, BindExpr(f.agg_filter(), inner));
    SHOAL_ASSIGN_OR_RETURN(filter, CoerceToBoolean(filter, "FILTER", loc));
  }
  auto agg = std::const_pointer_cast<Expr>(
      MakeAggregate(name, std::move(direct), type, /*nullable=*/true, false, filter));
  agg->order_by = std::move(order);
  return ExprPtr(agg);
}

Result<ExprPtr> StatementBinder::BindWindow(const pg_query::FuncCall& f, std::vector<ExprPtr> args,
                                            ExprContext& ctx) {
  std::string name = CanonicalFunctionName(LastName(f.funcname()));
  int loc = f.location();
  FunctionKind kind = IsAggregateName(name) ? FunctionKind::kAggregate : FunctionKind::kWindow;
  std::vector<DataType> types;
  types.reserve(args.size());
  for (const auto& a : args)
    types.push_back(IsUnknownLiteral(a) ? DataType::Utf8() : a->type);
  auto res = FunctionRegistry::Global().Resolve(name, kind, types);
  if (!res.ok())
    return At(res.status(), loc);
  for (size_t i = 0; i < args.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(args[i], Coerce(args[i], res->arg_types[i], loc));
  }
  // A named window (OVER w) comes from the WINDOW clause.
  const pg_query::WindowDef* def = &f.over();
  if (!def->name().empty() && def->partition_clause().empty() && def->order_clause().empty() &&
      def->refname().empty()) {
    const pg_query::WindowDef* named = nullptr;
    if (ctx.window_clause != nullptr) {
      for (const auto& w : *ctx.window_clause) {
        if (w.window_def().name() == def->name())
          named = &w.window_def();
      }
    }
    if (named == nullptr)
      return At(Status::NotFound("window \"{}\" does not exist", def->name()).WithSqlState("42704"),
                loc);
    def = named;
  }
  // PARTITION BY / ORDER BY may hold aggregates of the query level, like the arguments.
  ExprContext inner = ctx;
  inner.in_window = true;
  inner.allow_windows = false;
  auto w = std::make_shared<Expr>();
  w->kind = ExprKind::kWindow;
  w->name = name;
  w->args = std::move(args);
  w->type = res->result_type;
  w->nullable = res->nullable_result;
  w->distinct = f.agg_distinct();
  if (f.has_agg_filter()) {
    SHOAL_ASSIGN_OR_RETURN(w->filter, BindExpr(f.agg_filter(), inner));
  }
  for (const auto& p : def->partition_clause()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(p, inner));
    w->partition_by.push_back(e);
  }
  SHOAL_ASSIGN_OR_RETURN(w->order_by, BindSortList(def->order_clause(), inner));
  int o = def->frame_options();
  if (o & 0x1) {  // FRAMEOPTION_NONDEFAULT
    w->frame.units = (o & 0x4)   ? WindowFrame::Units::kRows
                     : (o & 0x8) ? WindowFrame::Units::kGroups
                                 : WindowFrame::Units::kRange;
    using BK = WindowFrame::BoundKind;
    w->frame.start = (o & 0x20)     ? BK::kUnboundedPreceding
                     : (o & 0x200)  ? BK::kCurrentRow
                     : (o & 0x800)  ? BK::kPreceding
                     : (o & 0x2000) ? BK::kFollowing
                                    : BK::kUnboundedPreceding;
    w->frame.end = (o & 0x100)    ? BK::kUnboundedFollowing
                   : (o & 0x400)  ? BK::kCurrentRow
                   : (o & 0x1000) ? BK::kPreceding
                   : (o & 0x4000) ? BK::kFollowing
                                  : BK::kCurrentRow;
    if (def->has_start_offset()) {
      SHOAL_ASSIGN_OR_RETURN(w->frame.start_offset, BindExpr(def->start_offset(), inner));
    }
    if (def->has_end_offset()) {
      SHOAL_ASSIGN_OR_RETURN(w->frame.end_offset, BindExpr(def->end_offset(), inner));
    }
    if (o & (0x8000 | 0x10000 | 0x20000))
      return At(Status::NotImplemented("frame EXCLUDE is not supported"), loc);
  }
  return ExprPtr(w);
}

}  // namespace shoal::sql::internal

// Binding of expressions: column references (name resolution through the scopes, with the
// "did you mean" hint), constants, operators, boolean connectives, casts, CASE, subqueries and
// sort lists. Function calls are in binder_function.cc.

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "shoal/common/edit_distance.h"
#include "shoal/common/stack_depth.h"
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/literal_parsing.h"

namespace shoal::sql::internal {

Result<ExprPtr> StatementBinder::BindConst(const pg_query::A_Const& c) {
  if (c.isnull())
    return MakeLiteral(Scalar());
  switch (c.val_case()) {
    case pg_query::A_Const::kIval: return MakeLiteral(Scalar::Int32(c.ival().ival()));
    case pg_query::A_Const::kFval: {
      auto v = ParseNumericLiteral(c.fval().fval());
      if (!v.ok())
        return At(v.status(), c.location());
      return MakeLiteral(*v);
    }
    case pg_query::A_Const::kBoolval: return MakeLiteral(Scalar::Boolean(c.boolval().boolval()));
    case pg_query::A_Const::kSval: {
      ExprPtr e = MakeLiteral(Scalar::Utf8(c.sval().sval()));
      unknown_literals_.emplace(e.get(), e);
      return e;
    }
    default: break;
  }
  return At(Status::NotImplemented("bit-string constants are not supported"), c.location());
}

Result<ExprPtr> StatementBinder::BindColumnRef(const pg_query::ColumnRef& ref, ExprContext& ctx) {
  std::vector<std::string> parts;
  for (const auto& f : ref.fields()) {
    if (f.has_a_star())
      return At(Status::InvalidArgument("\"*\" is not allowed here").WithSqlState("42601"),
                ref.location());
    parts.push_back(Str(f));
  }
  if (parts.empty() || parts.size() > 3)
    return At(Status::NotImplemented("column reference with {} parts", parts.size()),
              ref.location());
  std::string name = parts.back();
  std::string qualifier = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  bool qualifier_seen = false;
  int depth = 0;
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer, ++depth) {
    const ScopeColumn* match = nullptr;
    int matches = 0;
    for (const auto& c : s->columns) {
      if (!qualifier.empty() && c.qualifier == qualifier)
        qualifier_seen = true;
      if (c.name != name)
        continue;
      if (qualifier.empty() ? c.hidden : c.qualifier != qualifier)
        continue;
      if (match != nullptr && match->id == c.id)
        continue;
      match = &c;
      ++matches;
    }
    if (matches > 1) {
      return At(
          Status::InvalidArgument("column reference \"{}\" is ambiguous",
                                  qualifier.empty() ? name : fmt::format("{}.{}", qualifier, name))
              .WithSqlState("42702"),
          ref.location());
    }
    if (match != nullptr)
      return MakeColumnRef(match->id, match->name, match->type, match->nullable, depth);
    if (qualifier_seen)
      break;
  }
  if (!qualifier.empty() && !qualifier_seen) {
    return At(Status::NotFound("missing FROM-clause entry for table \"{}\"", qualifier)
                  .WithSqlState("42P01"),
              ref.location());
  }
  std::vector<std::string> candidates;
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer) {
    for (const auto& c : s->columns) {
      if (qualifier.empty() || c.qualifier == qualifier)
        candidates.push_back(c.name);
    }
  }
  std::string shown = qualifier.empty() ? name : qualifier + "." + name;
  Status status = At(Status::NotFound("column \"{}\" does not exist", shown).WithSqlState("42703"),
                     ref.location());
  std::string close = ClosestMatch(name, candidates);
  if (!close.empty()) {
    return std::move(status).WithHint(
        fmt::format("Perhaps you meant to reference the column \"{}\".",
                    qualifier.empty() ? close : qualifier + "." + close));
  }
  return status;
}

Scalar StatementBinder::StatementTimestamp(bool zoned) {
  if (!statement_micros_) {
    statement_micros_ = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  }
  return Scalar::Timestamp(*statement_micros_, columnar::TimeUnit::kMicro, zoned ? "UTC" : "");
}

Result<ExprPtr> StatementBinder::BindExpr(const PgNode& node, ExprContext& ctx) {
  SHOAL_CHECK_STACK_DEPTH();
  switch (node.node_case()) {
    case PgNode::kColumnRef: return BindColumnRef(node.column_ref(), ctx);
    case PgNode::kAConst: return BindConst(node.a_const());
    case PgNode::kAExpr: return BindAExpr(node.a_expr(), ctx);
    case PgNode::kBoolExpr: return BindBool(node.bool_expr(), ctx);
    case PgNode::kFuncCall: return BindFuncCall(node.func_call(), ctx);
    case PgNode::kTypeCast: return BindTypeCast(node.type_cast(), ctx);
    case PgNode::kCaseExpr: return BindCase(node.case_expr(), ctx);
    case PgNode::kSubLink: return BindSubLink(node.sub_link(), false, ctx);
    case PgNode::kNullTest: {
      const auto& t = node.null_test();
      if (t.arg().has_row_expr())
        return BindRowNullTest(t, ctx);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(t.arg(), ctx));
      if (IsUnknownLiteral(arg))
        unknown_literals_.erase(arg.get());
      return MakeResolvedCall(t.nulltesttype() == pg_query::IS_NULL ? "is_null" : "is_not_null",
                              {arg}, t.location());
    }
    case PgNode::kBooleanTest: {
      const auto& t = node.boolean_test();
      SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(t.arg(), ctx));
      SHOAL_ASSIGN_OR_RETURN(arg, CoerceToBoolean(arg, "IS TRUE", t.location()));
      std::string name;
      bool negate = false;
      switch (t.booltesttype()) {
        case pg_query::IS_TRUE: name = "is_true"; break;
        case pg_query::IS_NOT_TRUE:
          name = "is_true";
          negate = true;
          break;
        case pg_query::IS_FALSE: name = "is_false"; break;
        case pg_query::IS_NOT_FALSE:
          name = "is_false";
          negate = true;
          break;
        case pg_query::IS_UNKNOWN: name = "is_null"; break;
        default: name = "is_not_null"; break;
      }
      SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall(name, {arg}, t.location()));
      if (negate)
        return MakeResolvedCall("not", {call}, t.location());
      return call;
    }
    case PgNode::kCoalesceExpr:
    case PgNode::kMinMaxExpr: {
      bool coalesce = node.has_coalesce_expr();
      const auto& list = coalesce ? node.coalesce_expr().args() : node.min_max_expr().args();
      int location = coalesce ? node.coalesce_expr().location() : node.min_max_expr().location();
      std::vector<ExprPtr> args;
      for (const auto& a : list) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
        args.push_back(e);
      }
      SHOAL_ASSIGN_OR_RETURN(DataType type,
                             CommonType(args, coalesce ? "COALESCE" : "GREATEST", location));
      bool nullable = coalesce;
      for (auto& a : args) {
        SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, location));
        nullable = coalesce ? nullable && a->nullable : nullable || a->nullable;
      }
      std::string name = coalesce                                            ? "coalesce"
                         : node.min_max_expr().op() == pg_query::IS_GREATEST ? "greatest"
                                                                             : "least";
      return MakeCall(name, std::move(args), type, nullable);
    }
    case PgNode::kSqlvalueFunction: {
      const auto& f = node.sqlvalue_function();
      switch (f.op()) {
        case pg_query::SVFOP_CURRENT_DATE:
          return MakeCall("current_date", {}, DataType::Date32(), false);
        case pg_query::SVFOP_CURRENT_TIMESTAMP:
        case pg_query::SVFOP_CURRENT_TIMESTAMP_N:
          return MakeLiteral(StatementTimestamp(/*zoned=*/true));
        case pg_query::SVFOP_LOCALTIMESTAMP:
        case pg_query::SVFOP_LOCALTIMESTAMP_N:
          return MakeLiteral(StatementTimestamp(/*zoned=*/false));
        case pg_query::SVFOP_CURRENT_USER:
        case pg_query::SVFOP_CURRENT_ROLE:
        case pg_query::SVFOP_SESSION_USER:
        case pg_query::SVFOP_USER: return MakeLiteral(Scalar::Utf8(session_->user_name()));
        case pg_query::SVFOP_CURRENT_SCHEMA:
          return MakeLiteral(Scalar::Utf8(std::string(kDefaultSchema)));
        case pg_query::SVFOP_CURRENT_CATALOG: return MakeLiteral(Scalar::Utf8("shoal"));
        default: break;
      }
      return At(Status::NotImplemented("this SQL value function is not supported"), f.location());
    }
    case PgNode::kParamRef: {
      // $n: the value the session holds for it (the server's Bind), as a constant.
      const int number = node.param_ref().number();
      const int location = node.param_ref().location();
      if (!expression_args_.empty()) {  // in an expression BindSqlExpression binds
        const auto& args = expression_args_.back();
        if (number >= 1 && static_cast<size_t>(number) <= args.size())
          return args[static_cast<size_t>(number - 1)];
      }
      reusable_ = false;
      const auto& params = session_->parameters();
      session_->max_parameter() = std::max(session_->max_parameter(), number);
      if (number < 1 || static_cast<size_t>(number) > params.size()) {
        if (number >= 1 && session_->lenient_parameters())
          return MakeLiteral(Scalar());
        return At(
            Status::InvalidArgument("there is no parameter ${}", number).WithSqlState("42P02"),
            location);
      }
      const QueryParameter& p = params[static_cast<size_t>(number - 1)];
      if (!p.text)
        return MakeLiteral(p.type ? Scalar(*p.type) : Scalar());
      if (p.type || p.numeric) {
        auto v = p.type ? CastTextToType(*p.text, *p.type) : ParseNumericLiteral(*p.text);
        if (!v.ok())
          return At(v.status(), location);
        return MakeLiteral(*v);
      }
      ExprPtr e = MakeLiteral(Scalar::Utf8(*p.text));
      unknown_literals_.emplace(e.get(), e);
      return e;
    }
    case PgNode::kAIndirection: return BindIndirection(node.a_indirection(), ctx);
    case PgNode::kAArrayExpr: return BindArrayConstructor(node.a_array_expr(), ctx, nullptr);
    case PgNode::kRowExpr: return BindRowConstructor(node.row_expr(), ctx);
    case PgNode::kCollateClause: {
      // Shoal compares text byte by byte, which is the "C" collation; other collations would
      // order differently, so they are refused rather than ignored.
      const auto& c = node.collate_clause();
      const std::string name = LastName(c.collname());
      if (name != "C" && name != "POSIX" && name != "default" && name != "ucs_basic")
        return At(Status::NotImplemented("collation \"{}\" is not supported", name)
                      .WithSqlState("0A000")
                      .WithHint("Shoal compares text byte by byte, as the \"C\" collation does."),
                  c.location());
      SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(c.arg(), ctx));
      if (arg->type.id() != TypeId::kUtf8 && !IsUnknownLiteral(arg) &&
          arg->type.id() != TypeId::kNull)
        return At(
            Status::TypeError("collations are not supported by type {}", SqlTypeName(arg->type))
                .WithSqlState("42804"),
            c.location());
      return arg;
    }
    case PgNode::kGroupingFunc: {
      // Bound as a "grouping" call over the keys; BindSelect turns it into the set's bitmask
      // once the aggregate's grouping sets are known.
      const auto& g = node.grouping_func();
      if (!ctx.allow_aggregates)
        return At(Status::InvalidArgument("grouping operations are not allowed in {}", ctx.clause)
                      .WithSqlState("42803"),
                  g.location());
      if (g.args_size() > 31)
        return At(Status::InvalidArgument("GROUPING must have fewer than 32 arguments")
                      .WithSqlState("54011"),
                  g.location());
      ExprContext inner = ctx;
      inner.allow_aggregates = false;
      inner.allow_windows = false;
      std::vector<ExprPtr> args;
      for (const auto& a : g.args()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, inner));
        args.push_back(std::move(e));
      }
      return MakeCall("grouping", std::move(args), DataType::Int32(), false);
    }
    default: break;
  }
  return Status::NotImplemented("expression of kind {} is not supported",
                                static_cast<int>(node.node_case()));
}

Result<ExprPtr> StatementBinder::BindBool(const pg_query::BoolExpr& b, ExprContext& ctx) {
  if (b.boolop() == pg_query::NOT_EXPR && b.args_size() == 1) {
    const PgNode& arg = b.args(0);
    // NOT IN (subquery) / NOT EXISTS stay one subquery node for the decorrelation rules.
    if (arg.has_sub_link()) {
      const auto& sl = arg.sub_link();
      if (sl.sub_link_type() == pg_query::EXISTS_SUBLINK ||
          (sl.sub_link_type() == pg_query::ANY_SUBLINK && sl.oper_name().empty()))
        return BindSubLink(sl, true, ctx);
    }
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(arg, ctx));
    SHOAL_ASSIGN_OR_RETURN(e, CoerceToBoolean(e, "NOT", b.location()));
    return MakeResolvedCall("not", {e}, b.location());
  }
  const char* name = b.boolop() == pg_query::AND_EXPR ? "and" : "or";
  std::vector<ExprPtr> args;
  for (const auto& a : b.args()) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(a, ctx));
    SHOAL_ASSIGN_OR_RETURN(
        e, CoerceToBoolean(e, b.boolop() == pg_query::AND_EXPR ? "AND" : "OR", b.location()));
    // Flatten nested ANDs / ORs: the rules see one conjunction.
    if (e->kind == ExprKind::kCall && e->name == name)
      args.insert(args.end(), e->args.begin(), e->args.end());
    else
      args.push_back(e);
  }
  return MakeResolvedCall(name, std::move(args), b.location());
}

Result<ExprPtr> StatementBinder::BindAExpr(const pg_query::A_Expr& e, ExprContext& ctx) {
  std::string op = LastName(e.name());
  int loc = e.location();
  auto bind = [&](const PgNode& n) { return BindExpr(n, ctx); };
  if (IsRowComparison(e))
    return BindRowComparison(e, ctx);
  if (e.kind() == pg_query::AEXPR_IN && e.has_lexpr() && e.lexpr().has_row_expr() &&
      e.rexpr().has_list())
    return BindRowIn(e, ctx);
  switch (e.kind()) {
    case pg_query::AEXPR_OP: {
      if (!e.has_lexpr()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
        if (op == "|/" || op == "||/" || op == "@" || op == "~")
          return MakeResolvedCall(op == "|/"    ? "sqrt"
                                  : op == "||/" ? "cbrt"
                                  : op == "@"   ? "abs"
                                                : "bitnot",
                                  {r}, loc);
        if (op == "+") {
          // Prefix + exists for numbers only (PostgreSQL has no + text, + date, + interval).
          if (IsNumeric(r->type) || r->type.id() == TypeId::kNull || IsUnknownLiteral(r))
            return r;
          return At(Status::TypeError("operator does not exist: + {}", SqlTypeName(r->type))
                        .WithSqlState("42883")
                        .WithHint("No operator matches the given name and argument type. You "
                                  "might need to add an explicit type cast."),
                    loc);
        }
        if (op == "-") {
          // Fold negative numeric literals right away so that -1 is a literal.
          if (r->kind == ExprKind::kLiteral && !r->value.is_null() && IsNumeric(r->type)) {
            const Scalar& v = r->value;
            if (r->type.is_integer())
              return MakeLiteral(Scalar::FromInt(r->type, -v.int_value()));
            if (r->type.id() == TypeId::kDecimal)
              return MakeLiteral(
                  Scalar::Decimal(-v.decimal_value(), r->type.precision(), r->type.scale()));
            return MakeLiteral(Scalar::FromFloat(r->type, -v.float_value()));
          }
          return MakeResolvedCall("negate", {r}, loc);
        }
        return At(Status::NotImplemented("prefix operator {} is not supported", op), loc);
      }
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      if (auto array_op = BindArrayOperator(op, l, r, loc))
        return std::move(*array_op);
      if (op == "||") {
        for (auto* x : {&l, &r}) {
          if (IsUnknownLiteral(*x))
            unknown_literals_.erase(x->get());
        }
        return MakeResolvedCall("||", {l, r}, loc);
      }
      if (op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*") {
        SHOAL_ASSIGN_OR_RETURN(
            ExprPtr like,
            MakeResolvedCall(op.find('*') != std::string::npos ? "ilike" : "like", {l, r}, loc));
        return op[0] == '!' ? MakeResolvedCall("not", {like}, loc) : Result<ExprPtr>(like);
      }
      if (op == "~" || op == "!~" || op == "~*" || op == "!~*") {
        SHOAL_ASSIGN_OR_RETURN(
            ExprPtr match,
            MakeResolvedCall(op.find('*') != std::string::npos ? "~*" : "~", {l, r}, loc));
        return op[0] == '!' ? MakeResolvedCall("not", {match}, loc) : Result<ExprPtr>(match);
      }
      // date +/- interval with a time part is a timestamp operation.
      if ((op == "+" || op == "-") && l->type.id() == TypeId::kDate32 &&
          r->kind == ExprKind::kLiteral && r->type.id() == TypeId::kInterval &&
          !r->value.is_null() && r->value.interval_value().nanoseconds != 0) {
        l = MakeCast(l, DataType::Timestamp(columnar::TimeUnit::kMicro));
      }
      if (op == "^")
        return MakeResolvedCall("power", {l, r}, loc);
      static const std::unordered_set<std::string> kKnown = {
          "+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "&", "|", "#", "<<", ">>"};
      if (kKnown.count(op) == 0)
        return At(Status::NotImplemented("operator {} is not supported", op).WithSqlState("42883"),
                  loc);
      return MakeResolvedCall(op, {l, r}, loc);
    }
    case pg_query::AEXPR_DISTINCT:
    case pg_query::AEXPR_NOT_DISTINCT: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      return MakeResolvedCall(
          e.kind() == pg_query::AEXPR_DISTINCT ? "is_distinct_from" : "is_not_distinct_from",
          {l, r}, loc);
    }
    case pg_query::AEXPR_NULLIF: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr call, MakeResolvedCall("nullif", {l, r}, loc));
      std::const_pointer_cast<Expr>(call)->nullable = true;
      return call;
    }
    case pg_query::AEXPR_IN: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      std::vector<ExprPtr> args = {l};
      if (!e.rexpr().has_list())
        return At(Status::NotImplemented("IN over a non-list"), loc);
      for (const auto& item : e.rexpr().list().items()) {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(item));
        args.push_back(x);
      }
      SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(args, "IN", loc));
      bool nullable = false;
      for (auto& a : args) {
        SHOAL_ASSIGN_OR_RETURN(a, Coerce(a, type, loc));
        nullable = nullable || a->nullable;
      }
      ExprPtr in = MakeCall("in", std::move(args), DataType::Boolean(), nullable);
      if (op == "<>")
        return MakeResolvedCall("not", {in}, loc);
      return in;
    }
    case pg_query::AEXPR_LIKE:
    case pg_query::AEXPR_ILIKE: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      std::vector<ExprPtr> args = {l};
      // LIKE ... ESCAPE arrives as a call of like_escape(pattern, escape).
      if (e.rexpr().has_func_call() &&
          LastName(e.rexpr().func_call().funcname()) == "like_escape") {
        for (const auto& a : e.rexpr().func_call().args()) {
          SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(a));
          args.push_back(x);
        }
      } else {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
        args.push_back(r);
      }
      SHOAL_ASSIGN_OR_RETURN(
          ExprPtr like,
          MakeResolvedCall(e.kind() == pg_query::AEXPR_LIKE ? "like" : "ilike", args, loc));
      if (op[0] == '!')
        return MakeResolvedCall("not", {like}, loc);
      return like;
    }
    case pg_query::AEXPR_BETWEEN:
    case pg_query::AEXPR_NOT_BETWEEN:
    case pg_query::AEXPR_BETWEEN_SYM:
    case pg_query::AEXPR_NOT_BETWEEN_SYM: {
      SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(e.lexpr()));
      const auto& items = e.rexpr().list().items();
      if (items.size() != 2)
        return At(Status::InvalidArgument("malformed BETWEEN"), loc);
      SHOAL_ASSIGN_OR_RETURN(ExprPtr lo, bind(items[0]));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr hi, bind(items[1]));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr ge, MakeResolvedCall(">=", {x, lo}, loc));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr le, MakeResolvedCall("<=", {x, hi}, loc));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr both, MakeResolvedCall("and", {ge, le}, loc));
      const bool symmetric =
          e.kind() == pg_query::AEXPR_BETWEEN_SYM || e.kind() == pg_query::AEXPR_NOT_BETWEEN_SYM;
      if (symmetric) {
        // As PostgreSQL rewrites it: the bounds in either order.
        SHOAL_ASSIGN_OR_RETURN(ExprPtr ge2, MakeResolvedCall(">=", {x, hi}, loc));
        SHOAL_ASSIGN_OR_RETURN(ExprPtr le2, MakeResolvedCall("<=", {x, lo}, loc));
        SHOAL_ASSIGN_OR_RETURN(ExprPtr swapped, MakeResolvedCall("and", {ge2, le2}, loc));
        SHOAL_ASSIGN_OR_RETURN(both, MakeResolvedCall("or", {both, swapped}, loc));
      }
      if (e.kind() == pg_query::AEXPR_NOT_BETWEEN || e.kind() == pg_query::AEXPR_NOT_BETWEEN_SYM)
        return MakeResolvedCall("not", {both}, loc);
      return both;
    }
    case pg_query::AEXPR_OP_ANY:
    case pg_query::AEXPR_OP_ALL: {
      // The system catalogs' arrays are text ({a,b}, or "1 2" for int2vector): `x = ANY(arr)`
      // over one is a search of its elements. Shoal has no other arrays.
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
      if (e.kind() == pg_query::AEXPR_OP_ANY && op == "=" && r->type.id() == TypeId::kUtf8)
        return BindSqlExpression(kArrayTextContains, {l, r}, ctx);
      if (auto quantified = BindArrayQuantified(op, e.kind() == pg_query::AEXPR_OP_ALL, l, r, loc))
        return std::move(*quantified);
      return At(Status::NotImplemented("operator {} ANY / ALL (array) is not supported", op)
                    .WithSqlState("0A000"),
                loc);
    }
    case pg_query::AEXPR_SIMILAR: {
      // The parser wraps the pattern as similar_to_escape(pattern[, escape]); the kernel
      // translates it to a regular expression once per pattern (common/regex/similar_to_pattern.h).
      SHOAL_ASSIGN_OR_RETURN(ExprPtr l, bind(e.lexpr()));
      std::vector<ExprPtr> args = {l};
      if (e.rexpr().has_func_call() &&
          (LastName(e.rexpr().func_call().funcname()) == "similar_to_escape" ||
           LastName(e.rexpr().func_call().funcname()) == "similar_escape")) {
        for (const auto& a : e.rexpr().func_call().args()) {
          SHOAL_ASSIGN_OR_RETURN(ExprPtr x, bind(a));
          args.push_back(x);
        }
      } else {
        SHOAL_ASSIGN_OR_RETURN(ExprPtr r, bind(e.rexpr()));
        args.push_back(r);
      }
      SHOAL_ASSIGN_OR_RETURN(ExprPtr similar, MakeResolvedCall("similar_to", args, loc));
      if (op[0] == '!')
        return MakeResolvedCall("not", {similar}, loc);
      return similar;
    }
    default: break;
  }
  return At(Status::NotImplemented("operator expression of kind {}", static_cast<int>(e.kind())),
            loc);
}

Result<ExprPtr> StatementBinder::BindTypeCast(const pg_query::TypeCast& c, ExprContext& ctx) {
  if (!c.type_name().array_bounds().empty()) {
    SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(c.type_name()));
    if (c.arg().has_a_array_expr())
      return BindArrayConstructor(c.arg().a_array_expr(), ctx, &type);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(c.arg(), ctx));
    // An array of the system catalogs is text and stays so (`prattrs::int2[]`): in a statement
    // that reads one, a text expression (not a literal) cast to an array type keeps its text
    // form. Anywhere else the text is parsed as array_in does.
    if (reads_system_catalog_ && arg->type.id() == TypeId::kUtf8 && !IsUnknownLiteral(arg))
      return arg;
    if (arg->type == type)
      return arg;
    return Coerce(arg, type, c.location());
  }
  {
    const std::string type = LastName(c.type_name().names());
    if (type == "regclass" || type == "regtype" || type == "regnamespace")
      return BindRegCast(type, c, ctx);
    if ((type == "text" || type == "varchar" || type == "name") && c.arg().has_type_cast() &&
        c.arg().type_cast().type_name().array_bounds().empty()) {
      const std::string inner = LastName(c.arg().type_cast().type_name().names());
      if (inner == "regclass" || inner == "regtype" || inner == "regnamespace")
        return BindRegCast(inner, c.arg().type_cast(), ctx, /*as_name=*/true);
    }
  }
  SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(c.type_name()));
  // INTERVAL '90' DAY: the typmod names the unit of a bare number.
  if (type.id() == TypeId::kInterval && c.arg().has_a_const() && c.arg().a_const().has_sval()) {
    std::string unit = "second";
    if (!c.type_name().typmods().empty() && c.type_name().typmods(0).has_a_const() &&
        c.type_name().typmods(0).a_const().has_ival()) {
      int mask = c.type_name().typmods(0).a_const().ival().ival();
      if (mask & (1 << 12))
        unit = "second";
      else if (mask & (1 << 11))
        unit = "minute";
      else if (mask & (1 << 10))
        unit = "hour";
      else if (mask & (1 << 3))
        unit = "day";
      else if (mask & (1 << 1))
        unit = "month";
      else if (mask & (1 << 2))
        unit = "year";
    }
    auto v = ParseInterval(c.arg().a_const().sval().sval(), unit);
    if (!v.ok())
      return At(v.status(), c.location());
    return MakeLiteral(Scalar::Interval(*v));
  }
  SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(c.arg(), ctx));
  if (type.id() == TypeId::kDecimal && c.type_name().typmods().empty()) {
    // An unconstrained numeric (Shoal's default is DuckDB's decimal(18,3), which would round):
    // a number cast to it keeps its digits, as PostgreSQL's numeric does — a decimal its own
    // type, an integer its digits, a double precision value its 15 significant digits (as far
    // as 15 places after the point), a numeric constant in text its own scale.
    const DataType& from = arg->type;
    if (from.id() == TypeId::kDecimal)
      return arg;
    if (from.is_integer())
      type = DataType::Decimal(from.id() == TypeId::kInt64   ? 19
                               : from.id() == TypeId::kInt32 ? 10
                                                             : 5,
                               0);
    else if (from.id() == TypeId::kFloat32 || from.id() == TypeId::kFloat64)
      type = DataType::Decimal(DataType::kMaxDecimalPrecision, 15);
    else if (IsUnknownLiteral(arg) && !arg->value.is_null()) {
      auto v = ParseNumericLiteral(arg->value.string_value());
      if (v.ok() && v->type().id() == TypeId::kDecimal)
        return MakeLiteral(*v);
      if (v.ok() && v->type().is_integer())
        type = DataType::Decimal(19, 0);
    }
  }
  if (arg->kind == ExprKind::kLiteral) {
    // Constant casts are done now, so that DATE '1998-12-01' is a date literal.
    auto v = IsUnknownLiteral(arg) ? CastTextToType(arg->value.string_value(), type)
                                   : CastScalar(arg->value, type);
    if (v.ok())
      return MakeLiteral(*v);
    if (v.status().code() != StatusCode::kNotImplemented)
      return At(v.status(), c.location());
  }
  if (arg->type == type)
    return arg;
  return MakeCast(arg, type);
}

Result<ExprPtr> StatementBinder::BindCase(const pg_query::CaseExpr& c, ExprContext& ctx) {
  ExprPtr operand;
  if (c.has_arg()) {
    SHOAL_ASSIGN_OR_RETURN(operand, BindExpr(c.arg(), ctx));
  }
  std::vector<ExprPtr> conditions;
  std::vector<ExprPtr> results;
  for (const auto& w : c.args()) {
    const auto& when = w.case_when();
    SHOAL_ASSIGN_OR_RETURN(ExprPtr cond, BindExpr(when.expr(), ctx));
    if (operand) {
      SHOAL_ASSIGN_OR_RETURN(cond, MakeResolvedCall("=", {operand, cond}, when.location()));
    } else {
      SHOAL_ASSIGN_OR_RETURN(cond, CoerceToBoolean(cond, "CASE/WHEN", when.location()));
    }
    conditions.push_back(cond);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr result, BindExpr(when.result(), ctx));
    results.push_back(result);
  }
  ExprPtr else_result;
  if (c.has_defresult()) {
    SHOAL_ASSIGN_OR_RETURN(else_result, BindExpr(c.defresult(), ctx));
    results.push_back(else_result);
  }
  SHOAL_ASSIGN_OR_RETURN(DataType type, CommonType(results, "CASE", c.location()));
  bool nullable = !else_result;
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < conditions.size(); ++i) {
    args.push_back(conditions[i]);
    SHOAL_ASSIGN_OR_RETURN(ExprPtr r, Coerce(results[i], type, c.location()));
    nullable = nullable || r->nullable;
    args.push_back(r);
  }
  if (else_result) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr r, Coerce(else_result, type, c.location()));
    nullable = nullable || r->nullable;
    args.push_back(r);
  }
  return MakeCase(std::move(args), else_result != nullptr, type, nullable);
}

Result<ExprPtr> StatementBinder::BindSubLink(const pg_query::SubLink& s, bool negated,
                                             ExprContext& ctx) {
  if (s.sub_link_type() == pg_query::ARRAY_SUBLINK) {
    // ARRAY(SELECT x ...): array_agg of the subquery's column, '{}' when it has no rows. Its
    // ORDER BY becomes a row_number() column that orders the aggregate, so the order holds
    // however the plan is distributed.
    PgNode subselect = s.subselect();
    bool ordered = false;
    if (subselect.has_select_stmt() && subselect.select_stmt().sort_clause_size() > 0 &&
        subselect.select_stmt().distinct_clause_size() == 0 &&
        subselect.select_stmt().target_list_size() == 1) {
      auto* stmt = subselect.mutable_select_stmt();
      auto* target = stmt->add_target_list()->mutable_res_target();
      target->set_name("n");
      auto* call = target->mutable_val()->mutable_func_call();
      call->add_funcname()->mutable_string()->set_sval("row_number");
      auto* over = call->mutable_over();
      for (const auto& key : stmt->sort_clause()) {
        auto* copy = over->add_order_clause();
        *copy = key;
        // ORDER BY 1 names the select list's column; in OVER it would be a constant.
        const auto& by = key.sort_by().node();
        if (by.has_a_const() && by.a_const().has_ival() && by.a_const().ival().ival() == 1)
          *copy->mutable_sort_by()->mutable_node() = stmt->target_list(0).res_target().val();
      }
      if (!stmt->has_limit_count() && !stmt->has_limit_offset())
        stmt->clear_sort_clause();
      ordered = true;
    }
    SHOAL_ASSIGN_OR_RETURN(std::string sub, DeparseStatement(subselect));
    return BindSqlExpression(std::string("(SELECT coalesce(array_agg(s.x") +
                                 (ordered ? " ORDER BY s.n" : "") + "), '{}') FROM (" + sub +
                                 ") AS s(x" + (ordered ? ", n" : "") + "))",
                             {}, ctx);
  }
  // The subquery may write aggregates of this query (PlaceAggregate): they are checked against
  // the clause the subquery stands in.
  auto bind_subselect = [&]() {
    QueryLevel* level = ctx.scope != nullptr ? ctx.scope->level : nullptr;
    QueryLevel saved;
    if (level != nullptr) {
      saved.clause = level->clause;
      saved.allow_aggregates = level->allow_aggregates;
      saved.in_aggregate = level->in_aggregate;
      level->clause = ctx.clause;
      level->allow_aggregates = ctx.allow_aggregates;
      level->in_aggregate = ctx.in_aggregate;
    }
    auto bound = BindQuery(s.subselect(), ctx.scope, ctx.ctes);
    if (level != nullptr) {
      level->clause = saved.clause;
      level->allow_aggregates = saved.allow_aggregates;
      level->in_aggregate = saved.in_aggregate;
    }
    return bound;
  };
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, bind_subselect());
  if (s.sub_link_type() == pg_query::ROWCOMPARE_SUBLINK) {
    // (a, b) op (SELECT x, y ...): the one row of the subquery (NULL when it has none, 21000 when
    // it has more), compared as rows. Each field is a scalar subquery of its own column; the
    // subquery is bound again for every column so that each copy has its own column ids.
    if (!s.testexpr().has_row_expr())
      return At(Status::NotImplemented("this kind of subquery is not supported"), s.location());
    SHOAL_ASSIGN_OR_RETURN(std::vector<ExprPtr> left, BindRowFields(s.testexpr().row_expr(), ctx));
    if (left.size() != q.plan->output.size())
      return At(Status::InvalidArgument("subquery has too {} columns",
                                        left.size() < q.plan->output.size() ? "many" : "few")
                    .WithSqlState("42601"),
                s.location());
    std::vector<ExprPtr> right;
    for (size_t i = 0; i < left.size(); ++i) {
      if (i > 0) {
        SHOAL_ASSIGN_OR_RETURN(q, bind_subselect());
      }
      auto project = NewNode(LogicalKind::kProject);
      const ColumnInfo& c = q.plan->output[i];
      project->exprs.push_back(MakeColumnRef(c.id, c.name, c.type, c.nullable));
      project->output.push_back({NewId(), c.name, c.qualifier, c.type, c.nullable});
      project->children.push_back(q.plan);
      auto field = std::make_shared<Expr>();
      field->kind = ExprKind::kSubquery;
      field->subquery_kind = SubqueryKind::kScalar;
      field->type = c.type;
      field->nullable = true;
      field->subquery = LogicalPlanPtr(project);
      right.push_back(std::move(field));
    }
    return CompareRows(s.oper_name().empty() ? "=" : LastName(s.oper_name()), left, right,
                       s.location());
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->negated = negated;
  e->type = DataType::Boolean();
  e->nullable = true;
  switch (s.sub_link_type()) {
    case pg_query::EXISTS_SUBLINK:
      e->subquery_kind = SubqueryKind::kExists;
      e->nullable = false;
      e->subquery = q.plan;
      return ExprPtr(e);
    case pg_query::EXPR_SUBLINK:
      if (q.plan->output.size() != 1)
        return At(
            Status::InvalidArgument("subquery must return only one column").WithSqlState("42601"),
            s.location());
      e->subquery_kind = SubqueryKind::kScalar;
      e->type = q.plan->output[0].type;
      e->subquery = q.plan;
      return ExprPtr(e);
    case pg_query::ANY_SUBLINK:
    case pg_query::ALL_SUBLINK: {
      std::string op = s.oper_name().empty() ? "=" : LastName(s.oper_name());
      if (s.testexpr().has_row_expr())
        return BindRowSubLink(s, op, q, std::move(e), ctx);
      if (q.plan->output.size() != 1)
        return At(Status::InvalidArgument("subquery has too many columns").WithSqlState("42601"),
                  s.location());
      SHOAL_ASSIGN_OR_RETURN(ExprPtr left, BindExpr(s.testexpr(), ctx));
      DataType type;
      SHOAL_ASSIGN_OR_RETURN(
          left, CoerceSubqueryOperand(left, q.plan->output[0].type, op, s.location(), &type));
      SHOAL_ASSIGN_OR_RETURN(e->subquery, CastPlanColumns(q.plan, {type}));
      e->args.push_back(left);
      if (s.sub_link_type() == pg_query::ANY_SUBLINK && s.oper_name().empty()) {
        e->subquery_kind = SubqueryKind::kIn;
      } else {
        e->subquery_kind =
            s.sub_link_type() == pg_query::ANY_SUBLINK ? SubqueryKind::kAny : SubqueryKind::kAll;
        e->comparison = op;
      }
      return ExprPtr(e);
    }
    default: break;
  }
  return At(Status::NotImplemented("this kind of subquery is not supported"), s.location());
}

Result<ExprPtr> StatementBinder::CoerceSubqueryOperand(const ExprPtr& left,
                                                       const DataType& right_type,
                                                       const std::string& op, int location,
                                                       DataType* type) {
  *type = right_type;
  if (!IsUnknownLiteral(left)) {
    auto common = CommonSuperType(left->type, right_type);
    if (!common)
      return At(Status::TypeError("operator does not exist: {} {} {}", SqlTypeName(left->type), op,
                                  SqlTypeName(right_type))
                    .WithSqlState("42883"),
                location);
    *type = *common;
  }
  return Coerce(left, *type, location);
}

// (a, b) IN (SELECT c, d ...), (a, b) op ANY / ALL (...): the row compared with each row of the
// subquery, = and <> field by field, <, <=, >, >= lexicographically (optimizer/in_subquery.cc).
Result<ExprPtr> StatementBinder::BindRowSubLink(const pg_query::SubLink& s, const std::string& op,
                                                const QueryResult& q, std::shared_ptr<Expr> e,
                                                ExprContext& ctx) {
  const auto& items = s.testexpr().row_expr().args();
  if (op != "=" && op != "<>" && op != "<" && op != "<=" && op != ">" && op != ">=")
    return At(
        Status::TypeError("could not determine interpretation of row comparison operator {}", op)
            .WithSqlState("42883"),
        s.location());
  if (static_cast<size_t>(items.size()) < q.plan->output.size())
    return At(Status::InvalidArgument("subquery has too many columns").WithSqlState("42601"),
              s.location());
  if (static_cast<size_t>(items.size()) > q.plan->output.size())
    return At(Status::InvalidArgument("subquery has too few columns").WithSqlState("42601"),
              s.location());
  std::vector<DataType> types;
  for (int i = 0; i < items.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(ExprPtr left, BindExpr(items[i], ctx));
    DataType type;
    SHOAL_ASSIGN_OR_RETURN(
        left, CoerceSubqueryOperand(left, q.plan->output[static_cast<size_t>(i)].type, op,
                                    s.location(), &type));
    e->args.push_back(left);
    types.push_back(type);
  }
  SHOAL_ASSIGN_OR_RETURN(e->subquery, CastPlanColumns(q.plan, types));
  const bool any = s.sub_link_type() == pg_query::ANY_SUBLINK;
  if (any && s.oper_name().empty()) {
    e->subquery_kind = SubqueryKind::kIn;
  } else {
    e->subquery_kind = any ? SubqueryKind::kAny : SubqueryKind::kAll;
    e->comparison = op;
  }
  return ExprPtr(e);
}

Result<std::vector<SortKey>> StatementBinder::BindSortList(const NodeList& list, ExprContext& ctx) {
  std::vector<SortKey> keys;
  for (const auto& item : list) {
    const auto& sb = item.sort_by();
    SortKey key;
    SHOAL_ASSIGN_OR_RETURN(key.expr, BindExpr(sb.node(), ctx));
    key.ascending = sb.sortby_dir() != pg_query::SORTBY_DESC;
    if (sb.sortby_dir() == pg_query::SORTBY_USING)
      return At(Status::NotImplemented("ORDER BY USING is not supported"), sb.location());
    key.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                          ? !key.ascending
                          : sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace shoal::sql::internal

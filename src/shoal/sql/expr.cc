#include "shoal/sql/expr.h"

#include <algorithm>
#include <unordered_set>

#include "shoal/sql/function_registry.h"
#include "shoal/sql/literal_parsing.h"
#include "shoal/sql/ordered_aggregate_names.h"

namespace shoal::sql {

namespace {

bool IsInfixOperator(const std::string& name) {
  static const std::unordered_set<std::string> kOps = {"+", "-",  "*", "/",  "%", "=", "<>",
                                                       "<", "<=", ">", ">=", "~", "~*"};
  return kOps.count(name) > 0;
}

std::string Format(const Expr& e, bool top);

std::string FormatSortKeys(const std::vector<SortKey>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += Format(*keys[i].expr, true);
    if (!keys[i].ascending)
      out += " DESC";
    if (keys[i].nulls_first != !keys[i].ascending)
      out += keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  return out;
}

std::string JoinArgs(const std::vector<ExprPtr>& args, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < args.size(); ++i) {
    if (i > from)
      out += ", ";
    out += Format(*args[i], true);
  }
  return out;
}

const char* BoundName(WindowFrame::BoundKind kind) {
  switch (kind) {
    case WindowFrame::BoundKind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
    case WindowFrame::BoundKind::kPreceding: return "PRECEDING";
    case WindowFrame::BoundKind::kCurrentRow: return "CURRENT ROW";
    case WindowFrame::BoundKind::kFollowing: return "FOLLOWING";
    case WindowFrame::BoundKind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

std::string FormatBound(WindowFrame::BoundKind kind, const ExprPtr& offset) {
  if (offset)
    return Format(*offset, true) + " " + BoundName(kind);
  return BoundName(kind);
}

std::string Format(const Expr& e, bool top) {
  auto wrap = [top](const std::string& s) { return top ? s : "(" + s + ")"; };
  switch (e.kind) {
    case ExprKind::kColumnRef: return e.outer_depth > 0 ? fmt::format("outer({})", e.name) : e.name;
    case ExprKind::kLiteral: return LiteralToSql(e.value);
    case ExprKind::kCast:
      return fmt::format("{}({} AS {})", e.try_cast ? "TRY_CAST" : "CAST", Format(*e.args[0], true),
                         SqlTypeName(e.type));
    case ExprKind::kCall: {
      const auto& a = e.args;
      if (IsInfixOperator(e.name) && a.size() == 2)
        return wrap(Format(*a[0], false) + " " + e.name + " " + Format(*a[1], false));
      if ((e.name == "and" || e.name == "or") && a.size() >= 2) {
        std::string out;
        std::string op = e.name == "and" ? " AND " : " OR ";
        for (size_t i = 0; i < a.size(); ++i) {
          if (i > 0)
            out += op;
          out += Format(*a[i], false);
        }
        return wrap(out);
      }
      if (e.name == "not" && a.size() == 1)
        return wrap("NOT " + Format(*a[0], false));
      if (e.name == "negate" && a.size() == 1)
        return "-" + Format(*a[0], false);
      if (e.name == "is_null" && a.size() == 1)
        return wrap(Format(*a[0], false) + " IS NULL");
      if (e.name == "is_not_null" && a.size() == 1)
        return wrap(Format(*a[0], false) + " IS NOT NULL");
      if (e.name == "is_true" && a.size() == 1)
        return wrap(Format(*a[0], false) + " IS TRUE");
      if (e.name == "is_false" && a.size() == 1)
        return wrap(Format(*a[0], false) + " IS FALSE");
      if (e.name == "is_distinct_from" && a.size() == 2)
        return wrap(Format(*a[0], false) + " IS DISTINCT FROM " + Format(*a[1], false));
      if (e.name == "is_not_distinct_from" && a.size() == 2)
        return wrap(Format(*a[0], false) + " IS NOT DISTINCT FROM " + Format(*a[1], false));
      if (e.name == "in" && !a.empty())
        return wrap(Format(*a[0], false) + " IN (" + JoinArgs(a, 1) + ")");
      if ((e.name == "like" || e.name == "ilike") && a.size() >= 2) {
        std::string out =
            Format(*a[0], false) + (e.name == "like" ? " LIKE " : " ILIKE ") + Format(*a[1], false);
        if (a.size() == 3)
          out += " ESCAPE " + Format(*a[2], false);
        return wrap(out);
      }
      if (e.name == "similar_to" && a.size() >= 2) {
        std::string out = Format(*a[0], false) + " SIMILAR TO " + Format(*a[1], false);
        if (a.size() == 3)
          out += " ESCAPE " + Format(*a[2], false);
        return wrap(out);
      }
      if (e.name == "extract" && a.size() == 2 && a[0]->kind == ExprKind::kLiteral &&
          !a[0]->value.is_null() && a[0]->value.type().id() == columnar::TypeId::kUtf8)
        return fmt::format("extract({} FROM {})", a[0]->value.string_value(), Format(*a[1], true));
      if (e.name == "current_date" && a.empty())
        return "current_date";
      return e.name + "(" + JoinArgs(a) + ")";
    }
    case ExprKind::kCase: {
      std::string out = "CASE";
      size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        out +=
            " WHEN " + Format(*e.args[2 * i], true) + " THEN " + Format(*e.args[2 * i + 1], true);
      }
      if (e.has_else)
        out += " ELSE " + Format(*e.args.back(), true);
      return out + " END";
    }
    case ExprKind::kAggregate: {
      std::string out = e.name + "(";
      if (e.distinct)
        out += "DISTINCT ";
      out += e.args.empty() && e.name == "count" ? "*" : JoinArgs(e.args);
      const bool within_group = IsOrderedSetAggregate(e.name);
      if (!e.order_by.empty() && !within_group)
        out += " ORDER BY " + FormatSortKeys(e.order_by);
      out += ")";
      if (within_group)
        out += " WITHIN GROUP (ORDER BY " + FormatSortKeys(e.order_by) + ")";
      if (e.filter)
        out += " FILTER (WHERE " + Format(*e.filter, true) + ")";
      return out;
    }
    case ExprKind::kWindow: {
      std::string out = e.name + "(";
      if (e.distinct)
        out += "DISTINCT ";
      out += e.args.empty() && e.name == "count" ? "*" : JoinArgs(e.args);
      out += ")";
      if (e.filter)
        out += " FILTER (WHERE " + Format(*e.filter, true) + ")";
      std::string over;
      if (!e.partition_by.empty())
        over += "PARTITION BY " + JoinArgs(e.partition_by);
      if (!e.order_by.empty())
        over += std::string(over.empty() ? "" : " ") + "ORDER BY " + FormatSortKeys(e.order_by);
      const WindowFrame& f = e.frame;
      bool default_frame = f.units == WindowFrame::Units::kRange &&
                           f.start == WindowFrame::BoundKind::kUnboundedPreceding &&
                           f.end == WindowFrame::BoundKind::kCurrentRow;
      if (!default_frame) {
        const char* units = f.units == WindowFrame::Units::kRows    ? "ROWS"
                            : f.units == WindowFrame::Units::kRange ? "RANGE"
                                                                    : "GROUPS";
        over += fmt::format("{}{} BETWEEN {} AND {}", over.empty() ? "" : " ", units,
                            FormatBound(f.start, f.start_offset), FormatBound(f.end, f.end_offset));
      }
      return out + " OVER (" + over + ")";
    }
    case ExprKind::kSubquery: {
      if (e.subquery_kind != SubqueryKind::kScalar && e.subquery_kind != SubqueryKind::kExists &&
          e.args.size() > 1) {  // a row: (a, b) IN (<subquery>)
        std::string row;
        for (const auto& a : e.args)
          row += (row.empty() ? "(" : ", ") + Format(*a, false);
        const std::string op =
            e.subquery_kind == SubqueryKind::kIn
                ? (e.negated ? " NOT IN" : " IN")
                : " " + e.comparison + (e.subquery_kind == SubqueryKind::kAny ? " ANY" : " ALL");
        return wrap(row + ")" + op + " (<subquery>)");
      }
      switch (e.subquery_kind) {
        case SubqueryKind::kScalar: return "(<subquery>)";
        case SubqueryKind::kExists:
          return wrap(std::string(e.negated ? "NOT " : "") + "EXISTS (<subquery>)");
        case SubqueryKind::kIn:
          return wrap(Format(*e.args[0], false) + (e.negated ? " NOT IN" : " IN") +
                      " (<subquery>)");
        case SubqueryKind::kAny:
          return wrap(Format(*e.args[0], false) + " " + e.comparison + " ANY (<subquery>)");
        case SubqueryKind::kAll:
          return wrap(Format(*e.args[0], false) + " " + e.comparison + " ALL (<subquery>)");
      }
      return "(<subquery>)";
    }
  }
  return "?";
}

}  // namespace

std::string Expr::ToString() const {
  return Format(*this, true);
}

ExprPtr MakeColumnRef(ColumnId id, std::string name, DataType type, bool nullable,
                      int outer_depth) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumnRef;
  e->column = id;
  e->name = std::move(name);
  e->type = std::move(type);
  e->nullable = nullable;
  e->outer_depth = outer_depth;
  return e;
}

ExprPtr MakeLiteral(Scalar value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLiteral;
  e->type = value.type();
  e->nullable = value.is_null();
  e->value = std::move(value);
  return e;
}

ExprPtr MakeCast(ExprPtr input, DataType type, bool try_cast) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->type = std::move(type);
  e->nullable = input->nullable || try_cast;
  e->try_cast = try_cast;
  e->args.push_back(std::move(input));
  return e;
}

ExprPtr MakeCall(std::string name, std::vector<ExprPtr> args, DataType type, bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->name = std::move(name);
  e->args = std::move(args);
  e->type = std::move(type);
  e->nullable = nullable;
  return e;
}

ExprPtr MakeCase(std::vector<ExprPtr> args, bool has_else, DataType type, bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCase;
  e->args = std::move(args);
  e->has_else = has_else;
  e->type = std::move(type);
  e->nullable = nullable;
  return e;
}

ExprPtr MakeAggregate(std::string name, std::vector<ExprPtr> args, DataType type, bool nullable,
                      bool distinct, ExprPtr filter) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kAggregate;
  e->name = std::move(name);
  e->args = std::move(args);
  e->type = std::move(type);
  e->nullable = nullable;
  e->distinct = distinct;
  e->filter = std::move(filter);
  return e;
}

void VisitExpr(const ExprPtr& expr, const std::function<void(const Expr&)>& fn) {
  if (!expr)
    return;
  fn(*expr);
  for (const auto& a : expr->args)
    VisitExpr(a, fn);
  VisitExpr(expr->filter, fn);
  for (const auto& k : expr->order_by)
    VisitExpr(k.expr, fn);
  for (const auto& p : expr->partition_by)
    VisitExpr(p, fn);
  VisitExpr(expr->frame.start_offset, fn);
  VisitExpr(expr->frame.end_offset, fn);
}

ExprPtr TransformExpr(const ExprPtr& expr, const std::function<ExprPtr(const ExprPtr&)>& fn) {
  if (!expr)
    return expr;
  bool changed = false;
  auto sub = [&](const ExprPtr& child) {
    ExprPtr out = TransformExpr(child, fn);
    if (out != child)
      changed = true;
    return out;
  };
  std::vector<ExprPtr> args;
  args.reserve(expr->args.size());
  for (const auto& a : expr->args)
    args.push_back(sub(a));
  ExprPtr filter = sub(expr->filter);
  std::vector<SortKey> order_by = expr->order_by;
  for (auto& k : order_by)
    k.expr = sub(k.expr);
  std::vector<ExprPtr> partition_by;
  for (const auto& p : expr->partition_by)
    partition_by.push_back(sub(p));
  ExprPtr start_offset = sub(expr->frame.start_offset);
  ExprPtr end_offset = sub(expr->frame.end_offset);
  ExprPtr node = expr;
  if (changed) {
    auto copy = std::make_shared<Expr>(*expr);
    copy->args = std::move(args);
    copy->filter = std::move(filter);
    copy->order_by = std::move(order_by);
    copy->partition_by = std::move(partition_by);
    copy->frame.start_offset = std::move(start_offset);
    copy->frame.end_offset = std::move(end_offset);
    node = copy;
  }
  ExprPtr replacement = fn(node);
  return replacement ? replacement : node;
}

std::vector<ColumnId> ReferencedColumns(const ExprPtr& expr) {
  std::vector<ColumnId> out;
  VisitExpr(expr, [&](const Expr& e) {
    if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0 &&
        std::find(out.begin(), out.end(), e.column) == out.end())
      out.push_back(e.column);
  });
  return out;
}

namespace {

bool PtrEquals(const ExprPtr& a, const ExprPtr& b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  return ExprEquals(*a, *b);
}

bool VecEquals(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!PtrEquals(a[i], b[i]))
      return false;
  }
  return true;
}

}  // namespace

bool ExprEquals(const Expr& a, const Expr& b) {
  if (&a == &b)
    return true;
  if (a.kind != b.kind || a.type != b.type)
    return false;
  switch (a.kind) {
    case ExprKind::kColumnRef: return a.column == b.column && a.outer_depth == b.outer_depth;
    case ExprKind::kLiteral: return a.value == b.value;
    case ExprKind::kSubquery:
      return a.subquery == b.subquery && a.subquery_kind == b.subquery_kind &&
             a.comparison == b.comparison && a.negated == b.negated && VecEquals(a.args, b.args);
    default: break;
  }
  if (a.name != b.name || a.has_else != b.has_else || a.try_cast != b.try_cast ||
      a.distinct != b.distinct || !VecEquals(a.args, b.args) || !PtrEquals(a.filter, b.filter) ||
      !VecEquals(a.partition_by, b.partition_by) || a.order_by.size() != b.order_by.size())
    return false;
  for (size_t i = 0; i < a.order_by.size(); ++i) {
    if (a.order_by[i].ascending != b.order_by[i].ascending ||
        a.order_by[i].nulls_first != b.order_by[i].nulls_first ||
        !PtrEquals(a.order_by[i].expr, b.order_by[i].expr))
      return false;
  }
  if (a.kind == ExprKind::kWindow) {
    const auto& fa = a.frame;
    const auto& fb = b.frame;
    if (fa.units != fb.units || fa.start != fb.start || fa.end != fb.end ||
        !PtrEquals(fa.start_offset, fb.start_offset) || !PtrEquals(fa.end_offset, fb.end_offset))
      return false;
  }
  return true;
}

}  // namespace shoal::sql

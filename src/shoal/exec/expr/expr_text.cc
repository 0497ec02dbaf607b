#include "shoal/exec/expr/expr_text.h"

#include <cctype>

#include "shoal/sql/literal_parsing.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec {
namespace {

bool IsOperatorName(const std::string& name) {
  return !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0]));
}

}  // namespace

std::string ExprText(const sql::Expr& expr) {
  switch (expr.kind) {
    case sql::ExprKind::kColumnRef: return fmt::format("#{}", expr.column);
    case sql::ExprKind::kLiteral: {
      if (expr.value.is_null())
        return "NULL";
      // A string's quotes doubled, as SQL writes it: two lists of literals never print alike
      // (shared_subplans.h compares plans by these lines). Bytes print as hex, dates as digits.
      if (expr.value.type().id() == columnar::TypeId::kUtf8)
        return sql::LiteralToSql(expr.value);
      std::string text = expr.value.ToString();
      if (expr.value.type().is_binary_like() || expr.value.type().id() == columnar::TypeId::kDate32)
        return "'" + text + "'";
      return text;
    }
    case sql::ExprKind::kCast:
      return fmt::format("{}({} AS {})", expr.try_cast ? "TRY_CAST" : "CAST",
                         expr.args.empty() ? "?" : ExprText(*expr.args[0]), expr.type.ToString());
    case sql::ExprKind::kCall: {
      if (IsOperatorName(expr.name) && expr.args.size() == 2)
        return fmt::format("({} {} {})", ExprText(*expr.args[0]), expr.name,
                           ExprText(*expr.args[1]));
      if ((expr.name == "and" || expr.name == "or" || expr.name == "like" ||
           expr.name == "ilike") &&
          expr.args.size() == 2) {
        return fmt::format("({} {} {})", ExprText(*expr.args[0]),
                           expr.name == "and"    ? "AND"
                           : expr.name == "or"   ? "OR"
                           : expr.name == "like" ? "LIKE"
                                                 : "ILIKE",
                           ExprText(*expr.args[1]));
      }
      return fmt::format("{}({})", expr.name, ExprListText(expr.args));
    }
    case sql::ExprKind::kCase: {
      std::string out = "CASE";
      size_t pairs = (expr.args.size() - (expr.has_else ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        out += fmt::format(" WHEN {} THEN {}", ExprText(*expr.args[2 * i]),
                           ExprText(*expr.args[2 * i + 1]));
      }
      if (expr.has_else)
        out += " ELSE " + ExprText(*expr.args.back());
      return out + " END";
    }
    case sql::ExprKind::kAggregate: {
      std::string order;
      for (const auto& key : expr.order_by) {
        order += fmt::format("{}{}{}{}", order.empty() ? "" : ", ", ExprText(*key.expr),
                             key.ascending ? "" : " DESC",
                             key.nulls_first == key.ascending
                                 ? (key.nulls_first ? " NULLS FIRST" : " NULLS LAST")
                                 : "");
      }
      const std::string args =
          expr.args.empty() && expr.name == "count" ? "*" : ExprListText(expr.args);
      const std::string filter =
          expr.filter == nullptr ? "" : fmt::format(" FILTER (WHERE {})", ExprText(*expr.filter));
      if (sql::IsOrderedSetAggregate(expr.name))
        return fmt::format("{}({}) WITHIN GROUP (ORDER BY {}){}", expr.name, args, order, filter);
      return fmt::format("{}({}{}{}{}){}", expr.name, expr.distinct ? "DISTINCT " : "", args,
                         order.empty() ? "" : " ORDER BY ", order, filter);
    }
    case sql::ExprKind::kWindow:
      return fmt::format("{}({}) OVER (...)", expr.name, ExprListText(expr.args));
    case sql::ExprKind::kSubquery: return "(subquery)";
  }
  return "?";
}

std::string ExprListText(const std::vector<sql::ExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += exprs[i] ? ExprText(*exprs[i]) : "?";
  }
  return out;
}

}  // namespace shoal::exec

// Constant folding and boolean simplification: evaluates calls and casts whose arguments are all
// literals (exact decimal, integer, float, date and interval arithmetic; comparisons), simplifies
// AND / OR / NOT with constant operands by three-valued logic, drops filters that are always true
// and turns filters that are never true into empty Values. Anything it cannot evaluate exactly
// (overflow, unsupported types) is left for run time, where the error is raised if it happens.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "shoal/sql/literal_parsing.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

using columnar::int128_t;
using columnar::TypeId;

bool IsTrue(const ExprPtr& e) {
  return IsLiteral(e) && !e->value.is_null() && e->type.id() == TypeId::kBoolean &&
         e->value.bool_value();
}

bool IsFalse(const ExprPtr& e) {
  return IsLiteral(e) && !e->value.is_null() && e->type.id() == TypeId::kBoolean &&
         !e->value.bool_value();
}

bool IsNullLiteral(const ExprPtr& e) {
  return IsLiteral(e) && e->value.is_null();
}

/// -1, 0, 1; nullopt when not comparable here.
std::optional<int> Compare(const Scalar& a, const Scalar& b) {
  if (a.type() != b.type())
    return std::nullopt;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  const DataType& t = a.type();
  if (t.is_integer() || t.id() == TypeId::kDate32 || t.id() == TypeId::kTimestamp ||
      t.id() == TypeId::kBoolean)
    return cmp(a.int_value(), b.int_value());
  if (t.id() == TypeId::kDecimal)
    return cmp(a.decimal_value(), b.decimal_value());
  if (t.id() == TypeId::kFloat64 || t.id() == TypeId::kFloat32) {
    if (std::isnan(a.float_value()) || std::isnan(b.float_value()))
      return std::nullopt;
    return cmp(a.float_value(), b.float_value());
  }
  if (t.id() == TypeId::kUtf8 || t.id() == TypeId::kBinary)
    return cmp(a.string_value().compare(b.string_value()), 0);
  return std::nullopt;
}

std::optional<Scalar> AddMonthsDays(int32_t date, int32_t months, int32_t days, int sign) {
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(date, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + sign * static_cast<int64_t>(months);
  int64_t ny = total >= 0 ? total / 12 : (total - 11) / 12;
  unsigned nm = static_cast<unsigned>(total - ny * 12) + 1;
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (ny % 4 == 0 && ny % 100 != 0) || ny % 400 == 0;
  unsigned max_day = nm == 2 && leap ? 29 : kDays[nm - 1];
  unsigned nd = std::min(d, max_day);  // clamp to month end, as PostgreSQL does
  int64_t result = DaysFromCivil(ny, nm, nd) + sign * static_cast<int64_t>(days);
  if (result < INT32_MIN || result > INT32_MAX)
    return std::nullopt;
  return Scalar::Date32(static_cast<int32_t>(result));
}

std::optional<Scalar> Arithmetic(const std::string& op, const Scalar& a, const Scalar& b,
                                 const DataType& result) {
  const DataType& ta = a.type();
  const DataType& tb = b.type();
  if (ta.id() == TypeId::kDate32 && tb.id() == TypeId::kInterval &&
      result.id() == TypeId::kDate32) {
    auto iv = b.interval_value();
    if (iv.nanoseconds != 0)
      return std::nullopt;
    return AddMonthsDays(static_cast<int32_t>(a.int_value()), iv.months, iv.days,
                         op == "-" ? -1 : 1);
  }
  // timestamp +/- interval, interval + timestamp (microseconds, as the binder types them).
  bool ts_iv = ta.id() == TypeId::kTimestamp && tb.id() == TypeId::kInterval;
  bool iv_ts = op == "+" && ta.id() == TypeId::kInterval && tb.id() == TypeId::kTimestamp;
  if ((ts_iv || iv_ts) && (op == "+" || op == "-") && result.id() == TypeId::kTimestamp &&
      result.unit() == columnar::TimeUnit::kMicro && (ts_iv ? ta : tb) == result) {
    constexpr int64_t kPerDay = int64_t{86400} * 1000000;
    int64_t t = (ts_iv ? a : b).int_value();
    auto iv = (ts_iv ? b : a).interval_value();
    int sign = op == "-" ? -1 : 1;
    int64_t days = t >= 0 ? t / kPerDay : -((-t + kPerDay - 1) / kPerDay);
    int64_t rem = t - days * kPerDay;
    if (days < INT32_MIN || days > INT32_MAX)
      return std::nullopt;
    auto shifted = AddMonthsDays(static_cast<int32_t>(days), iv.months, iv.days, sign);
    if (!shifted)
      return std::nullopt;
    int64_t r = 0;
    if (__builtin_mul_overflow(shifted->int_value(), kPerDay, &r) ||
        __builtin_add_overflow(r, rem + sign * (iv.nanoseconds / 1000), &r))
      return std::nullopt;
    return Scalar::Timestamp(r, result.unit(), result.timezone());
  }
  if (ta.id() == TypeId::kDate32 && tb.is_integer() && result.id() == TypeId::kDate32) {
    int64_t v = op == "-" ? a.int_value() - b.int_value() : a.int_value() + b.int_value();
    return Scalar::Date32(static_cast<int32_t>(v));
  }
  if (ta.id() == TypeId::kDate32 && tb.id() == TypeId::kDate32 && op == "-")
    return Scalar::Int32(static_cast<int32_t>(a.int_value() - b.int_value()));
  if (ta != tb && !(ta.id() == TypeId::kDecimal && tb.id() == TypeId::kDecimal))
    return std::nullopt;
  if (result.is_integer() && ta.is_integer()) {
    int64_t x = a.int_value(), y = b.int_value(), r = 0;
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r))
        return std::nullopt;
    } else if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r))
        return std::nullopt;
    } else if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r))
        return std::nullopt;
    } else if (op == "/" || op == "%") {
      if (y == 0 || (x == INT64_MIN && y == -1))
        return std::nullopt;  // division by zero is a run-time error
      r = op == "/" ? x / y : x % y;
    } else {
      return std::nullopt;
    }
    auto cast = CastScalar(Scalar::Int64(r), result);
    if (!cast.ok())
      return std::nullopt;
    return *cast;
  }
  if (result.id() == TypeId::kFloat64 && ta.id() == TypeId::kFloat64) {
    double x = a.float_value(), y = b.float_value();
    if (op == "+")
      return Scalar::Float64(x + y);
    if (op == "-")
      return Scalar::Float64(x - y);
    if (op == "*")
      return Scalar::Float64(x * y);
    if (op == "/" && y != 0)
      return Scalar::Float64(x / y);
    return std::nullopt;
  }
  if (result.id() == TypeId::kDecimal && ta.id() == TypeId::kDecimal &&
      tb.id() == TypeId::kDecimal) {
    int128_t x = a.decimal_value(), y = b.decimal_value(), r = 0;
    int sa = ta.scale(), sb = tb.scale();
    if (op == "+" || op == "-") {
      int s = std::max(sa, sb);
      x *= columnar::PowerOfTen(s - sa);
      y *= columnar::PowerOfTen(s - sb);
      r = op == "+" ? x + y : x - y;
      if (s != result.scale())
        return std::nullopt;
    } else if (op == "*") {
      if (sa + sb != result.scale())
        return std::nullopt;
      if (__builtin_mul_overflow(x, y, &r))
        return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (r > columnar::MaxUnscaled(result.precision()) ||
        -r > columnar::MaxUnscaled(result.precision()))
      return std::nullopt;
    return Scalar::Decimal(r, result.precision(), result.scale());
  }
  return std::nullopt;
}

/// `CAST(d AS timestamp) op constant` for a date `d` (what `date_col < date '...' + interval
/// '...'` becomes once the constant is folded) compared as dates, so that it reaches the scan as
/// a date predicate (row-group pruning, no per-row cast): at midnight the constant is that date;
/// otherwise d < c and d <= c are d <= the constant's date, d > c and d >= c are d > it.
ExprPtr CompareDateToTimestampConstant(const std::string& op, const std::vector<ExprPtr>& a) {
  static const std::map<std::string, std::string> kFlipped = {
      {"=", "="}, {"<>", "<>"}, {"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}};
  if (a.size() != 2 || kFlipped.count(op) == 0)
    return nullptr;
  bool cast_left = a[0]->kind == ExprKind::kCast && IsLiteral(a[1]);
  const ExprPtr& cast = cast_left ? a[0] : a[1];
  const ExprPtr& constant = cast_left ? a[1] : a[0];
  if (cast->kind != ExprKind::kCast || cast->try_cast || !IsLiteral(constant) ||
      constant->value.is_null() || cast->type.id() != TypeId::kTimestamp ||
      cast->type.unit() != columnar::TimeUnit::kMicro || !cast->type.timezone().empty() ||
      cast->args[0]->type.id() != TypeId::kDate32 || constant->type != cast->type)
    return nullptr;
  std::string o = cast_left ? op : kFlipped.at(op);  // now: date o constant
  constexpr int64_t kPerDay = int64_t{86400} * 1000000;
  int64_t t = constant->value.int_value();
  int64_t days = t >= 0 ? t / kPerDay : -((-t + kPerDay - 1) / kPerDay);
  if (days < INT32_MIN || days > INT32_MAX)
    return nullptr;
  bool midnight = days * kPerDay == t;
  if (!midnight) {
    if (o == "=" || o == "<>")
      return nullptr;
    o = (o == "<" || o == "<=") ? "<=" : ">";
  }
  ExprPtr date = MakeLiteral(Scalar::Date32(static_cast<int32_t>(days)));
  return MakeCall(o, {cast->args[0], date}, DataType::Boolean(), cast->args[0]->nullable);
}

ExprPtr Bool(bool v) {
  return MakeLiteral(Scalar::Boolean(v));
}

ExprPtr NullBool() {
  return MakeLiteral(Scalar(DataType::Boolean()));
}

}  // namespace

bool IsStrictFunction(std::string_view name) {
  // Every scalar function and operator is strict (NULL in, NULL out) except these, which look at
  // NULL arguments: three-valued logic, the NULL tests, the conditional functions and concat()
  // (which skips NULLs). "in" is strict in its left operand only: `1 IN (1, NULL)` is true.
  static const std::set<std::string, std::less<>> kNotStrict = {
      "and", "or", "is_null", "is_not_null", "is_true", "is_false", "is_distinct_from",
      "is_not_distinct_from", "coalesce", "greatest", "least", "nullif", "concat", "concat_ws",
      // Arrays hold NULLs, a NULL array is empty to array_cat, array_position searches for
      // NULL and x op ANY ('{}') is false.
      "make_array", "row", "map", "array_position", "array_cat", "array_append", "array_prepend",
      "array_to_string", "string_to_array", "= any", "<> any", "< any", "<= any", "> any", ">= any",
      "= all", "<> all", "< all", "<= all", "> all", ">= all"};
  return kNotStrict.count(name) == 0;
}

namespace {

/// Folds one node whose children are already folded; nullptr keeps it.
ExprPtr FoldNode(const ExprPtr& e) {
  if (e->kind == ExprKind::kCast && IsLiteral(e->args[0])) {
    auto v = CastScalar(e->args[0]->value, e->type);
    return v.ok() ? MakeLiteral(*v) : nullptr;
  }
  if (e->kind != ExprKind::kCall)
    return nullptr;
  const auto& a = e->args;
  const std::string& n = e->name;
  if (n == "and" || n == "or") {
    bool is_and = n == "and";
    std::vector<ExprPtr> kept;
    bool saw_null = false;
    for (const auto& x : a) {
      if (is_and ? IsFalse(x) : IsTrue(x))
        return Bool(!is_and);
      if (is_and ? IsTrue(x) : IsFalse(x))
        continue;
      if (IsNullLiteral(x)) {
        saw_null = true;
        continue;
      }
      kept.push_back(x);
    }
    if (kept.empty())
      return saw_null ? NullBool() : Bool(is_and);
    if (saw_null)
      kept.push_back(NullBool());
    if (kept.size() == 1)
      return kept[0];
    if (kept.size() == a.size())
      return nullptr;
    bool nullable = false;
    for (const auto& x : kept)
      nullable = nullable || x->nullable;
    return MakeCall(n, kept, e->type, nullable);
  }
  if (n == "not" && a.size() == 1) {
    if (IsNullLiteral(a[0]))
      return NullBool();
    if (IsLiteral(a[0]))
      return Bool(!a[0]->value.bool_value());
    if (a[0]->kind == ExprKind::kCall && a[0]->name == "not")
      return a[0]->args[0];
    return nullptr;
  }
  if ((n == "is_null" || n == "is_not_null") && a.size() == 1) {
    if (IsLiteral(a[0]))
      return Bool(a[0]->value.is_null() == (n == "is_null"));
    if (!a[0]->nullable)
      return Bool(n == "is_not_null");
    return nullptr;
  }
  if (auto as_date = CompareDateToTimestampConstant(n, a))
    return as_date;
  // A strict function of a NULL constant is NULL whatever its other arguments are, so they are
  // never evaluated (PostgreSQL's eval_const_expressions does the same: `a*a = NULL` is NULL
  // even where a*a would overflow, and `NULL IN (a/a)` is NULL even where a is 0).
  if (IsStrictFunction(n)) {
    bool null_argument =
        n == "in" ? IsNullLiteral(a[0]) : std::any_of(a.begin(), a.end(), IsNullLiteral);
    if (null_argument)
      return MakeLiteral(Scalar(e->type));
  }
  for (const auto& x : a) {
    if (!IsLiteral(x))
      return nullptr;
  }
  if (a.size() == 2 && (n == "=" || n == "<>" || n == "<" || n == "<=" || n == ">" || n == ">=")) {
    auto c = Compare(a[0]->value, a[1]->value);
    if (!c)
      return nullptr;
    bool r = n == "="    ? *c == 0
             : n == "<>" ? *c != 0
             : n == "<"  ? *c < 0
             : n == "<=" ? *c <= 0
             : n == ">"  ? *c > 0
                         : *c >= 0;
    return Bool(r);
  }
  if (a.size() == 2 && (n == "+" || n == "-" || n == "*" || n == "/" || n == "%")) {
    auto r = Arithmetic(n, a[0]->value, a[1]->value, e->type);
    return r && r->type() == e->type ? MakeLiteral(*r) : nullptr;
  }
  if (n == "negate" && a.size() == 1) {
    const Scalar& v = a[0]->value;
    if (e->type.is_integer() && v.int_value() != INT64_MIN)
      return MakeLiteral(Scalar::FromInt(e->type, -v.int_value()));
    if (e->type.id() == TypeId::kDecimal)
      return MakeLiteral(Scalar::Decimal(-v.decimal_value(), e->type.precision(), e->type.scale()));
    if (e->type.id() == TypeId::kFloat64)
      return MakeLiteral(Scalar::Float64(-v.float_value()));
  }
  return nullptr;
}

ExprPtr FoldExpr(const ExprPtr& e) {
  return TransformExpr(e, FoldNode);
}

Result<LogicalPlanPtr> FoldPlan(const LogicalPlanPtr& plan) {
  std::shared_ptr<LogicalPlan> node;  // a copy of `plan`, made at the first change
  for (size_t i = 0; i < plan->children.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr folded, FoldPlan(plan->children[i]));
    if (folded != plan->children[i]) {
      if (!node)
        node = plan->Clone();
      node->children[i] = std::move(folded);
    }
  }
  SHOAL_ASSIGN_OR_RETURN(auto with_subqueries,
                         MapSubqueryPlansIfChanged(node ? *node : *plan, FoldPlan));
  if (with_subqueries)
    node = std::move(with_subqueries);
  if (auto folded = MapNodeExprsIfChanged(node ? *node : *plan, FoldExpr))
    node = std::move(folded);
  const LogicalPlan& current = node ? *node : *plan;
  if (current.kind == LogicalKind::kFilter) {
    if (IsTrue(current.predicate))
      return current.children[0];
    if (IsFalse(current.predicate) || IsNullLiteral(current.predicate)) {
      auto empty = std::make_shared<LogicalPlan>();
      empty->kind = LogicalKind::kValues;
      empty->output = current.output;
      return LogicalPlanPtr(empty);
    }
  }
  if (current.kind == LogicalKind::kJoin && current.predicate && IsTrue(current.predicate)) {
    if (!node)
      node = plan->Clone();
    node->predicate = nullptr;
  }
  return node ? LogicalPlanPtr(node) : plan;
}

class ConstantFoldingRule : public OptimizerRule {
 public:
  const char* name() const override { return "constant_folding"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    return FoldPlan(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeConstantFoldingRule() {
  return std::make_unique<ConstantFoldingRule>();
}

}  // namespace shoal::sql::optimizer

#include "shoal/sql/optimizer/cardinality_estimator.h"

#include <algorithm>
#include <cmath>

#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

// Bytes a row of `schema` takes in a text file (CSV / TBL), to estimate the rows of a file whose
// reader only knows its size: numbers ~8 characters, dates 10, strings ~24, plus delimiters.
// Only the ratio between tables matters for join ordering; TPC-H .tbl files come out within 2x.
double TextRowWidth(const columnar::Schema& schema) {
  double width = 0;
  for (const auto& field : schema.fields()) {
    switch (field.type.id()) {
      case columnar::TypeId::kUtf8:
      case columnar::TypeId::kBinary: width += 25; break;
      case columnar::TypeId::kDate32:
      case columnar::TypeId::kTimestamp: width += 11; break;
      default: width += 8; break;
    }
  }
  return std::max(width, 1.0);
}

using columnar::TypeId;

/// A scalar on a numeric line for range interpolation (dates as days, decimals unscaled).
std::optional<double> ToNumber(const Scalar& s) {
  if (s.is_null())
    return std::nullopt;
  const DataType& t = s.type();
  if (t.is_integer() || t.id() == TypeId::kDate32 || t.id() == TypeId::kTimestamp)
    return static_cast<double>(s.int_value());
  if (t.id() == TypeId::kFloat64 || t.id() == TypeId::kFloat32)
    return s.float_value();
  if (t.id() == TypeId::kDecimal)
    return static_cast<double>(s.decimal_value()) / std::pow(10.0, t.scale());
  return std::nullopt;
}

double Clamp(double s) {
  return std::min(1.0, std::max(0.0, s));
}

}  // namespace

const CardinalityEstimator::ColumnStats* CardinalityEstimator::Stats(const ExprPtr& expr) const {
  const Expr* e = expr.get();
  // Casts keep the distinct values (the binder casts literals to columns, rarely the reverse).
  while (e->kind == ExprKind::kCast)
    e = e->args[0].get();
  if (e->kind != ExprKind::kColumnRef || e->outer_depth != 0)
    return nullptr;
  auto it = columns_.find(e->column);
  return it == columns_.end() ? nullptr : &it->second;
}

double CardinalityEstimator::DistinctCount(const ExprPtr& expr, double rows) const {
  const ColumnStats* stats = Stats(expr);
  if (stats && stats->distinct > 0)
    return std::max(1.0, std::min(stats->distinct, rows));
  return std::max(1.0, rows);
}

double CardinalityEstimator::Selectivity(const ExprPtr& e) const {
  if (!e)
    return 1;
  if (IsLiteral(e)) {
    if (e->value.is_null() || e->type.id() != TypeId::kBoolean)
      return 0;
    return e->value.bool_value() ? 1 : 0;
  }
  if (e->kind != ExprKind::kCall)
    return kDefaultSelectivity;
  const auto& a = e->args;
  const std::string& name = e->name;
  if (name == "and") {
    double s = 1;
    for (const auto& x : a)
      s *= Selectivity(x);
    return s;
  }
  if (name == "or") {
    double none = 1;
    for (const auto& x : a)
      none *= 1 - Selectivity(x);
    return Clamp(1 - none);
  }
  if (name == "not" && a.size() == 1)
    return Clamp(1 - Selectivity(a[0]));
  if ((name == "is_null" || name == "is_not_null") && a.size() == 1) {
    const ColumnStats* stats = Stats(a[0]);
    double nulls = stats ? stats->null_fraction : (a[0]->nullable ? 0.05 : 0);
    return name == "is_null" ? nulls : 1 - nulls;
  }
  auto equality = [&](const ExprPtr& x, const ExprPtr& y) {
    const ColumnStats* sx = Stats(x);
    const ColumnStats* sy = Stats(y);
    double dx = sx && sx->distinct > 0 ? sx->distinct : -1;
    double dy = sy && sy->distinct > 0 ? sy->distinct : -1;
    if (IsLiteral(y) && dx > 0)
      return 1 / dx;
    if (IsLiteral(x) && dy > 0)
      return 1 / dy;
    double d = std::max(dx, dy);
    return d > 0 ? 1 / d : kDefaultEqualitySelectivity;
  };
  if (a.size() == 2 && (name == "=" || name == "is_not_distinct_from"))
    return equality(a[0], a[1]);
  if (a.size() == 2 && (name == "<>" || name == "is_distinct_from"))
    return Clamp(1 - equality(a[0], a[1]));
  if (name == "in" && a.size() >= 2)
    return Clamp(static_cast<double>(a.size() - 1) * equality(a[0], a[1]));
  if (name == "like" || name == "ilike")
    return kDefaultLikeSelectivity;
  if (a.size() == 2 && (name == "<" || name == "<=" || name == ">" || name == ">=")) {
    bool flipped = IsLiteral(a[0]);
    const ExprPtr& column = flipped ? a[1] : a[0];
    const ExprPtr& literal = flipped ? a[0] : a[1];
    const ColumnStats* stats = Stats(column);
    if (!IsLiteral(literal) || !stats || !stats->min || !stats->max || *stats->max <= *stats->min)
      return kDefaultRangeSelectivity;
    auto value = ToNumber(literal->value);
    if (!value)
      return kDefaultRangeSelectivity;
    double below = Clamp((*value - *stats->min) / (*stats->max - *stats->min));
    bool less = name == "<" || name == "<=";
    if (flipped)
      less = !less;
    return less ? below : 1 - below;
  }
  return kDefaultSelectivity;
}

double CardinalityEstimator::JoinSelectivity(const std::vector<ExprPtr>& left_keys,
                                             const std::vector<ExprPtr>& right_keys,
                                             double left_rows, double right_rows) const {
  double s = 1;
  for (size_t i = 0; i < left_keys.size() && i < right_keys.size(); ++i)
    s /= KeyDistinct(left_keys[i], left_rows, right_keys[i], right_rows);
  // Several keys are rarely independent (a composite key): never below one match per row of the
  // smaller input.
  if (left_keys.size() > 1)
    s = std::max(s, 1 / std::max({std::min(left_rows, right_rows), 1.0}));
  return s;
}

double CardinalityEstimator::KeyDistinct(const ExprPtr& a, double rows_a, const ExprPtr& b,
                                         double rows_b) const {
  const ColumnStats* sa = Stats(a);
  const ColumnStats* sb = Stats(b);
  const bool known_a = sa != nullptr && sa->distinct > 0;
  const bool known_b = sb != nullptr && sb->distinct > 0;
  double d;
  if (known_a && known_b)
    d = std::max(DistinctCount(a, rows_a), DistinctCount(b, rows_b));
  else if (known_a)
    d = DistinctCount(a, rows_a);
  else if (known_b)
    d = DistinctCount(b, rows_b);
  else
    d = std::min(rows_a, rows_b);
  return std::max(d, 1.0);
}

void CardinalityEstimator::CapDistinct(const LogicalPlan& node, double rows) {
  for (const auto& c : node.output) {
    auto it = columns_.find(c.id);
    if (it != columns_.end() && it->second.distinct > rows)
      it->second.distinct = std::max(1.0, rows);
  }
}

LogicalPlanPtr CardinalityEstimator::Annotate(const LogicalPlanPtr& plan) {
  auto node = plan->Clone();
  for (auto& child : node->children)
    child = Annotate(child);
  node->estimated_rows = std::max(0.0, EstimateNode(*node));
  CapDistinct(*node, node->estimated_rows);
  return node;
}

double CardinalityEstimator::EstimateNode(LogicalPlan& node) {
  auto rows = [&node](size_t i) { return node.children[i]->estimated_rows; };
  switch (node.kind) {
    case LogicalKind::kScan: {
      io::TableStatistics stats;
      if (node.table)
        stats = node.table->statistics();
      double n = stats.num_rows >= 0 ? static_cast<double>(stats.num_rows) : kDefaultTableRows;
      if (stats.num_rows < 0 && stats.total_bytes > 0 && node.table)
        n = std::max(1.0,
                     static_cast<double>(stats.total_bytes) / TextRowWidth(*node.table->schema()));
      for (size_t i = 0; i < node.output.size() && i < node.projection.size(); ++i) {
        ColumnStats cs;
        size_t column = static_cast<size_t>(node.projection[i]);
        if (column < stats.columns.size()) {
          const auto& s = stats.columns[column];
          if (s.distinct_count > 0)
            cs.distinct = static_cast<double>(s.distinct_count);
          if (s.null_count >= 0 && n > 0)
            cs.null_fraction = static_cast<double>(s.null_count) / n;
          if (s.min)
            cs.min = ToNumber(*s.min);
          if (s.max)
            cs.max = ToNumber(*s.max);
          // Files carry min / max but rarely distinct counts: an integer or date column holds
          // at most max - min + 1 distinct values (25 nation keys, not one per customer row).
          const DataType& type = node.output[i].type;
          if (cs.distinct < 0 && cs.min && cs.max && *cs.max >= *cs.min &&
              (type.is_integer() || type.id() == TypeId::kDate32))
            cs.distinct = std::min(n, *cs.max - *cs.min + 1);
        }
        columns_[node.output[i].id] = cs;
      }
      return n;
    }
    case LogicalKind::kValues: return static_cast<double>(node.rows.size());
    case LogicalKind::kTableFunction: {
      // generate_series over integer constants has a known length; otherwise a guess per row.
      double per_row = 1000;
      const auto& a = node.exprs;
      auto constant = [&](size_t i) {
        return a.size() > i && a[i]->kind == ExprKind::kLiteral && !a[i]->value.is_null() &&
               a[i]->type.is_integer();
      };
      if (constant(0) && constant(1) && (a.size() == 2 || constant(2))) {
        const double start = static_cast<double>(a[0]->value.int_value());
        const double stop = static_cast<double>(a[1]->value.int_value());
        const double step = a.size() == 3 ? static_cast<double>(a[2]->value.int_value()) : 1;
        per_row = step == 0 ? 0 : std::max(0.0, std::floor((stop - start) / step) + 1);
      }
      return per_row * (node.children.empty() ? 1 : rows(0));
    }
    case LogicalKind::kFilter: return rows(0) * Selectivity(node.predicate);
    case LogicalKind::kProject: {
      for (size_t i = 0; i < node.exprs.size() && i < node.output.size(); ++i) {
        const ColumnStats* source = Stats(node.exprs[i]);
        if (source && node.output[i].id != node.exprs[i]->column)
          columns_[node.output[i].id] = *source;
      }
      return rows(0);
    }
    case LogicalKind::kAggregate: {
      double in = rows(0);
      double groups = 1;
      if (!node.group_by.empty()) {
        for (const auto& key : node.group_by)
          groups *= DistinctCount(key, std::max(1.0, in * 0.1));
        groups = std::min(groups, in);
        if (!node.grouping_sets.empty())
          groups = std::min(in, groups * static_cast<double>(node.grouping_sets.size()));
      }
      for (size_t i = 0; i < node.group_by.size() && i < node.output.size(); ++i) {
        ColumnStats cs;
        if (const ColumnStats* source = Stats(node.group_by[i]))
          cs = *source;
        cs.distinct = DistinctCount(node.group_by[i], groups);
        columns_[node.output[i].id] = cs;
      }
      return groups;
    }
    case LogicalKind::kJoin: {
      double l = rows(0);
      double r = rows(1);
      double inner = l * r * JoinSelectivity(node.left_keys, node.right_keys, l, r) *
                     Selectivity(node.predicate);
      switch (node.join_type) {
        case JoinType::kInner: return inner;
        case JoinType::kLeft: return std::max(inner, l);
        case JoinType::kRight: return std::max(inner, r);
        case JoinType::kFull: return std::max(inner, l + r);
        case JoinType::kMark: return l;
        case JoinType::kSemi: return std::min(l, inner);
        case JoinType::kAnti:
        case JoinType::kNullAwareAnti: return std::max(l - std::min(l, inner), 0.1 * l);
        // Only physical plans have these (join_type.h); as their mirror images.
        case JoinType::kRightSemi: return std::min(r, inner);
        case JoinType::kRightAnti: return std::max(r - std::min(r, inner), 0.1 * r);
      }
      return inner;
    }
    case LogicalKind::kSort:
      return node.fetch >= 0 ? std::min(rows(0), double(node.fetch)) : rows(0);
    case LogicalKind::kLimit: {
      double n = std::max(0.0, rows(0) - static_cast<double>(node.offset));
      return node.fetch >= 0 ? std::min(n, static_cast<double>(node.fetch)) : n;
    }
    case LogicalKind::kUnion: {
      double n = 0;
      for (size_t i = 0; i < node.children.size(); ++i)
        n += rows(i);
      return n;
    }
    case LogicalKind::kSetOp:
      return node.set_op == SetOpKind::kIntersect ? std::min(rows(0), rows(1)) : rows(0);
    case LogicalKind::kWindow: return rows(0);
    case LogicalKind::kDistinct: {
      double groups = 1;
      for (const auto& c : node.output)
        groups *= DistinctCount(MakeRef(c), std::max(1.0, rows(0) * 0.1));
      return std::min(groups, rows(0));
    }
    // Rounds are unknown until run: a few rounds of the first round's size.
    case LogicalKind::kWorkingTable: return kDefaultTableRows / 10;
    case LogicalKind::kRecursiveCte: return std::max(rows(0), 1.0) * 10;
  }
  return 0;
}

}  // namespace shoal::sql::optimizer

#include "shoal/exec/operators/window_exec.h"

#include <fmt/format.h>

#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operators/window_exec_internal.h"

namespace shoal::exec {

namespace {

bool IsAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max" ||
         name == "stddev_samp" || name == "stddev_pop" || name == "var_samp" || name == "var_pop" ||
         name == "bool_and" || name == "bool_or" || name == "string_agg";
}

}  // namespace

namespace internal {

bool UsesFrame(const std::string& name) {
  return IsAggregateName(name) || name == "first_value" || name == "last_value" ||
         name == "nth_value";
}

}  // namespace internal

namespace {

using internal::BoundKind;
using internal::int128_t;
using internal::IntOffset;
using internal::ResolveBound;
using internal::Units;
using internal::UnsupportedRange;
using internal::UsesFrame;
using internal::WindowStream;

bool SameSortKeys(const std::vector<sql::SortKey>& a, const std::vector<sql::SortKey>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].ascending != b[i].ascending || a[i].nulls_first != b[i].nulls_first ||
        !sql::ExprEquals(*a[i].expr, *b[i].expr))
      return false;
  }
  return true;
}

bool SameExprs(const std::vector<sql::ExprPtr>& a, const std::vector<sql::ExprPtr>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!sql::ExprEquals(*a[i], *b[i]))
      return false;
  }
  return true;
}

std::string BoundText(const WindowExec::Bound& b) {
  switch (b.kind) {
    case BoundKind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
    case BoundKind::kPreceding: return b.offset.ToString() + " PRECEDING";
    case BoundKind::kCurrentRow: return "CURRENT ROW";
    case BoundKind::kFollowing: return b.offset.ToString() + " FOLLOWING";
    case BoundKind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

}  // namespace

Result<std::shared_ptr<WindowExec>> WindowExec::Make(ExecPlanPtr input,
                                                     std::vector<sql::ExprPtr> functions,
                                                     std::vector<std::string> names) {
  if (!input)
    return Status::Internal("Window without an input");
  if (functions.empty() || functions.size() != names.size())
    return Status::Internal("Window needs one name per function");
  const sql::Expr& first = *functions[0];
  std::vector<columnar::Field> fields = input->schema()->fields();
  std::vector<Bound> starts;
  std::vector<Bound> ends;
  for (size_t i = 0; i < functions.size(); ++i) {
    const sql::Expr& fn = *functions[i];
    if (fn.kind != sql::ExprKind::kWindow)
      return Status::Internal("Window function {} is not a window expression", fn.ToString());
    if (!SameExprs(fn.partition_by, first.partition_by) ||
        !SameSortKeys(fn.order_by, first.order_by))
      return Status::Internal("Window functions of one node must share PARTITION BY / ORDER BY");
    if (fn.distinct)
      return Status::NotImplemented("DISTINCT is not implemented for window functions");
    const bool known = UsesFrame(fn.name) || fn.name == "row_number" || fn.name == "rank" ||
                       fn.name == "dense_rank" || fn.name == "percent_rank" ||
                       fn.name == "cume_dist" || fn.name == "ntile" || fn.name == "lag" ||
                       fn.name == "lead";
    if (!known || fn.name == "string_agg")
      return Status::NotImplemented("window function {} is not supported yet", fn.name);
    // Check the expressions compile (and argument kernels exist) at plan time.
    for (const auto& a : fn.args) {
      SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(a, *input->schema(), DefaultMemoryPool()).status());
    }
    const Units units = fn.frame.units;
    if (units == Units::kGroups && fn.order_by.empty())
      return Status::InvalidArgument("GROUPS mode requires an ORDER BY clause")
          .WithSqlState("42P20");
    SHOAL_ASSIGN_OR_RETURN(auto s,
                           ResolveBound(fn.frame.start, fn.frame.start_offset, units, true));
    SHOAL_ASSIGN_OR_RETURN(auto e, ResolveBound(fn.frame.end, fn.frame.end_offset, units, false));
    const bool offset_bound = s.kind == BoundKind::kPreceding || s.kind == BoundKind::kFollowing ||
                              e.kind == BoundKind::kPreceding || e.kind == BoundKind::kFollowing;
    if (units == Units::kRange && offset_bound && fn.order_by.size() != 1)
      return Status::InvalidArgument(
                 "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
          .WithSqlState("42P20");
    if (units == Units::kRange && offset_bound) {
      // Refuse key and offset types without in_range support now, not at the first row.
      const DataType& key = fn.order_by[0].expr->type;
      for (const Bound* b : {&s, &e}) {
        if (b->kind != BoundKind::kPreceding && b->kind != BoundKind::kFollowing)
          continue;
        if (key.id() == TypeId::kFloat32 || key.id() == TypeId::kFloat64) {
          const DataType& t = b->offset.type();
          if (!(t.is_integer() || t.id() == TypeId::kDecimal || t.id() == TypeId::kFloat32 ||
                t.id() == TypeId::kFloat64))
            return UnsupportedRange(key, t);
        } else {
          int128_t scale_up = 1;
          SHOAL_RETURN_IF_ERROR(IntOffset(key, b->offset, &scale_up).status());
        }
      }
    }
    starts.push_back(std::move(s));
    ends.push_back(std::move(e));
    fields.emplace_back(names[i], fn.type, fn.nullable);
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  return std::shared_ptr<WindowExec>(new WindowExec(std::move(input), std::move(schema),
                                                    std::move(functions), std::move(names),
                                                    std::move(starts), std::move(ends)));
}

Result<ExecPlanPtr> WindowExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Window takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), functions_, names_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> WindowExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  return StreamPtr(std::make_unique<WindowStream>(this, partition, context, std::move(input)));
}

std::string WindowExec::Describe(bool) const {
  const sql::Expr& first = *functions_[0];
  std::string out;
  if (!first.partition_by.empty())
    out += "partition_by=[" + ExprListText(first.partition_by) + "], ";
  if (!first.order_by.empty()) {
    out += "order_by=[";
    for (size_t i = 0; i < first.order_by.size(); ++i) {
      const auto& k = first.order_by[i];
      if (i > 0)
        out += ", ";
      out += fmt::format("{} {} NULLS {}", ExprText(*k.expr), k.ascending ? "ASC" : "DESC",
                         k.nulls_first ? "FIRST" : "LAST");
    }
    out += "], ";
  }
  out += "functions=[";
  for (size_t i = 0; i < functions_.size(); ++i) {
    const sql::Expr& fn = *functions_[i];
    if (i > 0)
      out += ", ";
    std::string args;
    for (size_t a = 0; a < fn.args.size(); ++a)
      args += (a > 0 ? ", " : "") + ExprText(*fn.args[a]);
    if (fn.name == "count" && fn.args.empty())
      args = "*";
    out += fmt::format("{}({})", fn.name, args);
    if (UsesFrame(fn.name)) {
      const char* units = fn.frame.units == Units::kRows    ? "ROWS"
                          : fn.frame.units == Units::kRange ? "RANGE"
                                                            : "GROUPS";
      out +=
          fmt::format(" {} BETWEEN {} AND {}", units, BoundText(starts_[i]), BoundText(ends_[i]));
    }
    out += " AS " + names_[i];
  }
  out += "]";
  return out;
}

}  // namespace shoal::exec

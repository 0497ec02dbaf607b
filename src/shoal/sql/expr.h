// Bound expressions: what the binder produces from SQL expressions, what optimizer rules rewrite
// and what the execution layer compiles into vectorized evaluators.
//
// An expression is an immutable tree (ExprPtr, shared). Leaves refer to columns by ColumnId — a
// query-wide unique id given to every column a logical operator produces — never by position, so
// rules can push filters, prune columns and reorder joins without renumbering anything; the
// physical planner maps ids to positions once, at the end. Every node carries its result type and
// nullability, decided by the binder (implicit casts are explicit kCast nodes by then).
//
// Operators, comparisons and functions are all kCall nodes with a canonical lower-case name; the
// binder decides every argument and result type (function_registry.h holds the type rules) and
// execution kernels honour exactly those types (rescaling decimals to the result's scale, raising
// OutOfRange on overflow). Canonical names:
//   arithmetic   "+", "-", "*", "/", "%", "negate"          (date +/- int/interval, date - date
//   too) comparison   "=", "<>", "<", "<=", ">", ">=", "is_distinct_from", "is_not_distinct_from"
//   logic        "and", "or", "not" (three-valued), "is_null", "is_not_null", "is_true", "is_false"
//   sets         "in" (args[0] IN args[1..]; NULL rules of SQL), BETWEEN is rewritten to >= and <=
//   patterns     "like", "ilike" (args: value, pattern[, escape]), "~", "~*" (POSIX regular
//                expressions; !~ is NOT ~), "similar_to" (args: value, pattern[, escape]),
//                "regexp_like", "regexp_replace", "regexp_count", "regexp_instr", "regexp_substr",
//                "substring" with a text pattern (the POSIX and SIMILAR forms)
//   conditional  "coalesce", "nullif", "greatest", "least" (CASE is kCase)
//   strings      "concat" (also ||), "substring", "position", "upper", "lower", "trim", "ltrim",
//                "rtrim", "length", "replace", "split_part", "starts_with", "lpad", "rpad"
//   dates        "extract" (args: field literal, value), "date_trunc", "current_date", "make_date"
//   numbers      "abs", "round", "trunc", "floor", "ceil", "power", "sqrt", "ln", "log", "exp",
//                "mod"
//   aggregates   "count" (no args: count(*)), "sum", "avg", "min", "max", "stddev_samp",
//                "stddev_pop", "var_samp", "var_pop", "bool_and", "bool_or", "string_agg"
//   windows      "row_number", "rank", "dense_rank", "ntile", "lag", "lead", "first_value",
//                "last_value", and every aggregate Aggregates and window functions are kAggregate /
//                kWindow nodes and appear only in the
// Aggregate and Window operators' lists. Subqueries (kSubquery) exist only between the binder and
// the decorrelation rules; no plan that reaches execution contains one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/data_type.h"
#include "shoal/columnar/scalar.h"

namespace shoal::sql {

using columnar::DataType;
using columnar::Scalar;

/// Query-wide unique id of a column produced by a logical operator.
using ColumnId = uint32_t;
inline constexpr ColumnId kInvalidColumnId = 0xFFFFFFFF;

class LogicalPlan;
using LogicalPlanPtr = std::shared_ptr<const LogicalPlan>;

class Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind : uint8_t {
  kColumnRef,  // a column of the input (or, inside a subquery, of an outer query: `outer`)
  kLiteral,    // a constant (may be a typed NULL)
  kCast,       // args[0] converted to `type`
  kCall,       // scalar function or operator `name` over args
  kCase,       // args = [when1, then1, when2, then2, ..., else?]; has_else tells
  kAggregate,  // aggregate `name` over args (distinct, filter)
  kWindow,     // window function `name` over args with partition/order/frame
  kSubquery,   // scalar / EXISTS / IN / ANY / ALL subquery (before decorrelation)
};

struct SortKey {
  ExprPtr expr;
  bool ascending = true;
  bool nulls_first = false;  // PostgreSQL default: NULLS LAST for ASC, NULLS FIRST for DESC
};

/// Window frame: ROWS / RANGE / GROUPS BETWEEN start AND end.
struct WindowFrame {
  enum class Units : uint8_t { kRows, kRange, kGroups };
  enum class BoundKind : uint8_t {
    kUnboundedPreceding,
    kPreceding,
    kCurrentRow,
    kFollowing,
    kUnboundedFollowing
  };
  Units units = Units::kRange;
  BoundKind start = BoundKind::kUnboundedPreceding;
  BoundKind end = BoundKind::kCurrentRow;
  ExprPtr start_offset;  // for kPreceding / kFollowing
  ExprPtr end_offset;
};

enum class SubqueryKind : uint8_t { kScalar, kExists, kIn, kAny, kAll };

class Expr {
 public:
  ExprKind kind{};
  DataType type;
  bool nullable = true;

  // kColumnRef
  ColumnId column = kInvalidColumnId;
  int outer_depth =
      0;  // > 0: a correlated reference to the enclosing query `outer_depth` levels up

  // kColumnRef: the column's name for display; kCall / kAggregate / kWindow: the function name.
  std::string name;

  // kLiteral
  Scalar value;

  // kCast, kCall, kCase, kAggregate, kWindow, kSubquery (kIn/kAny/kAll: args[0] is the left
  // operand)
  std::vector<ExprPtr> args;

  // kCase
  bool has_else = false;

  // kCast: TRY_CAST semantics (NULL instead of an error)
  bool try_cast = false;

  // kAggregate
  bool distinct = false;
  ExprPtr filter;                 // FILTER (WHERE ...), may be null
  std::vector<SortKey> order_by;  // ordered-set / string_agg ORDER BY; window ORDER BY

  // kWindow
  std::vector<ExprPtr> partition_by;
  WindowFrame frame;

  // kSubquery
  SubqueryKind subquery_kind = SubqueryKind::kScalar;
  std::string comparison;  // kAny / kAll: "=", "<", ...
  bool negated = false;    // NOT IN / NOT EXISTS
  LogicalPlanPtr subquery;

  /// SQL-like text for EXPLAIN: "(l_extendedprice * (1 - l_discount))", "sum(#12)".
  std::string ToString() const;
};

// Constructors used by the binder, the rules and tests. They fill type and nullability from the
// arguments where the rule is generic; functions with type rules go through FunctionRegistry.
ExprPtr MakeColumnRef(ColumnId id, std::string name, DataType type, bool nullable,
                      int outer_depth = 0);
ExprPtr MakeLiteral(Scalar value);
ExprPtr MakeCast(ExprPtr input, DataType type, bool try_cast = false);
ExprPtr MakeCall(std::string name, std::vector<ExprPtr> args, DataType type, bool nullable);
ExprPtr MakeCase(std::vector<ExprPtr> args, bool has_else, DataType type, bool nullable);
ExprPtr MakeAggregate(std::string name, std::vector<ExprPtr> args, DataType type, bool nullable,
                      bool distinct = false, ExprPtr filter = nullptr);

/// Calls `fn` on every node, parents before children (not descending into subquery plans).
void VisitExpr(const ExprPtr& expr, const std::function<void(const Expr&)>& fn);
/// Rebuilds the tree bottom-up; `fn` returns a replacement or nullptr to keep the node.
ExprPtr TransformExpr(const ExprPtr& expr, const std::function<ExprPtr(const ExprPtr&)>& fn);
/// Column ids the expression reads (outer references excluded).
std::vector<ColumnId> ReferencedColumns(const ExprPtr& expr);
/// Structural equality (same kind, type, name, args, value, ...).
bool ExprEquals(const Expr& a, const Expr& b);

}  // namespace shoal::sql

// LogicalPlan: the relational algebra the binder builds from a statement and the optimizer
// rewrites; the physical planner (exec layer) turns it into an execution plan.
//
// Nodes are immutable values (LogicalPlanPtr, shared); a rule that changes a node builds a new one
// with Clone + edits, so plans can be compared before and after a rule and shared between
// alternatives. Every node lists its output columns (`output`): each has a query-wide unique
// ColumnId that expressions above refer to (see expr.h). A node's output ids are either passed
// through from its children or freshly allocated by it (projection, aggregate and window results,
// scan columns).
//
// One struct with kind-specific fields, not a class hierarchy: rules switch on `kind`, and the set
// of kinds is closed (adding a kind means touching the binder, the rules, the printer and the
// physical planner anyway).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/io/table_provider.h"
#include "shoal/sql/expr.h"
#include "shoal/sql/join_type.h"

namespace shoal::sql {

/// A column a node produces.
struct ColumnInfo {
  ColumnId id = kInvalidColumnId;
  std::string name;       // output name ("l_orderkey", "sum_qty", "?column?")
  std::string qualifier;  // table name or alias it can be referred to by; empty for derived columns
  DataType type;
  bool nullable = true;
};

enum class LogicalKind : uint8_t {
  kScan,           // read a table
  kValues,         // literal rows (VALUES, SELECT without FROM)
  kFilter,         // keep rows where predicate is true
  kProject,        // compute exprs; output[i] = exprs[i]
  kAggregate,      // group_by keys then aggregates; output = keys then aggregate results
  kJoin,           // join_type with equi keys and a residual condition; hash joins build their
                   // table from the RIGHT child and probe with the left (join ordering puts the
                   // smaller input on the right). A join without keys is a nested loop: only
                   // unconnected relations (CrossJoin) and the single-row LeftJoin of an
                   // uncorrelated scalar subquery produce one.
  kSort,           // order by sort_keys; with fetch >= 0, a top-k
  kLimit,          // skip offset rows, then keep at most fetch (fetch < 0: all)
  kUnion,          // UNION ALL of children (same arity and types); DISTINCT is an Aggregate above
  kSetOp,          // INTERSECT / EXCEPT [ALL]
  kWindow,         // input columns followed by one column per window expression
  kDistinct,       // DISTINCT over all columns (rules may turn it into an Aggregate)
  kTableFunction,  // a set-returning function in FROM (generate_series): exprs are its
                   // arguments; output = its columns, then its child's when it has one (the
                   // function runs per child row; without a child, once)
  // WITH RECURSIVE: children[0] the non-recursive term, children[1] the recursive term, re-run
  // over the rows of the previous round (its kWorkingTable leaf) until a round yields none;
  // `all` false (UNION): rows already produced are dropped.
  kRecursiveCte,
  // The rows of the previous round of the kRecursiveCte with the same `working_table`.
  kWorkingTable,
};

enum class SetOpKind : uint8_t { kIntersect, kExcept };

/// GROUPING SETS / ROLLUP / CUBE expand to a list of sets; each set lists indices into group_by.
using GroupingSet = std::vector<int>;

class LogicalPlan {
 public:
  LogicalKind kind{};
  std::vector<LogicalPlanPtr> children;
  std::vector<ColumnInfo> output;

  // kScan: the table, its name in the catalog, which table columns are read (indices into the
  // provider's schema, parallel to `output`) and pruning hints pushed down by the optimizer.
  io::TableProviderPtr table;
  std::string table_name;
  std::vector<int> projection;
  std::vector<io::ColumnPredicate> pushed_predicates;
  // kScan: empty, or parallel to `projection`: the fields of a struct column the plan reads
  // (empty: all); `output` then has the pruned type (optimizer/struct_field_pruning.cc).
  std::vector<std::vector<io::FieldPath>> field_paths;

  // kValues: rows of constant expressions (one vector per row, one expr per output column).
  std::vector<std::vector<ExprPtr>> rows;

  // kFilter: predicate. kJoin: residual condition beyond the equi keys (may be null).
  ExprPtr predicate;

  // kProject: one expression per output column. kWindow: one kWindow expression per added column.
  std::vector<ExprPtr> exprs;

  // kAggregate
  std::vector<ExprPtr> group_by;
  std::vector<ExprPtr> aggregates;                 // kAggregate expressions
  std::vector<GroupingSet> grouping_sets;          // empty: one set of all keys
  ColumnId grouping_id_column = kInvalidColumnId;  // set with grouping sets (GROUPING())

  // kJoin: equi-join keys, left_keys[i] = right_keys[i] (NULL never matches).
  JoinType join_type = JoinType::kInner;
  std::vector<ExprPtr> left_keys;
  std::vector<ExprPtr> right_keys;
  ColumnId mark_column = kInvalidColumnId;  // kMark
  // LATERAL: the right child reads the left child's columns as outer references (depth 1, as a
  // subquery of the join would); subquery decorrelation turns it into an ordinary join.
  bool lateral = false;

  // kSort (and the ordering of a kWindow's partitions is in its expressions)
  std::vector<SortKey> sort_keys;

  // kLimit: offset and fetch; kSort: fetch >= 0 makes it a top-k.
  int64_t offset = 0;
  int64_t fetch = -1;

  // kTableFunction: the function's name and whether a row number column follows its value.
  std::string function_name;
  bool with_ordinality = false;

  // kSetOp
  SetOpKind set_op = SetOpKind::kIntersect;
  bool all = false;

  // kRecursiveCte and its kWorkingTable leaf: which recursive CTE (a query-wide unique id).
  ColumnId working_table = kInvalidColumnId;

  // Estimated output rows (-1: unknown), filled by the cardinality estimator.
  double estimated_rows = -1;

  // >= 0: this subtree is one of several alike ones (the same tables, work and column list, up to
  // column ids) that the query computes once (optimizer/subplan_sharing.cc); the physical planner
  // plans every subtree of a number alike and lets them share one result.
  int shared_subplan = -1;

  /// A copy of this node (children shared) for rules to edit.
  std::shared_ptr<LogicalPlan> Clone() const { return std::make_shared<LogicalPlan>(*this); }
};

/// The indented tree EXPLAIN prints; `verbose` adds types, ids and row estimates.
std::string FormatLogicalPlan(const LogicalPlan& plan, bool verbose = false);

const char* LogicalKindName(LogicalKind kind);

}  // namespace shoal::sql

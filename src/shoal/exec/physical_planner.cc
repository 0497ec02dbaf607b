#include "shoal/exec/physical_planner.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/common/stack_depth.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/expand_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/recursive_cte_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/scan_filter_expr.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_function_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/unnest_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/exec/operators/window_exec.h"
#include "shoal/exec/operators/working_table_scan_exec.h"
#include "shoal/exec/runtime_filter_planner.h"
#include "shoal/exec/shared_subplans.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec {

namespace {

using sql::ColumnInfo;
using sql::ExprKind;
using sql::ExprPtr;
using sql::JoinType;
using sql::LogicalKind;
using sql::LogicalPlan;

// Rewrites the column references of a logical expression (ColumnIds) into positions of `layout`.
Result<ExprPtr> ToPhysical(const ExprPtr& expr, const std::vector<ColumnInfo>& layout) {
  if (expr == nullptr) {
    return ExprPtr();
  }
  Status error;
  ExprPtr out = sql::TransformExpr(expr, [&](const ExprPtr& node) -> ExprPtr {
    if (node->kind == ExprKind::kSubquery) {
      // The decorrelation rules could not turn it into a join.
      error = Status::NotImplemented("this form of subquery is not supported yet: {}",
                                     node->ToString());
      return nullptr;
    }
    if (node->kind != ExprKind::kColumnRef) {
      return nullptr;
    }
    if (node->outer_depth > 0) {
      error = Status::NotImplemented(
          "this form of correlated subquery (reference to outer column {}) is not supported yet",
          node->name);
      return nullptr;
    }
    for (size_t i = 0; i < layout.size(); ++i) {
      if (layout[i].id == node->column) {
        auto copy = std::make_shared<sql::Expr>(*node);
        copy->column = static_cast<sql::ColumnId>(i);
        return copy;
      }
    }
    error = Status::Internal("column {} (#{}) is not produced by the operator's input", node->name,
                             node->column);
    return nullptr;
  });
  SHOAL_RETURN_IF_ERROR(error);
  return out;
}

Result<std::vector<ExprPtr>> ToPhysical(const std::vector<ExprPtr>& exprs,
                                        const std::vector<ColumnInfo>& layout) {
  std::vector<ExprPtr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    SHOAL_ASSIGN_OR_RETURN(auto p, ToPhysical(e, layout));
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<sql::SortKey>> ToPhysical(const std::vector<sql::SortKey>& keys,
                                             const std::vector<ColumnInfo>& layout) {
  std::vector<sql::SortKey> out;
  for (const auto& k : keys) {
    sql::SortKey key = k;
    SHOAL_ASSIGN_OR_RETURN(key.expr, ToPhysical(k.expr, layout));
    out.push_back(std::move(key));
  }
  return out;
}

columnar::SchemaPtr SchemaOf(const std::vector<ColumnInfo>& columns) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (const auto& c : columns) {
    fields.emplace_back(c.name, c.type, c.nullable);
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

std::vector<ColumnInfo> Concat(const std::vector<ColumnInfo>& a, const std::vector<ColumnInfo>& b) {
  std::vector<ColumnInfo> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Column references to the first `n` columns of `schema`.
std::vector<ExprPtr> LeadingColumnRefs(const columnar::Schema& schema, int n) {
  std::vector<ExprPtr> refs;
  for (int i = 0; i < n; ++i) {
    const auto& f = schema.field(i);
    refs.push_back(sql::MakeColumnRef(static_cast<sql::ColumnId>(i), f.name, f.type, f.nullable));
  }
  return refs;
}

ExecPlanPtr Coalesce(ExecPlanPtr plan) {
  if (plan->num_partitions() == 1) {
    return plan;
  }
  return CoalescePartitionsExec::Make(std::move(plan));
}

// The input with a last column numbering the copies of each distinct row (1, 2, ...).
Result<ExecPlanPtr> NumberCopies(ExecPlanPtr input, int partitions) {
  const auto& schema = *input->schema();
  auto number = std::make_shared<sql::Expr>();
  number->kind = ExprKind::kWindow;
  number->name = "row_number";
  number->type = columnar::DataType::Int64();
  number->nullable = false;
  number->partition_by = LeadingColumnRefs(schema, schema.num_fields());
  if (number->partition_by.empty()) {
    input = Coalesce(std::move(input));
  } else if (input->num_partitions() > 1 || partitions > 1) {
    SHOAL_ASSIGN_OR_RETURN(
        input, RepartitionExec::Make(
                   input, Partitioning::Hash(number->partition_by, std::max(partitions, 1))));
  }
  SHOAL_ASSIGN_OR_RETURN(auto window, WindowExec::Make(std::move(input), {number}, {"$copy"}));
  return ExecPlanPtr(window);
}

// INTERSECT / EXCEPT by hashing, NULLs equal to NULLs: both sides tagged with a side column and
// unioned, grouped by every column (a grouping key treats NULLs as equal) counting the rows of
// each side; INTERSECT keeps the groups found on both sides, EXCEPT those found only on the left.
// With ALL the inputs already carry copy numbers, so the same distinct operation is the multiset
// one; the copy numbers are dropped at the end.
Result<ExecPlanPtr> PlanSetOp(const LogicalPlan& plan, const ExecPlanPtr& left,
                              const ExecPlanPtr& right, int partitions) {
  const auto& left_schema = *left->schema();
  const int ncols = left_schema.num_fields();
  const auto kInt64 = columnar::DataType::Int64();
  const auto kBool = columnar::DataType::Boolean();
  std::vector<ExecPlanPtr> tagged;
  for (int side = 0; side < 2; ++side) {
    const ExecPlanPtr& input = side == 0 ? left : right;
    std::vector<ExprPtr> exprs = LeadingColumnRefs(*input->schema(), ncols);
    exprs.push_back(sql::MakeLiteral(columnar::Scalar::Int64(side)));
    std::vector<std::string> names;
    for (const auto& f : left_schema.fields())
      names.push_back(f.name);
    names.emplace_back("$side");
    SHOAL_ASSIGN_OR_RETURN(auto project,
                           ProjectionExec::Make(input, std::move(exprs), std::move(names)));
    tagged.push_back(project);
  }
  SHOAL_ASSIGN_OR_RETURN(auto both, UnionExec::Make(std::move(tagged)));
  auto columns = LeadingColumnRefs(*both->schema(), ncols);
  ExecPlanPtr input = both;
  if (ncols > 0 && partitions > 1) {
    SHOAL_ASSIGN_OR_RETURN(input,
                           RepartitionExec::Make(input, Partitioning::Hash(columns, partitions)));
  } else {
    input = Coalesce(std::move(input));
  }
  auto side_ref = sql::MakeColumnRef(static_cast<sql::ColumnId>(ncols), "$side", kInt64, false);
  std::vector<ExprPtr> counts;
  for (int side = 0; side < 2; ++side) {
    auto on_side = sql::MakeCall("=", {side_ref, sql::MakeLiteral(columnar::Scalar::Int64(side))},
                                 kBool, false);
    counts.push_back(sql::MakeAggregate("count", {}, kInt64, false, false, on_side));
  }
  SHOAL_ASSIGN_OR_RETURN(auto grouped,
                         HashAggregateExec::Make(input, columns, counts, AggregateMode::kSingle));
  auto left_rows = sql::MakeColumnRef(static_cast<sql::ColumnId>(ncols), "$left", kInt64, false);
  auto right_rows =
      sql::MakeColumnRef(static_cast<sql::ColumnId>(ncols + 1), "$right", kInt64, false);
  auto zero = sql::MakeLiteral(columnar::Scalar::Int64(0));
  auto on_left = sql::MakeCall(">", {left_rows, zero}, kBool, false);
  auto on_right = plan.set_op == sql::SetOpKind::kIntersect
                      ? sql::MakeCall(">", {right_rows, zero}, kBool, false)
                      : sql::MakeCall("=", {right_rows, zero}, kBool, false);
  SHOAL_ASSIGN_OR_RETURN(
      auto filter,
      FilterExec::Make(grouped, sql::MakeCall("and", {on_left, on_right}, kBool, false)));
  std::vector<std::string> names;
  for (const auto& c : plan.output)
    names.push_back(c.name);
  const int kept = plan.all ? ncols - 1 : ncols;
  SHOAL_ASSIGN_OR_RETURN(
      auto project,
      ProjectionExec::Make(filter, LeadingColumnRefs(*filter->schema(), kept), std::move(names)));
  return ExecPlanPtr(project);
}

// GROUPING SETS: an Expand emits each row once per set (input columns, then the keys with NULL
// where a key is not in the set, then the set's number), and the aggregate groups by the keys
// and the set number; `group_by` and `aggregates` are rewritten to read the Expand's columns.
// Empty sets also get a placeholder row per stream that the aggregates' FILTER skips, so they
// answer one row even over an empty input, as PostgreSQL does.
Result<ExecPlanPtr> PlanGroupingSets(const LogicalPlan& plan, ExecPlanPtr input,
                                     std::vector<ExprPtr>* group_by,
                                     std::vector<ExprPtr>* aggregates) {
  const auto& in_schema = *input->schema();
  const int num_inputs = in_schema.num_fields();
  const auto num_keys = static_cast<int>(group_by->size());
  bool has_empty_set = false;
  for (const auto& set : plan.grouping_sets)
    has_empty_set = has_empty_set || set.empty();
  std::vector<std::string> names;
  for (const auto& f : in_schema.fields())
    names.push_back(f.name);
  for (int k = 0; k < num_keys; ++k)
    names.push_back(fmt::format("$key{}", k));
  names.emplace_back("$grouping_set");
  if (has_empty_set)
    names.emplace_back("$real_row");
  const auto input_refs = LeadingColumnRefs(in_schema, num_inputs);
  std::vector<std::vector<ExprPtr>> projections;
  std::vector<std::vector<ExprPtr>> constant_rows;
  for (size_t s = 0; s < plan.grouping_sets.size(); ++s) {
    const auto& set = plan.grouping_sets[s];
    std::vector<ExprPtr> list = input_refs;
    for (int k = 0; k < num_keys; ++k) {
      const ExprPtr& key = (*group_by)[static_cast<size_t>(k)];
      const bool in_set = std::find(set.begin(), set.end(), k) != set.end();
      list.push_back(in_set ? key : sql::MakeLiteral(columnar::Scalar(key->type)));
    }
    list.push_back(sql::MakeLiteral(columnar::Scalar::Int64(static_cast<int64_t>(s))));
    if (has_empty_set)
      list.push_back(sql::MakeLiteral(columnar::Scalar::Boolean(true)));
    if (set.empty()) {
      std::vector<ExprPtr> row;
      for (const auto& e : list) {
        if (e->kind == ExprKind::kLiteral)
          row.push_back(e);
        else
          row.push_back(sql::MakeLiteral(columnar::Scalar(e->type)));
      }
      row.back() = sql::MakeLiteral(columnar::Scalar::Boolean(false));
      constant_rows.push_back(std::move(row));
    }
    projections.push_back(std::move(list));
  }
  SHOAL_ASSIGN_OR_RETURN(auto expand, ExpandExec::Make(std::move(input), std::move(projections),
                                                       std::move(names), std::move(constant_rows)));
  const auto& out_schema = *expand->schema();
  group_by->clear();
  for (int k = 0; k <= num_keys; ++k) {
    const auto& f = out_schema.field(num_inputs + k);
    group_by->push_back(
        sql::MakeColumnRef(static_cast<sql::ColumnId>(num_inputs + k), f.name, f.type, f.nullable));
  }
  if (has_empty_set) {
    const int real = num_inputs + num_keys + 1;
    auto real_ref = sql::MakeColumnRef(static_cast<sql::ColumnId>(real), "$real_row",
                                       columnar::DataType::Boolean(), true);
    for (auto& a : *aggregates) {
      auto copy = std::make_shared<sql::Expr>(*a);
      copy->filter = a->filter ? sql::MakeCall("and", {real_ref, a->filter},
                                               columnar::DataType::Boolean(), true)
                               : real_ref;
      a = copy;
    }
  }
  return ExecPlanPtr(expand);
}

// `input`, whose columns are `layout`, with its columns put in the order of `output` (the same
// columns); `input` itself when they already are.
Result<ExecPlanPtr> ProjectToOutput(ExecPlanPtr input, const std::vector<ColumnInfo>& layout,
                                    const std::vector<ColumnInfo>& output) {
  bool same_order = layout.size() == output.size();
  for (size_t i = 0; same_order && i < layout.size(); ++i)
    same_order = layout[i].id == output[i].id;
  if (same_order)
    return input;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (const auto& c : output) {
    exprs.push_back(sql::MakeColumnRef(c.id, c.name, c.type, c.nullable));
    names.push_back(c.name);
  }
  SHOAL_ASSIGN_OR_RETURN(exprs, ToPhysical(exprs, layout));
  SHOAL_ASSIGN_OR_RETURN(
      auto project, ProjectionExec::Make(std::move(input), std::move(exprs), std::move(names)));
  return ExecPlanPtr(project);
}

// Window functions: one WindowExec per distinct (PARTITION BY, ORDER BY), chained, each over an
// input holding whole window partitions; a projection restores the logical column order.
Result<ExecPlanPtr> PlanWindow(const LogicalPlan& plan, ExecPlanPtr input, int partitions) {
  std::vector<ColumnInfo> layout = plan.children[0]->output;
  const size_t num_inputs = layout.size();
  std::vector<bool> planned(plan.exprs.size(), false);
  for (size_t i = 0; i < plan.exprs.size(); ++i) {
    if (planned[i])
      continue;
    const sql::Expr& spec = *plan.exprs[i];
    std::vector<ExprPtr> functions;
    std::vector<std::string> names;
    std::vector<ColumnInfo> added;
    for (size_t j = i; j < plan.exprs.size(); ++j) {
      const sql::Expr& other = *plan.exprs[j];
      bool same = !planned[j] && other.partition_by.size() == spec.partition_by.size() &&
                  other.order_by.size() == spec.order_by.size();
      for (size_t k = 0; same && k < spec.partition_by.size(); ++k)
        same = sql::ExprEquals(*other.partition_by[k], *spec.partition_by[k]);
      for (size_t k = 0; same && k < spec.order_by.size(); ++k) {
        same = other.order_by[k].ascending == spec.order_by[k].ascending &&
               other.order_by[k].nulls_first == spec.order_by[k].nulls_first &&
               sql::ExprEquals(*other.order_by[k].expr, *spec.order_by[k].expr);
      }
      if (!same)
        continue;
      planned[j] = true;
      SHOAL_ASSIGN_OR_RETURN(auto fn, ToPhysical(plan.exprs[j], layout));
      functions.push_back(std::move(fn));
      names.push_back(plan.output[num_inputs + j].name);
      added.push_back(plan.output[num_inputs + j]);
    }
    if (functions[0]->partition_by.empty()) {
      input = Coalesce(std::move(input));
    } else if (input->num_partitions() > 1 || partitions > 1) {
      SHOAL_ASSIGN_OR_RETURN(
          input, RepartitionExec::Make(input, Partitioning::Hash(functions[0]->partition_by,
                                                                 std::max(partitions, 1))));
    }
    SHOAL_ASSIGN_OR_RETURN(
        auto window, WindowExec::Make(std::move(input), std::move(functions), std::move(names)));
    input = window;
    layout.insert(layout.end(), added.begin(), added.end());
  }
  return ProjectToOutput(std::move(input), layout, plan.output);
}

// An ORDER BY of at most this many estimated rows sorts in one partition (see kSort below).
constexpr double kSingleSortMaxRows = 100000;

// A Filter right above a scan whose provider filters rows while decoding hands the scan the
// conjuncts it may apply (SplitScanFilter: those that cannot fail); `*input` becomes that scan.
// Returns the rest, which stays in a Filter above (null: nothing left, no Filter).
Result<ExprPtr> FoldFilterIntoScan(ExecPlanPtr* input, const ExprPtr& predicate) {
  const auto* scan = (*input)->TryAs<TableScanExec>();
  if (scan == nullptr || !scan->table()->AppliesRowFilter() || scan->request().limit >= 0)
    return predicate;
  ScanFilterSplit split = SplitScanFilter(predicate);
  if (split.pushed == nullptr)
    return predicate;
  io::ScanRequest request = scan->request();
  SHOAL_ASSIGN_OR_RETURN(sql::ExprPtr existing, ScanFilterExpression(request));
  request.filter = std::make_shared<ScanFilterExpr>(ConjoinFilters(existing, split.pushed));
  SHOAL_ASSIGN_OR_RETURN(auto folded,
                         TableScanExec::FromUnitGroups(scan->table(), scan->table_name(),
                                                       std::move(request), scan->unit_groups()));
  *input = std::move(folded);
  return split.kept;
}

}  // namespace

Result<ExecPlanPtr> PhysicalPlanner::Plan(const sql::LogicalPlan& plan) const {
  shared_roots_.clear();
  SHOAL_ASSIGN_OR_RETURN(auto node, PlanNode(plan));
  ExecPlanPtr root = Coalesce(std::move(node));
  // Before the runtime filters: a shared subplan takes none, and a filter planned first would
  // make the references differ.
  if (options_.share_subplans) {
    SHOAL_ASSIGN_OR_RETURN(root, ShareCommonSubplans(root, shared_roots_, options_.distributed));
  }
  if (!options_.runtime_filters)
    return root;
  return PlanRuntimeFilters(root, options_.partitioned_runtime_filters);
}

Result<ExecPlanPtr> PhysicalPlanner::PlanNode(const sql::LogicalPlan& plan) const {
  SHOAL_ASSIGN_OR_RETURN(ExecPlanPtr node, PlanOne(plan));
  if (plan.shared_subplan >= 0)
    shared_roots_.insert(node.get());
  return node;
}

Result<ExecPlanPtr> PhysicalPlanner::PlanOne(const sql::LogicalPlan& plan) const {
  SHOAL_CHECK_STACK_DEPTH();
  const int partitions = std::max(1, options_.target_partitions);
  if (plan.kind == LogicalKind::kRecursiveCte) {
    // Both terms run as one partition each: the recursive term runs once per round over the
    // previous round's rows, so it neither repartitions nor coalesces anything.
    PhysicalPlannerOptions single = options_;
    single.target_partitions = 1;
    PhysicalPlanner planner(single);
    SHOAL_ASSIGN_OR_RETURN(auto start, planner.PlanNode(*plan.children[0]));
    SHOAL_ASSIGN_OR_RETURN(auto step, planner.PlanNode(*plan.children[1]));
    SHOAL_ASSIGN_OR_RETURN(
        auto node, RecursiveCteExec::Make(Coalesce(std::move(start)), Coalesce(std::move(step)),
                                          plan.all, static_cast<int64_t>(plan.working_table)));
    return ExecPlanPtr(node);
  }
  std::vector<ExecPlanPtr> inputs;
  for (const auto& child : plan.children) {
    SHOAL_ASSIGN_OR_RETURN(auto input, PlanNode(*child));
    inputs.push_back(std::move(input));
  }
  auto child_output = [&](size_t i) -> const std::vector<ColumnInfo>& {
    return plan.children[i]->output;
  };

  switch (plan.kind) {
    case LogicalKind::kScan: {
      io::ScanRequest request;
      request.projection = plan.projection;
      request.field_paths = plan.field_paths;
      request.predicates = plan.pushed_predicates;
      request.batch_size = options_.batch_size;
      SHOAL_ASSIGN_OR_RETURN(auto scan,
                             TableScanExec::Make(plan.table, plan.table_name, request, partitions));
      return ExecPlanPtr(scan);
    }
    case LogicalKind::kValues: {
      SHOAL_ASSIGN_OR_RETURN(auto values, ValuesExec::FromRows(SchemaOf(plan.output), plan.rows));
      return ExecPlanPtr(values);
    }
    case LogicalKind::kTableFunction: {
      const std::vector<ColumnInfo> none;
      const auto& input_columns = plan.children.empty() ? none : child_output(0);
      SHOAL_ASSIGN_OR_RETURN(auto args, ToPhysical(plan.exprs, input_columns));
      if (plan.function_name == "unnest") {
        std::vector<std::string> names;
        for (size_t i = 0; i < plan.exprs.size() + (plan.with_ordinality ? 1 : 0); ++i)
          names.push_back(plan.output[i].name);
        SHOAL_ASSIGN_OR_RETURN(
            auto unnest, UnnestExec::Make(plan.children.empty() ? nullptr : inputs[0],
                                          std::move(args), plan.with_ordinality, std::move(names)));
        return ExecPlanPtr(unnest);
      }
      std::vector<std::string> names = {plan.output[0].name};
      if (plan.with_ordinality)
        names.push_back(plan.output[1].name);
      SHOAL_ASSIGN_OR_RETURN(
          auto function,
          TableFunctionExec::Make(plan.children.empty() ? nullptr : inputs[0], plan.function_name,
                                  std::move(args), plan.with_ordinality, std::move(names)));
      return ExecPlanPtr(function);
    }
    case LogicalKind::kFilter: {
      SHOAL_ASSIGN_OR_RETURN(auto predicate, ToPhysical(plan.predicate, child_output(0)));
      ExecPlanPtr input = inputs[0];
      if (options_.scan_filters) {
        SHOAL_ASSIGN_OR_RETURN(predicate, FoldFilterIntoScan(&input, predicate));
      }
      if (predicate == nullptr)
        return input;
      SHOAL_ASSIGN_OR_RETURN(auto filter, FilterExec::Make(input, predicate));
      return ExecPlanPtr(filter);
    }
    case LogicalKind::kProject: {
      SHOAL_ASSIGN_OR_RETURN(auto exprs, ToPhysical(plan.exprs, child_output(0)));
      std::vector<std::string> names;
      for (const auto& c : plan.output) {
        names.push_back(c.name);
      }
      SHOAL_ASSIGN_OR_RETURN(auto project,
                             ProjectionExec::Make(inputs[0], std::move(exprs), std::move(names)));
      return ExecPlanPtr(project);
    }
    case LogicalKind::kLimit: {
      ExecPlanPtr input = inputs[0];
      if (input->num_partitions() > 1 && plan.fetch >= 0) {
        // Each partition needs to hand on no more than the rows the global limit can use.
        SHOAL_ASSIGN_OR_RETURN(input, LimitExec::Make(input, 0, plan.offset + plan.fetch, false));
      }
      SHOAL_ASSIGN_OR_RETURN(auto limit,
                             LimitExec::Make(Coalesce(input), plan.offset, plan.fetch, true));
      return ExecPlanPtr(limit);
    }
    case LogicalKind::kSort: {
      SHOAL_ASSIGN_OR_RETURN(auto keys, ToPhysical(plan.sort_keys, child_output(0)));
      ExecPlanPtr input = inputs[0];
      // Few rows: one sort over a coalesce. A merge pulls its sorted partitions one after
      // another, each sort reading its whole input first, so the partitions' plans below ran
      // one at a time (and the partitions of a partitioned join never built at once, so their
      // runtime filter, the union of all partitions' keys, came after the probe side was read:
      // TPC-H Q20 at SF10). A coalesce runs them at once; for many rows, sorting them in
      // parallel is worth the merge.
      const double rows = plan.children[0]->estimated_rows;
      if (!options_.distributed && input->num_partitions() > 1 && rows >= 0 &&
          rows <= kSingleSortMaxRows) {
        input = Coalesce(std::move(input));
      }
      SHOAL_ASSIGN_OR_RETURN(auto sort, SortExec::Make(input, keys, plan.fetch));
      if (sort->num_partitions() == 1) {
        return ExecPlanPtr(sort);
      }
      SHOAL_ASSIGN_OR_RETURN(auto merge, SortPreservingMergeExec::Make(sort, keys, plan.fetch));
      return ExecPlanPtr(merge);
    }
    case LogicalKind::kUnion: {
      SHOAL_ASSIGN_OR_RETURN(auto u, UnionExec::Make(inputs));
      return ExecPlanPtr(u);
    }
    case LogicalKind::kDistinct:
    case LogicalKind::kAggregate: {
      std::vector<ExprPtr> group_by;
      std::vector<ExprPtr> aggregates;
      if (plan.kind == LogicalKind::kDistinct) {
        for (size_t i = 0; i < child_output(0).size(); ++i) {
          const auto& c = child_output(0)[i];
          group_by.push_back(
              sql::MakeColumnRef(static_cast<sql::ColumnId>(i), c.name, c.type, c.nullable));
        }
      } else {
        SHOAL_ASSIGN_OR_RETURN(group_by, ToPhysical(plan.group_by, child_output(0)));
        SHOAL_ASSIGN_OR_RETURN(aggregates, ToPhysical(plan.aggregates, child_output(0)));
      }
      ExecPlanPtr input = inputs[0];
      if (plan.kind == LogicalKind::kAggregate &&
          plan.grouping_id_column != sql::kInvalidColumnId) {
        SHOAL_ASSIGN_OR_RETURN(input,
                               PlanGroupingSets(plan, std::move(input), &group_by, &aggregates));
      }
      // DISTINCT aggregates and aggregates over ordered input (ORDER BY, WITHIN GROUP) have no
      // mergeable partial state: they aggregate in one phase, over one partition or, for ordered
      // ones, over input hash-partitioned by the group keys (each group whole in one partition).
      bool has_distinct = false;
      bool has_ordered = false;
      for (const auto& a : aggregates) {
        has_distinct = has_distinct || a->distinct;
        has_ordered = has_ordered || sql::NeedsOrderedInput(*a);
      }
      const bool one_phase = has_distinct || has_ordered;
      if (has_ordered && input->num_partitions() > 1 && !group_by.empty()) {
        SHOAL_ASSIGN_OR_RETURN(
            auto repartition,
            RepartitionExec::Make(input, Partitioning::Hash(group_by, partitions)));
        SHOAL_ASSIGN_OR_RETURN(
            auto single,
            HashAggregateExec::Make(repartition, group_by, aggregates, AggregateMode::kSingle));
        return ExecPlanPtr(single);
      }
      if (input->num_partitions() == 1 || one_phase) {
        SHOAL_ASSIGN_OR_RETURN(
            auto single,
            HashAggregateExec::Make(Coalesce(input), group_by, aggregates, AggregateMode::kSingle));
        return ExecPlanPtr(single);
      }
      SHOAL_ASSIGN_OR_RETURN(auto partial, HashAggregateExec::Make(input, group_by, aggregates,
                                                                   AggregateMode::kPartial));
      ExecPlanPtr exchanged;
      if (group_by.empty()) {
        exchanged = Coalesce(partial);
      } else {
        auto keys = LeadingColumnRefs(*partial->schema(), static_cast<int>(group_by.size()));
        SHOAL_ASSIGN_OR_RETURN(
            auto repartition,
            RepartitionExec::Make(partial, Partitioning::Hash(std::move(keys), partitions)));
        exchanged = repartition;
      }
      SHOAL_ASSIGN_OR_RETURN(
          auto final_agg,
          HashAggregateExec::Make(exchanged, group_by, aggregates, AggregateMode::kFinal));
      return ExecPlanPtr(final_agg);
    }
    case LogicalKind::kJoin: {
      const auto joined = Concat(child_output(0), child_output(1));
      SHOAL_ASSIGN_OR_RETURN(auto residual, ToPhysical(plan.predicate, joined));
      if (plan.left_keys.empty()) {
        SHOAL_ASSIGN_OR_RETURN(
            auto nlj, NestedLoopJoinExec::Make(inputs[0], inputs[1], plan.join_type, residual));
        return ExecPlanPtr(nlj);
      }
      SHOAL_ASSIGN_OR_RETURN(auto left_keys, ToPhysical(plan.left_keys, child_output(0)));
      SHOAL_ASSIGN_OR_RETURN(auto right_keys, ToPhysical(plan.right_keys, child_output(1)));
      const double left_rows = plan.children[0]->estimated_rows;
      double right_rows = plan.children[1]->estimated_rows;
      const bool left_smaller = left_rows >= 0 && right_rows >= 0 && left_rows * 2 <= right_rows;
      // A semi or anti join whose preserved left side is the smaller builds on it instead (a
      // right semi / anti join): the hash table holds the few rows, the many only probe, and
      // the table's keys reach the many rows' scans as a runtime filter (TPC-H Q4, Q21: EXISTS
      // over lineitem for a quarter's orders).
      const bool build_on_left =
          left_smaller && (plan.join_type == JoinType::kSemi || plan.join_type == JoinType::kAnti);
      // Likewise a left join whose preserved side is the smaller becomes a right join with the
      // inputs swapped (TPC-H Q13: 150k customers LEFT JOIN 1.5M orders): the few rows are built
      // and come out unmatched after the probe; a projection puts the columns back in order.
      const bool outer_on_left = left_smaller && plan.join_type == JoinType::kLeft;
      // Swapped joins partition in distributed plans: the build side's unmatched or matched
      // rows are known only where all of their probe rows went.
      const bool swapped = build_on_left || outer_on_left;
      JoinType join_type = plan.join_type;
      if (swapped) {
        if (build_on_left)
          join_type = join_type == JoinType::kSemi ? JoinType::kRightSemi : JoinType::kRightAnti;
        else
          join_type = JoinType::kRight;
        SHOAL_ASSIGN_OR_RETURN(
            residual, ToPhysical(plan.predicate, Concat(child_output(1), child_output(0))));
        std::swap(inputs[0], inputs[1]);
        std::swap(left_keys, right_keys);
        right_rows = left_rows;
      }
      const bool needs_whole_build =
          plan.join_type == JoinType::kNullAwareAnti || plan.join_type == JoinType::kMark;
      const bool small_build = right_rows >= 0 && right_rows <= options_.collect_build_max_rows &&
                               !(swapped && options_.distributed);
      ExecPlanPtr join;
      if (partitions == 1 || needs_whole_build || small_build) {
        SHOAL_ASSIGN_OR_RETURN(
            join, HashJoinExec::Make(inputs[0], inputs[1], left_keys, right_keys, join_type,
                                     residual, HashJoinExec::Mode::kCollectBuild));
      } else {
        SHOAL_ASSIGN_OR_RETURN(
            auto left, RepartitionExec::Make(inputs[0], Partitioning::Hash(left_keys, partitions)));
        SHOAL_ASSIGN_OR_RETURN(
            auto right,
            RepartitionExec::Make(inputs[1], Partitioning::Hash(right_keys, partitions)));
        SHOAL_ASSIGN_OR_RETURN(
            join, HashJoinExec::Make(left, right, left_keys, right_keys, join_type, residual,
                                     HashJoinExec::Mode::kPartitioned));
      }
      if (!outer_on_left)
        return join;
      return ProjectToOutput(std::move(join), Concat(child_output(1), child_output(0)),
                             plan.output);
    }
    case LogicalKind::kSetOp: {
      if (plan.all) {
        // Multisets: number the copies of each distinct row on both sides (row_number over a
        // partition of all columns); then the k-th copy of a left row survives INTERSECT ALL
        // when the right side has at least k copies and EXCEPT ALL when it has fewer, which is
        // the set operation over (row, copy number).
        for (auto& in : inputs) {
          SHOAL_ASSIGN_OR_RETURN(in, NumberCopies(in, partitions));
        }
      }
      return PlanSetOp(plan, inputs[0], inputs[1], partitions);
    }
    case LogicalKind::kWindow: return PlanWindow(plan, inputs[0], partitions);
    case LogicalKind::kWorkingTable:
      return ExecPlanPtr(WorkingTableScanExec::Make(SchemaOf(plan.output),
                                                    static_cast<int64_t>(plan.working_table)));
    case LogicalKind::kRecursiveCte: break;  // planned above
  }
  return Status::Internal("unknown logical operator {}", static_cast<int>(plan.kind));
}

}  // namespace shoal::exec

#include "shoal/exec/physical_planner.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "shoal/common/settings.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"

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

}  // namespace

Status RegisterPlannerSettings() {
  static const Status status = [] {
    auto& registry = SettingsRegistry::Global();
    if (registry.Find("join_collect_build_rows").ok()) {
      return Status::OK();
    }
    SettingDefinition rows;
    rows.name = "join_collect_build_rows";
    rows.type = SettingType::kInt;
    rows.default_value = "100000";
    rows.min = 0;
    rows.description =
        "Hash joins whose build side is estimated at most this many rows share one hash table "
        "instead of repartitioning both inputs";
    return registry.Register(std::move(rows));
  }();
  return status;
}

Result<ExecPlanPtr> PhysicalPlanner::Plan(const sql::LogicalPlan& plan) const {
  SHOAL_ASSIGN_OR_RETURN(auto node, PlanNode(plan));
  return Coalesce(std::move(node));
}

Result<ExecPlanPtr> PhysicalPlanner::PlanNode(const sql::LogicalPlan& plan) const {
  const int partitions = std::max(1, options_.target_partitions);
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
    case LogicalKind::kFilter: {
      SHOAL_ASSIGN_OR_RETURN(auto predicate, ToPhysical(plan.predicate, child_output(0)));
      SHOAL_ASSIGN_OR_RETURN(auto filter, FilterExec::Make(inputs[0], predicate));
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
      SHOAL_ASSIGN_OR_RETURN(auto sort, SortExec::Make(inputs[0], keys, plan.fetch));
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
        if (plan.grouping_sets.size() > 1 || plan.grouping_id_column != sql::kInvalidColumnId) {
          return Status::NotImplemented("GROUPING SETS / ROLLUP / CUBE are not supported yet");
        }
        SHOAL_ASSIGN_OR_RETURN(group_by, ToPhysical(plan.group_by, child_output(0)));
        SHOAL_ASSIGN_OR_RETURN(aggregates, ToPhysical(plan.aggregates, child_output(0)));
      }
      bool has_distinct = false;
      for (const auto& a : aggregates) {
        has_distinct = has_distinct || a->distinct;
      }
      ExecPlanPtr input = inputs[0];
      if (input->num_partitions() == 1 || has_distinct) {
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
      const double right_rows = plan.children[1]->estimated_rows;
      const bool needs_whole_build =
          plan.join_type == JoinType::kNullAwareAnti || plan.join_type == JoinType::kMark;
      const bool small_build = right_rows >= 0 && right_rows <= options_.collect_build_max_rows;
      if (partitions == 1 || needs_whole_build || small_build) {
        SHOAL_ASSIGN_OR_RETURN(auto join, HashJoinExec::Make(inputs[0], inputs[1], left_keys,
                                                             right_keys, plan.join_type, residual,
                                                             HashJoinExec::Mode::kCollectBuild));
        return ExecPlanPtr(join);
      }
      SHOAL_ASSIGN_OR_RETURN(
          auto left, RepartitionExec::Make(inputs[0], Partitioning::Hash(left_keys, partitions)));
      SHOAL_ASSIGN_OR_RETURN(
          auto right, RepartitionExec::Make(inputs[1], Partitioning::Hash(right_keys, partitions)));
      SHOAL_ASSIGN_OR_RETURN(auto join,
                             HashJoinExec::Make(left, right, left_keys, right_keys, plan.join_type,
                                                residual, HashJoinExec::Mode::kPartitioned));
      return ExecPlanPtr(join);
    }
    case LogicalKind::kSetOp: {
      if (plan.all) {
        return Status::NotImplemented(
            "{} ALL is not supported yet",
            plan.set_op == sql::SetOpKind::kIntersect ? "INTERSECT" : "EXCEPT");
      }
      // Distinct left rows with (INTERSECT) or without (EXCEPT) an equal right row, NULLs equal
      // to NULLs: IS NOT DISTINCT FROM on every column. A hash join cannot match NULL keys, so
      // this is a nested loop for now.
      const auto& left_schema = *inputs[0]->schema();
      const int ncols = left_schema.num_fields();
      std::vector<ExprPtr> columns;
      ExprPtr condition;
      for (int i = 0; i < ncols; ++i) {
        const auto& f = left_schema.field(i);
        auto l = sql::MakeColumnRef(static_cast<sql::ColumnId>(i), f.name, f.type, f.nullable);
        const auto& rf = inputs[1]->schema()->field(i);
        auto r = sql::MakeColumnRef(static_cast<sql::ColumnId>(ncols + i), rf.name, rf.type,
                                    rf.nullable);
        columns.push_back(l);
        auto eq =
            sql::MakeCall("is_not_distinct_from", {l, r}, columnar::DataType::Boolean(), false);
        condition = condition == nullptr ? eq
                                         : sql::MakeCall("and", {condition, eq},
                                                         columnar::DataType::Boolean(), false);
      }
      SHOAL_ASSIGN_OR_RETURN(auto distinct, HashAggregateExec::Make(Coalesce(inputs[0]), columns,
                                                                    {}, AggregateMode::kSingle));
      SHOAL_ASSIGN_OR_RETURN(
          auto join,
          NestedLoopJoinExec::Make(
              distinct, inputs[1],
              plan.set_op == sql::SetOpKind::kIntersect ? JoinType::kSemi : JoinType::kAnti,
              condition));
      return ExecPlanPtr(join);
    }
    case LogicalKind::kWindow:
      return Status::NotImplemented("window functions are not supported yet");
  }
  return Status::Internal("unknown logical operator {}", static_cast<int>(plan.kind));
}

}  // namespace shoal::exec

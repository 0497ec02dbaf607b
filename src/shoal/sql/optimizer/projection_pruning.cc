// Projection pruning: walks the plan top-down with the set of columns the consumer needs and
// drops everything else — unused projection expressions, unused aggregates and window functions,
// and, most importantly, unread table columns from scans (whose projection lists shrink, so
// columnar readers decode less). Nodes whose output passes their input through (Filter, Sort,
// Limit, Join) get their output lists recomputed. DISTINCT, set operations and VALUES need every
// input column and stop the pruning below them (their children are still pruned on their own).
// Columns read by correlated subqueries count as used. Pass-through projections that rules added
// to restore a column order (same ids in, same ids out) disappear where the consumer refers to
// columns by id anyway (projections, aggregates); they stay where the exact column list matters
// (the root, set operations, DISTINCT).
//
// Subtrees marked alike by subplan sharing (LogicalPlan::shared_subplan) are where the cost of
// sharing is decided: a first pass learns which of their output columns each copy's readers
// need; a group whose result (estimated rows times the width of the union of those columns) is
// at most kMaxSharedBytes, and whose scans read at least kSharedSubplanMinScanRows, is pruned
// again, every copy to the union, so that the copies stay alike and the physical planner computes
// them once. Any other group loses its number and each copy is pruned to its own needs.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "shoal/sql/optimizer/cardinality_estimator.h"
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

void AddColumns(const ExprPtr& e, std::set<ColumnId>* out) {
  if (!e)
    return;
  auto cols = ExprColumns(e);
  out->insert(cols.begin(), cols.end());
}

void AddAggregateColumns(const ExprPtr& e, std::set<ColumnId>* out) {
  AddColumns(e, out);
}

// A join holds its build side in a hash table and repartitions its inputs, so columns that only
// a filter below it read (TPC-H Q13's o_comment) are dropped before they get there.
LogicalPlanPtr DropUnneeded(LogicalPlanPtr child, const std::set<ColumnId>& need) {
  std::vector<ColumnInfo> kept;
  for (const auto& c : child->output) {
    if (need.count(c.id) > 0)
      kept.push_back(c);
  }
  if (kept.empty() || kept.size() == child->output.size())
    return child;
  return MakeIdentityProjection(std::move(child), kept);
}

// Bytes a value of `type` takes in a kept batch, roughly (strings: TPC-H's average).
double ValueWidth(const DataType& type) {
  switch (type.id()) {
    case columnar::TypeId::kUtf8:
    case columnar::TypeId::kBinary: return 28;
    case columnar::TypeId::kDecimal:
    case columnar::TypeId::kInterval: return 16;
    case columnar::TypeId::kDictionary:
    case columnar::TypeId::kList:
    case columnar::TypeId::kLargeList:
    case columnar::TypeId::kFixedSizeList:
    case columnar::TypeId::kStruct:
    case columnar::TypeId::kMap: return 64;
    default: return 8;
  }
}

double ScannedRows(const LogicalPlan& plan) {
  if (plan.kind == LogicalKind::kScan)
    return std::max(plan.estimated_rows, 0.0);
  double rows = 0;
  for (const auto& child : plan.children)
    rows += ScannedRows(*child);
  return rows;
}

class Pruner {
 public:
  Result<LogicalPlanPtr> Run(const LogicalPlanPtr& plan) {
    SHOAL_ASSIGN_OR_RETURN(auto pruned, PruneAll(plan));
    if (groups_.empty())
      return pruned;
    // The first pass learned what each copy of a shared subplan must give its readers. Keep a
    // subplan whose result is small enough and prune again, every copy to the union; the others
    // lose their number and are pruned as before.
    for (auto& [number, group] : groups_) {
      double width = 0;
      for (size_t position : group.positions)
        width += ValueWidth(group.types[position]);
      group.shared = group.copies > 1 && group.rows >= 0 && group.rows * width <= kMaxSharedBytes &&
                     group.scanned_rows >= kSharedSubplanMinScanRows;
    }
    second_pass_ = true;
    return PruneAll(plan);
  }

 private:
  // Results up to this size are kept for every reader of a shared subplan; larger ones are
  // computed again at each place. The kept batches count against the query's memory limit.
  static constexpr double kMaxSharedBytes = 32.0 * 1024 * 1024;

  struct Group {
    std::set<size_t> positions;  // of the copies' (unpruned) output columns some reader needs
    std::vector<DataType> types;
    double rows = -1;
    double scanned_rows = 0;  // rows its scans read, estimated
    int copies = 0;
    bool shared = false;
  };

  Result<LogicalPlanPtr> PruneAll(const LogicalPlanPtr& plan) {
    return Prune(plan, OutputIds(*plan), /*exact=*/true);
  }

  /// `exact`: the consumer needs exactly this node's column list, not just the columns by id.
  Result<LogicalPlanPtr> Prune(const LogicalPlanPtr& input, const std::set<ColumnId>& required,
                               bool exact) {
    if (input->shared_subplan >= 0)
      return PruneShared(input, required, exact);
    return PruneNode(input, required, exact);
  }

  Result<LogicalPlanPtr> PruneShared(const LogicalPlanPtr& input,
                                     const std::set<ColumnId>& required, bool exact) {
    Group& group = groups_[input->shared_subplan];
    if (!second_pass_) {
      for (size_t i = 0; i < input->output.size(); ++i) {
        if (required.count(input->output[i].id) > 0)
          group.positions.insert(i);
      }
      if (group.copies++ == 0) {
        for (const auto& column : input->output)
          group.types.push_back(column.type);
        const LogicalPlanPtr estimated = CardinalityEstimator().Annotate(input);
        group.rows = estimated->estimated_rows;
        group.scanned_rows = ScannedRows(*estimated);
      }
      return PruneNode(input, required, exact);
    }
    auto node = input->Clone();
    if (!group.shared) {
      node->shared_subplan = -1;
      return PruneNode(node, required, exact);
    }
    // Every copy is pruned to the same columns, so the copies stay alike.
    std::set<ColumnId> wanted;
    for (size_t position : group.positions)
      wanted.insert(input->output[position].id);
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr pruned, PruneNode(node, wanted, /*exact=*/false));
    if (pruned->shared_subplan != input->shared_subplan) {  // an identity projection skipped
      auto marked = pruned->Clone();
      marked->shared_subplan = input->shared_subplan;
      pruned = std::move(marked);
    }
    if (!exact)
      return pruned;
    std::vector<ColumnInfo> columns;
    for (const auto& column : input->output) {
      if (required.count(column.id) > 0)
        columns.push_back(column);
    }
    if (SameColumnIds(columns, pruned->output))
      return pruned;
    return MakeIdentityProjection(std::move(pruned), columns);
  }

  Result<LogicalPlanPtr> PruneNode(const LogicalPlanPtr& input, const std::set<ColumnId>& required,
                                   bool exact);

  std::map<int, Group> groups_;
  bool second_pass_ = false;
};

Result<LogicalPlanPtr> Pruner::PruneNode(const LogicalPlanPtr& input,
                                         const std::set<ColumnId>& required, bool exact) {
  if (!exact && IsIdentityProjection(*input))
    return Prune(input->children[0], required, exact);
  SHOAL_ASSIGN_OR_RETURN(
      auto node, MapSubqueryPlans(*input, [this](const LogicalPlanPtr& p) { return PruneAll(p); }));
  std::set<ColumnId> need;  // what this node needs from its children
  switch (node->kind) {
    case LogicalKind::kScan: {
      std::vector<int> projection;
      std::vector<ColumnInfo> output;
      for (size_t i = 0; i < node->output.size(); ++i) {
        if (required.count(node->output[i].id) > 0) {
          projection.push_back(node->projection[i]);
          output.push_back(node->output[i]);
        }
      }
      node->projection = std::move(projection);
      node->output = std::move(output);
      return LogicalPlanPtr(node);
    }
    case LogicalKind::kProject: {
      std::vector<ExprPtr> exprs;
      std::vector<ColumnInfo> output;
      for (size_t i = 0; i < node->exprs.size(); ++i) {
        if (required.count(node->output[i].id) > 0) {
          exprs.push_back(node->exprs[i]);
          output.push_back(node->output[i]);
        }
      }
      // Keep one column so that the row count survives without zero-column batches.
      if (exprs.empty() && !node->exprs.empty()) {
        exprs.push_back(node->exprs[0]);
        output.push_back(node->output[0]);
      }
      node->exprs = std::move(exprs);
      node->output = std::move(output);
      for (const auto& e : node->exprs)
        AddColumns(e, &need);
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Prune(node->children[0], need, false));
      return LogicalPlanPtr(node);
    }
    case LogicalKind::kFilter:
    case LogicalKind::kSort:
    case LogicalKind::kLimit: {
      need = required;
      AddColumns(node->predicate, &need);
      for (const auto& k : node->sort_keys)
        AddColumns(k.expr, &need);
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Prune(node->children[0], need, exact));
      node->output = node->children[0]->output;
      return LogicalPlanPtr(node);
    }
    case LogicalKind::kAggregate: {
      // The grouping-set number (GROUPING SETS) sits between the keys and the aggregates.
      size_t keys = node->group_by.size() +
                    (node->grouping_id_column != kInvalidColumnId ? size_t{1} : size_t{0});
      std::vector<ExprPtr> aggregates;
      std::vector<ColumnInfo> output(node->output.begin(),
                                     node->output.begin() + static_cast<long>(keys));
      for (size_t i = 0; i < node->aggregates.size(); ++i) {
        if (required.count(node->output[keys + i].id) > 0) {
          aggregates.push_back(node->aggregates[i]);
          output.push_back(node->output[keys + i]);
        }
      }
      if (keys == 0 && aggregates.empty() && !node->aggregates.empty()) {
        aggregates.push_back(node->aggregates[0]);
        output.push_back(node->output[keys]);
      }
      node->aggregates = std::move(aggregates);
      node->output = std::move(output);
      for (const auto& g : node->group_by)
        AddColumns(g, &need);
      for (const auto& a : node->aggregates)
        AddAggregateColumns(a, &need);
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Prune(node->children[0], need, false));
      return LogicalPlanPtr(node);
    }
    case LogicalKind::kWindow: {
      size_t inputs = node->children[0]->output.size();
      std::vector<ExprPtr> exprs;
      std::vector<ColumnInfo> added;
      for (size_t i = 0; i < node->exprs.size(); ++i) {
        if (required.count(node->output[inputs + i].id) > 0) {
          exprs.push_back(node->exprs[i]);
          added.push_back(node->output[inputs + i]);
        }
      }
      node->exprs = std::move(exprs);
      need = required;
      for (const auto& e : node->exprs)
        AddColumns(e, &need);
      SHOAL_ASSIGN_OR_RETURN(node->children[0], Prune(node->children[0], need, exact));
      if (node->exprs.empty())
        return node->children[0];
      node->output = node->children[0]->output;
      node->output.insert(node->output.end(), added.begin(), added.end());
      return LogicalPlanPtr(node);
    }
    case LogicalKind::kJoin: {
      need = required;
      AddColumns(node->predicate, &need);
      for (const auto& k : node->left_keys)
        AddColumns(k, &need);
      for (const auto& k : node->right_keys)
        AddColumns(k, &need);
      for (auto& child : node->children) {
        std::set<ColumnId> child_need;
        for (ColumnId id : OutputIds(*child)) {
          if (need.count(id) > 0)
            child_need.insert(id);
        }
        SHOAL_ASSIGN_OR_RETURN(child, Prune(child, child_need, exact));
        if (!exact)
          child = DropUnneeded(std::move(child), child_need);
      }
      std::vector<ColumnInfo> output = node->children[0]->output;
      bool right_visible =
          node->join_type != JoinType::kSemi && node->join_type != JoinType::kAnti &&
          node->join_type != JoinType::kNullAwareAnti && node->join_type != JoinType::kMark;
      if (right_visible) {
        output.insert(output.end(), node->children[1]->output.begin(),
                      node->children[1]->output.end());
      }
      for (const auto& c : node->output) {
        if (c.id == node->mark_column && node->join_type == JoinType::kMark)
          output.push_back(c);
      }
      node->output = std::move(output);
      return LogicalPlanPtr(node);
    }
    default: {
      // Needs all of its children's columns; prune each child by itself.
      for (auto& child : node->children) {
        SHOAL_ASSIGN_OR_RETURN(child, PruneAll(child));
      }
      return LogicalPlanPtr(node);
    }
  }
}

class ProjectionPruningRule : public OptimizerRule {
 public:
  const char* name() const override { return "projection_pruning"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    return Pruner().Run(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeProjectionPruningRule() {
  return std::make_unique<ProjectionPruningRule>();
}

}  // namespace shoal::sql::optimizer

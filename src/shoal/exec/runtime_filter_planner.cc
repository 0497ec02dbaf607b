#include "shoal/exec/runtime_filter_planner.h"

#include <map>
#include <set>

#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"

namespace shoal::exec {
namespace {

using sql::JoinType;

bool FilterableJoin(const HashJoinExec& join, bool partitioned) {
  if (join.mode() != HashJoinExec::Mode::kCollectBuild && !partitioned)
    return false;
  switch (join.join_type()) {
    case JoinType::kInner:
    case JoinType::kSemi:
    case JoinType::kRight:
    // A probe row whose key no build row has cannot mark one: dropping it changes nothing.
    case JoinType::kRightSemi:
    case JoinType::kRightAnti: return true;
    default: return false;
  }
}

// Whether a join's output carries its build (right) side's columns.
bool OutputsBuildColumns(JoinType type) {
  return type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kRight ||
         type == JoinType::kFull;
}

class Planner {
 public:
  explicit Planner(bool partitioned) : partitioned_(partitioned) {}

  Status Run(const ExecPlanPtr& root) {
    CountPaths(root);
    return Visit(root);
  }

  // Memoized: a node the plan reaches by several paths (a shared subplan) is rewritten once, so
  // its parents keep sharing one node.
  Result<ExecPlanPtr> Rewrite(const ExecPlanPtr& node) {
    if (auto it = rewritten_.find(node.get()); it != rewritten_.end())
      return it->second;
    SHOAL_ASSIGN_OR_RETURN(ExecPlanPtr out, RewriteOnce(node));
    rewritten_.emplace(node.get(), out);
    return out;
  }

 private:
  Result<ExecPlanPtr> RewriteOnce(const ExecPlanPtr& node) {
    std::vector<ExecPlanPtr> children = node->children();
    bool changed = false;
    for (auto& child : children) {
      SHOAL_ASSIGN_OR_RETURN(ExecPlanPtr rewritten, Rewrite(child));
      changed = changed || rewritten != child;
      child = std::move(rewritten);
    }
    ExecPlanPtr out = node;
    if (changed) {
      SHOAL_ASSIGN_OR_RETURN(out, node->WithNewChildren(std::move(children)));
    }
    if (auto it = join_filters_.find(node.get()); it != join_filters_.end()) {
      SHOAL_ASSIGN_OR_RETURN(auto join, out->As<HashJoinExec>().WithRuntimeFilters(it->second));
      out = std::move(join);
    }
    if (auto it = scan_filters_.find(node.get()); it != scan_filters_.end()) {
      const auto& scan = out->As<TableScanExec>();
      io::ScanRequest request = scan.request();
      for (const auto& target : it->second)
        request.runtime_filters.push_back(target);
      SHOAL_ASSIGN_OR_RETURN(auto annotated,
                             TableScanExec::FromUnitGroups(scan.table(), scan.table_name(),
                                                           std::move(request), scan.unit_groups()));
      out = std::move(annotated);
    }
    return out;
  }

  // How many paths from the root reach each node (a shared subtree is reached more than once).
  void CountPaths(const ExecPlanPtr& node) {
    ++paths_[node.get()];
    if (node->distribution().keeps_subtree_whole)
      return;  // never planned inside
    for (const auto& child : node->children())
      CountPaths(child);
  }

  Status Visit(const ExecPlanPtr& node) {
    if (!visited_.insert(node.get()).second)
      return Status::OK();  // a shared subplan, met again through another reference
    if (node->distribution().keeps_subtree_whole)
      return Status::OK();  // its subtree runs many times; a filter would outlive its build
    if (const auto* join = node->TryAs<HashJoinExec>();
        join != nullptr && FilterableJoin(*join, partitioned_)) {
      std::vector<JoinRuntimeFilter> filters;
      // Down to a scan, never through a node the plan reaches by more paths than the join: some
      // of that node's rows go to readers the join does not see (a shared subplan's other
      // references). Inside a shared subplan, join and scan are reached alike.
      const int join_paths = paths_[join];
      for (size_t k = 0; k < join->left_keys().size(); ++k) {
        const RuntimeFilterPathEnd end =
            FollowRuntimeFilterColumn(*join->left(), PlainKeyColumn(join->left_keys()[k]),
                                      [this, join_paths](const ExecutionPlan& at) {
                                        return paths_[&at] > join_paths || at.Is<TableScanExec>();
                                      });
        const auto* scan = end.node == nullptr ? nullptr : end.node->TryAs<TableScanExec>();
        if (scan == nullptr || paths_[scan] > join_paths || scan->request().limit >= 0)
          continue;
        const int column = end.column;
        const int table_column = scan->request().projection[static_cast<size_t>(column)];
        const int id = next_id_++;
        scan_filters_[scan].push_back({id, table_column});
        filters.push_back({id, static_cast<int>(k),
                           scan->table_name() + "." + scan->schema()->field(column).name});
      }
      if (!filters.empty())
        join_filters_[join] = std::move(filters);
    }
    for (const auto& child : node->children())
      SHOAL_RETURN_IF_ERROR(Visit(child));
    return Status::OK();
  }

  std::map<const ExecutionPlan*, int> paths_;
  std::set<const ExecutionPlan*> visited_;
  std::map<const ExecutionPlan*, ExecPlanPtr> rewritten_;
  std::map<const ExecutionPlan*, std::vector<JoinRuntimeFilter>> join_filters_;
  std::map<const ExecutionPlan*, std::vector<io::RuntimeFilterTarget>> scan_filters_;
  int next_id_ = 1;
  bool partitioned_;
};

}  // namespace

RuntimeFilterInput RuntimeFilterPassThrough(const ExecutionPlan& node, int column) {
  if (const auto* p = node.TryAs<ProjectionExec>()) {
    const sql::ExprPtr& e = p->exprs()[static_cast<size_t>(column)];
    if (e->kind == sql::ExprKind::kColumnRef && e->outer_depth == 0)
      return {0, static_cast<int>(e->column)};
    return {};
  }
  if (node.Is<FilterExec>() || node.Is<RepartitionExec>() || node.Is<CoalescePartitionsExec>())
    return {0, column};
  if (const auto* a = node.TryAs<HashAggregateExec>()) {
    const auto& keys = a->group_by();
    if (static_cast<size_t>(column) >= keys.size())
      return {};  // an aggregate value, or no grouping
    if (a->mode() == AggregateMode::kFinal)
      return {0, column};  // a partial's output: its keys come first
    const sql::ExprPtr& e = keys[static_cast<size_t>(column)];
    if (e->kind == sql::ExprKind::kColumnRef && e->outer_depth == 0)
      return {0, static_cast<int>(e->column)};
    return {};
  }
  if (const auto* j = node.TryAs<HashJoinExec>()) {
    // Left (probe) columns come first for the other join types. Build columns follow where the join
    // outputs them; a build row the filter drops changes only rows whose key the filtering join
    // drops anyway: its pairs carry that key, and a probe row it leaves unmatched comes out with
    // a NULL key (TPC-H Q18: the 57 orders of the IN subquery reach the orders scan that builds
    // the join with lineitem, and that join's own filter then reaches the lineitem scan).
    if (j->join_type() == JoinType::kRightSemi || j->join_type() == JoinType::kRightAnti)
      return {1, column};  // the build side's rows are the output, the probe's columns are not
    const int left_fields = j->left()->schema()->num_fields();
    if (column < left_fields)
      return {0, column};
    if (OutputsBuildColumns(j->join_type()))
      return {1, column - left_fields};
    return {};
  }
  return {};
}

RuntimeFilterPathEnd FollowRuntimeFilterColumn(
    const ExecutionPlan& node, int column, const std::function<bool(const ExecutionPlan&)>& stop) {
  const ExecutionPlan* at = &node;
  while (column >= 0) {
    if (stop(*at))
      return {at, column};
    const RuntimeFilterInput input = RuntimeFilterPassThrough(*at, column);
    if (input.column < 0 || input.child >= at->children().size())
      break;
    at = at->children()[input.child].get();
    column = input.column;
  }
  return {};
}

int PlainKeyColumn(const sql::ExprPtr& key) {
  return key->kind == sql::ExprKind::kColumnRef && key->outer_depth == 0
             ? static_cast<int>(key->column)
             : -1;
}

Result<ExecPlanPtr> PlanRuntimeFilters(const ExecPlanPtr& plan, bool partitioned) {
  Planner planner(partitioned);
  SHOAL_RETURN_IF_ERROR(planner.Run(plan));
  return planner.Rewrite(plan);
}

}  // namespace shoal::exec

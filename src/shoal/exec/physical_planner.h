// PhysicalPlanner: turns an optimized logical plan (sql/logical_plan.h) into an execution plan for
// one node — ColumnIds become input positions, and each logical operator becomes the physical
// operators that run it over `target_partitions` partitions (partial / final aggregation around a
// hash repartition, per-partition sorts under a merge, collect-build or partitioned hash joins).
//
// The root of the result always has exactly one partition, so a caller can read the query's rows
// in order from partition 0.
#pragma once

#include <memory>
#include <set>

#include "shoal/common/result.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/sql/logical_plan.h"

namespace shoal::exec {

struct PhysicalPlannerOptions {
  int target_partitions = 1;
  int64_t batch_size = 8192;
  // A join's right side with at most this many estimated rows is collected into one shared hash
  // table instead of repartitioning both sides (setting join_collect_build_rows).
  double collect_build_max_rows = 100000;
  // Plan runtime join filters (runtime_filter_planner.h; setting runtime_filters).
  bool runtime_filters = true;
  // Fold the error-free conjuncts of a Filter into the scan beneath it when its provider filters
  // rows while decoding (scan_filter_expr.h; setting scan_filters).
  bool scan_filters = true;
  // Partitioned joins publish runtime filters too: the union of their partitions' filters, where
  // all partitions of a join run in one execution or across workers (runtime_filter_planner.h).
  bool partitioned_runtime_filters = false;
  // The plan's partitions run as tasks of other processes (workers, the file shuffle, a test's
  // distributing rewrite): right semi and anti joins are partitioned, since a collect-build one
  // emits its build rows once and so would run its whole probe side in one task.
  bool distributed = false;
  // Compute a repeated aggregation subplan, and the subtrees the optimizer marked alike
  // (LogicalPlan::shared_subplan), once and let their references share it (shared_subplans.h;
  // setting shared_subplans). Only for plans run in one process or by the
  // streaming distributed planner, which reads a shared subplan as a stage of its own; the file
  // shuffle's planner refuses the node.
  bool share_subplans = true;
};

class PhysicalPlanner {
 public:
  explicit PhysicalPlanner(PhysicalPlannerOptions options) : options_(options) {}

  /// The execution plan of `plan`, coalesced to one output partition.
  Result<ExecPlanPtr> Plan(const sql::LogicalPlan& plan) const;

  /// The plan of `plan` without the final coalesce (its partitions as the operators leave them).
  Result<ExecPlanPtr> PlanNode(const sql::LogicalPlan& plan) const;

 private:
  Result<ExecPlanPtr> PlanOne(const sql::LogicalPlan& plan) const;

  PhysicalPlannerOptions options_;
  // The plans of the logical subtrees marked shared (LogicalPlan::shared_subplan), which
  // ShareCommonSubplans computes once when alike. A planner plans one statement at a time.
  mutable std::set<const ExecutionPlan*> shared_roots_;
};

}  // namespace shoal::exec

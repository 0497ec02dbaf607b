// PlanRuntimeFilters: chooses the runtime join filters of a physical plan (join/runtime_filter.h)
// and marks both ends: the hash join that publishes each filter and the table scan that applies it.
//
// A filter is planned for key i of a hash join when
//  - the join is in collect-build mode (one build side per execution holds every build key, so
//    its filter is valid for every probe row), or, with `partitioned`, a partitioned join: each
//    partition sees only its share of the keys, and the union of all partitions' filters is
//    published (runtime_filter_registry.h; across tasks the coordinator merges them). Asked for
//    where every partition of the join runs, on one node or across workers, not where each runs
//    in a process of its own (a file-shuffle task). A scan never waits for a filter of a join of
//    its own execution, so on one node a probe partition that opens before the last build
//    partition finishes reads its first rows unfiltered (TPC-H Q18 at SF1: the IN subquery's 57
//    orders still cut lineitem from 6M rows to 50k);
//  - dropping a probe row whose key matches no build row cannot change the answer: INNER, SEMI
//    and RIGHT joins (RIGHT keeps unmatched BUILD rows; the probe side is not preserved). Never
//    LEFT / FULL (the probe side is preserved), ANTI, NOT IN or mark joins (an unmatched probe row
//    is output);
//  - the probe key is a plain column, and that column can be followed, unchanged, down to a table
//    scan through nodes that pass it through row by row: projections of the column, filters,
//    repartitions and coalesces, the probe side of other hash joins (its columns pass through
//    every join type; a NULL-extended row has a NULL key and never matches), and aggregates
//    grouped by it (dropping the input rows of a group drops exactly that group, Q17's shape).
//    The walk stops at anything else (limits and sorts with a fetch, windows, unions, nested
//    loops, a join's build side, recursive CTEs, whose subtrees run many times), and never marks
//    a scan the plan reaches by more paths than the join (a shared subplan read by others the
//    join does not feed; a join inside the shared subplan may filter its scans), or a scan with a
//    row limit.
// The answer never depends on the filters: they only drop rows the join would drop.
#pragma once

#include <functional>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

/// Where output column `column` of `node` comes from unchanged: child `child`'s column `column`,
/// or column -1 when it is computed. The nodes it follows only pass a value through or drop rows
/// (projections of the column, filters, repartitions, coalesces, a join's probe columns or its
/// build columns, aggregates grouped by it), so the values of the output column are a subset of
/// the input column's, plus NULLs: a filter of the input's values is valid for the output's.
struct RuntimeFilterInput {
  size_t child = 0;
  int column = -1;
};
RuntimeFilterInput RuntimeFilterPassThrough(const ExecutionPlan& node, int column);

/// The first node on column `column`'s pass-through path down from `node` (`node` included)
/// that `stop` accepts, and the column the value has there; a null node when the path ends first.
struct RuntimeFilterPathEnd {
  const ExecutionPlan* node = nullptr;
  int column = -1;
};
RuntimeFilterPathEnd FollowRuntimeFilterColumn(
    const ExecutionPlan& node, int column, const std::function<bool(const ExecutionPlan&)>& stop);

/// The column a join key reads when it is a plain column of its own side; -1 otherwise.
int PlainKeyColumn(const sql::ExprPtr& key);

/// `plan` with runtime filters marked on its joins and scans (the same plan when none applies).
/// `partitioned`: partitioned joins publish filters too (distributed plans).
Result<ExecPlanPtr> PlanRuntimeFilters(const ExecPlanPtr& plan, bool partitioned = false);

}  // namespace shoal::exec

// ShareCommonSubplans: a subplan that a query computes more than once, alike, is computed once
// and read by each of its references (SharedResultExec). A WITH query referenced twice is bound
// and planned once per reference, so TPC-H Q15 scanned and aggregated lineitem twice, once for
// its revenue rows and once for their max().
//
// Which subplans, by cost: an aggregation (final or single, with or without keys) over a
// subtree that reads a table, found at two or more places of the plan. Computing it again costs a
// whole scan and aggregation; keeping its result costs at most the aggregate's table, which was
// held in memory anyway. Other subplans (a join) are shared when the optimizer chose them: it
// marks alike subtrees whose estimated result is small (optimizer/subplan_sharing.cc and
// projection_pruning.cc) and the planner passes their plans in `chosen`. The rest (a large join,
// a filtered scan) are computed again at each place.
// Two subplans are alike when every node has the same kind, parameters (EXPLAIN's verbose line),
// output schema and, for a scan, the same table object, with alike children; only node kinds
// whose EXPLAIN line states all they do take part (scans, filters, projections, aggregations,
// hash joins, repartitions and coalesces), and none that calls a volatile function (random()).
//
// Runtime join filters are planned afterwards and never enter a shared subplan from outside (a
// scan reached by more paths than the join takes no filter, runtime_filter_planner.h): a filter
// of one reference's join would drop rows the other reference needs. A join inside the shared
// subplan filters the scans below it as anywhere else. Across workers a shared subplan becomes a
// stage of its own (shared_result_exec.h); in the file shuffle the driver runs it, and inside a
// stage each reference keeps a copy (materialized_planner.h), after which RecountSharedReferences
// sets the count of readers each shared node waits for.
#pragma once

#include <set>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

/// `plan` with every repeated aggregation subplan, and every repeated subplan rooted at a node of
/// `chosen` (the plans of logical subtrees the optimizer marked shared, whatever their kind),
/// replaced by one SharedResultExec that all its references share (the same plan when nothing
/// repeats). `distributed`: the plan's partitions run as tasks of other processes, where a
/// shared subplan is one task; a chosen one then gets a hash repartition under its shared node,
/// so that what it computes still runs in as many tasks as its partitions.
Result<ExecPlanPtr> ShareCommonSubplans(const ExecPlanPtr& plan,
                                        const std::set<const ExecutionPlan*>& chosen = {},
                                        bool distributed = false);

/// `plan` with each SharedResultExec's reference count set to the number of parents that read it
/// in `plan`, and one read by a single parent replaced by its child: for a rewrite that kept a
/// shared node at some of its places and put a copy of its subplan at others. A count larger than
/// the readers would keep the node's batches until the execution ends.
Result<ExecPlanPtr> RecountSharedReferences(const ExecPlanPtr& plan);

}  // namespace shoal::exec

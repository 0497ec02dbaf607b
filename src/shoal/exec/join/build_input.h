// Helpers that turn a join's build input (all or some partitions of a child plan) into the
// concatenated columns and the hash table the probe side reads.
//
// The build side is pulled partition after partition by the calling thread (no thread-pool tasks,
// see shared_build.h for why) and concatenated into one array per column in `pool`, so that
// output rows are gathered with one Take per column whatever batches they came from.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/join/join_hash_table.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {

/// Every batch of `partitions` of `input`, in partition order; stops with Cancelled when the
/// context is cancelled.
Result<std::vector<columnar::RecordBatchPtr>> CollectPartitions(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::shared_ptr<TaskContext>& context);

/// One array per column of `schema`, holding the rows of all `batches` (empty arrays for none).
Result<std::vector<columnar::ArrayPtr>> ConcatenateColumns(
    const columnar::Schema& schema, const std::vector<columnar::RecordBatchPtr>& batches,
    const std::shared_ptr<MemoryPool>& pool);

/// Collects `partitions` of `input` and indexes the rows by `keys` (physical expressions over the
/// input). Adds "build_rows" and "build_bytes" to `metrics` when it is not null.
Result<std::shared_ptr<JoinHashTable>> BuildJoinHashTable(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<TaskContext>& context, const std::shared_ptr<MemoryPool>& pool,
    OperatorMetrics* metrics);

/// All partition numbers of `plan`: 0 .. num_partitions - 1.
std::vector<int> AllPartitions(const ExecutionPlan& plan);

}  // namespace shoal::exec

// Helpers that turn a join's build input (all or some partitions of a child plan) into the
// concatenated columns and the hash table the probe side reads.
//
// The build side is pulled by the calling thread (no thread-pool tasks, see shared_build.h for
// why): partition after partition, except that BuildJoinSide reads all partitions of its input at
// once through a coalesce (its own threads). The rows are concatenated into one array per column
// in `pool`, so that output rows are gathered with one Take per column whatever batches they came
// from.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/join/join_hash_table.h"
#include "shoal/exec/spill/spill_manager.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {

class ExprEvaluator;

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

/// Indexes `batches` (rows of `schema`) by `keys`; releases the batches as it concatenates them.
Result<std::shared_ptr<JoinHashTable>> BuildJoinHashTableFromBatches(
    const columnar::Schema& schema, std::vector<columnar::RecordBatchPtr> batches,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<MemoryPool>& pool, OperatorMetrics* metrics);

/// Grace hash join: rows go to one of kGracePartitions spill partitions by their key hash, the
/// same function on both sides (keys decoded from dictionaries, equal types on both sides).
constexpr int kGracePartitions = 16;

/// The spill partition of each of `num_rows` rows, given the hashes of their keys.
int GracePartitionOf(uint64_t key_hash);

/// The build side of a hash join: in memory (a table) or, when it did not fit, in
/// kGracePartitions spill files. Whether the WHOLE build side is empty or holds a NULL key is kept
/// here, because NOT IN and mark joins depend on it and no single partition knows it.
struct JoinBuildSide {
  std::shared_ptr<JoinHashTable> table;  // null when spilled
  std::unique_ptr<SpillManager> spill;   // owns the partition files
  std::vector<SpillFile> partitions;     // kGracePartitions files when spilled
  int64_t num_rows = 0;
  bool has_null_key = false;

  bool spilled() const { return !partitions.empty(); }
};

/// Collects `partitions` of `input` like BuildJoinHashTable, but switches to writing every row to
/// its grace partition once the rows would not leave the spill headroom free (see
/// spill/memory_budget.h). `name` names the operator in spill errors.
Result<std::shared_ptr<JoinBuildSide>> BuildJoinSide(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<TaskContext>& context, const std::shared_ptr<MemoryPool>& pool,
    OperatorMetrics* metrics, const std::string& name);

/// Evaluates `keys` over `batch` (dictionaries decoded) and appends each row to the writer of its
/// grace partition. Sets *has_null_key when a row has a NULL key (when not null).
Status WriteGracePartitions(const columnar::RecordBatch& batch,
                            const std::vector<std::unique_ptr<ExprEvaluator>>& keys,
                            const std::vector<std::unique_ptr<SpillWriter>>& writers,
                            const std::shared_ptr<MemoryPool>& pool, bool* has_null_key);

/// All partition numbers of `plan`: 0 .. num_partitions - 1.
std::vector<int> AllPartitions(const ExecutionPlan& plan);

}  // namespace shoal::exec

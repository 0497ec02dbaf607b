// SortedStreamMerger: the k-way merge of streams that are each sorted by the same keys, over a
// binary heap of the inputs' current rows compared as normalized keys (row_key/sort_key_encoder.h).
// Ties go to the lower input, so merging stably sorted inputs is stable in input order.
//
// Two operators share it: SortPreservingMergeExec merges its sorted partitions with it, and
// SortExec merges its spilled sorted runs; it lives apart from both so neither includes the other.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class TaskContext;

/// K-way merge of streams that are each sorted by `keys` (physical expressions over `schema`).
/// Pulls its inputs from the caller's thread; polls the context's cancellation between batches.
class SortedStreamMerger {
 public:
  /// `fetch` >= 0 stops after that many rows. Buffers come from `pool`.
  static Result<std::unique_ptr<SortedStreamMerger>> Make(const std::vector<sql::SortKey>& keys,
                                                          columnar::SchemaPtr schema,
                                                          std::vector<StreamPtr> inputs,
                                                          std::shared_ptr<TaskContext> context,
                                                          std::shared_ptr<MemoryPool> pool,
                                                          int64_t fetch = -1);
  virtual ~SortedStreamMerger() = default;

  /// The next merged batch (at most batch_size rows), nullptr at the end.
  virtual Result<columnar::RecordBatchPtr> Next() = 0;
};

}  // namespace shoal::exec

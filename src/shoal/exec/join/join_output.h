// Output assembly shared by the join operators: gathering joined rows from index pairs, and a
// coalescer that merges the small batches selective joins produce into batches near batch_size.
//
// Not thread-safe: each join stream owns its own.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"

namespace shoal::exec {

/// Appends to `out` element indices[i] of each of `columns` (count rows; a negative index gives a
/// NULL when `allow_null_index`). Columns whose `needed` entry is false (when `needed` is not
/// null) are appended as nullptr: the residual filter's input leaves out columns it never reads.
Status GatherColumns(const std::vector<columnar::ArrayPtr>& columns, const int32_t* indices,
                     int64_t count, bool allow_null_index, const std::vector<bool>* needed,
                     const std::shared_ptr<MemoryPool>& pool, std::vector<columnar::ArrayPtr>* out);

/// `count` NULLs for each field [begin, end) of `schema`, appended to `out`.
Status AppendNullColumns(const columnar::Schema& schema, int begin, int end, int64_t count,
                         const std::shared_ptr<MemoryPool>& pool,
                         std::vector<columnar::ArrayPtr>* out);

class BatchCoalescer {
 public:
  /// Batches of at least half of `target` rows pass through; smaller ones are merged until they
  /// reach half of it, never beyond `target`.
  BatchCoalescer(columnar::SchemaPtr schema, int64_t target, std::shared_ptr<MemoryPool> pool)
      : schema_(std::move(schema)), target_(target), pool_(std::move(pool)) {}

  Status Push(columnar::RecordBatchPtr batch);
  /// Makes whatever is held ready (at the end of the input).
  Status Flush();

  bool has_ready() const { return !ready_.empty(); }

  columnar::RecordBatchPtr PopReady();

 private:
  columnar::SchemaPtr schema_;
  int64_t target_;
  std::shared_ptr<MemoryPool> pool_;
  std::vector<columnar::RecordBatchPtr> held_;
  int64_t held_rows_ = 0;
  std::deque<columnar::RecordBatchPtr> ready_;
};

}  // namespace shoal::exec

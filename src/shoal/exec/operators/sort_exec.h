// SortExec: ORDER BY within each partition (SortPreservingMergeExec then merges the sorted
// partitions into one), and with `fetch` >= 0 the top-k of ORDER BY ... LIMIT k.
//
// Full sort: the partition's batches are collected and concatenated, the keys are normalized into
// memcmp-able rows (row_key/sort_key_encoder.h; a stable LSD radix sort when a row fits in 8
// bytes, a prefix-then-memcmp comparison sort otherwise), and the output is gathered in
// batch_size slices of the permutation. The sort is stable: equal keys keep their input order.
//
// Top-k: a bounded buffer. Once k rows are known, each incoming row is compared with the k-th
// key so far and only rows that beat it are kept; whenever the kept rows reach about twice k they
// are sorted and cut back to k. Memory stays O(k + batch_size) whatever the input size.
//
// Memory and spilling (full sort only): the concatenated input, the encoded keys and the
// permutation are charged to the operator pool. When the query's memory limit is set and sorting
// what is buffered would leave less than the spill headroom free (spill/memory_budget.h), the
// buffered rows are sorted and written as one sorted run to a spill file (spill/spill_manager.h);
// at the end of the input the remaining rows become the last run and the runs are k-way merged
// (SortedStreamMerger, sorted_stream_merger.h, shared with SortPreservingMergeExec), a batch per
// run in memory; when a batch of every run would not fit, the oldest runs are first merged into
// longer runs. A run that cannot be sorted even alone fails with OutOfMemory naming the operator
// and suggesting a higher memory_limit. Top-k never spills: its memory is O(k + batch_size).
#pragma once

#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class SortExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kSort;

  /// `keys`: physical sort keys over the input. `fetch` < 0: all rows.
  static Result<std::shared_ptr<SortExec>> Make(ExecPlanPtr input, std::vector<sql::SortKey> keys,
                                                int64_t fetch = -1);

  std::string_view name() const override { return fetch_ >= 0 ? "TopK" : "Sort"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return input_->output_partitioning(); }

  std::vector<sql::SortKey> output_ordering() const override { return keys_; }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override { return {.partition_wise = true}; }
  Result<ExecPlanPtr> WithRowLimit(int64_t rows) const override;

  const std::vector<sql::SortKey>& keys() const { return keys_; }

  int64_t fetch() const { return fetch_; }

 private:
  SortExec(ExecPlanPtr input, std::vector<sql::SortKey> keys, int64_t fetch)
      : ExecutionPlan(kKind, input->schema()),
        input_(std::move(input)),
        keys_(std::move(keys)),
        fetch_(fetch) {}

  ExecPlanPtr input_;
  std::vector<sql::SortKey> keys_;
  int64_t fetch_;
};

/// "#0 ASC NULLS LAST, #2 DESC NULLS FIRST", for EXPLAIN lines.
std::string SortKeysText(const std::vector<sql::SortKey>& keys);

}  // namespace shoal::exec

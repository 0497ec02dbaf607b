// SortPreservingMergeExec: merges the sorted partitions of its input (each ordered by `keys`, as a
// SortExec leaves them) into one sorted partition: a k-way merge over a binary heap of the inputs'
// current rows, compared as normalized keys (row_key/sort_key_encoder.h). Ties go to the lower
// partition, so with a stable sort per partition the whole result is stable in partition order.
//
// Output batches are assembled from the runs each input contributed (zero-copy when a batch comes
// from one input only, otherwise one concatenation and one gather). With `fetch` >= 0 it stops
// after that many rows. The input partitions are pulled from this stream's thread.
//
// The merge itself is SortedStreamMerger (sorted_stream_merger.h), which SortExec also uses to
// merge its spilled runs.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/sorted_stream_merger.h"

namespace shoal::exec {

class SortPreservingMergeExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kSortPreservingMerge;

  static Result<std::shared_ptr<SortPreservingMergeExec>> Make(ExecPlanPtr input,
                                                               std::vector<sql::SortKey> keys,
                                                               int64_t fetch = -1);

  std::string_view name() const override { return "SortPreservingMerge"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return Partitioning::Single(); }

  std::vector<sql::SortKey> output_ordering() const override { return keys_; }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  DistributionTraits distribution() const override {
    return {.boundary = StageBoundary::kCoalesce};
  }

  const std::vector<sql::SortKey>& keys() const { return keys_; }

  int64_t fetch() const { return fetch_; }

 private:
  SortPreservingMergeExec(ExecPlanPtr input, std::vector<sql::SortKey> keys, int64_t fetch)
      : ExecutionPlan(kKind, input->schema()),
        input_(std::move(input)),
        keys_(std::move(keys)),
        fetch_(fetch) {}

  ExecPlanPtr input_;
  std::vector<sql::SortKey> keys_;
  int64_t fetch_;
};

}  // namespace shoal::exec

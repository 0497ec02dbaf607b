// LimitExec: skips `offset` rows, then passes at most `fetch` rows (fetch < 0: all). A global
// limit needs a single input partition (the planner puts a CoalescePartitions below it); a
// per-partition limit applies to each partition on its own, as the pre-limit below a merge. Both
// stop pulling from their input as soon as they have enough, and release it.
#pragma once

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class LimitExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kLimit;

  static Result<std::shared_ptr<LimitExec>> Make(ExecPlanPtr input, int64_t offset, int64_t fetch,
                                                 bool global = true);

  std::string_view name() const override { return global_ ? "GlobalLimit" : "LocalLimit"; }

  std::vector<ExecPlanPtr> children() const override { return {input_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return input_->output_partitioning(); }

  std::vector<sql::SortKey> output_ordering() const override { return input_->output_ordering(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// A local limit runs per partition; a global one keeps offset + fetch rows of all its input.
  DistributionTraits distribution() const override {
    return {.partition_wise = !global_,
            .row_limit = global_ && fetch_ >= 0 ? offset_ + fetch_ : -1};
  }
  Result<ExecPlanPtr> WithRowLimit(int64_t rows) const override;

  int64_t offset() const { return offset_; }

  int64_t fetch() const { return fetch_; }

  bool global() const { return global_; }

 private:
  LimitExec(ExecPlanPtr input, int64_t offset, int64_t fetch, bool global)
      : ExecutionPlan(kKind, input->schema()),
        input_(std::move(input)),
        offset_(offset),
        fetch_(fetch),
        global_(global) {}

  ExecPlanPtr input_;
  int64_t offset_;
  int64_t fetch_;
  bool global_;
};

}  // namespace shoal::exec

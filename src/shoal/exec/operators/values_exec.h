// ValuesExec: a constant relation (VALUES lists, SELECT without FROM, literal inputs in tests),
// held as ready-made batches in one partition.
#pragma once

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class ValuesExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kValues;

  /// From batches of `schema`.
  static Result<std::shared_ptr<ValuesExec>> Make(columnar::SchemaPtr schema,
                                                  std::vector<columnar::RecordBatchPtr> batches);
  /// From rows of constant expressions (one per column of `schema`), evaluated now.
  static Result<std::shared_ptr<ValuesExec>> FromRows(
      columnar::SchemaPtr schema, const std::vector<std::vector<sql::ExprPtr>>& rows);

  std::string_view name() const override { return "Values"; }

  std::vector<ExecPlanPtr> children() const override { return {}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;

  Partitioning output_partitioning() const override { return Partitioning::Single(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  const std::vector<columnar::RecordBatchPtr>& batches() const { return batches_; }

 private:
  ValuesExec(columnar::SchemaPtr schema, std::vector<columnar::RecordBatchPtr> batches)
      : ExecutionPlan(kKind, std::move(schema)), batches_(std::move(batches)) {}

  std::vector<columnar::RecordBatchPtr> batches_;
};

}  // namespace shoal::exec

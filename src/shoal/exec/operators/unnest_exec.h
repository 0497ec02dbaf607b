// UnnestExec: unnest(array [, array ...]) [WITH ORDINALITY] — one output row per array element,
// the arrays zipped side by side (a shorter or NULL array padded with NULLs, as PostgreSQL's
// multi-argument unnest and its set-returning functions in a select list), then an optional
// bigint ordinality counting from 1, then the input row's columns repeated for each element.
//
// Without an input the arrays are constants, evaluated once. With one, they are evaluated per
// input batch; an input row whose arrays are all NULL or empty yields no row. The element
// columns are gathered from the arrays' children with one Take per batch and array (any element
// type, nested ones too), so no per-row virtual call or allocation happens; an array longer than
// batch_size streams out over several batches.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class UnnestExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kUnnest;

  /// `input` may be null (constant arrays). `arrays` are physical expressions of list type over
  /// the input's columns; `names` name the element columns (one per array) and, WITH
  /// ORDINALITY, the ordinality column after them.
  static Result<std::shared_ptr<UnnestExec>> Make(ExecPlanPtr input,
                                                  std::vector<sql::ExprPtr> arrays,
                                                  bool with_ordinality,
                                                  std::vector<std::string> names);

  std::string_view name() const override { return "Unnest"; }
  std::vector<ExecPlanPtr> children() const override {
    return input_ ? std::vector<ExecPlanPtr>{input_} : std::vector<ExecPlanPtr>{};
  }
  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override {
    return input_ ? Partitioning::Unknown(input_->num_partitions()) : Partitioning::Single();
  }
  /// Per input row, like TableFunctionExec.
  DistributionTraits distribution() const override { return {.partition_wise = true}; }
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  const ExecPlanPtr& input() const { return input_; }
  const std::vector<sql::ExprPtr>& arrays() const { return arrays_; }
  bool with_ordinality() const { return with_ordinality_; }
  /// The element columns and the ordinality (before the input's).
  int num_function_columns() const {
    return static_cast<int>(arrays_.size()) + (with_ordinality_ ? 1 : 0);
  }

 private:
  UnnestExec(columnar::SchemaPtr schema, ExecPlanPtr input, std::vector<sql::ExprPtr> arrays,
             bool with_ordinality)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        arrays_(std::move(arrays)),
        with_ordinality_(with_ordinality) {}

  ExecPlanPtr input_;
  std::vector<sql::ExprPtr> arrays_;
  bool with_ordinality_;
};

}  // namespace shoal::exec

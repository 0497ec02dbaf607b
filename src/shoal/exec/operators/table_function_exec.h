// TableFunctionExec: a set-returning function in FROM — generate_series(start, stop [, step]) over
// int4 or int8 (step 1 by default) or over timestamps with an interval step — optionally WITH
// ORDINALITY (a bigint counting the function's rows from 1).
//
// Without an input the arguments are constants, evaluated once, and the series comes out of one
// partition. With an input (a function whose arguments read earlier FROM items: the decorrelator
// puts the distinct values they read below it) the arguments are evaluated per input batch and
// every input row is repeated once per value of its series; the input's columns follow the
// function's. PostgreSQL's rules: a NULL argument gives no rows, a zero step is an error (22023),
// and a series that would overflow its type ends at the last value that fits. A series of any
// length streams out in batches of at most batch_size rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class TableFunctionExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kTableFunction;

  /// `input` may be null (constant arguments). `args` are physical expressions over the input's
  /// columns (start, stop and optionally step, already cast to the series type: int4, int8, or
  /// timestamp with an interval step). `names`: the function's output column names (one, two
  /// WITH ORDINALITY).
  static Result<std::shared_ptr<TableFunctionExec>> Make(ExecPlanPtr input, std::string function,
                                                         std::vector<sql::ExprPtr> args,
                                                         bool with_ordinality,
                                                         std::vector<std::string> names);

  std::string_view name() const override { return "TableFunction"; }
  std::vector<ExecPlanPtr> children() const override {
    return input_ ? std::vector<ExecPlanPtr>{input_} : std::vector<ExecPlanPtr>{};
  }
  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override {
    return input_ ? Partitioning::Unknown(input_->num_partitions()) : Partitioning::Single();
  }
  /// Per input row: any split of the input gives the same rows in total. Without an input it
  /// reads nothing outside the plan, so it is computed where it is needed, like VALUES.
  DistributionTraits distribution() const override { return {.partition_wise = true}; }
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;

  const ExecPlanPtr& input() const { return input_; }
  const std::string& function() const { return function_; }
  const std::vector<sql::ExprPtr>& args() const { return args_; }
  bool with_ordinality() const { return with_ordinality_; }
  /// The function's own columns (before the input's).
  int num_function_columns() const { return with_ordinality_ ? 2 : 1; }

 private:
  TableFunctionExec(columnar::SchemaPtr schema, ExecPlanPtr input, std::string function,
                    std::vector<sql::ExprPtr> args, bool with_ordinality)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        function_(std::move(function)),
        args_(std::move(args)),
        with_ordinality_(with_ordinality) {}

  ExecPlanPtr input_;
  std::string function_;
  std::vector<sql::ExprPtr> args_;
  bool with_ordinality_;
};

}  // namespace shoal::exec

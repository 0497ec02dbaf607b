// WindowExec: evaluates window functions (row_number, rank, lag, sum(x) OVER (...), ...) that share
// one PARTITION BY / ORDER BY, appending one column per function to its input.
//
// Each output partition of the input must hold whole window partitions: the physical planner puts
// a hash repartition on the PARTITION BY keys below it, or coalesces to one partition when there
// is no PARTITION BY. A stream collects its input, sorts it by (partition keys, order keys) with
// the sort operator's memcmp-able row keys (row_key/sort_key_encoder.h, stable), finds partition
// and peer-group boundaries by comparing adjacent encoded keys, then computes every function over
// whole columns: ranking and navigation functions from the boundaries, frame functions
// (first_value, last_value, nth_value) by a gather at each row's frame bound, and aggregates over
// frames with a segment tree of partial states (window/segment_tree.h), so sliding frames cost
// O(n log n) whatever their width. Output rows come in (partition, order) order, in batch_size
// slices.
//
// Frames follow PostgreSQL: ROWS, RANGE and GROUPS with UNBOUNDED / n PRECEDING / CURRENT ROW /
// n FOLLOWING bounds; the default frame is RANGE UNBOUNDED PRECEDING to CURRENT ROW including peers
// (the whole partition without ORDER BY). RANGE offsets work over integer, decimal, float, date and
// timestamp keys (interval offsets without months for the last two); a row whose key is NULL has
// its NULL peers as frame for offset bounds. Frame offsets are constants evaluated once, at Make.
//
// Memory: the collected input, the sorted copy, the boundaries and the tree states are charged to
// the operator pool (no spilling yet: a refused reservation fails with OutOfMemory).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/scalar.h"
#include "shoal/exec/execution_plan.h"

namespace shoal::exec {

class WindowExec final : public ExecutionPlan {
 public:
  static constexpr PlanKind kKind = PlanKind::kWindow;

  /// A frame bound resolved at plan time.
  struct Bound {
    sql::WindowFrame::BoundKind kind = sql::WindowFrame::BoundKind::kCurrentRow;
    columnar::Scalar offset;  // kPreceding / kFollowing
  };

  /// `functions`: kWindow expressions whose column references are input positions, all with the
  /// same partition_by and order_by. `names`: one output column name per function.
  static Result<std::shared_ptr<WindowExec>> Make(ExecPlanPtr input,
                                                  std::vector<sql::ExprPtr> functions,
                                                  std::vector<std::string> names);

  std::string_view name() const override { return "Window"; }
  std::vector<ExecPlanPtr> children() const override { return {input_}; }
  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override;
  Partitioning output_partitioning() const override { return input_->output_partitioning(); }
  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override;
  std::string Describe(bool verbose) const override;
  /// Partitions hold whole window partitions only when the input is hash-partitioned.
  DistributionTraits distribution() const override {
    return {.partition_wise = input_->output_partitioning().kind == PartitioningKind::kHash};
  }

  const std::vector<sql::ExprPtr>& functions() const { return functions_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Bound>& starts() const { return starts_; }
  const std::vector<Bound>& ends() const { return ends_; }

 private:
  WindowExec(ExecPlanPtr input, columnar::SchemaPtr schema, std::vector<sql::ExprPtr> functions,
             std::vector<std::string> names, std::vector<Bound> starts, std::vector<Bound> ends)
      : ExecutionPlan(kKind, std::move(schema)),
        input_(std::move(input)),
        functions_(std::move(functions)),
        names_(std::move(names)),
        starts_(std::move(starts)),
        ends_(std::move(ends)) {}

  ExecPlanPtr input_;
  std::vector<sql::ExprPtr> functions_;
  std::vector<std::string> names_;
  std::vector<Bound> starts_;  // per function
  std::vector<Bound> ends_;
};

}  // namespace shoal::exec

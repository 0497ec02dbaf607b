// CardinalityEstimator: row-count estimates for logical plans, which join ordering uses to pick
// an order and build sides and which end up in LogicalPlan::estimated_rows for EXPLAIN and the
// physical planner.
//
// Scans start from TableProvider::statistics() (row counts; per-column min / max, distinct and
// null counts where the provider knows them). Filters multiply by selectivities: column =
// constant is 1 / distinct count, ranges use the min / max interpolation for numbers and dates,
// and everything unknown takes a fixed default. Equi-joins use 1 / max(distinct counts) per key;
// keys of one join are not independent in practice (composite keys such as partsupp's), so the
// product of several keys' selectivities is floored at 1 / max(input rows). Distinct counts
// follow the columns through the plan (ids are query-wide) and are capped by each node's rows.
//
// The estimator remembers what it learned about columns, so a caller may estimate subtrees first
// and then ask about selectivities of predicates over their columns.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "shoal/sql/logical_plan.h"

namespace shoal::sql::optimizer {

class CardinalityEstimator {
 public:
  /// Rows assumed for a table without statistics.
  static constexpr double kDefaultTableRows = 1000;
  static constexpr double kDefaultEqualitySelectivity = 0.1;
  static constexpr double kDefaultRangeSelectivity = 1.0 / 3;
  static constexpr double kDefaultLikeSelectivity = 0.1;
  static constexpr double kDefaultSelectivity = 0.25;

  /// The plan with estimated_rows set on every node.
  LogicalPlanPtr Annotate(const LogicalPlanPtr& plan);
  /// Estimated output rows of `plan` (annotating it on the way; the result is discarded).
  double Estimate(const LogicalPlanPtr& plan) { return Annotate(plan)->estimated_rows; }

  /// Fraction of rows for which `predicate` is TRUE, over columns seen by earlier estimates.
  double Selectivity(const ExprPtr& predicate) const;
  /// Distinct values of `expr` among `rows` rows (rows when unknown).
  double DistinctCount(const ExprPtr& expr, double rows) const;
  /// The distinct values an equality `a = b` between inputs of `rows_a` and `rows_b` rows divides
  /// by: the larger known distinct count; with one side unknown, the known side's (the unknown
  /// side's values are assumed contained in it, as a foreign key's are in its key); with both
  /// unknown (files without distinct counts), the smaller input's rows, as if it held the key.
  /// Assuming every unknown column unique instead makes each key/foreign-key join look as small
  /// as its smaller input and puts the big intermediate results on hash-join build sides.
  double KeyDistinct(const ExprPtr& a, double rows_a, const ExprPtr& b, double rows_b) const;
  /// Selectivity of an equi-join on the given keys between inputs of the given sizes.
  double JoinSelectivity(const std::vector<ExprPtr>& left_keys,
                         const std::vector<ExprPtr>& right_keys, double left_rows,
                         double right_rows) const;

 private:
  struct ColumnStats {
    double distinct = -1;  // -1: unknown
    double null_fraction = 0;
    std::optional<double> min;
    std::optional<double> max;
  };

  double EstimateNode(LogicalPlan& node);
  void CapDistinct(const LogicalPlan& node, double rows);
  const ColumnStats* Stats(const ExprPtr& expr) const;

  std::map<ColumnId, ColumnStats> columns_;
};

}  // namespace shoal::sql::optimizer

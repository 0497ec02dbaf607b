// Cardinality estimation: the last rule of the pipeline fills LogicalPlan::estimated_rows on every
// node of the final plan (see cardinality_estimator.h for how), for EXPLAIN and for the physical
// planner's choices (broadcast versus partitioned joins, task counts).
#include "shoal/sql/optimizer/cardinality_estimator.h"
#include "shoal/sql/optimizer/optimizer.h"

namespace shoal::sql::optimizer {

namespace {

class CardinalityEstimationRule : public OptimizerRule {
 public:
  const char* name() const override { return "cardinality_estimation"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    CardinalityEstimator estimator;
    return estimator.Annotate(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeCardinalityEstimationRule() {
  return std::make_unique<CardinalityEstimationRule>();
}

}  // namespace shoal::sql::optimizer

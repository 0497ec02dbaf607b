#include "shoal/sql/optimizer/optimizer.h"

namespace shoal::sql {
namespace optimizer {

Optimizer Optimizer::Default() {
  Optimizer o;
  o.AddRule(MakeConstantFoldingRule());
  o.AddRule(MakeSubqueryDecorrelationRule());
  o.AddRule(MakeDisjunctionFactoringRule());
  o.AddRule(MakePredicatePushdownRule());
  // Pushdown leaves the filters that reject an outer join's NULL rows directly above it; once the
  // join is inner, a second pushdown turns their equalities into keys.
  o.AddRule(MakeOuterJoinSimplificationRule());
  o.AddRule(MakePredicatePushdownRule());
  // Pushdown can expose new constant comparisons (e.g. after substituting projections).
  o.AddRule(MakeConstantFoldingRule());
  o.AddRule(MakeJoinReorderingRule());
  o.AddRule(MakeCommonSubexpressionRule());
  o.AddRule(MakeProjectionPruningRule());
  o.AddRule(MakeCardinalityEstimationRule());
  return o;
}

Result<LogicalPlanPtr> Optimizer::Optimize(LogicalPlanPtr plan, OptimizerContext& context) const {
  for (const auto& rule : rules_) {
    auto next = rule->Apply(plan, context);
    if (!next.ok())
      return next.status().WithContext(fmt::format("optimizer rule {}", rule->name()));
    plan = std::move(*next);
  }
  return plan;
}

}  // namespace optimizer

Result<LogicalPlanPtr> OptimizePlan(LogicalPlanPtr plan, ColumnIdAllocator* column_ids) {
  optimizer::OptimizerContext context;
  context.column_ids = column_ids;
  return optimizer::Optimizer::Default().Optimize(std::move(plan), context);
}

}  // namespace shoal::sql

#include "shoal/sql/optimizer/optimizer.h"

namespace shoal::sql {
namespace optimizer {

Optimizer Optimizer::Default() {
  Optimizer o;
  o.AddRule(MakeConstantFoldingRule());
  // Factoring first: a correlation equality repeated in every OR branch of a subquery's filter
  // becomes a conjunct that decorrelation can pull up.
  o.AddRule(MakeDisjunctionFactoringRule());
  o.AddRule(MakeSubqueryDecorrelationRule());
  o.AddRule(MakePredicatePushdownRule());
  // Pushdown leaves the filters that reject an outer join's NULL rows directly above it; once the
  // join is inner, a second pushdown turns their equalities into keys.
  o.AddRule(MakeOuterJoinSimplificationRule());
  o.AddRule(MakePredicatePushdownRule());
  // Pushdown can expose new constant comparisons (e.g. after substituting projections).
  o.AddRule(MakeConstantFoldingRule());
  o.AddRule(MakeJoinReorderingRule());
  o.AddRule(MakeCommonSubexpressionRule());
  // Before pruning, while alike subtrees still read the same columns.
  o.AddRule(MakeSubplanSharingRule());
  o.AddRule(MakeProjectionPruningRule());
  // After projection pruning: the struct columns left are those the plan reads.
  o.AddRule(MakeStructFieldPruningRule());
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
  // Rules keep no state between plans, so one pipeline serves every statement of every session.
  static const optimizer::Optimizer kDefault = optimizer::Optimizer::Default();
  optimizer::OptimizerContext context;
  context.column_ids = column_ids;
  return kDefault.Optimize(std::move(plan), context);
}

}  // namespace shoal::sql

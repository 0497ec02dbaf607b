// Disjunction factoring: (A AND B) OR (A AND C) -> A AND (B OR C). Conjuncts every branch of an
// OR shares hold for the whole OR, so they can be split off and pushed down; TPC-H Q19 repeats
// its join equality p_partkey = l_partkey in each branch, which only becomes a hash-join key once
// it stands on its own. When a branch consists of the shared conjuncts alone, the OR is implied
// and only those conjuncts remain.
#include "shoal/sql/optimizer/optimizer.h"
#include "shoal/sql/optimizer/plan_util.h"

namespace shoal::sql::optimizer {

namespace {

bool Contains(const std::vector<ExprPtr>& list, const ExprPtr& e) {
  for (const auto& x : list) {
    if (ExprEquals(*x, *e))
      return true;
  }
  return false;
}

ExprPtr Factor(const ExprPtr& e) {
  if (e->kind != ExprKind::kCall || e->name != "or" || e->args.size() < 2)
    return nullptr;
  std::vector<std::vector<ExprPtr>> branches;
  for (const auto& a : e->args)
    branches.push_back(SplitConjunction(a));
  std::vector<ExprPtr> common;
  for (const auto& c : branches[0]) {
    bool everywhere = !ContainsSubquery(c) && !Contains(common, c);
    for (size_t i = 1; i < branches.size() && everywhere; ++i)
      everywhere = Contains(branches[i], c);
    if (everywhere)
      common.push_back(c);
  }
  if (common.empty())
    return nullptr;
  std::vector<ExprPtr> rest;
  bool implied = false;
  for (const auto& branch : branches) {
    std::vector<ExprPtr> remaining;
    for (const auto& c : branch) {
      if (!Contains(common, c))
        remaining.push_back(c);
    }
    if (remaining.empty())
      implied = true;
    rest.push_back(MakeConjunction(remaining));
  }
  std::vector<ExprPtr> out = common;
  if (!implied) {
    bool nullable = false;
    for (const auto& r : rest)
      nullable = nullable || r->nullable;
    out.push_back(MakeCall("or", rest, DataType::Boolean(), nullable));
  }
  return MakeConjunction(out);
}

Result<LogicalPlanPtr> FactorPlan(const LogicalPlanPtr& plan) {
  SHOAL_ASSIGN_OR_RETURN(auto with_subqueries, MapSubqueryPlans(*plan, FactorPlan));
  auto node =
      MapNodeExprs(*with_subqueries, [](const ExprPtr& e) { return TransformExpr(e, Factor); });
  for (auto& child : node->children) {
    SHOAL_ASSIGN_OR_RETURN(child, FactorPlan(child));
  }
  return LogicalPlanPtr(node);
}

class DisjunctionFactoringRule : public OptimizerRule {
 public:
  const char* name() const override { return "disjunction_factoring"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) override {
    return FactorPlan(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeDisjunctionFactoringRule() {
  return std::make_unique<DisjunctionFactoringRule>();
}

}  // namespace shoal::sql::optimizer

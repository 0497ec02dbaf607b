// Disjunction factoring: (A AND B) OR (A AND C) -> A AND (B OR C). Conjuncts every branch of an
// OR shares hold for the whole OR, so they can be split off and pushed down; TPC-H Q19 repeats
// its join equality p_partkey = l_partkey in each branch, which only becomes a hash-join key once
// it stands on its own. When a branch consists of the shared conjuncts alone, the OR is implied
// and only those conjuncts remain.
//
// In a filter, an OR whose every branch constrains the same single column also implies the OR of
// those constraints: TPC-H Q7's (n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR
// (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE') implies n1.n_name IN ('FRANCE', 'GERMANY')
// and the same of n2, which predicate pushdown then applies to each nation scan before the
// joins; the original OR stays. Only in filters: where the OR is NULL the derived condition may
// be FALSE, which a filter treats alike but a projection would not.
#include <map>
#include <optional>
#include <set>

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

// The column a conjunct reads when it reads exactly one (and no subquery, no outer reference).
std::optional<ColumnId> SingleColumn(const ExprPtr& e) {
  if (ContainsSubquery(e))
    return std::nullopt;
  std::vector<ColumnId> columns = ReferencedColumns(e);
  std::set<ColumnId> distinct(columns.begin(), columns.end());
  std::set<ColumnId> outer;
  CollectExprOuterRefs(e, 1, &outer);
  if (distinct.size() != 1 || !outer.empty())
    return std::nullopt;
  return *distinct.begin();
}

// The single-column disjunctions `e` (an OR) implies, one per column every branch constrains.
std::vector<ExprPtr> ImpliedByOr(const ExprPtr& e) {
  std::vector<ExprPtr> implied;
  if (e->kind != ExprKind::kCall || e->name != "or" || e->args.size() < 2)
    return implied;
  std::vector<std::map<ColumnId, std::vector<ExprPtr>>> per_branch;
  for (const auto& branch : e->args) {
    std::map<ColumnId, std::vector<ExprPtr>> by_column;
    for (const auto& c : SplitConjunction(branch)) {
      if (auto column = SingleColumn(c))
        by_column[*column].push_back(c);
    }
    per_branch.push_back(std::move(by_column));
  }
  for (const auto& [column, first] : per_branch[0]) {
    std::vector<ExprPtr> alternatives = {MakeConjunction(first)};
    for (size_t i = 1; i < per_branch.size(); ++i) {
      auto it = per_branch[i].find(column);
      if (it == per_branch[i].end()) {
        alternatives.clear();
        break;
      }
      alternatives.push_back(MakeConjunction(it->second));
    }
    if (alternatives.empty())
      continue;
    bool nullable = false;
    for (const auto& a : alternatives)
      nullable = nullable || a->nullable;
    implied.push_back(MakeCall("or", std::move(alternatives), DataType::Boolean(), nullable));
  }
  return implied;
}

ExprPtr AddImplied(const ExprPtr& predicate) {
  std::vector<ExprPtr> conjuncts = SplitConjunction(predicate);
  const size_t original = conjuncts.size();
  for (size_t i = 0; i < original; ++i) {
    for (auto& extra : ImpliedByOr(conjuncts[i])) {
      if (!Contains(conjuncts, extra))
        conjuncts.push_back(std::move(extra));
    }
  }
  return conjuncts.size() == original ? predicate : MakeConjunction(conjuncts);
}

Result<LogicalPlanPtr> FactorPlan(const LogicalPlanPtr& plan) {
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<LogicalPlan> node,
                         MapSubqueryPlansIfChanged(*plan, FactorPlan));
  if (auto factored = MapNodeExprsIfChanged(
          node ? *node : *plan, [](const ExprPtr& e) { return TransformExpr(e, Factor); }))
    node = std::move(factored);
  if (const LogicalPlan& current = node ? *node : *plan;
      current.kind == LogicalKind::kFilter && current.predicate) {
    ExprPtr implied = AddImplied(current.predicate);
    if (implied != current.predicate) {
      if (!node)
        node = plan->Clone();
      node->predicate = std::move(implied);
    }
  }
  for (size_t i = 0; i < plan->children.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(LogicalPlanPtr child, FactorPlan(plan->children[i]));
    if (child != plan->children[i]) {
      if (!node)
        node = plan->Clone();
      node->children[i] = std::move(child);
    }
  }
  return node ? LogicalPlanPtr(node) : plan;
}

class DisjunctionFactoringRule : public OptimizerRule {
 public:
  const char* name() const override { return "disjunction_factoring"; }

  Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan, OptimizerContext&) const override {
    return FactorPlan(plan);
  }
};

}  // namespace

std::unique_ptr<OptimizerRule> MakeDisjunctionFactoringRule() {
  return std::make_unique<DisjunctionFactoringRule>();
}

}  // namespace shoal::sql::optimizer

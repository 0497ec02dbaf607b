// Optimizer: an ordered list of rewrite rules over logical plans, each rule in its own file in
// this folder. The default pipeline (Optimizer::Default) folds constants, turns subqueries into
// joins (decorrelation), factors shared conjuncts out of disjunctions, pushes predicates down
// (turning cross joins plus equalities into equi-joins and handing column-versus-constant
// conjuncts to scans as pruning hints), turns outer joins whose NULL-extended rows a filter
// rejects into inner joins, reorders inner joins by estimated cardinality, marks subtrees the
// query computes alike in several places, prunes unused columns down to the scans (giving alike
// subtrees the union of what their readers need, when their result is small enough to keep) and
// finally annotates every node with its estimated row count. Rules also
// rewrite the plans of subqueries still inside expressions.
//
// Rules must preserve the output columns (ids, names, types) of the plan they are given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/sql/logical_plan.h"

namespace shoal::sql {

class ColumnIdAllocator;

namespace optimizer {

struct OptimizerContext {
  ColumnIdAllocator* column_ids = nullptr;  // for rules that add columns; may be null
};

// A rule keeps no state between plans (Apply is const): one pipeline serves every statement of
// every session at once.
class OptimizerRule {
 public:
  virtual ~OptimizerRule() = default;
  virtual const char* name() const = 0;
  virtual Result<LogicalPlanPtr> Apply(const LogicalPlanPtr& plan,
                                       OptimizerContext& context) const = 0;
};

std::unique_ptr<OptimizerRule> MakeConstantFoldingRule();
/// Whether scalar function / operator `name` (a kCall name) returns NULL whenever an argument is
/// NULL; constant folding replaces such a call with a NULL argument by NULL.
bool IsStrictFunction(std::string_view name);
std::unique_ptr<OptimizerRule> MakePredicatePushdownRule();
std::unique_ptr<OptimizerRule> MakeProjectionPruningRule();
std::unique_ptr<OptimizerRule> MakeStructFieldPruningRule();
std::unique_ptr<OptimizerRule> MakeSubqueryDecorrelationRule();
std::unique_ptr<OptimizerRule> MakeDisjunctionFactoringRule();
std::unique_ptr<OptimizerRule> MakeOuterJoinSimplificationRule();
std::unique_ptr<OptimizerRule> MakeJoinReorderingRule();
std::unique_ptr<OptimizerRule> MakeCardinalityEstimationRule();
std::unique_ptr<OptimizerRule> MakeCommonSubexpressionRule();
std::unique_ptr<OptimizerRule> MakeSubplanSharingRule();
/// A shared subplan whose scans read fewer rows than this (TPC-H Q2's nation x region) is
/// computed again at each place: across workers a shared one is a stage of its own, which costs
/// more than reading a small input twice (subplan sharing and projection pruning both use it).
inline constexpr double kSharedSubplanMinScanRows = 65536;

/// What join ordering searched: tests bound the search by this count rather than by time.
struct JoinOrderingStats {
  uint64_t pairs_costed = 0;  // pairs of connected subsets whose join was estimated
};
/// The join reordering rule on its own (for tests), counting its search into `stats`.
LogicalPlanPtr ReorderJoins(const LogicalPlanPtr& plan, JoinOrderingStats* stats);

class Optimizer {
 public:
  /// The default rule pipeline.
  static Optimizer Default();

  void AddRule(std::unique_ptr<OptimizerRule> rule) { rules_.push_back(std::move(rule)); }

  Result<LogicalPlanPtr> Optimize(LogicalPlanPtr plan, OptimizerContext& context) const;

 private:
  std::vector<std::unique_ptr<OptimizerRule>> rules_;
};

}  // namespace optimizer

/// Runs the default pipeline.
Result<LogicalPlanPtr> OptimizePlan(LogicalPlanPtr plan, ColumnIdAllocator* column_ids = nullptr);

}  // namespace shoal::sql

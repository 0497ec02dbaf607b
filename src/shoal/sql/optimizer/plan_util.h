// Helpers the optimizer rules share: conjunction splitting, the columns a node produces or reads
// (including correlated references from inside subqueries), and rewriting every expression of a
// node.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "shoal/sql/logical_plan.h"

namespace shoal::sql::optimizer {

/// a AND b AND c -> [a, b, c] (nested ANDs flattened).
std::vector<ExprPtr> SplitConjunction(const ExprPtr& predicate);
/// The AND of `conjuncts` (nullptr when empty, the one itself when single).
ExprPtr MakeConjunction(const std::vector<ExprPtr>& conjuncts);

std::set<ColumnId> OutputIds(const LogicalPlan& plan);
/// Columns an expression reads at this level: its own references plus the correlated references
/// (outer_depth matching) from inside the subqueries it contains.
std::set<ColumnId> ExprColumns(const ExprPtr& expr);
/// References inside `plan` to the query `depth` levels out.
void CollectOuterRefs(const LogicalPlan& plan, int depth, std::set<ColumnId>* out);
/// References inside `expr` (and the subqueries it contains) to the query `depth` levels out.
void CollectExprOuterRefs(const ExprPtr& expr, int depth, std::set<ColumnId>* out);
/// A column reference to a column a node produces.
ExprPtr MakeRef(const ColumnInfo& column);
/// A Projection that passes `columns` of `input` through unchanged (same ids), restoring a
/// column list after a rewrite added columns; projection pruning drops it where ids suffice.
LogicalPlanPtr MakeIdentityProjection(LogicalPlanPtr input, const std::vector<ColumnInfo>& columns);
/// Whether a Projection only passes columns through under their own ids.
bool IsIdentityProjection(const LogicalPlan& plan);
/// Whether two column lists have the same ids in the same order.
bool SameColumnIds(const std::vector<ColumnInfo>& a, const std::vector<ColumnInfo>& b);
bool ContainsSubquery(const ExprPtr& expr);
/// Whether scalar function `name` may give another value each time it is called (random(),
/// nextval()): such a call is neither moved nor computed once for several places.
bool IsVolatileFunction(const std::string& name);
/// Whether `e` is a (non-null pointer to a) literal.
bool IsLiteral(const ExprPtr& e);

/// Every expression slot of a node (predicate, exprs, keys, aggregates, sort keys, rows), for
/// rules that rewrite them all. `fn` returns the new expression.
std::shared_ptr<LogicalPlan> MapNodeExprs(const LogicalPlan& plan,
                                          const std::function<ExprPtr(const ExprPtr&)>& fn);
/// Rewrites the plan of every kSubquery inside the node's expressions with `fn`.
Result<std::shared_ptr<LogicalPlan>> MapSubqueryPlans(
    const LogicalPlan& plan,
    const std::function<Result<LogicalPlanPtr>(const LogicalPlanPtr&)>& fn);
/// Whether any expression of the node (not of its children) holds a subquery.
bool HasSubqueryExpr(const LogicalPlan& plan);
/// As the two above, but null when nothing changed (`fn` gave back every expression or plan it
/// was given), so that a rule with nothing to do on a node copies nothing: most rules change
/// few nodes of a plan, and every statement passes through every rule.
std::shared_ptr<LogicalPlan> MapNodeExprsIfChanged(
    const LogicalPlan& plan, const std::function<ExprPtr(const ExprPtr&)>& fn);
Result<std::shared_ptr<LogicalPlan>> MapSubqueryPlansIfChanged(
    const LogicalPlan& plan,
    const std::function<Result<LogicalPlanPtr>(const LogicalPlanPtr&)>& fn);

/// Replaces column references by id (outer references untouched).
ExprPtr SubstituteColumns(const ExprPtr& expr, const std::map<ColumnId, ExprPtr>& map);

}  // namespace shoal::sql::optimizer

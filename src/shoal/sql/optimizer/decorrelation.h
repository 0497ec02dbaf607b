// Decorrelation: the machinery the subquery_decorrelation rule uses to turn each form of subquery
// into a join, so that no kSubquery reaches execution and correlated lookups become hash joins.
//
// The core step pulls the correlated conjuncts of a subquery plan (those that read the enclosing
// query) up to its root: through filters, projections (which then pass the columns the
// conjuncts need through), inner joins and the preserved side of outer joins, and through
// aggregates when the conjunct is an equality (its inner side becomes a grouping key, so the
// aggregate is computed per correlation value once instead of once per outer row). What is left
// is an uncorrelated plan plus join conditions; equalities between the two sides become the
// join's keys. A subquery that cannot be decorrelated (correlation under a LIMIT, a window, a
// non-equality under an aggregate, ...) is left as it is and rejected at execution.
//
// One file per subquery form implements its rewrite:
//   exists_subquery.cc  EXISTS / NOT EXISTS -> semi / anti join; in a disjunction or a projection
//                       a mark join whose mark is never NULL
//   in_subquery.cc      IN -> semi join, NOT IN -> null-aware anti join (plain anti when neither
//                       side can be NULL), elsewhere a mark join; `op ANY` / `op ALL` -> semi /
//                       anti join on the comparison
//   scalar_subquery.cc  uncorrelated: a left join with the single-row result; correlated: the
//                       aggregate grouped by the correlation keys, left-joined on them, with the
//                       value an empty group would have had (COUNT's 0) restored for outer rows
//                       without a match
#pragma once

#include <optional>
#include <set>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/sql/logical_plan.h"
#include "shoal/sql/session.h"

namespace shoal::sql::optimizer {

/// New column ids for rewrites: the statement's allocator, or (without one, as in some tests) ids
/// above every id of the plan being optimized.
class ColumnIdSource {
 public:
  ColumnIdSource(ColumnIdAllocator* allocator, const LogicalPlan& plan);

  ColumnId Next() { return allocator_ ? allocator_->Next() : next_++; }

 private:
  ColumnIdAllocator* allocator_;
  ColumnId next_ = 0;
};

/// A subquery plan without references to the enclosing query, plus the conditions that tie it to
/// that query (their outer references are now ordinary depth-0 references).
struct DecorrelatedSubquery {
  LogicalPlanPtr plan;
  std::vector<ExprPtr> conditions;
};

/// Moves every reference that points beyond the subquery (depth > level at nesting `level`) one
/// level in: the subquery's plan becomes part of the enclosing query.
LogicalPlanPtr DecrementPlanDepth(const LogicalPlanPtr& plan, int level);
ExprPtr DecrementExprDepth(const ExprPtr& expr, int level);

/// nullopt when the correlation cannot be pulled up. `allow_scalar_aggregate`: whether an
/// aggregate without GROUP BY may be grouped by correlation keys (only a scalar subquery can
/// compensate for the groups that then go missing).
std::optional<DecorrelatedSubquery> PullUpCorrelation(const LogicalPlanPtr& subquery,
                                                      bool allow_scalar_aggregate,
                                                      ColumnIdSource& ids);

/// The result of the general unnesting (domain_unnesting.cc): `plan` computes the subquery once
/// per distinct value of the outer columns it reads (its output: the subquery's columns, then
/// `domain`, one column per outer column); `conditions` (`outer IS NOT DISTINCT FROM domain`)
/// join it back. `one_row_per_value`: AtMostOneRow of the subquery, so at most one row per domain
/// value.
struct DomainUnnested {
  LogicalPlanPtr plan;
  std::vector<ExprPtr> conditions;
  std::vector<ColumnInfo> domain;
  bool one_row_per_value = false;
};

/// nullopt when an operator cannot carry the domain (a subquery left inside the subquery, grouping
/// sets, a null-aware anti join reading the outer query).
std::optional<DomainUnnested> UnnestWithDomain(const LogicalPlanPtr& subquery,
                                               const LogicalPlanPtr& outer, ColumnIdSource& ids);

/// Whether `plan` yields at most one row (per evaluation): an aggregate without GROUP BY, LIMIT 1,
/// a single VALUES row, and what filters, projects or sorts one of those.
bool AtMostOneRow(const LogicalPlan& plan);

/// Pull-up first (it keeps equality correlations as plain hash-join keys), the domain otherwise.
std::optional<DecorrelatedSubquery> Decorrelate(const LogicalPlanPtr& subquery,
                                                const LogicalPlanPtr& outer, ColumnIdSource& ids);

struct JoinCondition {
  std::vector<ExprPtr> left_keys;
  std::vector<ExprPtr> right_keys;
  std::vector<ExprPtr> residual;
};

/// Equalities with one side over `left` and the other over `right` become keys, the rest
/// residual conditions. `a IS NOT DISTINCT FROM b` becomes the keys (coalesce(a, z), a IS NULL)
/// = (coalesce(b, z), b IS NULL) for a constant z of the type, where one exists.
JoinCondition SplitJoinCondition(const std::vector<ExprPtr>& conditions,
                                 const std::set<ColumnId>& left, const std::set<ColumnId>& right);

/// A join with its output computed from the children (the right side's columns are nullable
/// after a left join; semi / anti joins output the left side; kMark adds `mark`).
LogicalPlanPtr MakeJoinNode(JoinType type, LogicalPlanPtr left, LogicalPlanPtr right,
                            JoinCondition condition, ColumnId mark = kInvalidColumnId);

/// The rewrite of one subquery expression: `input` with the subquery joined in, and what replaces
/// the expression (nullptr: the semi / anti join itself applies the conjunct).
struct SubqueryRewrite {
  LogicalPlanPtr input;
  ExprPtr replacement;
};

/// `subquery` is a kExists node; `negated` is its effective negation; `top_level` says whether it
/// is a whole conjunct of a filter (semi / anti join) or sits inside a larger expression (mark).
std::optional<SubqueryRewrite> RewriteExistsSubquery(const LogicalPlanPtr& input,
                                                     const Expr& subquery, bool negated,
                                                     bool top_level, ColumnIdSource& ids);
/// kIn, kAny and kAll nodes.
std::optional<SubqueryRewrite> RewriteInSubquery(const LogicalPlanPtr& input, const Expr& subquery,
                                                 bool negated, bool top_level, ColumnIdSource& ids);
/// kScalar nodes, anywhere in an expression.
std::optional<SubqueryRewrite> RewriteScalarSubquery(const LogicalPlanPtr& input,
                                                     const Expr& subquery, ColumnIdSource& ids);

}  // namespace shoal::sql::optimizer

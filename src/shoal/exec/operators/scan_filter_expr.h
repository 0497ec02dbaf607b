// ScanFilterExpr: the part of a WHERE the planner folds into the table scan beneath it, carried by
// the scan's io::ScanRequest (io::ScanFilter) so that every copy of the request — the runtime
// filter planner's, the distributed planner's per-task scans, the plan codec's — keeps it. The
// scan evaluates it through ScanPredicateFilter (scan_predicate_filter.h) right after decoding
// the columns it reads, so a Parquet reader decodes its other columns only for the rows kept.
//
// Which conjuncts go into the scan (SplitScanFilter): those that cannot raise an error
// (ExprCannotFail: comparisons, IN lists, LIKE, IS [NOT] NULL, boolean connectives over columns
// and constants) and read at least one column. The scan evaluates them on every row ahead of the
// rest, so a conjunct that can fail (a division, a cast, a function) stays in the Filter above
// and runs only on the rows they keep, as the guard in `x <> 0 AND y / x > 1` expects; moving
// error-free conjuncts first can only remove rows such a conjunct sees, never add one. A NULL
// conjunct drops its row, as in WHERE.
#pragma once

#include <memory>
#include <string>

#include "shoal/io/table_provider.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

class ScanFilterExpr final : public io::ScanFilter {
 public:
  /// `expr`: a boolean physical expression over the scan's output columns.
  explicit ScanFilterExpr(sql::ExprPtr expr) : expr_(std::move(expr)) {}

  const sql::ExprPtr& expr() const { return expr_; }

  std::string ToString() const override;

 private:
  sql::ExprPtr expr_;
};

/// The expression of `request`'s filter; null when it has none.
Result<sql::ExprPtr> ScanFilterExpression(const io::ScanRequest& request);

/// A WHERE's conjuncts split for a scan: `pushed` (null: none) the scan applies, `kept` (null:
/// none) the Filter above keeps; each in the WHERE's order.
struct ScanFilterSplit {
  sql::ExprPtr pushed;
  sql::ExprPtr kept;
};
ScanFilterSplit SplitScanFilter(const sql::ExprPtr& predicate);

/// `a AND b`, either side possibly null.
sql::ExprPtr ConjoinFilters(sql::ExprPtr a, sql::ExprPtr b);

}  // namespace shoal::exec

// Which aggregates care about the order of their input rows, shared by the binder (which accepts
// ORDER BY inside every aggregate but keeps it only where it matters) and the execution layer
// (which buffers and sorts the rows of exactly these aggregates).
//
//  - Order-sensitive aggregates: their result depends on the order of the rows they see
//    (string_agg; array_agg when arrays exist). `agg(x ORDER BY y)` keeps its ORDER BY; for every
//    other aggregate (sum, count, min, max, avg, ...) the binder drops it, so it costs nothing.
//  - Ordered-set aggregates (PostgreSQL's WITHIN GROUP): percentile_cont, percentile_disc and
//    mode. Their direct arguments (the fraction) are the expression's args, the aggregated value
//    is the single ORDER BY key.
#pragma once

#include <string_view>

#include "shoal/sql/expr.h"

namespace shoal::sql {

inline bool IsOrderSensitiveAggregate(std::string_view name) {
  return name == "string_agg" || name == "array_agg";
}

inline bool IsOrderedSetAggregate(std::string_view name) {
  return name == "percentile_cont" || name == "percentile_disc" || name == "mode";
}

/// Whether a kAggregate expression needs its rows sorted: an order-sensitive aggregate with an
/// ORDER BY, or an ordered-set aggregate. Such an aggregate has no mergeable partial state and
/// runs in one phase (over input partitioned by its group keys).
inline bool NeedsOrderedInput(const Expr& aggregate) {
  return IsOrderedSetAggregate(aggregate.name) ||
         (!aggregate.order_by.empty() && IsOrderSensitiveAggregate(aggregate.name));
}

}  // namespace shoal::sql

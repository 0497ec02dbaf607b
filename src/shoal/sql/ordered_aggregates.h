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

#include "shoal/sql/expr.h"
#include "shoal/sql/ordered_aggregate_names.h"

namespace shoal::sql {

/// Whether a kAggregate expression needs its rows sorted: an order-sensitive aggregate with an
/// ORDER BY, or an ordered-set aggregate. Such an aggregate has no mergeable partial state and
/// runs in one phase (over input partitioned by its group keys).
inline bool NeedsOrderedInput(const Expr& aggregate) {
  return IsOrderedSetAggregate(aggregate.name) ||
         (!aggregate.order_by.empty() && IsOrderSensitiveAggregate(aggregate.name));
}

}  // namespace shoal::sql

// The names of the aggregates that care about the order of their input rows (see
// ordered_aggregates.h for what each kind means). Kept apart from ordered_aggregates.h, which needs
// Expr, so that expr.cc can name them when it prints WITHIN GROUP without an include circle.
#pragma once

#include <string_view>

namespace shoal::sql {

inline bool IsOrderSensitiveAggregate(std::string_view name) {
  return name == "string_agg" || name == "array_agg";
}

inline bool IsOrderedSetAggregate(std::string_view name) {
  return name == "percentile_cont" || name == "percentile_disc" || name == "mode";
}

}  // namespace shoal::sql

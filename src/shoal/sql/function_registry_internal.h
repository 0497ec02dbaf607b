// What function_registry.cc, function_type_rules.cc and builtin_functions.cc share: small
// type predicates and the constructor of a resolution, and the table of built-in functions
// that FunctionRegistry::Global() registers. Private to the sql layer.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

using columnar::TypeId;

inline bool IsFloat(const DataType& t) {
  return t.id() == TypeId::kFloat32 || t.id() == TypeId::kFloat64;
}

inline bool IsTemporal(const DataType& t) {
  return t.id() == TypeId::kDate32 || t.id() == TypeId::kTimestamp;
}

inline DataType CappedDecimal(int precision, int scale) {
  scale = std::min(scale, DataType::kMaxDecimalPrecision);
  precision = std::min(std::max(precision, std::max(scale, 1)), DataType::kMaxDecimalPrecision);
  return DataType::Decimal(precision, scale);
}

inline FunctionResolution Res(std::vector<DataType> args, DataType result, bool nullable = true) {
  return FunctionResolution{std::move(args), std::move(result), nullable};
}

/// Registers the built-in scalar, aggregate and window functions with their type rules.
void RegisterBuiltins(FunctionRegistry& r);
/// The array, record and map functions (array_functions.cc).
void RegisterArrayBuiltins(FunctionRegistry& r);

}  // namespace shoal::sql::internal

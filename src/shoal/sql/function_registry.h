// FunctionRegistry: signatures and type rules of the scalar, aggregate and window functions the
// binder may call (the canonical names of expr.h), plus the implicit-cast rules they share.
//
// A function is a name, a kind and a type rule: given the argument types, the rule either refuses
// or says which type each argument must be cast to and what the result type is. The binder inserts
// the casts as kCast nodes, so execution kernels see exactly the declared types. New functions can
// be registered at run time (e.g. by an extension or a test) with Register.
//
// Implicit casts (PostgreSQL-like, decided in CommonSuperType / CanImplicitCast):
//   integers widen (int8 < int16 < int32 < int64); integer -> decimal(p,0) -> float64;
//   date <-> timestamp (date widens to timestamp); NULL adopts any type. Unknown-typed string
//   literals adopting the other side's type is done by the binder (it owns literals).
//
// Decimal result types (chosen so that TPC-H answers are exact and match DuckDB):
//   a + b, a - b   scale max(s1,s2), precision max(p1-s1, p2-s2) + max(s1,s2) + 1, capped at 38
//   a * b          scale s1+s2, precision p1+p2, both capped at 38
//   a / b          float64 (DuckDB's choice: decimal / decimal is DOUBLE)
//   a % b          scale max(s1,s2), precision max(p1-s1, p2-s2) + max(s1,s2)
//   integers in decimal arithmetic are decimal(3,0) / (5,0) / (10,0) / (19,0) by width
//   sum(decimal(p,s)) -> decimal(38,s); avg(decimal) -> float64 (as DuckDB); sum(int) -> int64;
//   avg(int) -> float64; count -> int64; min/max keep their type.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/data_type.h"
#include "shoal/columnar/sql_type_name.h"
#include "shoal/common/result.h"

namespace shoal::sql {

using columnar::DataType;

enum class FunctionKind : uint8_t { kScalar, kAggregate, kWindow };

/// What a type rule decided: the type each argument is cast to, and the result type.
struct FunctionResolution {
  std::vector<DataType> arg_types;
  DataType result_type;
  /// False when the result is never NULL (count, row_number, is_null, ...).
  bool nullable_result = true;
};

/// Returns nullopt when the function does not accept these argument types.
using TypeRule = std::function<std::optional<FunctionResolution>(const std::vector<DataType>&)>;

struct FunctionDefinition {
  std::string name;  // canonical, lower case
  FunctionKind kind = FunctionKind::kScalar;
  TypeRule rule;
  /// Human readable signatures for errors and docs ("substring(utf8, int64[, int64])").
  std::string signature;
};

class FunctionRegistry {
 public:
  /// The process-wide registry, with every built-in registered.
  static FunctionRegistry& Global();

  /// Adds or replaces a function of that name and kind.
  void Register(FunctionDefinition definition);

  /// The definition of `name`; kScalar looked up first, then aggregates and windows, unless
  /// `kind` says which.
  const FunctionDefinition* Find(std::string_view name) const;
  const FunctionDefinition* Find(std::string_view name, FunctionKind kind) const;

  /// Applies the type rule. Errors: 42883 "function f(t1, t2) does not exist" with a hint (a
  /// similar name, or the accepted signature).
  Result<FunctionResolution> Resolve(std::string_view name, FunctionKind kind,
                                     const std::vector<DataType>& arg_types) const;

  std::vector<std::string> Names() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, FunctionKind>, FunctionDefinition> functions_;
};

/// The type both may be implicitly cast to, if any (see the file comment).
std::optional<DataType> CommonSuperType(const DataType& a, const DataType& b);
/// Whether `from` converts to `to` implicitly.
bool CanImplicitCast(const DataType& from, const DataType& to);
/// The decimal an integer type becomes in decimal arithmetic (decimal(19,0) for int64).
DataType IntegerAsDecimal(const DataType& type);
bool IsNumeric(const DataType& type);
/// Result type of a binary arithmetic operator over numeric operands (after implicit casts): the
/// rules in the file comment. Nullopt for non-numeric operands.
std::optional<FunctionResolution> ResolveArithmetic(std::string_view op, const DataType& a,
                                                    const DataType& b);

/// PostgreSQL's spelling of a type, for error messages ("integer", "numeric(15,2)", "text").
using columnar::SqlTypeName;

}  // namespace shoal::sql

// The type rules of function_registry.h: implicit casts and common super types (PostgreSQL-like),
// integers widened to decimals, and the result types of arithmetic.

#include <algorithm>

#include "shoal/sql/function_registry.h"
#include "shoal/sql/function_registry_internal.h"

namespace shoal::sql {

using columnar::TypeId;
using internal::CappedDecimal;
using internal::IsFloat;
using internal::IsTemporal;
using internal::Res;

namespace {

int IntegerRank(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return 1;
    case TypeId::kUInt8: return 2;
    case TypeId::kInt16: return 2;
    case TypeId::kUInt16: return 3;
    case TypeId::kInt32: return 3;
    case TypeId::kUInt32: return 4;
    case TypeId::kInt64: return 4;
    case TypeId::kUInt64: return 5;  // no signed type holds it; widened to decimal(20,0)
    default: return 0;
  }
}

DataType SignedIntegerOfRank(int rank) {
  switch (rank) {
    case 1: return DataType::Int8();
    case 2: return DataType::Int16();
    case 3: return DataType::Int32();
    default: return DataType::Int64();
  }
}

}  // namespace

bool IsNumeric(const DataType& t) {
  return t.is_integer() || IsFloat(t) || t.id() == TypeId::kDecimal;
}

DataType IntegerAsDecimal(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt8: return DataType::Decimal(3, 0);
    case TypeId::kUInt8: return DataType::Decimal(3, 0);
    case TypeId::kInt16: return DataType::Decimal(5, 0);
    case TypeId::kUInt16: return DataType::Decimal(5, 0);
    case TypeId::kInt32: return DataType::Decimal(10, 0);
    case TypeId::kUInt32: return DataType::Decimal(10, 0);
    case TypeId::kUInt64: return DataType::Decimal(20, 0);
    default: return DataType::Decimal(19, 0);
  }
}

std::optional<DataType> CommonSuperType(const DataType& a, const DataType& b) {
  if (a == b)
    return a;
  if (a.id() == TypeId::kNull)
    return b;
  if (b.id() == TypeId::kNull)
    return a;
  if (a.id() == TypeId::kDictionary)
    return CommonSuperType(a.value_type(), b);
  if (b.id() == TypeId::kDictionary)
    return CommonSuperType(a, b.value_type());
  if (a.id() == TypeId::kList && b.id() == TypeId::kList) {
    // Arrays join element-wise (int[] and bigint[] meet at bigint[]).
    auto item = CommonSuperType(a.item_field().type, b.item_field().type);
    if (!item)
      return std::nullopt;
    return DataType::List(*item);
  }
  if (a.is_integer() && b.is_integer()) {
    int rank = std::max(IntegerRank(a.id()), IntegerRank(b.id()));
    if (rank == 5)
      return a.id() == TypeId::kUInt64 && b.id() == TypeId::kUInt64 ? a : DataType::Decimal(20, 0);
    // An unsigned type joins the signed type one rank wider.
    if ((a.id() >= TypeId::kUInt8 || b.id() >= TypeId::kUInt8) &&
        (IntegerRank(a.id()) == rank && a.id() >= TypeId::kUInt8))
      ++rank;
    return SignedIntegerOfRank(std::min(rank, 4));
  }
  if (IsFloat(a) || IsFloat(b)) {
    if (IsNumeric(a) && IsNumeric(b))
      return DataType::Float64();
    return std::nullopt;
  }
  if (a.id() == TypeId::kDecimal || b.id() == TypeId::kDecimal) {
    if (!IsNumeric(a) || !IsNumeric(b))
      return std::nullopt;
    DataType da = a.id() == TypeId::kDecimal ? a : IntegerAsDecimal(a);
    DataType db = b.id() == TypeId::kDecimal ? b : IntegerAsDecimal(b);
    int scale = std::max(da.scale(), db.scale());
    int int_digits = std::max(da.precision() - da.scale(), db.precision() - db.scale());
    if (int_digits + scale > DataType::kMaxDecimalPrecision)
      return DataType::Float64();
    return DataType::Decimal(int_digits + scale, scale);
  }
  if (IsTemporal(a) && IsTemporal(b))
    return a.id() == TypeId::kTimestamp ? a : b;
  return std::nullopt;
}

bool CanImplicitCast(const DataType& from, const DataType& to) {
  if (from == to || from.id() == TypeId::kNull)
    return true;
  if (from.id() == TypeId::kDictionary)
    return CanImplicitCast(from.value_type(), to);
  auto common = CommonSuperType(from, to);
  return common && *common == to;
}

std::optional<FunctionResolution> ResolveArithmetic(std::string_view op, const DataType& a0,
                                                    const DataType& b0) {
  DataType a = a0.id() == TypeId::kNull ? b0 : a0;
  DataType b = b0.id() == TypeId::kNull ? a : b0;
  if (!IsNumeric(a) || !IsNumeric(b))
    return std::nullopt;
  if (IsFloat(a) || IsFloat(b))
    return Res({DataType::Float64(), DataType::Float64()}, DataType::Float64());
  if (a.is_integer() && b.is_integer()) {
    DataType t = *CommonSuperType(a, b);
    if (t.id() == TypeId::kDecimal)
      return Res({t, t}, t);
    // Integer arithmetic is done in at least int32, as in PostgreSQL.
    if (IntegerRank(t.id()) < 3)
      t = DataType::Int32();
    return Res({t, t}, t);
  }
  DataType da = a.id() == TypeId::kDecimal ? a : IntegerAsDecimal(a);
  DataType db = b.id() == TypeId::kDecimal ? b : IntegerAsDecimal(b);
  int p1 = da.precision(), s1 = da.scale(), p2 = db.precision(), s2 = db.scale();
  if (op == "+" || op == "-") {
    int scale = std::max(s1, s2);
    return Res({da, db}, CappedDecimal(std::max(p1 - s1, p2 - s2) + scale + 1, scale));
  }
  if (op == "*")
    return Res({da, db}, CappedDecimal(p1 + p2, s1 + s2));
  if (op == "/")
    return Res({DataType::Float64(), DataType::Float64()}, DataType::Float64());
  if (op == "%") {
    int scale = std::max(s1, s2);
    return Res({da, db}, CappedDecimal(std::max(p1 - s1, p2 - s2) + scale, scale));
  }
  return std::nullopt;
}

}  // namespace shoal::sql

#include "shoal/columnar/pg_type.h"

namespace shoal::columnar {

PgType PgTypeOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean: return {pg_oid::kBool, 1, -1};
    case TypeId::kInt8:
    case TypeId::kUInt8:
    case TypeId::kInt16: return {pg_oid::kInt2, 2, -1};
    case TypeId::kUInt16:
    case TypeId::kInt32: return {pg_oid::kInt4, 4, -1};
    case TypeId::kUInt32:
    case TypeId::kInt64: return {pg_oid::kInt8, 8, -1};
    case TypeId::kUInt64: return {pg_oid::kNumeric, -1, -1};
    case TypeId::kFloat32: return {pg_oid::kFloat4, 4, -1};
    case TypeId::kFloat64: return {pg_oid::kFloat8, 8, -1};
    case TypeId::kDecimal:
      return {pg_oid::kNumeric, -1, ((type.precision() << 16) | type.scale()) + 4};
    case TypeId::kDate32: return {pg_oid::kDate, 4, -1};
    case TypeId::kTimestamp:
      return {type.timezone().empty() ? pg_oid::kTimestamp : pg_oid::kTimestampTz, 8, -1};
    case TypeId::kInterval: return {pg_oid::kInterval, 16, -1};
    case TypeId::kBinary: return {pg_oid::kBytea, -1, -1};
    case TypeId::kDictionary: return PgTypeOf(type.value_type());
    case TypeId::kUtf8:
    case TypeId::kNull:
    default: return {pg_oid::kText, -1, -1};
  }
}

}  // namespace shoal::columnar

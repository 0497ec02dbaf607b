#include "shoal/columnar/pg_type.h"

namespace shoal::columnar {

uint32_t PgArrayOidOf(uint32_t element) {
  switch (element) {
    case pg_oid::kBool: return pg_oid::kBoolArray;
    case pg_oid::kBytea: return pg_oid::kByteaArray;
    case pg_oid::kInt2: return pg_oid::kInt2Array;
    case pg_oid::kInt4: return pg_oid::kInt4Array;
    case pg_oid::kInt8: return pg_oid::kInt8Array;
    case pg_oid::kFloat4: return pg_oid::kFloat4Array;
    case pg_oid::kFloat8: return pg_oid::kFloat8Array;
    case pg_oid::kDate: return pg_oid::kDateArray;
    case pg_oid::kTimestamp: return pg_oid::kTimestampArray;
    case pg_oid::kTimestampTz: return pg_oid::kTimestampTzArray;
    case pg_oid::kInterval: return pg_oid::kIntervalArray;
    case pg_oid::kNumeric: return pg_oid::kNumericArray;
    case pg_oid::kRecord: return pg_oid::kRecordArray;
    default: return pg_oid::kTextArray;
  }
}

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
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      DataType leaf = type.item_field().type;
      while (leaf.id() == TypeId::kList || leaf.id() == TypeId::kLargeList ||
             leaf.id() == TypeId::kFixedSizeList)
        leaf = leaf.item_field().type;
      return {PgArrayOidOf(PgTypeOf(leaf).oid), -1, -1};
    }
    case TypeId::kStruct: return {pg_oid::kRecord, -1, -1};
    case TypeId::kUtf8:
    case TypeId::kNull:
    default: return {pg_oid::kText, -1, -1};
  }
}

}  // namespace shoal::columnar

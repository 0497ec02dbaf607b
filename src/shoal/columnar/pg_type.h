// PgType: how PostgreSQL names Shoal's column types — the type OID, length and modifier a client
// sees in RowDescription (server/) and in the system catalogs (sql/system_catalog/), so both agree.
// Unsigned integers are the next wider PostgreSQL integer (uint64 is numeric).
#pragma once

#include <cstdint>

#include "shoal/columnar/data_type.h"

namespace shoal::columnar {

namespace pg_oid {
inline constexpr uint32_t kBool = 16;
inline constexpr uint32_t kBytea = 17;
inline constexpr uint32_t kChar = 18;
inline constexpr uint32_t kName = 19;
inline constexpr uint32_t kInt8 = 20;
inline constexpr uint32_t kInt2 = 21;
inline constexpr uint32_t kInt4 = 23;
inline constexpr uint32_t kRegproc = 24;
inline constexpr uint32_t kText = 25;
inline constexpr uint32_t kOid = 26;
inline constexpr uint32_t kFloat4 = 700;
inline constexpr uint32_t kFloat8 = 701;
inline constexpr uint32_t kUnknown = 705;
inline constexpr uint32_t kBpchar = 1042;
inline constexpr uint32_t kVarchar = 1043;
inline constexpr uint32_t kDate = 1082;
inline constexpr uint32_t kTimestamp = 1114;
inline constexpr uint32_t kTimestampTz = 1184;
inline constexpr uint32_t kInterval = 1186;
inline constexpr uint32_t kNumeric = 1700;
inline constexpr uint32_t kRegclass = 2205;
inline constexpr uint32_t kRegtype = 2206;
inline constexpr uint32_t kRegnamespace = 4089;
inline constexpr uint32_t kRecord = 2249;
// Array types (typarray of the element type).
inline constexpr uint32_t kBoolArray = 1000;
inline constexpr uint32_t kByteaArray = 1001;
inline constexpr uint32_t kInt2Array = 1005;
inline constexpr uint32_t kInt4Array = 1007;
inline constexpr uint32_t kTextArray = 1009;
inline constexpr uint32_t kInt8Array = 1016;
inline constexpr uint32_t kFloat4Array = 1021;
inline constexpr uint32_t kFloat8Array = 1022;
inline constexpr uint32_t kTimestampArray = 1115;
inline constexpr uint32_t kDateArray = 1182;
inline constexpr uint32_t kTimestampTzArray = 1185;
inline constexpr uint32_t kIntervalArray = 1187;
inline constexpr uint32_t kNumericArray = 1231;
inline constexpr uint32_t kRecordArray = 2287;
}  // namespace pg_oid

/// The array type OID whose elements have type OID `element` (text[] for types without one).
uint32_t PgArrayOidOf(uint32_t element);

struct PgType {
  uint32_t oid = pg_oid::kText;
  int16_t length = -1;    // typlen: fixed size in bytes, -1 variable
  int32_t modifier = -1;  // atttypmod: numeric ((precision << 16) | scale) + 4, else -1
};

/// Lists are arrays (a list of lists is a multidimensional array: the same array type), structs
/// are records; maps have no PostgreSQL type and travel as text.
PgType PgTypeOf(const DataType& type);

}  // namespace shoal::columnar

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
}  // namespace pg_oid

struct PgType {
  uint32_t oid = pg_oid::kText;
  int16_t length = -1;    // typlen: fixed size in bytes, -1 variable
  int32_t modifier = -1;  // atttypmod: numeric ((precision << 16) | scale) + 4, else -1
};

PgType PgTypeOf(const DataType& type);

}  // namespace shoal::columnar

// Shoal's column types as PostgreSQL clients see them: the type OID, length and modifier sent in
// RowDescription, and each value's text or binary form in DataRow. The forms follow PostgreSQL's
// send/out functions as the protocol documentation and the client libraries expect them:
//   text: what psql prints (columnar/pretty_print.h spells values that way);
//   binary: big-endian integers and IEEE floats, bool as one byte, numeric as base-10000 digits
//   with weight/sign/dscale, date as days since 2000-01-01, timestamp[tz] as microseconds since
//   2000-01-01 00:00:00 (UTC for tz), interval as microseconds, days, months; text and bytea raw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/server/pg_wire.h"
#include "shoal/sql/session.h"

namespace shoal::server {

namespace pg_oid {
inline constexpr uint32_t kBool = 16;
inline constexpr uint32_t kBytea = 17;
inline constexpr uint32_t kInt8 = 20;
inline constexpr uint32_t kInt2 = 21;
inline constexpr uint32_t kInt4 = 23;
inline constexpr uint32_t kName = 19;
inline constexpr uint32_t kText = 25;
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
}  // namespace pg_oid

/// How a column is described in RowDescription.
struct PgType {
  uint32_t oid = pg_oid::kText;
  int16_t length = -1;    // typlen: fixed size in bytes, -1 variable
  int32_t modifier = -1;  // atttypmod: numeric ((precision << 16) | scale) + 4, else -1
};
PgType PgTypeOf(const columnar::DataType& type);

/// RowDescription for `schema`; `formats` as the client asked (none: all text; one: for all).
void WriteRowDescription(MessageWriter& out, const columnar::Schema& schema,
                         const std::vector<int16_t>& formats);

/// Checks a Bind's result formats against the number of columns (0, 1 or one per column).
Status CheckResultFormats(const std::vector<int16_t>& formats, int num_columns);

/// One DataRow per row of `batch`, rows [begin, end).
void WriteDataRows(MessageWriter& out, const columnar::RecordBatch& batch, int64_t begin,
                   int64_t end, const std::vector<int16_t>& formats);

/// Appends the binary form (the type's send function, as in a DataRow of binary format) of valid
/// element i of `array`; dictionaries are looked through.
void AppendBinaryValue(const columnar::Array& array, int64_t i, std::string* out);

/// A parameter value of a Bind message as the binder takes it (sql/session.h): `oid` is the type
/// the client declared in Parse (0: unknown), `format` 0 (text) or 1 (binary). Binary values are
/// decoded as PostgreSQL's receive functions read them and turned into their text form; a binary
/// value of unknown type, or one whose length does not fit its type, is a ProtocolViolation.
Result<sql::QueryParameter> DecodeParameter(uint32_t oid, int16_t format,
                                            const std::optional<std::string>& value);

/// The binary form of PostgreSQL's numeric for a decimal number written in text
/// ("-12.3400", "NaN"); the text must be digits with an optional sign and point.
std::string NumericBinaryFromText(std::string_view text);

}  // namespace shoal::server

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

#include "shoal/columnar/pg_type.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/server/pg_wire.h"
#include "shoal/sql/session.h"

namespace shoal::server {

// The type OIDs and PgTypeOf live in columnar/pg_type.h (the system catalogs need them too).
namespace pg_oid = columnar::pg_oid;
using columnar::PgType;
using columnar::PgTypeOf;

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

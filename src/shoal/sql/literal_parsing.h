// Literal parsing: SQL literal text ('1998-12-01', '90 days', '0.05') to typed Scalars, as the
// binder needs for typed literals (DATE '...', INTERVAL '...'), for string literals that adopt
// the other operand's type, and for casts folded at plan time. Also the reverse for EXPLAIN.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/columnar/scalar.h"
#include "shoal/common/calendar.h"
#include "shoal/common/date_text.h"

namespace shoal::sql {

// Dates and timestamps: ParseDate and ParseTimestamp (common/date_text.h) and the calendar
// arithmetic (common/calendar.h), shared with the casts and the readers.

/// PostgreSQL interval text: "3 months", "1 year 2 days", "90 day", "-1 hour", "1-2" is refused.
/// A bare number takes the unit of `default_unit` ("day", "month", "year", "second", ...).
Result<columnar::MonthDayNano> ParseInterval(std::string_view text,
                                             std::string_view default_unit = "second");

/// A numeric literal's text ("12", "0.06", "1e3") as the narrowest fitting type: int32, int64,
/// decimal(p,s) when it has a point and at most 38 digits, float64 otherwise.
Result<columnar::Scalar> ParseNumericLiteral(std::string_view text);

/// Converts a constant text to `type` (the cast of an unknown-typed string literal).
Result<columnar::Scalar> CastTextToType(std::string_view text, const columnar::DataType& type);

/// Converts a non-null constant between types where the conversion is exact or well defined
/// (integer widening, int -> decimal -> float64, decimal rescale, date <-> timestamp, anything to
/// text). Returns NotImplemented for conversions left to the execution kernels.
Result<columnar::Scalar> CastScalar(const columnar::Scalar& value, const columnar::DataType& type);

/// SQL text of a literal for EXPLAIN: 42, 0.05, 'abc', DATE '1998-12-01', INTERVAL '90 days'.
std::string LiteralToSql(const columnar::Scalar& value);

}  // namespace shoal::sql

// Date and timestamp text, as PostgreSQL 15 reads and writes it (DateStyle 'ISO, MDY', the
// default). The one parser behind SQL literals (DATE '...'), casts from text and the TBL/CSV
// reader, and the one formatter behind the pretty printer and EXPLAIN; calendar.h does the
// arithmetic.
//
// Accepted date input (surrounding blanks ignored, " BC" / " AD" optional at the end):
//   1999-01-08, 1999/01/08    year first when the first field has 3 or more digits
//   1-8-1999, 01/08/99        otherwise month-day-year (MDY), as PostgreSQL's default DateStyle
//   19990108, 990108          ISO 8601 concatenated (8 or 6 digits)
// A year of one or two digits (without BC) means 1970..2069, as in PostgreSQL: 99 is 1999, 03 is
// 2003; write 0099 for AD 99. Year 0 does not exist (the readers once took it for 1 BC).
// Dates run from 4714-11-24 BC (Julian day 0) to 5874897-12-31, PostgreSQL's range. A date
// with a time ('1999-01-08 04:05') is refused, as Shoal always did (PostgreSQL drops the time). Not
// accepted (PostgreSQL accepts them): month names
// ("January 8, 1999"), day-of-year (1999.008), Julian days (J2451187), and the special words
// (epoch, infinity, today...).
//
// Accepted timestamp input: a date as above, then optionally 'T' or blanks and a time
// H:MM[:SS[.fraction]] (hours 0..23, seconds up to 60), then optionally a time zone ("Z", "UTC",
// "GMT", "+HH", "+HH:MM", "-HHMM") and the era. A fraction finer than the unit is rounded half to
// even (PostgreSQL rounds to the microsecond). Without `zoned` the time zone is ignored, as
// PostgreSQL's timestamp without time zone does; with it the value is shifted to UTC. Timestamps
// run from 4714-11-24 BC to where the unit's int64 count from 1970 ends (294247 AD for
// microseconds, 2262 for nanoseconds; PostgreSQL, counting from 2000, reaches 294276).
//
// Errors carry PostgreSQL's text and SQLSTATE: `invalid input syntax for type date: "x"` (22007),
// `date out of range: "x"` / `timestamp out of range: "x"` (22008).
//
// Output: "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS[.ffffff]" (fraction without trailing zeros, "+00"
// when zoned, shown in UTC), with " BC" at the very end for years before 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal {

/// Days since 1970-01-01 of a date text.
Result<int32_t> ParseDate(std::string_view text);

/// Timestamp text to units of 10^-fraction_digits seconds since 1970-01-01 00:00 (0: seconds,
/// 3: milli, 6: micro, 9: nano).
Result<int64_t> ParseTimestamp(std::string_view text, int fraction_digits = 6, bool zoned = false);

/// "YYYY-MM-DD[ BC]".
void AppendDate(int64_t days, std::string* out);
std::string FormatDate(int64_t days);
/// "HH:MM:SS[.ffffff]" of non-negative microseconds; hours may pass 24 (for intervals).
void AppendTimeOfDay(int64_t micros, std::string* out);
/// "YYYY-MM-DD HH:MM:SS[.ffffff][+00][ BC]" of a day number and the microseconds into that day.
void AppendTimestamp(int64_t days, int64_t micros_of_day, bool zoned, std::string* out);

}  // namespace shoal

// Exact decimal values: an unscaled two's-complement integer (int64 for precision <= 18, int128
// up to 38) plus the column's scale. Conversions to and from text live here so that the printer,
// the CSV reader and the SQL literal parser agree on one definition.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal::columnar {

using int128_t = __int128;
static_assert(sizeof(int128_t) == 16);

/// 10^n for n in 0..38.
int128_t PowerOfTen(int n);

/// Largest unscaled magnitude a decimal of `precision` digits may hold: 10^precision - 1.
inline int128_t MaxUnscaled(int precision) {
  return PowerOfTen(precision) - 1;
}

/// "-123.45" for unscaled -12345 at scale 2.
std::string FormatDecimal(int128_t unscaled, int scale);
/// FormatDecimal appended to `out` without a temporary (the per-value path of results and COPY).
void AppendDecimal(int128_t unscaled, int scale, std::string* out);
/// Parses "12.5", "-0.01", "+3", "1e3" is refused. Rounds half away from zero to `scale`;
/// fails with OutOfRange when the value needs more than `precision` digits.
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);
/// PostgreSQL's float8 -> numeric: the value's 15 significant digits (DBL_DIG), rounded half
/// away from zero to `scale`; OutOfRange for NaN, infinities and values too wide for `precision`.
Result<int128_t> DecimalFromDouble(double v, int precision, int scale);
/// Decimal text of an int128 ("170141183460469231731687303715884105727").
std::string Int128ToString(int128_t v);

}  // namespace shoal::columnar

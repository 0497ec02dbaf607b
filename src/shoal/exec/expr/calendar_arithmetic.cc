#include "shoal/exec/expr/calendar_arithmetic.h"

#include <algorithm>
#include <climits>

#include "shoal/common/calendar.h"

namespace shoal::exec {

int64_t UnitsPerSecond(const columnar::DataType& timestamp) {
  switch (timestamp.unit()) {
    case columnar::TimeUnit::kSecond: return 1;
    case columnar::TimeUnit::kMilli: return 1000;
    case columnar::TimeUnit::kMicro: return 1000000;
    case columnar::TimeUnit::kNano: return 1000000000;
  }
  return 1000000;
}

int32_t AddMonthsToDate(int32_t days, int32_t months) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + months;
  int64_t ny = total >= 0 ? total / 12 : (total - 11) / 12;
  unsigned nm = static_cast<unsigned>(total - ny * 12) + 1;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  unsigned last = kDays[nm - 1];
  if (nm == 2 && ((ny % 4 == 0 && ny % 100 != 0) || ny % 400 == 0))
    last = 29;
  return static_cast<int32_t>(DaysFromCivil(ny, nm, std::min(d, last)));
}

bool AddIntervalToTimestamp(int64_t t, columnar::MonthDayNano iv, int sign, int64_t per_second,
                            int64_t* out) {
  const int64_t per_day = 86400 * per_second;
  int64_t days = t / per_day;
  int64_t rem = t % per_day;
  if (rem < 0) {
    rem += per_day;
    --days;
  }
  *out = 0;
  if (days > INT32_MAX || days < INT32_MIN)
    return false;
  int64_t shifted = int64_t{AddMonthsToDate(static_cast<int32_t>(days), sign * iv.months)} +
                    sign * int64_t{iv.days};
  int64_t units = per_second >= 1000000000 ? iv.nanoseconds * (per_second / 1000000000)
                                           : iv.nanoseconds / (1000000000 / per_second);
  int64_t r = 0;
  if (__builtin_mul_overflow(shifted, per_day, &r) || __builtin_add_overflow(r, rem, &r) ||
      __builtin_add_overflow(r, sign * units, &r))
    return false;
  *out = r;
  return true;
}

}  // namespace shoal::exec

// Civil-calendar arithmetic on the proleptic Gregorian calendar: day numbers (days since
// 1970-01-01, Arrow's date32 and the day part of timestamps) to year / month / day and back, leap
// years and month lengths. The one home for these rules: SQL literals, casts, date functions, the
// TBL/CSV reader, the Parquet and TPC-H code and the pretty printer all use it (date_text.h holds
// the text forms on top of it). Years are astronomical: 0 is 1 BC, -1 is 2 BC.
//
// Howard Hinnant's algorithms (public domain), exact for every int64 year whose day number fits.
// Everything is constexpr so that compile-time tables (io/tpch/dates.cc) use the same rules.
#pragma once

#include <cstdint>

namespace shoal {

/// a / b rounded towards negative infinity (b != 0).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

constexpr bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/// 28..31; 0 for a month outside 1..12.
constexpr unsigned DaysInMonth(int64_t year, unsigned month) {
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12)
    return 0;
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

/// Whether year / month / day names a real day (month 1..12, day within the month).
constexpr bool IsValidCivil(int64_t year, int64_t month, int64_t day) {
  return month >= 1 && month <= 12 && day >= 1 &&
         day <= DaysInMonth(year, static_cast<unsigned>(month));
}

/// Days since 1970-01-01 of a civil date (month 1..12, day 1..31; not validated).
constexpr int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const int64_t era = FloorDiv(year, 400);
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct CivilDate {
  int64_t year = 1970;
  unsigned month = 1;
  unsigned day = 1;
};

/// The civil date of a day number.
constexpr CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  CivilDate out;
  out.day = doy - (153 * mp + 2) / 5 + 1;
  out.month = mp < 10 ? mp + 3 : mp - 9;
  out.year = y + (out.month <= 2);
  return out;
}

/// The same, into three outputs (the form most callers use).
constexpr void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  const CivilDate c = CivilFromDays(days);
  *year = c.year;
  *month = c.month;
  *day = c.day;
}

}  // namespace shoal

// The calendar of TPC-H data (clause 4.2.2.12): every date lies between 1992-01-01 and 1998-12-31.
// Dates are carried as days since 1970-01-01 (Arrow's date32), and printed from a table of the
// 2557 "YYYY-MM-DD" strings built at compile time.
#pragma once

#include <cstdint>

namespace shoal::io::tpch::dates {

inline constexpr int32_t kStartDate = 8035;  // 1992-01-01
inline constexpr int32_t kDayCount = 2557;   // through 1998-12-31
/// The spec's CURRENTDATE, 1995-06-17: lines shipped (received) by then are F (R/A), later O (N).
inline constexpr int32_t kCurrentDate = kStartDate + 1263;

/// The 10 characters "YYYY-MM-DD" of a date in [kStartDate, kStartDate + kDayCount); not
/// NUL-terminated.
const char* DateText(int32_t epoch_day);

}  // namespace shoal::io::tpch::dates

// Calendar arithmetic shared by the date/timestamp kernels and generate_series: adding months to
// a date (PostgreSQL's rule: the day clamped to the end of the new month) and an interval to a
// timestamp (months, then days, then the time part, as timestamp_pl_interval does).
#pragma once

#include <cstdint>

#include "shoal/columnar/data_type.h"

namespace shoal::exec {

/// `days` since the epoch plus `months`, the day of the month clamped to the new month's length.
int32_t AddMonthsToDate(int32_t days, int32_t months);

/// Units of a timestamp type per second (1 for seconds ... 10^9 for nanoseconds).
int64_t UnitsPerSecond(const columnar::DataType& timestamp);

/// Timestamp `t`, in units of 1/`per_second` s, plus `sign` times `iv`; false on overflow.
bool AddIntervalToTimestamp(int64_t t, columnar::MonthDayNano iv, int sign, int64_t per_second,
                            int64_t* out);

}  // namespace shoal::exec

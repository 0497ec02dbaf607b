// More of PostgreSQL's date/time functions: age(timestamp, timestamp) (the symbolic difference in
// years, months and days, borrowing as PostgreSQL's timestamp_age does), to_char(timestamp, text)
// with PostgreSQL's template patterns, and to_timestamp(double precision) (seconds since the
// epoch). Timestamps are microseconds since 1970-01-01 00:00:00 (UTC for the zoned type).
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "shoal/common/calendar.h"
#include "shoal/exec/expr/row_kernel.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

struct Fields {
  int64_t year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int micros = 0;
  int64_t days = 0;  // since the epoch
};

Fields Split(int64_t t) {
  Fields f;
  f.days = FloorDiv(t, kMicrosPerDay);
  int64_t rem = t - f.days * kMicrosPerDay;
  unsigned m = 0, d = 0;
  CivilFromDays(f.days, &f.year, &m, &d);
  f.month = static_cast<int>(m);
  f.day = static_cast<int>(d);
  f.hour = static_cast<int>(rem / 3600000000);
  rem %= 3600000000;
  f.minute = static_cast<int>(rem / 60000000);
  rem %= 60000000;
  f.second = static_cast<int>(rem / 1000000);
  f.micros = static_cast<int>(rem % 1000000);
  return f;
}

// age(a, b): a - b as years, months, days and time, PostgreSQL's timestamp_age: subtract field
// by field, then borrow from the next larger field (a day borrows the length of b's month).
columnar::MonthDayNano Age(int64_t a, int64_t b) {
  const bool negate = a < b;
  const Fields x = Split(negate ? b : a);
  const Fields y = Split(negate ? a : b);
  int64_t micros = (int64_t{x.hour} * 3600 + x.minute * 60 + x.second) * 1000000 + x.micros -
                   ((int64_t{y.hour} * 3600 + y.minute * 60 + y.second) * 1000000 + y.micros);
  int64_t day = x.day - y.day;
  int64_t month = x.month - y.month;
  int64_t year = x.year - y.year;
  if (micros < 0) {
    micros += kMicrosPerDay;
    --day;
  }
  while (day < 0) {
    // Borrow the days of the month before x's month (PostgreSQL: of y's month).
    day += DaysInMonth(y.year, static_cast<unsigned>(y.month));
    --month;
  }
  while (month < 0) {
    month += 12;
    --year;
  }
  columnar::MonthDayNano r{static_cast<int32_t>(year * 12 + month), static_cast<int32_t>(day),
                           micros * 1000};
  if (negate)
    r = {-r.months, -r.days, -r.nanoseconds};
  return r;
}

Result<KernelPtr> MakeAge(const KernelSignature& sig) {
  const DataType ts = DataType::Timestamp(columnar::TimeUnit::kMicro);
  if (sig.arg_types.size() == 1) {
    // age(t): from midnight today (UTC).
    const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    const int64_t midnight = FloorDiv(now_us, kMicrosPerDay) * kMicrosPerDay;
    return MakeFixedRowKernel<columnar::MonthDayNano>(
        sig, {ts}, DataType::Interval(),
        [midnight](const RowArgs& a, int64_t i, columnar::MonthDayNano* out) -> Status {
          *out = Age(midnight, a.Val<int64_t>(0, i));
          return Status::OK();
        });
  }
  return MakeFixedRowKernel<columnar::MonthDayNano>(
      sig, {ts, ts}, DataType::Interval(),
      [](const RowArgs& a, int64_t i, columnar::MonthDayNano* out) -> Status {
        *out = Age(a.Val<int64_t>(0, i), a.Val<int64_t>(1, i));
        return Status::OK();
      });
}

// ---- to_char ---------------------------------------------------------------------------------

constexpr std::array<const char*, 12> kMonths = {"January",   "February", "March",    "April",
                                                 "May",       "June",     "July",     "August",
                                                 "September", "October",  "November", "December"};
constexpr std::array<const char*, 7> kDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                              "Thursday", "Friday", "Saturday"};

enum class Case : uint8_t { kUpper, kCapital, kLower };

void AppendName(std::string_view name, Case c, bool abbreviate, bool fill, std::string* out) {
  std::string s(abbreviate ? name.substr(0, 3) : name);
  for (size_t k = 0; k < s.size(); ++k) {
    char& ch = s[k];
    if (c == Case::kUpper || (c == Case::kCapital && k == 0))
      ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
    else
      ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  }
  out->append(s);
  if (fill && !abbreviate)
    out->append(9 - s.size(), ' ');  // PostgreSQL pads full names to the longest, 9
}

void AppendNumber(int64_t v, int width, bool fill, std::string* out) {
  if (fill)
    fmt::format_to(std::back_inserter(*out), "{:0{}}", v, width);
  else
    fmt::format_to(std::back_inserter(*out), "{}", v);
}

/// ISO 8601 year and week of a day: weeks start on Monday and week 1 holds the year's first
/// Thursday.
std::pair<int64_t, int64_t> IsoYearWeek(int64_t days) {
  const int64_t iso_dow = ((days % 7) + 10) % 7 + 1;  // Monday 1 .. Sunday 7 (1970-01-01: 4)
  const int64_t thursday = days - iso_dow + 4;        // the Thursday of this ISO week
  int64_t year = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(thursday, &year, &m, &d);
  const int64_t week = (thursday - DaysFromCivil(year, 1, 1)) / 7 + 1;
  return {year, week};
}

bool StartsWith(std::string_view s, size_t i, std::string_view p) {
  return s.substr(i, p.size()) == p;
}

// One row of to_char(t, pattern): the template patterns PostgreSQL documents for dates and
// times, FM (no padding), quoted text and backslash escapes; other characters are copied.
void ToChar(int64_t t, std::string_view p, std::string* out) {
  const Fields f = Split(t);
  const int dow = static_cast<int>(((f.days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  const int64_t doy = f.days - DaysFromCivil(f.year, 1, 1) + 1;
  size_t i = 0;
  while (i < p.size()) {
    bool fill = true;
    if (StartsWith(p, i, "FM") || StartsWith(p, i, "fm")) {
      fill = false;
      i += 2;
    }
    auto take = [&](std::string_view token) {
      if (!StartsWith(p, i, token))
        return false;
      i += token.size();
      return true;
    };
    const int hour12 = f.hour % 12 == 0 ? 12 : f.hour % 12;
    if (take("IYYY") || take("iyyy")) {
      AppendNumber(IsoYearWeek(f.days).first, 4, fill, out);
    } else if (take("IW") || take("iw")) {
      AppendNumber(IsoYearWeek(f.days).second, 2, fill, out);
    } else if (take("ID") || take("id")) {
      AppendNumber(dow == 0 ? 7 : dow, 1, false, out);
    } else if (take("YYYY") || take("yyyy")) {
      AppendNumber(f.year > 0 ? f.year : 1 - f.year, 4, fill, out);
    } else if (take("YYY") || take("yyy")) {
      AppendNumber((f.year > 0 ? f.year : 1 - f.year) % 1000, 3, fill, out);
    } else if (take("YY") || take("yy")) {
      AppendNumber((f.year > 0 ? f.year : 1 - f.year) % 100, 2, fill, out);
    } else if (take("Y") || take("y")) {
      AppendNumber((f.year > 0 ? f.year : 1 - f.year) % 10, 1, fill, out);
    } else if (take("MONTH")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kUpper, false, fill, out);
    } else if (take("Month")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kCapital, false, fill, out);
    } else if (take("month")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kLower, false, fill, out);
    } else if (take("MON")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kUpper, true, fill, out);
    } else if (take("Mon")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kCapital, true, fill, out);
    } else if (take("mon")) {
      AppendName(kMonths[static_cast<size_t>(f.month - 1)], Case::kLower, true, fill, out);
    } else if (take("MM") || take("mm")) {
      AppendNumber(f.month, 2, fill, out);
    } else if (take("DAY")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kUpper, false, fill, out);
    } else if (take("Day")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kCapital, false, fill, out);
    } else if (take("day")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kLower, false, fill, out);
    } else if (take("DY")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kUpper, true, fill, out);
    } else if (take("Dy")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kCapital, true, fill, out);
    } else if (take("dy")) {
      AppendName(kDays[static_cast<size_t>(dow)], Case::kLower, true, fill, out);
    } else if (take("DDD") || take("ddd")) {
      AppendNumber(doy, 3, fill, out);
    } else if (take("DD") || take("dd")) {
      AppendNumber(f.day, 2, fill, out);
    } else if (take("D") || take("d")) {
      AppendNumber(dow + 1, 1, fill, out);
    } else if (take("HH24") || take("hh24")) {
      AppendNumber(f.hour, 2, fill, out);
    } else if (take("HH12") || take("hh12") || take("HH") || take("hh")) {
      AppendNumber(hour12, 2, fill, out);
    } else if (take("MI") || take("mi")) {
      AppendNumber(f.minute, 2, fill, out);
    } else if (take("SSSSS") || take("sssss")) {
      AppendNumber(int64_t{f.hour} * 3600 + f.minute * 60 + f.second, 1, false, out);
    } else if (take("SS") || take("ss")) {
      AppendNumber(f.second, 2, fill, out);
    } else if (take("MS") || take("ms")) {
      AppendNumber(f.micros / 1000, 3, fill, out);
    } else if (take("US") || take("us")) {
      AppendNumber(f.micros, 6, fill, out);
    } else if (take("AM") || take("PM")) {
      out->append(f.hour < 12 ? "AM" : "PM");
    } else if (take("am") || take("pm")) {
      out->append(f.hour < 12 ? "am" : "pm");
    } else if (take("A.M.") || take("P.M.")) {
      out->append(f.hour < 12 ? "A.M." : "P.M.");
    } else if (take("a.m.") || take("p.m.")) {
      out->append(f.hour < 12 ? "a.m." : "p.m.");
    } else if (take("Q") || take("q")) {
      AppendNumber((f.month - 1) / 3 + 1, 1, false, out);
    } else if (take("WW") || take("ww")) {
      AppendNumber((doy - 1) / 7 + 1, 2, fill, out);
    } else if (take("W") || take("w")) {
      AppendNumber((f.day - 1) / 7 + 1, 1, false, out);
    } else if (take("J") || take("j")) {
      AppendNumber(f.days + 2440588, 1, false, out);  // Julian day of 1970-01-01 is 2440588
    } else if (p[i] == '"') {
      ++i;
      while (i < p.size() && p[i] != '"') {
        if (p[i] == '\\' && i + 1 < p.size())
          ++i;
        out->push_back(p[i++]);
      }
      ++i;
    } else if (p[i] == '\\' && i + 1 < p.size()) {
      out->push_back(p[i + 1]);
      i += 2;
    } else {
      out->push_back(p[i++]);
    }
  }
}

Result<KernelPtr> MakeToChar(const KernelSignature& sig) {
  if (sig.arg_types.size() != 2 || sig.arg_types[0].id() != TypeId::kTimestamp)
    return Status::NotImplemented("to_char({}) is not supported", TypeListText(sig.arg_types));
  return MakeTextRowKernel(sig, {sig.arg_types[0], DataType::Utf8()},
                           [](const RowArgs& a, int64_t i, std::string* out) -> Status {
                             ToChar(a.Val<int64_t>(0, i), a.Str(1, i), out);
                             return Status::OK();
                           });
}

// to_timestamp(seconds since the epoch), a timestamp with time zone.
Result<KernelPtr> MakeToTimestamp(const KernelSignature& sig) {
  return MakeFixedRowKernel<int64_t>(
      sig, {DataType::Float64()}, sig.result_type,
      [](const RowArgs& a, int64_t i, int64_t* out) -> Status {
        const double s = a.Val<double>(0, i);
        const double us = std::nearbyint(s * 1e6);
        if (!std::isfinite(us) || us >= 9.2e18 || us <= -9.2e18)
          return Status::OutOfRange("timestamp out of range: \"{}\"", s).WithSqlState("22008");
        *out = static_cast<int64_t>(us);
        return Status::OK();
      });
}

}  // namespace

void RegisterDatetimeFunctionKernels(KernelRegistry* registry) {
  registry->Register("age", &MakeAge);
  registry->Register("to_char", &MakeToChar);
  registry->Register("to_timestamp", &MakeToTimestamp);
}

}  // namespace shoal::exec

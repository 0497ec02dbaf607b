#include "shoal/common/date_text.h"

#include <cstdlib>

#include "shoal/common/calendar.h"
#include "shoal/common/text.h"

namespace shoal {
namespace {

// PostgreSQL's limits: Julian day 0 (4714-11-24 BC, astronomical -4713) is the first day of both
// types; dates end with 5874897-12-31, timestamps with 294276-12-31.
constexpr int64_t kFirstDay = DaysFromCivil(-4713, 11, 24);
constexpr int64_t kLastDate = DaysFromCivil(5874897, 12, 31);
constexpr int64_t kLastTimestampDay = DaysFromCivil(294276, 12, 31);

// kFieldRange: a field is out of its range (month 13, February 30, minute 60): PostgreSQL's
// "date/time field value out of range". kRange: a valid date beyond the type's range.
enum class Failure : uint8_t { kNone, kSyntax, kFieldRange, kRange };

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Reads a run of 1..max_digits digits at *pos.
bool Number(std::string_view s, size_t* pos, size_t max_digits, int64_t* value, size_t* digits) {
  size_t i = *pos;
  int64_t v = 0;
  while (i < s.size() && IsDigit(s[i]) && i - *pos < max_digits + 1) {
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  const size_t n = i - *pos;
  if (n == 0 || n > max_digits)
    return false;
  *value = v;
  *digits = n;
  *pos = i;
  return true;
}

int64_t TwoDigitYear(int64_t year) {
  return year + (year < 70 ? 2000 : 1900);
}

// The date at the start of `s` (after blanks), leaving *pos after it. The year is as written
// (the era is applied by the caller); `short_year` says it had one or two digits.
Failure ParseDatePart(std::string_view s, size_t* pos, int64_t* year, int64_t* month, int64_t* day,
                      bool* short_year) {
  size_t i = *pos;
  int64_t a = 0;
  size_t a_digits = 0;
  if (!Number(s, &i, 8, &a, &a_digits))
    return Failure::kSyntax;
  if (i < s.size() && (s[i] == '-' || s[i] == '/')) {
    const char sep = s[i++];
    int64_t b = 0, c = 0;
    size_t b_digits = 0, c_digits = 0;
    if (a_digits > 7 || !Number(s, &i, 2, &b, &b_digits) || i >= s.size() || s[i] != sep)
      return Failure::kSyntax;
    ++i;
    if (!Number(s, &i, a_digits >= 3 ? 2 : 7, &c, &c_digits))
      return Failure::kSyntax;
    if (a_digits >= 3) {
      *year = a, *month = b, *day = c;
      *short_year = false;
    } else {
      *month = a, *day = b, *year = c;
      *short_year = c_digits <= 2;
    }
  } else if (a_digits == 8) {
    *year = a / 10000, *month = a / 100 % 100, *day = a % 100;
    *short_year = false;
  } else if (a_digits == 6) {
    *year = a / 10000, *month = a / 100 % 100, *day = a % 100;
    *short_year = true;
  } else {
    return Failure::kSyntax;
  }
  *pos = i;
  return Failure::kNone;
}

void SkipBlanks(std::string_view s, size_t* pos) {
  while (*pos < s.size() && IsBlank(s[*pos]))
    ++*pos;
}

// The letters at *pos (a word such as BC, UTC).
std::string_view Word(std::string_view s, size_t pos) {
  size_t end = pos;
  while (end < s.size() && ((s[end] >= 'a' && s[end] <= 'z') || (s[end] >= 'A' && s[end] <= 'Z')))
    ++end;
  return s.substr(pos, end - pos);
}

// An optional " BC" / " AD" at *pos; sets *bc.
void ParseEra(std::string_view s, size_t* pos, bool* bc) {
  size_t i = *pos;
  SkipBlanks(s, &i);
  std::string_view w = Word(s, i);
  if (EqualsIgnoreCase(w, "bc") || EqualsIgnoreCase(w, "ad")) {
    *bc = EqualsIgnoreCase(w, "bc");
    *pos = i + w.size();
  }
}

// The astronomical year of a written year, or false for year 0 (which does not exist).
bool AstronomicalYear(int64_t written, bool short_year, bool bc, int64_t* year) {
  if (written == 0)
    return false;
  if (bc) {
    *year = 1 - written;
  } else {
    *year = short_year ? TwoDigitYear(written) : written;
  }
  return true;
}

// Days of a validated date; kRange when the fields do not name a day or it is out of `last`.
Failure DayNumber(int64_t written_year, int64_t month, int64_t day, bool short_year, bool bc,
                  int64_t last_day, int64_t* days) {
  int64_t year = 0;
  if (!AstronomicalYear(written_year, short_year, bc, &year) || !IsValidCivil(year, month, day))
    return Failure::kFieldRange;
  if (year < -4713 || year > 5874897)
    return Failure::kRange;
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return *days < kFirstDay || *days > last_day ? Failure::kRange : Failure::kNone;
}

Status Error(Failure failure, const char* type, std::string_view text) {
  if (failure == Failure::kFieldRange) {
    // Bad input rather than a value beyond a type's range: InvalidArgument, with PostgreSQL's
    // SQLSTATE for it.
    return Status::InvalidArgument("date/time field value out of range: \"{}\"", text)
        .WithSqlState("22008");
  }
  if (failure == Failure::kRange) {
    return Status::OutOfRange("{} out of range: \"{}\"",
                              std::string_view(type).substr(0, std::string_view(type).find(' ')),
                              text)
        .WithSqlState("22008");
  }
  return Status::InvalidArgument("invalid input syntax for type {}: \"{}\"", type, text)
      .WithSqlState("22007");
}

// "Z", "UTC", "GMT", "+HH", "+HH:MM", "+HHMM" at *pos, as seconds east of UTC.
bool ParseZone(std::string_view s, size_t* pos, int64_t* offset_seconds) {
  size_t i = *pos;
  std::string_view w = Word(s, i);
  if (EqualsIgnoreCase(w, "z") || EqualsIgnoreCase(w, "utc") || EqualsIgnoreCase(w, "gmt")) {
    *offset_seconds = 0;
    *pos = i + w.size();
    return true;
  }
  if (i >= s.size() || (s[i] != '+' && s[i] != '-'))
    return false;
  const int64_t sign = s[i] == '-' ? -1 : 1;
  ++i;
  int64_t h = 0, m = 0;
  size_t digits = 0;
  if (!Number(s, &i, 4, &h, &digits))
    return false;
  if (digits == 4) {
    m = h % 100;
    h /= 100;
  } else if (digits > 2) {
    return false;
  } else if (i < s.size() && s[i] == ':') {
    ++i;
    if (!Number(s, &i, 2, &m, &digits) || digits != 2)
      return false;
  }
  if (h > 15 || m > 59)
    return false;
  *offset_seconds = sign * (h * 3600 + m * 60);
  *pos = i;
  return true;
}

// The fraction digits after a '.' as units of 10^-fraction_digits, rounded half to even (on the
// last kept digit, or on the whole seconds `seconds` when no digit is kept); *carry is 1 when the
// rounding reaches the next second.
int64_t RoundFraction(std::string_view digits, int fraction_digits, int64_t seconds,
                      int64_t* carry) {
  int64_t kept = 0;
  for (int k = 0; k < fraction_digits; ++k)
    kept = kept * 10 +
           (static_cast<size_t>(k) < digits.size() ? digits[static_cast<size_t>(k)] - '0' : 0);
  *carry = 0;
  if (digits.size() > static_cast<size_t>(fraction_digits)) {
    std::string_view rest = digits.substr(static_cast<size_t>(fraction_digits));
    const bool above_half = rest[0] > '5' || (rest[0] == '5' && rest.find_first_not_of('0', 1) !=
                                                                    std::string_view::npos);
    const bool half = rest[0] == '5' && !above_half;
    const bool odd = fraction_digits > 0 ? kept % 2 == 1 : seconds % 2 == 1;
    if (above_half || (half && odd))
      ++kept;
    int64_t unit = 1;
    for (int k = 0; k < fraction_digits; ++k)
      unit *= 10;
    if (kept == unit) {
      kept = 0;
      *carry = 1;
    }
  }
  return kept;
}

// Writes `v` (>= 0) with at least `width` digits, zero-padded, at `p`; returns the end. Digits
// by hand rather than through fmt: these run once per value of every date and time column a
// result or COPY sends.
char* PutPadded(char* p, int64_t v, int width) {
  char digits[20];
  int n = 0;
  auto u = static_cast<uint64_t>(v);
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  for (int i = n; i < width; ++i)
    *p++ = '0';
  while (n > 0)
    *p++ = digits[--n];
  return p;
}

void AppendSeconds(int64_t micros, std::string* out) {
  char buf[32];
  char* p = PutPadded(buf, micros / 1000000, 2);
  int64_t frac = micros % 1000000;
  if (frac != 0) {
    *p++ = '.';
    int width = 6;
    while (frac % 10 == 0) {
      frac /= 10;
      --width;
    }
    p = PutPadded(p, frac, width);
  }
  out->append(buf, static_cast<size_t>(p - buf));
}

// "YYYY-MM-DD"; true when the year is before 1 (the caller appends " BC").
bool AppendDateFields(int64_t days, std::string* out) {
  const CivilDate c = CivilFromDays(days);
  const bool bc = c.year <= 0;
  char buf[40];
  char* p = PutPadded(buf, bc ? 1 - c.year : c.year, 4);
  *p++ = '-';
  p = PutPadded(p, c.month, 2);
  *p++ = '-';
  p = PutPadded(p, c.day, 2);
  out->append(buf, static_cast<size_t>(p - buf));
  return bc;
}

}  // namespace

Result<int32_t> ParseDate(std::string_view text) {
  const std::string_view s = Trim(text);
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0;
  bool short_year = false, bc = false;
  Failure f = ParseDatePart(s, &pos, &year, &month, &day, &short_year);
  if (f == Failure::kNone) {
    ParseEra(s, &pos, &bc);
    if (pos != s.size()) {
      // A time of day (and zone) after the date, as in '2024-01-01 10:00': PostgreSQL's date
      // input checks it and keeps only the date fields.
      Result<int64_t> timestamp = ParseTimestamp(s, 6, /*zoned=*/false);
      if (!timestamp.ok())
        return Error(Failure::kSyntax, "date", text);
      // The era comes after the time; of the two readings of the date fields, the timestamp's
      // day (which a rounded-up fraction may have moved by one) tells which one it was.
      const int64_t timestamp_day = FloorDiv(*timestamp, int64_t{86400} * 1000000);
      int64_t ad = 0;
      bc = DayNumber(year, month, day, short_year, false, kLastDate, &ad) != Failure::kNone ||
           std::abs(ad - timestamp_day) > 1;
    }
  }
  int64_t days = 0;
  if (f == Failure::kNone)
    f = DayNumber(year, month, day, short_year, bc, kLastDate, &days);
  if (f != Failure::kNone)
    return Error(f, "date", text);
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimestamp(std::string_view text, int fraction_digits, bool zoned) {
  const char* type = zoned ? "timestamp with time zone" : "timestamp";
  const std::string_view s = Trim(text);
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0;
  bool short_year = false, bc = false;
  if (ParseDatePart(s, &pos, &year, &month, &day, &short_year) != Failure::kNone)
    return Error(Failure::kSyntax, type, text);
  int64_t h = 0, mi = 0, sec = 0, frac = 0, carry = 0, zone = 0;
  size_t digits = 0;
  size_t i = pos;
  if (i < s.size() && (s[i] == 'T' || s[i] == 't')) {
    ++i;
  } else {
    SkipBlanks(s, &i);
  }
  if (i < s.size() && IsDigit(s[i])) {
    if (!Number(s, &i, 2, &h, &digits) || i >= s.size() || s[i] != ':')
      return Error(Failure::kSyntax, type, text);
    ++i;
    if (!Number(s, &i, 2, &mi, &digits))
      return Error(Failure::kSyntax, type, text);
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!Number(s, &i, 2, &sec, &digits))
        return Error(Failure::kSyntax, type, text);
      if (i < s.size() && s[i] == '.') {
        const size_t start = ++i;
        while (i < s.size() && IsDigit(s[i]))
          ++i;
        if (i == start)
          return Error(Failure::kSyntax, type, text);
        frac = RoundFraction(s.substr(start, i - start), fraction_digits, sec, &carry);
      }
    }
    // 24:00:00 is the end of the day, as in PostgreSQL; a second of 60 rolls into the minute.
    if (h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi != 0 || sec != 0 || frac != 0)))
      return Error(Failure::kFieldRange, type, text);
    pos = i;
    size_t z = pos;
    SkipBlanks(s, &z);
    if (ParseZone(s, &z, &zone))
      pos = z;
  }
  ParseEra(s, &pos, &bc);
  if (pos != s.size())
    return Error(Failure::kSyntax, type, text);
  int64_t days = 0;
  if (Failure f = DayNumber(year, month, day, short_year, bc, kLastTimestampDay, &days);
      f != Failure::kNone)
    return Error(f, type, text);
  int64_t unit = 1;
  for (int k = 0; k < fraction_digits; ++k)
    unit *= 10;
  const int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec + carry - (zoned ? zone : 0);
  int64_t value = 0;
  if (__builtin_mul_overflow(seconds, unit, &value) || __builtin_add_overflow(value, frac, &value))
    return Error(Failure::kRange, type, text);
  return value;
}

void AppendDate(int64_t days, std::string* out) {
  if (AppendDateFields(days, out))
    out->append(" BC");
}

std::string FormatDate(int64_t days) {
  std::string out;
  AppendDate(days, &out);
  return out;
}

void AppendTimeOfDay(int64_t micros, std::string* out) {
  const int64_t minutes = micros / 60000000;
  char buf[32];
  char* p = PutPadded(buf, minutes / 60, 2);
  *p++ = ':';
  p = PutPadded(p, minutes % 60, 2);
  *p++ = ':';
  out->append(buf, static_cast<size_t>(p - buf));
  AppendSeconds(micros % 60000000, out);
}

void AppendTimestamp(int64_t days, int64_t micros_of_day, bool zoned, std::string* out) {
  const bool bc = AppendDateFields(days, out);
  out->push_back(' ');
  AppendTimeOfDay(micros_of_day, out);
  if (zoned)
    out->append("+00");
  if (bc)
    out->append(" BC");
}

}  // namespace shoal

#include "shoal/sql/literal_parsing.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace shoal::sql {

using columnar::DataType;
using columnar::int128_t;
using columnar::MonthDayNano;
using columnar::Scalar;
using columnar::TypeId;

// Howard Hinnant's civil-calendar algorithms.
int32_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int32_t>(era * 146097 + static_cast<int64_t>(doe) - 719468);
}

void CivilFromDays(int64_t z, int64_t* year, unsigned* month, unsigned* day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (*month <= 2);
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool ParseUnsigned(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18)
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<int32_t> ParseDate(std::string_view text) {
  std::string_view s = Trim(text);
  size_t d1 = s.find('-', 1);
  size_t d2 = d1 == std::string_view::npos ? d1 : s.find('-', d1 + 1);
  int64_t y = 0, m = 0, d = 0;
  if (d2 == std::string_view::npos || !ParseUnsigned(s.substr(0, d1), &y) ||
      !ParseUnsigned(s.substr(d1 + 1, d2 - d1 - 1), &m) || !ParseUnsigned(s.substr(d2 + 1), &d) ||
      m < 1 || m > 12 || d < 1 || y > 294276 || d > DaysInMonth(y, static_cast<unsigned>(m))) {
    return Status::InvalidArgument("invalid input syntax for type date: \"{}\"", text)
        .WithSqlState("22007");
  }
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

Result<int64_t> ParseTimestampMicros(std::string_view text) {
  std::string_view s = Trim(text);
  size_t split = s.find_first_of(" T");
  auto bad = [&] {
    return Status::InvalidArgument("invalid input syntax for type timestamp: \"{}\"", text)
        .WithSqlState("22007");
  };
  auto date = ParseDate(s.substr(0, split));
  if (!date.ok())
    return bad();
  int64_t micros = static_cast<int64_t>(*date) * 86400LL * 1000000LL;
  if (split == std::string_view::npos)
    return micros;
  std::string_view t = Trim(s.substr(split + 1));
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  size_t c1 = t.find(':');
  if (c1 == std::string_view::npos || !ParseUnsigned(t.substr(0, c1), &h))
    return bad();
  std::string_view rest = t.substr(c1 + 1);
  size_t c2 = rest.find(':');
  if (!ParseUnsigned(rest.substr(0, c2), &mi))
    return bad();
  if (c2 != std::string_view::npos) {
    std::string_view secs = rest.substr(c2 + 1);
    size_t dot = secs.find('.');
    if (!ParseUnsigned(secs.substr(0, dot), &sec))
      return bad();
    if (dot != std::string_view::npos) {
      std::string digits(secs.substr(dot + 1));
      if (digits.size() > 6)
        digits.resize(6);
      while (digits.size() < 6)
        digits += '0';
      if (!ParseUnsigned(digits, &frac))
        return bad();
    }
  }
  if (h > 23 || mi > 59 || sec > 60)
    return bad();
  return micros + ((h * 60 + mi) * 60 + sec) * 1000000LL + frac;
}

Result<MonthDayNano> ParseInterval(std::string_view text, std::string_view default_unit) {
  std::string_view s = Trim(text);
  MonthDayNano out{0, 0, 0};
  auto bad = [&] {
    return Status::InvalidArgument("invalid input syntax for type interval: \"{}\"", text)
        .WithSqlState("22007");
  };
  if (s.empty())
    return bad();
  double months = 0, days = 0, nanos = 0;
  while (!s.empty()) {
    // number
    size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+'))
      ++i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
      ++i;
    std::string number(s.substr(0, i));
    if (number.empty() || number == "-" || number == "+")
      return bad();
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size())
      return bad();
    s = Trim(s.substr(i));
    size_t j = 0;
    while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j])))
      ++j;
    std::string unit = j == 0 ? std::string(default_unit) : Lower(s.substr(0, j));
    s = Trim(s.substr(j));
    if (!unit.empty() && unit.back() == 's' && unit != "s")
      unit.pop_back();
    if (unit == "year" || unit == "y" || unit == "yr") {
      months += value * 12;
    } else if (unit == "month" || unit == "mon") {
      months += value;
    } else if (unit == "week" || unit == "w") {
      days += value * 7;
    } else if (unit == "day" || unit == "d") {
      days += value;
    } else if (unit == "hour" || unit == "h" || unit == "hr") {
      nanos += value * 3600e9;
    } else if (unit == "minute" || unit == "min" || unit == "m") {
      nanos += value * 60e9;
    } else if (unit == "second" || unit == "sec" || unit == "s") {
      nanos += value * 1e9;
    } else if (unit == "millisecond" || unit == "ms") {
      nanos += value * 1e6;
    } else {
      return bad();
    }
  }
  if (std::abs(months) > 2e9 || std::abs(days) > 2e9 || std::abs(nanos) > 9e18)
    return Status::OutOfRange("interval out of range: \"{}\"", text).WithSqlState("22008");
  // Fractional months and days spill into the smaller units, as in PostgreSQL.
  double whole_months = std::trunc(months);
  days += (months - whole_months) * 30;
  double whole_days = std::trunc(days);
  nanos += (days - whole_days) * 86400e9;
  out.months = static_cast<int32_t>(whole_months);
  out.days = static_cast<int32_t>(whole_days);
  out.nanoseconds = static_cast<int64_t>(std::llround(nanos));
  return out;
}

Result<Scalar> ParseNumericLiteral(std::string_view text) {
  std::string_view s = Trim(text);
  bool has_exp = s.find_first_of("eE") != std::string_view::npos;
  size_t dot = s.find('.');
  if (!has_exp && dot == std::string_view::npos) {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size()) {
      if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
        return Scalar::Int32(static_cast<int32_t>(v));
      return Scalar::Int64(v);
    }
  }
  if (!has_exp) {
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+'))
      digits.remove_prefix(1);
    size_t int_digits = dot == std::string_view::npos ? digits.size() : digits.find('.');
    std::string_view int_part = digits.substr(0, int_digits);
    while (!int_part.empty() && int_part.front() == '0')
      int_part.remove_prefix(1);
    int scale =
        dot == std::string_view::npos ? 0 : static_cast<int>(digits.size() - digits.find('.') - 1);
    int precision = std::max(static_cast<int>(int_part.size()) + scale, 1);
    if (precision <= DataType::kMaxDecimalPrecision) {
      auto unscaled = columnar::ParseDecimal(s, precision, scale);
      if (unscaled.ok())
        return Scalar::Decimal(*unscaled, precision, scale);
    }
  }
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size())
    return Status::InvalidArgument("invalid numeric literal \"{}\"", text).WithSqlState("22P02");
  return Scalar::Float64(v);
}

Result<Scalar> CastTextToType(std::string_view text, const DataType& type) {
  std::string_view s = Trim(text);
  auto bad = [&](const char* name) {
    return Status::InvalidArgument("invalid input syntax for type {}: \"{}\"", name, text)
        .WithSqlState("22P02");
  };
  switch (type.id()) {
    case TypeId::kUtf8: return Scalar::Utf8(std::string(text));
    case TypeId::kBinary: return Scalar::Binary(std::string(text));
    case TypeId::kBoolean: {
      std::string l = Lower(s);
      if (l == "t" || l == "true" || l == "yes" || l == "y" || l == "on" || l == "1")
        return Scalar::Boolean(true);
      if (l == "f" || l == "false" || l == "no" || l == "n" || l == "off" || l == "0")
        return Scalar::Boolean(false);
      return bad("boolean");
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64: {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || ptr != s.data() + s.size() || s.empty())
        return bad(columnar::TypeIdName(type.id()));
      return CastScalar(Scalar::Int64(v), type);
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      std::string copy(s);
      char* end = nullptr;
      double v = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size())
        return bad("double precision");
      return Scalar::FromFloat(type, v);
    }
    case TypeId::kDecimal: {
      auto unscaled = columnar::ParseDecimal(s, type.precision(), type.scale());
      if (!unscaled.ok())
        return bad("numeric");
      return Scalar::Decimal(*unscaled, type.precision(), type.scale());
    }
    case TypeId::kDate32: {
      SHOAL_ASSIGN_OR_RETURN(int32_t days, ParseDate(s));
      return Scalar::Date32(days);
    }
    case TypeId::kTimestamp: {
      SHOAL_ASSIGN_OR_RETURN(int64_t micros, ParseTimestampMicros(s));
      return Scalar::Timestamp(micros, columnar::TimeUnit::kMicro, type.timezone());
    }
    case TypeId::kInterval: {
      SHOAL_ASSIGN_OR_RETURN(MonthDayNano v, ParseInterval(s));
      return Scalar::Interval(v);
    }
    default: break;
  }
  return Status::NotImplemented("cannot convert text to {}", type.ToString());
}

namespace {

bool FitsInteger(int128_t v, TypeId id) {
  switch (id) {
    case TypeId::kInt8: return v >= INT8_MIN && v <= INT8_MAX;
    case TypeId::kInt16: return v >= INT16_MIN && v <= INT16_MAX;
    case TypeId::kInt32: return v >= INT32_MIN && v <= INT32_MAX;
    case TypeId::kInt64: return v >= INT64_MIN && v <= INT64_MAX;
    case TypeId::kUInt8: return v >= 0 && v <= UINT8_MAX;
    case TypeId::kUInt16: return v >= 0 && v <= UINT16_MAX;
    case TypeId::kUInt32: return v >= 0 && v <= UINT32_MAX;
    case TypeId::kUInt64: return v >= 0 && v <= INT64_MAX;
    default: return false;
  }
}

int128_t RoundDiv(int128_t v, int128_t d) {
  int128_t q = v / d;
  int128_t r = v % d;
  if (r * 2 >= d)
    ++q;
  else if (r * 2 <= -d)
    --q;
  return q;
}

}  // namespace

Result<Scalar> CastScalar(const Scalar& value, const DataType& type) {
  if (value.type() == type)
    return value;
  if (value.is_null())
    return Scalar(type);
  const DataType& from = value.type();
  auto out_of_range = [&] {
    return Status::OutOfRange("{} out of range for type {}", value.ToString(), type.ToString());
  };
  if (type.id() == TypeId::kUtf8) {
    if (from.id() == TypeId::kBinary)
      return Scalar::Utf8(value.string_value());
    return Scalar::Utf8(value.ToString());
  }
  if (from.id() == TypeId::kUtf8)
    return CastTextToType(value.string_value(), type);
  if (from.is_integer() || from.id() == TypeId::kBoolean) {
    int128_t v = value.int_value();
    if (type.is_integer()) {
      if (!FitsInteger(v, type.id()))
        return out_of_range();
      return Scalar::FromInt(type, static_cast<int64_t>(v));
    }
    if (type.id() == TypeId::kFloat64 || type.id() == TypeId::kFloat32)
      return Scalar::FromFloat(type, static_cast<double>(v));
    if (type.id() == TypeId::kDecimal) {
      int128_t unscaled = v * columnar::PowerOfTen(type.scale());
      if (unscaled > columnar::MaxUnscaled(type.precision()) ||
          -unscaled > columnar::MaxUnscaled(type.precision()))
        return out_of_range();
      return Scalar::Decimal(unscaled, type.precision(), type.scale());
    }
    if (type.id() == TypeId::kBoolean && from.is_integer())
      return Scalar::Boolean(v != 0);
  }
  if (from.id() == TypeId::kDecimal) {
    int128_t v = value.decimal_value();
    if (type.id() == TypeId::kDecimal) {
      int128_t unscaled = type.scale() >= from.scale()
                              ? v * columnar::PowerOfTen(type.scale() - from.scale())
                              : RoundDiv(v, columnar::PowerOfTen(from.scale() - type.scale()));
      if (unscaled > columnar::MaxUnscaled(type.precision()) ||
          -unscaled > columnar::MaxUnscaled(type.precision()))
        return out_of_range();
      return Scalar::Decimal(unscaled, type.precision(), type.scale());
    }
    if (type.id() == TypeId::kFloat64 || type.id() == TypeId::kFloat32)
      return Scalar::FromFloat(
          type, static_cast<double>(v) / static_cast<double>(columnar::PowerOfTen(from.scale())));
    if (type.is_integer()) {
      int128_t rounded = RoundDiv(v, columnar::PowerOfTen(from.scale()));
      if (!FitsInteger(rounded, type.id()))
        return out_of_range();
      return Scalar::FromInt(type, static_cast<int64_t>(rounded));
    }
  }
  if (from.id() == TypeId::kFloat64 || from.id() == TypeId::kFloat32) {
    double v = value.float_value();
    if (type.id() == TypeId::kFloat64 || type.id() == TypeId::kFloat32)
      return Scalar::FromFloat(type, v);
    if (type.is_integer()) {
      double r = std::nearbyint(v);
      if (!(r >= -9.2e18 && r <= 9.2e18) || !FitsInteger(static_cast<int128_t>(r), type.id()))
        return out_of_range();
      return Scalar::FromInt(type, static_cast<int64_t>(r));
    }
    if (type.id() == TypeId::kDecimal) {
      double scaled = std::nearbyint(v * std::pow(10.0, type.scale()));
      if (!(std::abs(scaled) < 1e37) ||
          std::abs(scaled) > static_cast<double>(columnar::MaxUnscaled(type.precision())))
        return out_of_range();
      return Scalar::Decimal(static_cast<int128_t>(scaled), type.precision(), type.scale());
    }
  }
  if (from.id() == TypeId::kDate32 && type.id() == TypeId::kTimestamp &&
      type.unit() == columnar::TimeUnit::kMicro)
    return Scalar::Timestamp(value.int_value() * 86400LL * 1000000LL, type.unit(), type.timezone());
  if (from.id() == TypeId::kTimestamp && type.id() == TypeId::kDate32 &&
      from.unit() == columnar::TimeUnit::kMicro) {
    int64_t micros = value.int_value();
    int64_t days = micros / 86400000000LL;
    if (micros % 86400000000LL < 0)
      --days;
    return Scalar::Date32(static_cast<int32_t>(days));
  }
  return Status::NotImplemented("constant conversion from {} to {}", from.ToString(),
                                type.ToString());
}

std::string LiteralToSql(const Scalar& value) {
  if (value.is_null())
    return "NULL";
  switch (value.type().id()) {
    case TypeId::kUtf8: {
      std::string out = "'";
      for (char c : value.string_value()) {
        if (c == '\'')
          out += '\'';
        out += c;
      }
      return out + "'";
    }
    case TypeId::kDate32: {
      int64_t y = 0;
      unsigned m = 0, d = 0;
      CivilFromDays(value.int_value(), &y, &m, &d);
      return fmt::format("DATE '{:04d}-{:02d}-{:02d}'", y, m, d);
    }
    case TypeId::kTimestamp: return "TIMESTAMP '" + value.ToString() + "'";
    case TypeId::kInterval: {
      MonthDayNano v = value.interval_value();
      std::string out;
      auto add = [&](int64_t n, const char* unit) {
        if (n == 0)
          return;
        if (!out.empty())
          out += ' ';
        out += fmt::format("{} {}{}", n, unit, n == 1 || n == -1 ? "" : "s");
      };
      add(v.months / 12, "year");
      add(v.months % 12, "month");
      add(v.days, "day");
      if (v.nanoseconds % 1000000000 == 0) {
        add(v.nanoseconds / 1000000000, "second");
      } else {
        if (!out.empty())
          out += ' ';
        out += fmt::format("{} seconds", static_cast<double>(v.nanoseconds) / 1e9);
      }
      return "INTERVAL '" + (out.empty() ? std::string("0 seconds") : out) + "'";
    }
    case TypeId::kDecimal:
      return columnar::FormatDecimal(value.decimal_value(), value.type().scale());
    case TypeId::kBoolean: return value.bool_value() ? "true" : "false";
    default: return value.ToString();
  }
}

}  // namespace shoal::sql

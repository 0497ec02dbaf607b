#include "shoal/sql/literal_parsing.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "shoal/common/text.h"

namespace shoal::sql {

using columnar::DataType;
using columnar::int128_t;
using columnar::MonthDayNano;
using columnar::Scalar;
using columnar::TypeId;

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
    std::string unit = j == 0 ? std::string(default_unit) : AsciiLower(s.substr(0, j));
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
      std::string l = AsciiLower(s);
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
      SHOAL_ASSIGN_OR_RETURN(int64_t micros, ParseTimestamp(s, 6, !type.timezone().empty()));
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
      auto unscaled = columnar::DecimalFromDouble(v, type.precision(), type.scale());
      if (!unscaled.ok())
        return out_of_range();
      return Scalar::Decimal(*unscaled, type.precision(), type.scale());
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
    case TypeId::kDate32: return "DATE '" + FormatDate(value.int_value()) + "'";
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

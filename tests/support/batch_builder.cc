#include "tests/support/batch_builder.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "shoal/columnar/decimal.h"
#include "shoal/columnar/pretty_print.h"

namespace shoal::testing {

using columnar::Array;
using columnar::ArrayBuilder;
using columnar::MonthDayNano;
using columnar::RecordBatch;
using columnar::Schema;
using columnar::TimeUnit;
using columnar::TypeId;

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y)
      return false;
  }
  return true;
}

bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix)
    return false;
  s->remove_prefix(prefix.size());
  return true;
}

// Reads exactly `min_digits`..`max_digits` decimal digits.
bool ConsumeDigits(std::string_view* s, int min_digits, int max_digits, int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (n < max_digits && n < static_cast<int>(s->size()) && (*s)[static_cast<size_t>(n)] >= '0' &&
         (*s)[static_cast<size_t>(n)] <= '9') {
    v = v * 10 + ((*s)[static_cast<size_t>(n)] - '0');
    ++n;
  }
  if (n < min_digits)
    return false;
  s->remove_prefix(static_cast<size_t>(n));
  *out = v;
  return true;
}

template <typename T>
Result<T> ParseInteger(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  Wide v{};
  if (std::is_unsigned_v<T> && !s.empty() && s.front() == '-')
    return Status::OutOfRange("\"{}\" is negative", text);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    return Status::OutOfRange("\"{}\" is out of range", text);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return Status::InvalidArgument("\"{}\" is not an integer", text);
  if (v < static_cast<Wide>(std::numeric_limits<T>::min()) ||
      v > static_cast<Wide>(std::numeric_limits<T>::max())) {
    return Status::OutOfRange("\"{}\" is out of range", text);
  }
  return static_cast<T>(v);
}

template <typename T>
Result<T> ParseFloat(std::string_view text) {
  if (text == "NaN" || EqualsIgnoreCase(text, "nan"))
    return std::numeric_limits<T>::quiet_NaN();
  if (EqualsIgnoreCase(text, "Infinity") || EqualsIgnoreCase(text, "inf") ||
      EqualsIgnoreCase(text, "+Infinity")) {
    return std::numeric_limits<T>::infinity();
  }
  if (EqualsIgnoreCase(text, "-Infinity") || EqualsIgnoreCase(text, "-inf"))
    return -std::numeric_limits<T>::infinity();
  std::string_view s = text;
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    return Status::OutOfRange("\"{}\" is out of range", text);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return Status::InvalidArgument("\"{}\" is not a number", text);
  return v;
}

unsigned DaysInMonth(int64_t year, unsigned month) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// "YYYY-MM-DD" at the front of `s` (consumed) to days since the epoch; `bc` applies the era.
Status ConsumeDate(std::string_view* s, std::string_view text, int64_t* days, int64_t* year_out) {
  int64_t year, month, day;
  if (!ConsumeDigits(s, 1, 9, &year) || !ConsumePrefix(s, "-") || !ConsumeDigits(s, 2, 2, &month) ||
      !ConsumePrefix(s, "-") || !ConsumeDigits(s, 2, 2, &day)) {
    return Status::InvalidArgument("\"{}\" is not a date of the form YYYY-MM-DD", text);
  }
  if (year < 1 || month < 1 || month > 12)
    return Status::InvalidArgument("\"{}\": year or month out of range", text);
  *year_out = year;
  *days = month * 100 + day;  // validated once the era is known
  return Status::OK();
}

Result<int64_t> FinishDate(int64_t year, int64_t month_day, bool bc, std::string_view text) {
  const int64_t astronomical = bc ? 1 - year : year;
  const auto month = static_cast<unsigned>(month_day / 100);
  const auto day = static_cast<unsigned>(month_day % 100);
  if (day < 1 || day > DaysInMonth(astronomical, month))
    return Status::InvalidArgument("\"{}\": day out of range for the month", text);
  return columnar::DaysFromCivil(astronomical, month, day);
}

bool ConsumeEra(std::string_view* s) {
  return ConsumePrefix(s, " BC");
}

Result<int32_t> ParseDate(std::string_view text) {
  std::string_view s = text;
  int64_t year, month_day;
  SHOAL_RETURN_IF_ERROR(ConsumeDate(&s, text, &month_day, &year));
  bool bc = ConsumeEra(&s);
  if (!s.empty())
    return Status::InvalidArgument("\"{}\": unexpected text after the date", text);
  SHOAL_ASSIGN_OR_RETURN(int64_t days, FinishDate(year, month_day, bc, text));
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max())
    return Status::OutOfRange("\"{}\" is out of the date32 range", text);
  return static_cast<int32_t>(days);
}

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

// ".fffffffff" at the front of `s` (consumed, optional) in units of 1/`per_second` seconds.
Status ConsumeFraction(std::string_view* s, int64_t per_second, std::string_view text,
                       int64_t* out) {
  *out = 0;
  if (!ConsumePrefix(s, "."))
    return Status::OK();
  int64_t digits_value = 0;
  int digits = 0;
  while (!s->empty() && s->front() >= '0' && s->front() <= '9') {
    if (digits == 9)
      return Status::InvalidArgument("\"{}\": more than 9 fractional digits", text);
    digits_value = digits_value * 10 + (s->front() - '0');
    ++digits;
    s->remove_prefix(1);
  }
  if (digits == 0)
    return Status::InvalidArgument("\"{}\": no digits after the decimal point", text);
  // Scale to nanoseconds, then to the unit, refusing precision the unit cannot hold.
  int64_t nanos = digits_value;
  for (int k = digits; k < 9; ++k)
    nanos *= 10;
  const int64_t nanos_per_unit = 1000000000 / per_second;
  if (nanos % nanos_per_unit != 0)
    return Status::InvalidArgument("\"{}\": fraction finer than the column's unit", text);
  *out = nanos / nanos_per_unit;
  return Status::OK();
}

Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit) {
  std::string_view s = text;
  int64_t year, month_day;
  SHOAL_RETURN_IF_ERROR(ConsumeDate(&s, text, &month_day, &year));
  int64_t hour = 0, minute = 0, second = 0, fraction = 0;
  const int64_t per_second = UnitsPerSecond(unit);
  if (ConsumePrefix(&s, " ") || ConsumePrefix(&s, "T")) {
    if (!ConsumeDigits(&s, 2, 2, &hour) || !ConsumePrefix(&s, ":") ||
        !ConsumeDigits(&s, 2, 2, &minute) || !ConsumePrefix(&s, ":") ||
        !ConsumeDigits(&s, 2, 2, &second)) {
      return Status::InvalidArgument("\"{}\" is not a timestamp of the form YYYY-MM-DD HH:MM:SS",
                                     text);
    }
    if (hour > 23 || minute > 59 || second > 59)
      return Status::InvalidArgument("\"{}\": time of day out of range", text);
    SHOAL_RETURN_IF_ERROR(ConsumeFraction(&s, per_second, text, &fraction));
  }
  int64_t offset_seconds = 0;
  if (ConsumePrefix(&s, "Z")) {
  } else if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    const int64_t sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
    int64_t oh = 0, om = 0;
    if (!ConsumeDigits(&s, 2, 2, &oh))
      return Status::InvalidArgument("\"{}\": bad UTC offset", text);
    if (ConsumePrefix(&s, ":") && !ConsumeDigits(&s, 2, 2, &om))
      return Status::InvalidArgument("\"{}\": bad UTC offset", text);
    offset_seconds = sign * (oh * 3600 + om * 60);
  }
  bool bc = ConsumeEra(&s);
  if (!s.empty())
    return Status::InvalidArgument("\"{}\": unexpected text after the timestamp", text);
  SHOAL_ASSIGN_OR_RETURN(int64_t days, FinishDate(year, month_day, bc, text));
  // Seconds fit easily; the unit multiply is where int64 can overflow (nanoseconds span ±292
  // years), so it is checked. Before the epoch the fraction is added to the next whole second
  // down, so that the earliest representable instant does not overflow on the way.
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  int64_t value;
  if (fraction > 0 && seconds < 0) {
    ++seconds;
    fraction -= per_second;
  }
  if (__builtin_mul_overflow(seconds, per_second, &value) ||
      __builtin_add_overflow(value, fraction, &value)) {
    return Status::OutOfRange("\"{}\" does not fit a 64-bit timestamp in this unit", text);
  }
  return value;
}

// PostgreSQL's interval output style: "[-]N unit ..." pairs, then an optional "[+-]HH:MM:SS[.f]".
Result<MonthDayNano> ParseInterval(std::string_view text) {
  MonthDayNano out{0, 0, 0};
  std::vector<std::string_view> words;
  std::string_view s = text;
  while (!s.empty()) {
    while (!s.empty() && s.front() == ' ')
      s.remove_prefix(1);
    size_t end = s.find(' ');
    if (end == std::string_view::npos)
      end = s.size();
    if (end > 0)
      words.push_back(s.substr(0, end));
    s.remove_prefix(end);
  }
  if (words.empty())
    return Status::InvalidArgument("\"{}\" is not an interval", text);
  int64_t months = 0, days = 0, nanos = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i];
    if (w.find(':') != std::string_view::npos) {
      std::string_view t = w;
      int64_t sign = 1;
      if (ConsumePrefix(&t, "-"))
        sign = -1;
      else
        ConsumePrefix(&t, "+");
      int64_t h, m, sec, frac;
      if (!ConsumeDigits(&t, 1, 9, &h) || !ConsumePrefix(&t, ":") || !ConsumeDigits(&t, 2, 2, &m) ||
          !ConsumePrefix(&t, ":") || !ConsumeDigits(&t, 2, 2, &sec)) {
        return Status::InvalidArgument("\"{}\": bad time part \"{}\"", text, w);
      }
      SHOAL_RETURN_IF_ERROR(ConsumeFraction(&t, 1000000000, text, &frac));
      if (!t.empty())
        return Status::InvalidArgument("\"{}\": bad time part \"{}\"", text, w);
      nanos += sign * (((h * 60 + m) * 60 + sec) * 1000000000 + frac);
      continue;
    }
    if (i + 1 == words.size())
      return Status::InvalidArgument("\"{}\": number \"{}\" without a unit", text, w);
    SHOAL_ASSIGN_OR_RETURN(int64_t n, ParseInteger<int64_t>(w));
    std::string_view unit = words[++i];
    if (unit == "year" || unit == "years") {
      months += n * 12;
    } else if (unit == "mon" || unit == "mons" || unit == "month" || unit == "months") {
      months += n;
    } else if (unit == "day" || unit == "days") {
      days += n;
    } else if (unit == "hour" || unit == "hours") {
      nanos += n * 3600 * 1000000000;
    } else if (unit == "min" || unit == "mins" || unit == "minute" || unit == "minutes") {
      nanos += n * 60 * 1000000000;
    } else if (unit == "sec" || unit == "secs" || unit == "second" || unit == "seconds") {
      nanos += n * 1000000000;
    } else {
      return Status::InvalidArgument("\"{}\": unknown interval unit \"{}\"", text, unit);
    }
  }
  if (months < std::numeric_limits<int32_t>::min() ||
      months > std::numeric_limits<int32_t>::max() || days < std::numeric_limits<int32_t>::min() ||
      days > std::numeric_limits<int32_t>::max()) {
    return Status::OutOfRange("\"{}\" is out of the interval range", text);
  }
  out.months = static_cast<int32_t>(months);
  out.days = static_cast<int32_t>(days);
  out.nanoseconds = nanos;
  return out;
}

Result<std::string> ParseBinary(std::string_view text) {
  if (text.substr(0, 2) != "\\x")
    return std::string(text);
  std::string_view hex = text.substr(2);
  if (hex.size() % 2 != 0)
    return Status::InvalidArgument("\"{}\": odd number of hex digits", text);
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned byte = 0;
    auto [end, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16);
    if (ec != std::errc() || end != hex.data() + i + 2)
      return Status::InvalidArgument("\"{}\": bad hex digits", text);
    out.push_back(static_cast<char>(byte));
  }
  return out;
}

template <typename T>
Status AppendInteger(ArrayBuilder* builder, std::string_view text) {
  SHOAL_ASSIGN_OR_RETURN(T v, ParseInteger<T>(text));
  return static_cast<columnar::FixedWidthBuilder<T>*>(builder)->Append(v);
}

template <typename T>
Status AppendFloat(ArrayBuilder* builder, std::string_view text) {
  SHOAL_ASSIGN_OR_RETURN(T v, ParseFloat<T>(text));
  return static_cast<columnar::FixedWidthBuilder<T>*>(builder)->Append(v);
}

Status AppendTextImpl(ArrayBuilder* builder, std::string_view text) {
  const DataType& type = builder->type();
  if (text == "NULL" || EqualsIgnoreCase(text, "null"))
    return builder->AppendNull();
  switch (type.id()) {
    case TypeId::kNull: return Status::InvalidArgument("a null column holds only NULL");
    case TypeId::kBoolean: {
      auto* b = static_cast<columnar::BooleanBuilder*>(builder);
      if (EqualsIgnoreCase(text, "t") || EqualsIgnoreCase(text, "true"))
        return b->Append(true);
      if (EqualsIgnoreCase(text, "f") || EqualsIgnoreCase(text, "false"))
        return b->Append(false);
      return Status::InvalidArgument("\"{}\" is not a boolean (t, f, true, false)", text);
    }
    case TypeId::kInt8: return AppendInteger<int8_t>(builder, text);
    case TypeId::kInt16: return AppendInteger<int16_t>(builder, text);
    case TypeId::kInt32: return AppendInteger<int32_t>(builder, text);
    case TypeId::kInt64: return AppendInteger<int64_t>(builder, text);
    case TypeId::kUInt8: return AppendInteger<uint8_t>(builder, text);
    case TypeId::kUInt16: return AppendInteger<uint16_t>(builder, text);
    case TypeId::kUInt32: return AppendInteger<uint32_t>(builder, text);
    case TypeId::kUInt64: return AppendInteger<uint64_t>(builder, text);
    case TypeId::kFloat32: return AppendFloat<float>(builder, text);
    case TypeId::kFloat64: return AppendFloat<double>(builder, text);
    case TypeId::kDecimal: {
      SHOAL_ASSIGN_OR_RETURN(columnar::int128_t v,
                             columnar::ParseDecimal(text, type.precision(), type.scale()));
      if (type.byte_width() == 8)
        return static_cast<columnar::Decimal64Builder*>(builder)->Append(static_cast<int64_t>(v));
      return static_cast<columnar::Decimal128Builder*>(builder)->Append(v);
    }
    case TypeId::kDate32: {
      SHOAL_ASSIGN_OR_RETURN(int32_t v, ParseDate(text));
      return static_cast<columnar::Int32Builder*>(builder)->Append(v);
    }
    case TypeId::kTimestamp: {
      SHOAL_ASSIGN_OR_RETURN(int64_t v, ParseTimestamp(text, type.unit()));
      return static_cast<columnar::Int64Builder*>(builder)->Append(v);
    }
    case TypeId::kInterval: {
      SHOAL_ASSIGN_OR_RETURN(MonthDayNano v, ParseInterval(text));
      return static_cast<columnar::IntervalBuilder*>(builder)->Append(v);
    }
    case TypeId::kUtf8: {
      auto* b = static_cast<columnar::BinaryBuilder*>(builder);
      if (text == "\\NULL")
        return b->Append("NULL");
      return b->Append(text);
    }
    case TypeId::kBinary: {
      SHOAL_ASSIGN_OR_RETURN(std::string bytes, ParseBinary(text));
      return static_cast<columnar::BinaryBuilder*>(builder)->Append(bytes);
    }
    case TypeId::kDictionary: {
      // Parse as the value type, then let the dictionary builder memoise it.
      auto value_builder = columnar::MakeBuilder(type.value_type(), DefaultMemoryPool());
      SHOAL_RETURN_IF_ERROR(AppendTextImpl(value_builder.get(), text));
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr one, value_builder->Finish());
      return builder->AppendFrom(*one, 0);
    }
    // Nested test data is built with the nested builders, not from text.
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: break;
  }
  return Status::NotImplemented("no text form for {}", type.ToString());
}

bool IsNullElement(const Array& a, int64_t i) {
  if (a.IsNull(i))
    return true;
  return a.type_id() == TypeId::kDictionary && a.dictionary()->IsNull(a.DictionaryIndex(i));
}

std::string ElementText(const Array& a, int64_t i) {
  return IsNullElement(a, i) ? "NULL" : columnar::FormatValue(a, i);
}

std::string JoinElements(const Array& a) {
  std::string out = "[";
  for (int64_t i = 0; i < a.length(); ++i) {
    if (i > 0)
      out += ", ";
    out += ElementText(a, i);
  }
  return out + "]";
}

// Index of the first element that differs, or -1.
int64_t FirstDifference(const Array& a, const Array& b) {
  const int64_t n = std::min(a.length(), b.length());
  for (int64_t i = 0; i < n; ++i) {
    if (!columnar::ArraysEqual(*a.Slice(i, 1), *b.Slice(i, 1)))
      return i;
  }
  return a.length() == b.length() ? -1 : n;
}

std::string BatchText(const RecordBatch& batch) {
  columnar::PrintOptions options;
  options.null_text = "NULL";
  // The printer takes shared batches; this view must not delete the caller's batch.
  RecordBatchPtr view(&batch, [](const RecordBatch*) {});
  return columnar::FormatTable(*batch.schema(), {view}, options);
}

}  // namespace

Status AppendText(ArrayBuilder* builder, std::string_view text) {
  return AppendTextImpl(builder, text);
}

Result<ArrayPtr> TryMakeArray(const DataType& type, const std::vector<std::string>& values,
                              const std::shared_ptr<MemoryPool>& pool) {
  auto builder = columnar::MakeBuilder(type, pool);
  for (size_t i = 0; i < values.size(); ++i) {
    Status st = AppendText(builder.get(), values[i]);
    if (!st.ok())
      return std::move(st).WithContext(fmt::format("{} value {}", type.ToString(), i));
  }
  return builder->Finish();
}

ArrayPtr MakeArray(const DataType& type, const std::vector<std::string>& values,
                   const std::shared_ptr<MemoryPool>& pool) {
  auto result = TryMakeArray(type, values, pool);
  SHOAL_CHECK(result.ok(), "MakeArray: bad test data: {}", result.status().ToString());
  return std::move(result).value();
}

Result<RecordBatchPtr> TryMakeBatch(const std::vector<Field>& fields,
                                    const std::vector<TextRow>& rows,
                                    const std::shared_ptr<MemoryPool>& pool) {
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const Field& f : fields)
    builders.push_back(columnar::MakeBuilder(f.type, pool));
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != fields.size()) {
      return Status::InvalidArgument("row {} has {} values for {} columns", r, rows[r].size(),
                                     fields.size());
    }
    for (size_t c = 0; c < fields.size(); ++c) {
      Status st = AppendText(builders[c].get(), rows[r][c]);
      if (!st.ok()) {
        return std::move(st).WithContext(
            fmt::format("row {}, column '{}' ({})", r, fields[c].name, fields[c].type.ToString()));
      }
    }
  }
  std::vector<ArrayPtr> columns;
  for (size_t c = 0; c < fields.size(); ++c) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, builders[c]->Finish());
    columns.push_back(std::move(column));
  }
  auto batch = RecordBatch::Make(std::make_shared<const Schema>(fields),
                                 static_cast<int64_t>(rows.size()), std::move(columns));
  SHOAL_RETURN_IF_ERROR(batch->Validate());
  return batch;
}

RecordBatchPtr MakeBatch(const std::vector<Field>& fields, const std::vector<TextRow>& rows,
                         const std::shared_ptr<MemoryPool>& pool) {
  auto result = TryMakeBatch(fields, rows, pool);
  SHOAL_CHECK(result.ok(), "MakeBatch: bad test data: {}", result.status().ToString());
  return std::move(result).value();
}

std::vector<std::string> ArrayToStrings(const Array& array) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(array.length()));
  for (int64_t i = 0; i < array.length(); ++i)
    out.push_back(ElementText(array, i));
  return out;
}

::testing::AssertionResult AssertArraysEqual(const char* a_expr, const char* b_expr, const Array& a,
                                             const Array& b) {
  if (columnar::ArraysEqual(a, b))
    return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << a_expr << " and " << b_expr << " differ: ";
  if (a.type() != b.type()) {
    failure << "types " << a.type().ToString() << " and " << b.type().ToString();
  } else if (a.length() != b.length()) {
    failure << "lengths " << a.length() << " and " << b.length();
  } else {
    int64_t i = FirstDifference(a, b);
    if (i >= 0) {
      failure << "first at element " << i << ": " << ElementText(a, i) << " vs "
              << ElementText(b, i);
    } else {
      failure << "null counts " << a.null_count() << " and " << b.null_count();
    }
  }
  failure << "\n  " << a_expr << " = " << JoinElements(a) << "\n  " << b_expr << " = "
          << JoinElements(b);
  return failure;
}

::testing::AssertionResult AssertArraysEqual(const char* a_expr, const char* b_expr,
                                             const ArrayPtr& a, const ArrayPtr& b) {
  if (a == nullptr || b == nullptr) {
    if (a == b)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << (a ? b_expr : a_expr) << " is null";
  }
  return AssertArraysEqual(a_expr, b_expr, *a, *b);
}

::testing::AssertionResult AssertBatchesEqual(const char* a_expr, const char* b_expr,
                                              const RecordBatch& a, const RecordBatch& b) {
  if (a.Equals(b))
    return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << a_expr << " and " << b_expr << " differ: ";
  if (!(*a.schema() == *b.schema())) {
    failure << "schemas\n  " << a.schema()->ToString() << "\n  " << b.schema()->ToString();
  } else if (a.num_rows() != b.num_rows()) {
    failure << "row counts " << a.num_rows() << " and " << b.num_rows();
  } else {
    for (int c = 0; c < a.num_columns(); ++c) {
      int64_t i = FirstDifference(*a.column(c), *b.column(c));
      if (i >= 0) {
        failure << "first in column '" << a.schema()->field(c).name << "' at row " << i << ": "
                << ElementText(*a.column(c), i) << " vs " << ElementText(*b.column(c), i);
        break;
      }
    }
  }
  failure << "\n" << a_expr << ":\n" << BatchText(a) << b_expr << ":\n" << BatchText(b);
  return failure;
}

::testing::AssertionResult AssertBatchesEqual(const char* a_expr, const char* b_expr,
                                              const RecordBatchPtr& a, const RecordBatchPtr& b) {
  if (a == nullptr || b == nullptr) {
    if (a == b)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << (a ? b_expr : a_expr) << " is null";
  }
  return AssertBatchesEqual(a_expr, b_expr, *a, *b);
}

}  // namespace shoal::testing

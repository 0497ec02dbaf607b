#include "shoal/columnar/pretty_print.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "shoal/columnar/decimal.h"

namespace shoal::columnar {
namespace {

// Howard Hinnant's civil-calendar algorithms (public domain), exact for the whole int range.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

void AppendFloat(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

void AppendFloat32(float v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

// "HH:MM:SS[.ffffff]" from microseconds within a day (or any non-negative span).
void AppendTimeOfDay(int64_t micros, std::string* out) {
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}", secs / 3600, (secs / 60) % 60,
                 secs % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:06}", frac);
    while (!f.empty() && f.back() == '0')
      f.pop_back();
    out->push_back('.');
    out->append(f);
  }
}

void AppendTimestamp(int64_t value, TimeUnit unit, bool zoned, std::string* out) {
  int64_t micros = value;
  switch (unit) {
    case TimeUnit::kSecond: micros = value * 1000000; break;
    case TimeUnit::kMilli: micros = value * 1000; break;
    case TimeUnit::kMicro: break;
    case TimeUnit::kNano: micros = FloorDiv(value, 1000); break;
  }
  int64_t day = FloorDiv(micros, 86400000000LL);
  int64_t in_day = micros - day * 86400000000LL;
  out->append(FormatDate(static_cast<int32_t>(day)));
  out->push_back(' ');
  AppendTimeOfDay(in_day, out);
  if (zoned)
    out->append("+00");
}

void AppendInterval(const MonthDayNano& v, std::string* out) {
  bool any = false;
  auto part = [&](int64_t n, const char* one, const char* many) {
    if (n == 0)
      return;
    if (any)
      out->push_back(' ');
    fmt::format_to(std::back_inserter(*out), "{} {}", n, (n == 1 || n == -1) ? one : many);
    any = true;
  };
  part(v.months / 12, "year", "years");
  part(v.months % 12, "mon", "mons");
  part(v.days, "day", "days");
  int64_t micros = v.nanoseconds / 1000;
  if (micros != 0 || !any) {
    if (any)
      out->push_back(' ');
    if (micros < 0) {
      out->push_back('-');
      micros = -micros;
    }
    AppendTimeOfDay(micros, out);
  }
}

bool IsNumeric(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal: return true;
    case TypeId::kDictionary: return IsNumeric(t.value_type());
    default: return false;
  }
}

// Display width: code points, which is what psql counts for the scripts TPC-H and tests use.
int64_t DisplayWidth(std::string_view s) {
  int64_t w = 0;
  for (unsigned char c : s)
    w += (c & 0xC0) != 0x80;
  return w;
}

}  // namespace

void CivilFromDays(int64_t z, int64_t* year, unsigned* month, unsigned* day) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (m <= 2);
  *month = m;
  *day = d;
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (y <= 0)
    return fmt::format("{:04}-{:02}-{:02} BC", 1 - y, m, d);  // PostgreSQL's spelling
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  switch (a.type_id()) {
    case TypeId::kNull: return;
    case TypeId::kBoolean: out->push_back(a.BoolValue(i) ? 't' : 'f'); return;
    case TypeId::kInt8: fmt::format_to(std::back_inserter(*out), "{}", a.Value<int8_t>(i)); return;
    case TypeId::kInt16:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<int16_t>(i));
      return;
    case TypeId::kInt32:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<int32_t>(i));
      return;
    case TypeId::kInt64:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<int64_t>(i));
      return;
    case TypeId::kUInt8:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint8_t>(i));
      return;
    case TypeId::kUInt16:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint16_t>(i));
      return;
    case TypeId::kUInt32:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint32_t>(i));
      return;
    case TypeId::kUInt64:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint64_t>(i));
      return;
    case TypeId::kFloat32: AppendFloat32(a.Value<float>(i), out); return;
    case TypeId::kFloat64: AppendFloat(a.Value<double>(i), out); return;
    case TypeId::kDecimal: {
      int128_t v = a.type().byte_width() == 8 ? a.Value<int64_t>(i) : a.Value<int128_t>(i);
      out->append(FormatDecimal(v, a.type().scale()));
      return;
    }
    case TypeId::kDate32: out->append(FormatDate(a.Value<int32_t>(i))); return;
    case TypeId::kTimestamp:
      AppendTimestamp(a.Value<int64_t>(i), a.type().unit(), !a.type().timezone().empty(), out);
      return;
    case TypeId::kInterval: AppendInterval(a.Value<MonthDayNano>(i), out); return;
    case TypeId::kUtf8: out->append(a.StringValue(i)); return;
    case TypeId::kBinary: {
      out->append("\\x");
      for (unsigned char c : a.StringValue(i))
        fmt::format_to(std::back_inserter(*out), "{:02x}", c);
      return;
    }
    case TypeId::kDictionary: {
      int64_t k = a.DictionaryIndex(i);
      if (a.dictionary()->IsValid(k))
        AppendValue(*a.dictionary(), k, out);
      return;
    }
  }
}

std::string FormatValue(const Array& array, int64_t i) {
  std::string out;
  AppendValue(array, i, &out);
  return out;
}

std::string FormatTable(const Schema& schema, const std::vector<RecordBatchPtr>& batches,
                        const PrintOptions& options) {
  const size_t ncols = static_cast<size_t>(schema.num_fields());
  std::vector<std::vector<std::string>> cells;  // row-major
  std::vector<int64_t> width(ncols, 0);
  std::vector<bool> right(ncols, false);
  for (size_t c = 0; c < ncols; ++c) {
    width[c] = DisplayWidth(schema.field(static_cast<int>(c)).name);
    right[c] = IsNumeric(schema.field(static_cast<int>(c)).type);
  }
  int64_t total_rows = 0;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r, ++total_rows) {
      if (options.max_rows >= 0 && total_rows >= options.max_rows)
        continue;
      std::vector<std::string> row(ncols);
      for (size_t c = 0; c < ncols; ++c) {
        const Array& col = *batch->column(static_cast<int>(c));
        bool valid = col.IsValid(r) && (col.type_id() != TypeId::kDictionary ||
                                        col.dictionary()->IsValid(col.DictionaryIndex(r)));
        row[c] = valid ? FormatValue(col, r) : options.null_text;
        width[c] = std::max(width[c], DisplayWidth(row[c]));
      }
      cells.push_back(std::move(row));
    }
  }
  std::string out;
  // Header: names centred, as psql does (extra space goes to the right).
  for (size_t c = 0; c < ncols; ++c) {
    const std::string& name = schema.field(static_cast<int>(c)).name;
    int64_t pad = width[c] - DisplayWidth(name);
    if (c > 0)
      out.push_back('|');
    out.append(static_cast<size_t>(1 + pad / 2), ' ');
    out.append(name);
    out.append(static_cast<size_t>(pad - pad / 2 + 1), ' ');
  }
  // psql trims nothing from the header line except when there are no columns.
  out.push_back('\n');
  for (size_t c = 0; c < ncols; ++c) {
    if (c > 0)
      out.push_back('+');
    out.append(static_cast<size_t>(width[c] + 2), '-');
  }
  out.push_back('\n');
  for (const auto& row : cells) {
    for (size_t c = 0; c < ncols; ++c) {
      int64_t pad = width[c] - DisplayWidth(row[c]);
      if (c > 0)
        out.push_back('|');
      out.push_back(' ');
      if (right[c]) {
        out.append(static_cast<size_t>(pad), ' ');
        out.append(row[c]);
      } else {
        out.append(row[c]);
        if (c + 1 < ncols)
          out.append(static_cast<size_t>(pad), ' ');
      }
      if (c + 1 < ncols)
        out.push_back(' ');
    }
    out.push_back('\n');
  }
  if (options.show_row_count) {
    out += fmt::format("({} {})\n", total_rows, total_rows == 1 ? "row" : "rows");
  }
  return out;
}

}  // namespace shoal::columnar

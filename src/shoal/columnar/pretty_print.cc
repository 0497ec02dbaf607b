#include "shoal/columnar/pretty_print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "shoal/columnar/decimal.h"
#include "shoal/columnar/display_width.h"

namespace shoal::columnar {
namespace {

// PostgreSQL's float output (float4out/float8out with the default extra_float_digits = 1): the
// shortest digits that round-trip, written in %e style when the decimal exponent is below -4 or
// at least `max_fixed_exponent` (DBL_DIG = 15, FLT_DIG = 6), and in plain positional form
// otherwise: 1e+15, 100000000000000, 0.0001, 1e-05, 1.234567e+06 (float4).
template <typename T>
void AppendPostgresFloat(T v, int max_fixed_exponent, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (v == 0) {
    out->append(std::signbit(v) ? "-0" : "0");
    return;
  }
  // Shortest round-trip digits in scientific form, e.g. "-1.234567e+06".
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(result.ptr - buf));
  const size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + 1 + (sci[e_pos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  if (!mantissa.empty() && mantissa.front() == '-') {
    out->push_back('-');
    mantissa.remove_prefix(1);
  }
  if (exponent < -4 || exponent >= max_fixed_exponent) {
    out->append(mantissa);
    fmt::format_to(std::back_inserter(*out), "e{}{:02}", exponent < 0 ? '-' : '+',
                   exponent < 0 ? -exponent : exponent);
    return;
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.')
      digits.push_back(c);
  }
  if (exponent < 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-exponent - 1), '0');
    out->append(digits);
    return;
  }
  const auto int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out->append(digits);
    out->append(int_digits - digits.size(), '0');
  } else {
    out->append(digits, 0, int_digits);
    out->push_back('.');
    out->append(digits, int_digits, std::string::npos);
  }
}

void AppendTimestampValue(int64_t value, TimeUnit unit, bool zoned, std::string* out) {
  // Split into days and the time within the day in the value's own unit, so that no unit
  // conversion can overflow (seconds reach far beyond the microsecond range).
  int64_t per_second = 1;
  switch (unit) {
    case TimeUnit::kSecond: per_second = 1; break;
    case TimeUnit::kMilli: per_second = 1000; break;
    case TimeUnit::kMicro: per_second = 1000000; break;
    case TimeUnit::kNano: per_second = 1000000000; break;
  }
  const int64_t per_day = 86400 * per_second;
  const int64_t day = FloorDiv(value, per_day);
  // Not value - day * per_day: near INT64_MIN that product overflows.
  int64_t in_day = value % per_day;
  if (in_day < 0)
    in_day += per_day;
  // Shown to the microsecond, as PostgreSQL does; nanoseconds are truncated.
  const int64_t micros =
      per_second >= 1000000 ? in_day / (per_second / 1000000) : in_day * (1000000 / per_second);
  ::shoal::AppendTimestamp(day, micros, zoned, out);
}

// PostgreSQL's IntervalStyle 'postgres' (its default): "1 year 2 mons 3 days 04:05:06". Every
// count but +1 takes the plural; a field that is positive after a negative one gets an explicit
// '+' ("-1 days +02:00:00"); the time part carries one sign for all of hours, minutes, seconds.
void AppendInterval(const MonthDayNano& v, std::string* out) {
  bool is_before = false;  // the previous field was negative
  bool is_zero = true;     // nothing written yet
  auto part = [&](int64_t n, const char* unit) {
    if (n == 0)
      return;
    fmt::format_to(std::back_inserter(*out), "{}{}{} {}{}", is_zero ? "" : " ",
                   (is_before && n > 0) ? "+" : "", n, unit, n != 1 ? "s" : "");
    is_before = n < 0;
    is_zero = false;
  };
  part(v.months / 12, "year");
  part(v.months % 12, "mon");
  part(v.days, "day");
  const int64_t micros = v.nanoseconds / 1000;
  if (is_zero || micros != 0) {
    const bool minus = micros < 0;
    out->append(is_zero ? "" : " ");
    out->append(minus ? "-" : (is_before ? "+" : ""));
    AppendTimeOfDay(minus ? -micros : micros, out);
  }
}

// std::to_chars into a stack buffer: fmt's back_inserter path costs several times as much per
// value, and this runs for every integer a result or COPY sends as text.
template <typename T>
void AppendInteger(T v, std::string* out) {
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(result.ptr - buf));
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

bool IsNullElement(const Array& a, int64_t k) {
  if (a.IsNull(k))
    return true;
  return a.type_id() == TypeId::kDictionary && a.dictionary()->IsNull(a.DictionaryIndex(k));
}

bool IsPgSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// An element of an array as PostgreSQL's array_out writes it: in double quotes (with '"' and '\'
// escaped by a backslash) when it is empty, spells NULL, or holds a brace, a comma, a quote, a
// backslash or white space.
void AppendArrayElement(std::string_view text, std::string* out) {
  bool quote =
      text.empty() || (text.size() == 4 && (text[0] | 0x20) == 'n' && (text[1] | 0x20) == 'u' &&
                       (text[2] | 0x20) == 'l' && (text[3] | 0x20) == 'l');
  for (char c : text) {
    if (quote)
      break;
    quote = c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || IsPgSpace(c);
  }
  if (!quote) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\')
      out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

// A field of a record as PostgreSQL's record_out writes it: quoted when empty or holding a
// parenthesis, a comma, a quote, a backslash or white space, with '"' and '\' doubled.
void AppendRecordField(std::string_view text, std::string* out) {
  bool quote = text.empty();
  for (char c : text) {
    if (quote)
      break;
    quote = c == '(' || c == ')' || c == ',' || c == '"' || c == '\\' || IsPgSpace(c);
  }
  if (!quote) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\')
      out->push_back(c);
    out->push_back(c);
  }
  out->push_back('"');
}

bool IsArrayLike(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList;
}

}  // namespace

namespace {

// {1,2,NULL}; a list of lists nests its braces unquoted, as PostgreSQL's multidimensional arrays.
void AppendList(const Array& a, int64_t i, std::string* out) {
  const Array& items = *a.child(0);
  const int64_t begin = a.ListStart(i);
  const int64_t end = a.ListEnd(i);
  const bool nested_array = IsArrayLike(items.type_id());
  std::string text;
  out->push_back('{');
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin)
      out->push_back(',');
    if (IsNullElement(items, k)) {
      out->append("NULL");
    } else if (nested_array) {
      AppendList(items, k, out);
    } else {
      text.clear();
      AppendValue(items, k, &text);
      AppendArrayElement(text, out);
    }
  }
  out->push_back('}');
}

// (1,"a b",) as record_out: a null field is empty.
void AppendStruct(const Array& a, int64_t i, std::string* out) {
  const int64_t row = a.ChildRow(i);
  std::string text;
  out->push_back('(');
  for (int f = 0; f < a.num_children(); ++f) {
    if (f > 0)
      out->push_back(',');
    const Array& field = *a.child(f);
    if (IsNullElement(field, row))
      continue;
    text.clear();
    AppendValue(field, row, &text);
    AppendRecordField(text, out);
  }
  out->push_back(')');
}

// {k=v, k2=NULL} as DuckDB prints maps.
void AppendMap(const Array& a, int64_t i, std::string* out) {
  const Array& entries = *a.child(0);
  const Array& keys = *entries.child(0);
  const Array& values = *entries.child(1);
  const int64_t begin = a.ListStart(i);
  const int64_t end = a.ListEnd(i);
  out->push_back('{');
  for (int64_t k = begin; k < end; ++k) {
    if (k > begin)
      out->append(", ");
    const int64_t row = entries.ChildRow(k);
    if (IsNullElement(keys, row))
      out->append("NULL");
    else
      AppendValue(keys, row, out);
    out->push_back('=');
    if (IsNullElement(values, row))
      out->append("NULL");
    else
      AppendValue(values, row, out);
  }
  out->push_back('}');
}

}  // namespace

void AppendValue(const Array& a, int64_t i, std::string* out) {
  switch (a.type_id()) {
    case TypeId::kNull: return;
    case TypeId::kBoolean: out->push_back(a.BoolValue(i) ? 't' : 'f'); return;
    case TypeId::kInt8: AppendInteger(a.Value<int8_t>(i), out); return;
    case TypeId::kInt16: AppendInteger(a.Value<int16_t>(i), out); return;
    case TypeId::kInt32: AppendInteger(a.Value<int32_t>(i), out); return;
    case TypeId::kInt64: AppendInteger(a.Value<int64_t>(i), out); return;
    case TypeId::kUInt8: AppendInteger(a.Value<uint8_t>(i), out); return;
    case TypeId::kUInt16: AppendInteger(a.Value<uint16_t>(i), out); return;
    case TypeId::kUInt32: AppendInteger(a.Value<uint32_t>(i), out); return;
    case TypeId::kUInt64: AppendInteger(a.Value<uint64_t>(i), out); return;
    case TypeId::kFloat32: AppendPostgresFloat(a.Value<float>(i), 6, out); return;
    case TypeId::kFloat64: AppendPostgresFloat(a.Value<double>(i), 15, out); return;
    case TypeId::kDecimal: {
      int128_t v = a.type().byte_width() == 8 ? a.Value<int64_t>(i) : a.Value<int128_t>(i);
      AppendDecimal(v, a.type().scale(), out);
      return;
    }
    case TypeId::kDate32: AppendDate(a.Value<int32_t>(i), out); return;
    case TypeId::kTimestamp:
      AppendTimestampValue(a.Value<int64_t>(i), a.type().unit(), !a.type().timezone().empty(), out);
      return;
    case TypeId::kInterval: AppendInterval(a.Value<MonthDayNano>(i), out); return;
    case TypeId::kUtf8: out->append(a.StringValue(i)); return;
    case TypeId::kBinary: {
      static constexpr char kHex[] = "0123456789abcdef";
      const std::string_view bytes = a.StringValue(i);
      const size_t at = out->size();
      out->resize(at + 2 + 2 * bytes.size());
      char* p = out->data() + at;
      *p++ = '\\';
      *p++ = 'x';
      for (unsigned char c : bytes) {
        *p++ = kHex[c >> 4];
        *p++ = kHex[c & 15];
      }
      return;
    }
    case TypeId::kDictionary: {
      int64_t k = a.DictionaryIndex(i);
      if (a.dictionary()->IsValid(k))
        AppendValue(*a.dictionary(), k, out);
      return;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: AppendList(a, i, out); return;
    case TypeId::kStruct: AppendStruct(a, i, out); return;
    case TypeId::kMap: AppendMap(a, i, out); return;
  }
}

std::string FormatValue(const Array& array, int64_t i) {
  std::string out;
  AppendValue(array, i, &out);
  return out;
}

namespace {

// A cell split at its line breaks, as psql shows multi-line values, with each line's width.
struct Cell {
  std::vector<std::string_view> lines;
  std::vector<int64_t> widths;
};

Cell SplitCell(std::string_view text) {
  Cell cell;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    cell.lines.push_back(line);
    cell.widths.push_back(DisplayWidth(line));
    if (nl == std::string_view::npos)
      break;
    start = nl + 1;
  }
  return cell;
}

}  // namespace

std::string FormatTable(const Schema& schema, const std::vector<RecordBatchPtr>& batches,
                        const PrintOptions& options) {
  const size_t ncols = static_cast<size_t>(schema.num_fields());
  std::vector<std::string> texts;  // row-major cell texts; cells view into them
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
      for (size_t c = 0; c < ncols; ++c) {
        const Array& col = *batch->column(static_cast<int>(c));
        bool valid = col.IsValid(r) && (col.type_id() != TypeId::kDictionary ||
                                        col.dictionary()->IsValid(col.DictionaryIndex(r)));
        texts.push_back(valid ? FormatValue(col, r) : options.null_text);
      }
    }
  }
  std::vector<Cell> cells;
  cells.reserve(texts.size());
  for (size_t k = 0; k < texts.size(); ++k) {
    cells.push_back(SplitCell(texts[k]));
    for (int64_t w : cells.back().widths)
      width[k % ncols] = std::max(width[k % ncols], w);
  }
  std::string out;
  if (!options.show_header) {
    // a later window of a streamed table: rows only
  } else if (ncols == 0) {
    // psql prints no header line for a result without columns, only the separator.
    out.append("--\n");
  } else {
    // Header: names centred, with the odd space on the right, as psql does.
    for (size_t c = 0; c < ncols; ++c) {
      const std::string& name = schema.field(static_cast<int>(c)).name;
      int64_t pad = width[c] - DisplayWidth(name);
      if (c > 0)
        out.push_back('|');
      out.append(static_cast<size_t>(1 + pad / 2), ' ');
      out.append(name);
      out.append(static_cast<size_t>(pad - pad / 2 + 1), ' ');
    }
    out.push_back('\n');
    for (size_t c = 0; c < ncols; ++c) {
      if (c > 0)
        out.push_back('+');
      out.append(static_cast<size_t>(width[c] + 2), '-');
    }
    out.push_back('\n');
  }
  // Rows: a multi-line value takes one output line per line; a line of a value that continues
  // on the next output line ends in '+' where a space would be, and the last column is padded
  // then so the '+' lines up.
  for (size_t row = 0; ncols > 0 && row < cells.size() / ncols; ++row) {
    const Cell* rc = &cells[row * ncols];
    size_t height = 1;
    for (size_t c = 0; c < ncols; ++c)
      height = std::max(height, rc[c].lines.size());
    for (size_t line = 0; line < height; ++line) {
      for (size_t c = 0; c < ncols; ++c) {
        const bool has_line = line < rc[c].lines.size();
        const std::string_view text = has_line ? rc[c].lines[line] : std::string_view();
        const int64_t pad = width[c] - (has_line ? rc[c].widths[line] : 0);
        const bool continues = line + 1 < rc[c].lines.size();
        const bool last = c + 1 == ncols;
        if (c > 0)
          out.push_back('|');
        out.push_back(' ');
        if (right[c]) {
          out.append(static_cast<size_t>(pad), ' ');
          out.append(text);
        } else {
          out.append(text);
          if (!last || continues)
            out.append(static_cast<size_t>(pad), ' ');
        }
        if (continues)
          out.push_back('+');
        else if (!last)
          out.push_back(' ');
      }
      out.push_back('\n');
    }
  }
  if (options.show_row_count) {
    out += fmt::format("({} {})\n", total_rows, total_rows == 1 ? "row" : "rows");
  }
  return out;
}

}  // namespace shoal::columnar

#include "shoal/server/pg_types.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "shoal/columnar/pretty_print.h"

namespace shoal::server {

using columnar::Array;
using columnar::DataType;
using columnar::TypeId;

namespace {

// Days from 1970-01-01 (Shoal's date32) to 2000-01-01 (PostgreSQL's epoch).
constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * 86400LL * 1000000LL;

void PutInt16(std::string* out, int16_t v) {
  auto u = static_cast<uint16_t>(v);
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u & 0xFF));
}

void PutInt32(std::string* out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

void PutInt64(std::string* out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ToMicros(int64_t v, columnar::TimeUnit unit) {
  switch (unit) {
    case columnar::TimeUnit::kSecond: return v * 1000000;
    case columnar::TimeUnit::kMilli: return v * 1000;
    case columnar::TimeUnit::kMicro: return v;
    case columnar::TimeUnit::kNano: return FloorDiv(v, 1000);
  }
  return v;
}

// The value type and index of element i, looking through a dictionary.
const Array& Resolve(const Array& array, int64_t* i) {
  if (array.type_id() == TypeId::kDictionary) {
    *i = array.DictionaryIndex(*i);
    return *array.dictionary();
  }
  return array;
}

void AppendBinary(const Array& array, int64_t i, std::string* out);

bool IsListId(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList;
}

// The leaves of element i of a (nested) list, in order, as array_send writes its elements:
// length (-1 for NULL) then the element's binary form.
void AppendBinaryLeaves(const Array& list, int64_t i, std::string* out) {
  const Array& items = *list.child(0);
  for (int64_t j = list.ListStart(i); j < list.ListEnd(i); ++j) {
    const int64_t k = j;
    if (IsListId(items.type_id())) {
      if (items.IsValid(k))
        AppendBinaryLeaves(items, k, out);
      continue;
    }
    if (items.IsNull(k)) {
      PutInt32(out, -1);
      continue;
    }
    const size_t at = out->size();
    PutInt32(out, 0);
    int64_t e = k;
    AppendBinary(Resolve(items, &e), e, out);
    const auto len = static_cast<uint32_t>(out->size() - at - 4);
    for (int b = 0; b < 4; ++b)
      (*out)[at + static_cast<size_t>(b)] = static_cast<char>((len >> (24 - 8 * b)) & 0xFF);
  }
}

// array_send: dimensions (a list of lists is measured through its first elements, as the
// rectangular arrays PostgreSQL has), a has-nulls flag, the element OID, then the elements.
void AppendBinaryArray(const Array& array, int64_t i, std::string* out) {
  std::vector<int32_t> dims;
  const Array* level = &array;
  int64_t row = i;
  DataType leaf = array.type();
  while (IsListId(leaf.id())) {
    leaf = leaf.item_field().type;
    const int64_t len = level != nullptr && level->IsValid(row) ? level->ListLength(row) : 0;
    dims.push_back(static_cast<int32_t>(len));
    if (level != nullptr && len > 0 && IsListId(level->child(0)->type_id())) {
      const Array* child = level->child(0).get();
      row = level->ListStart(row);
      level = child;
    } else {
      level = nullptr;
    }
  }
  if (dims.empty() || dims[0] == 0)
    dims.clear();
  std::string body;
  AppendBinaryLeaves(array, i, &body);
  bool has_null = false;
  for (size_t p = 0; p + 4 <= body.size();) {
    const auto len =
        static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint8_t>(body[p])) << 24) |
                             (static_cast<uint32_t>(static_cast<uint8_t>(body[p + 1])) << 16) |
                             (static_cast<uint32_t>(static_cast<uint8_t>(body[p + 2])) << 8) |
                             static_cast<uint32_t>(static_cast<uint8_t>(body[p + 3])));
    p += 4;
    if (len < 0)
      has_null = true;
    else
      p += static_cast<size_t>(len);
  }
  PutInt32(out, static_cast<int32_t>(dims.size()));
  PutInt32(out, has_null ? 1 : 0);
  PutInt32(out, static_cast<int32_t>(PgTypeOf(leaf).oid));
  for (int32_t d : dims) {
    PutInt32(out, d);
    PutInt32(out, 1);
  }
  out->append(body);
}

// Appends the binary form of valid element i of `array` (a non-dictionary array).
void AppendBinary(const Array& array, int64_t i, std::string* out) {
  switch (array.type_id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: AppendBinaryArray(array, i, out); return;
    case TypeId::kBoolean: out->push_back(array.BoolValue(i) ? 1 : 0); return;
    case TypeId::kInt8: PutInt16(out, array.Value<int8_t>(i)); return;
    case TypeId::kUInt8: PutInt16(out, array.Value<uint8_t>(i)); return;
    case TypeId::kInt16: PutInt16(out, array.Value<int16_t>(i)); return;
    case TypeId::kUInt16: PutInt32(out, array.Value<uint16_t>(i)); return;
    case TypeId::kInt32: PutInt32(out, array.Value<int32_t>(i)); return;
    case TypeId::kUInt32: PutInt64(out, array.Value<uint32_t>(i)); return;
    case TypeId::kInt64: PutInt64(out, array.Value<int64_t>(i)); return;
    case TypeId::kFloat32: {
      uint32_t bits;
      float f = array.Value<float>(i);
      std::memcpy(&bits, &f, 4);
      PutInt32(out, static_cast<int32_t>(bits));
      return;
    }
    case TypeId::kFloat64: {
      uint64_t bits;
      double d = array.Value<double>(i);
      std::memcpy(&bits, &d, 8);
      PutInt64(out, static_cast<int64_t>(bits));
      return;
    }
    case TypeId::kDate32:
      PutInt32(out, static_cast<int32_t>(array.Value<int32_t>(i) - kPgEpochDays));
      return;
    case TypeId::kTimestamp:
      PutInt64(out, ToMicros(array.Value<int64_t>(i), array.type().unit()) - kPgEpochMicros);
      return;
    case TypeId::kInterval: {
      auto v = array.Value<columnar::MonthDayNano>(i);
      PutInt64(out, v.nanoseconds / 1000);
      PutInt32(out, v.days);
      PutInt32(out, v.months);
      return;
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: out->append(array.StringValue(i)); return;
    case TypeId::kDecimal:
    case TypeId::kUInt64: {
      std::string text;
      columnar::AppendValue(array, i, &text);
      out->append(NumericBinaryFromText(text));
      return;
    }
    default: {
      // Types without a binary form of their own travel as text.
      columnar::AppendValue(array, i, out);
      return;
    }
  }
}

}  // namespace

void AppendBinaryValue(const Array& array, int64_t i, std::string* out) {
  const Array& values = Resolve(array, &i);
  AppendBinary(values, i, out);
}

Status CheckResultFormats(const std::vector<int16_t>& formats, int num_columns) {
  if (formats.size() > 1 && formats.size() != static_cast<size_t>(num_columns)) {
    return ProtocolViolation(
        fmt::format("bind message has {} result formats but query has {} columns", formats.size(),
                    num_columns));
  }
  return Status::OK();
}

namespace {

int16_t FormatOf(const std::vector<int16_t>& formats, int column) {
  if (formats.empty()) {
    return 0;
  }
  return formats.size() == 1 ? formats[0] : formats[static_cast<size_t>(column)];
}

}  // namespace

void WriteRowDescription(MessageWriter& out, const columnar::Schema& schema,
                         const std::vector<int16_t>& formats) {
  out.Begin('T');
  out.Int16(static_cast<int16_t>(schema.num_fields()));
  for (int c = 0; c < schema.num_fields(); ++c) {
    const auto& field = schema.field(c);
    PgType t = PgTypeOf(field.type);
    out.CString(field.name);
    out.Int32(0);  // table OID: not a column of a catalog table
    out.Int16(0);  // attribute number
    out.Int32(static_cast<int32_t>(t.oid));
    out.Int16(t.length);
    out.Int32(t.modifier);
    out.Int16(FormatOf(formats, c));
  }
  out.End();
}

void WriteDataRows(MessageWriter& out, const columnar::RecordBatch& batch, int64_t begin,
                   int64_t end, const std::vector<int16_t>& formats) {
  const int n = batch.num_columns();
  std::string& buf = out.buffer();
  for (int64_t r = begin; r < end; ++r) {
    out.Begin('D');
    out.Int16(static_cast<int16_t>(n));
    for (int c = 0; c < n; ++c) {
      const Array& column = *batch.column(c);
      if (column.IsNull(r)) {
        out.Int32(-1);
        continue;
      }
      size_t len_at = buf.size();
      out.Int32(0);
      int64_t i = r;
      const Array& values = Resolve(column, &i);
      if (FormatOf(formats, c) == 1) {
        AppendBinary(values, i, &buf);
      } else {
        columnar::AppendValue(values, i, &buf);
      }
      out.PatchInt32(len_at, static_cast<int32_t>(buf.size() - len_at - 4));
    }
    out.End();
  }
}

namespace {

int64_t GetInt(std::string_view b) {
  uint64_t u = 0;
  for (char c : b) {
    u = (u << 8) | static_cast<uint8_t>(c);
  }
  // Sign-extend from the value's width.
  const int bits = static_cast<int>(b.size()) * 8;
  if (bits < 64 && (u >> (bits - 1)) != 0) {
    u |= ~uint64_t{0} << bits;
  }
  return static_cast<int64_t>(u);
}

Status WrongLength(std::string_view type, size_t got) {
  return ProtocolViolation(fmt::format(
      "incorrect binary data format in bind parameter: {} value of {} bytes", type, got));
}

std::string FloatText(double v, bool single) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "Infinity" : "-Infinity";
  }
  return single ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
}

// "HH:MM:SS[.ffffff]" of a non-negative number of microseconds below a day (or any, for intervals).
std::string TimeText(int64_t micros) {
  int64_t seconds = micros / 1000000;
  int64_t fraction = micros % 1000000;
  std::string out =
      fmt::format("{:02}:{:02}:{:02}", seconds / 3600, (seconds / 60) % 60, seconds % 60);
  if (fraction != 0) {
    std::string f = fmt::format("{:06}", fraction);
    while (f.back() == '0') {
      f.pop_back();
    }
    out += "." + f;
  }
  return out;
}

std::string TimestampText(int64_t pg_micros) {
  int64_t micros = pg_micros + kPgEpochMicros;
  int64_t days = FloorDiv(micros, 86400LL * 1000000LL);
  int64_t of_day = micros - days * 86400LL * 1000000LL;
  std::string date = FormatDate(days);
  std::string bc;
  if (date.size() > 3 && date.compare(date.size() - 3, 3, " BC") == 0) {
    bc = " BC";
    date.resize(date.size() - 3);
  }
  return date + " " + TimeText(of_day) + bc;
}

Result<std::string> NumericTextFromBinary(std::string_view b) {
  MessageReader in(b);
  SHOAL_ASSIGN_OR_RETURN(int16_t ndigits, in.Int16());
  SHOAL_ASSIGN_OR_RETURN(int16_t weight, in.Int16());
  SHOAL_ASSIGN_OR_RETURN(int16_t sign, in.Int16());
  SHOAL_ASSIGN_OR_RETURN(int16_t dscale, in.Int16());
  const auto usign = static_cast<uint16_t>(sign);
  if (usign == 0xC000) {
    return std::string("NaN");
  }
  if (ndigits < 0 || dscale < 0 || dscale > 1000 || weight > 1000 || weight < -1000 ||
      (usign != 0 && usign != 0x4000) || in.remaining() != static_cast<size_t>(ndigits) * 2) {
    return ProtocolViolation("invalid numeric value in binary bind parameter");
  }
  std::vector<int> digits(static_cast<size_t>(ndigits));
  for (auto& d : digits) {
    SHOAL_ASSIGN_OR_RETURN(int16_t v, in.Int16());
    if (v < 0 || v > 9999) {
      return ProtocolViolation("invalid numeric digit in binary bind parameter");
    }
    d = v;
  }
  auto digit_at = [&](int w) {  // the base-10000 digit of weight w
    int idx = weight - w;
    return idx >= 0 && idx < ndigits ? digits[static_cast<size_t>(idx)] : 0;
  };
  std::string out = usign == 0x4000 ? "-" : "";
  if (weight < 0) {
    out += "0";
  } else {
    out += std::to_string(digit_at(weight));
    for (int w = weight - 1; w >= 0; --w) {
      out += fmt::format("{:04}", digit_at(w));
    }
  }
  if (dscale > 0) {
    std::string frac;
    for (int w = -1; static_cast<int>(frac.size()) < dscale; --w) {
      frac += fmt::format("{:04}", digit_at(w));
    }
    frac.resize(static_cast<size_t>(dscale));
    out += "." + frac;
  }
  return out;
}

// PostgreSQL's bytea text forms: hex ("\\x0aff") or escape (backslash + three octal digits,
// "\\\\").
Result<std::string> ByteaFromText(const std::string& text) {
  std::string out;
  if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') {
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9')
        return c - '0';
      if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
      if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
      return -1;
    };
    for (size_t i = 2; i < text.size();) {
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      int hi = nibble(text[i]);
      int lo = i + 1 < text.size() ? nibble(text[i + 1]) : -1;
      if (hi < 0 || lo < 0) {
        return Status::InvalidArgument("invalid hexadecimal data in bytea value")
            .WithSqlState("22P02");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
    return out;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' &&
               text[i + 2] >= '0' && text[i + 2] <= '7' && text[i + 3] >= '0' &&
               text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      return Status::InvalidArgument("invalid input syntax for type bytea").WithSqlState("22P02");
    }
  }
  return out;
}

// The text of a binary parameter value of type `oid`.
Result<std::string> BinaryText(uint32_t oid, std::string_view b) {
  auto need = [&](size_t n, std::string_view type) -> Status {
    return b.size() == n ? Status::OK() : WrongLength(type, b.size());
  };
  switch (oid) {
    case pg_oid::kBool:
      SHOAL_RETURN_IF_ERROR(need(1, "boolean"));
      return std::string(b[0] != 0 ? "true" : "false");
    case pg_oid::kInt2:
      SHOAL_RETURN_IF_ERROR(need(2, "smallint"));
      return std::to_string(GetInt(b));
    case pg_oid::kInt4: SHOAL_RETURN_IF_ERROR(need(4, "integer")); return std::to_string(GetInt(b));
    case pg_oid::kInt8: SHOAL_RETURN_IF_ERROR(need(8, "bigint")); return std::to_string(GetInt(b));
    case pg_oid::kFloat4: {
      SHOAL_RETURN_IF_ERROR(need(4, "real"));
      auto bits = static_cast<uint32_t>(GetInt(b));
      float f;
      std::memcpy(&f, &bits, 4);
      return FloatText(f, true);
    }
    case pg_oid::kFloat8: {
      SHOAL_RETURN_IF_ERROR(need(8, "double precision"));
      auto bits = static_cast<uint64_t>(GetInt(b));
      double d;
      std::memcpy(&d, &bits, 8);
      return FloatText(d, false);
    }
    case pg_oid::kText:
    case pg_oid::kVarchar:
    case pg_oid::kBpchar:
    case pg_oid::kName:
    case pg_oid::kUnknown: return std::string(b);
    case pg_oid::kDate: {
      SHOAL_RETURN_IF_ERROR(need(4, "date"));
      int64_t days = GetInt(b);
      if (days == INT32_MAX || days == INT32_MIN) {
        return std::string(days > 0 ? "infinity" : "-infinity");
      }
      return FormatDate(days + kPgEpochDays);
    }
    case pg_oid::kTimestamp:
    case pg_oid::kTimestampTz: {
      SHOAL_RETURN_IF_ERROR(need(8, "timestamp"));
      int64_t v = GetInt(b);
      if (v == INT64_MAX || v == INT64_MIN) {
        return std::string(v > 0 ? "infinity" : "-infinity");
      }
      return TimestampText(v) + (oid == pg_oid::kTimestampTz ? "+00" : "");
    }
    case pg_oid::kInterval: {
      SHOAL_RETURN_IF_ERROR(need(16, "interval"));
      int64_t micros = GetInt(b.substr(0, 8));
      int64_t days = GetInt(b.substr(8, 4));
      int64_t months = GetInt(b.substr(12, 4));
      std::string time = micros < 0 ? "-" + TimeText(-micros) : TimeText(micros);
      return fmt::format("{} mons {} days {}", months, days, time);
    }
    case pg_oid::kNumeric: return NumericTextFromBinary(b);
    default:
      return Status::NotImplemented("binary bind parameters of type OID {} are not supported", oid)
          .WithSqlState("0A000")
          .WithHint("send the parameter in text format");
  }
}

}  // namespace

Result<sql::QueryParameter> DecodeParameter(uint32_t oid, int16_t format,
                                            const std::optional<std::string>& value) {
  sql::QueryParameter p;
  switch (oid) {
    case pg_oid::kBool: p.type = DataType::Boolean(); break;
    case pg_oid::kInt2: p.type = DataType::Int16(); break;
    case pg_oid::kInt4: p.type = DataType::Int32(); break;
    case pg_oid::kInt8: p.type = DataType::Int64(); break;
    case pg_oid::kFloat4: p.type = DataType::Float32(); break;
    case pg_oid::kFloat8: p.type = DataType::Float64(); break;
    case pg_oid::kText:
    case pg_oid::kVarchar:
    case pg_oid::kBpchar:
    case pg_oid::kName: p.type = DataType::Utf8(); break;
    case pg_oid::kBytea: p.type = DataType::Binary(); break;
    case pg_oid::kDate: p.type = DataType::Date32(); break;
    case pg_oid::kTimestamp: p.type = DataType::Timestamp(columnar::TimeUnit::kMicro); break;
    case pg_oid::kTimestampTz:
      p.type = DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC");
      break;
    case pg_oid::kInterval: p.type = DataType::Interval(); break;
    case pg_oid::kNumeric: p.numeric = true; break;
    default: break;  // 0, unknown and types Shoal lacks: typed by their use
  }
  if (!value) {
    return p;
  }
  if (oid == pg_oid::kBytea) {
    // The bytes themselves travel (the binder's text-to-bytea cast keeps text as it is).
    if (format == 1) {
      p.text = *value;
    } else {
      SHOAL_ASSIGN_OR_RETURN(p.text, ByteaFromText(*value));
    }
    return p;
  }
  if (format == 0) {
    SHOAL_RETURN_IF_ERROR(CheckUtf8(*value, "a bind parameter"));
    p.text = *value;
    return p;
  }
  if (oid == 0) {
    return ProtocolViolation("a binary bind parameter needs its type declared in Parse");
  }
  SHOAL_ASSIGN_OR_RETURN(p.text, BinaryText(oid, *value));
  SHOAL_RETURN_IF_ERROR(CheckUtf8(*p.text, "a bind parameter"));
  return p;
}

std::string NumericBinaryFromText(std::string_view text) {
  std::string out;
  if (text == "NaN") {
    PutInt16(&out, 0);
    PutInt16(&out, 0);
    PutInt16(&out, static_cast<int16_t>(0xC000));
    PutInt16(&out, 0);
    return out;
  }
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  size_t point = text.find('.');
  std::string int_part(text.substr(0, point));
  std::string frac_part(point == std::string_view::npos ? "" : text.substr(point + 1));
  const auto dscale = static_cast<int16_t>(frac_part.size());
  // Pad both sides to whole base-10000 digits.
  int_part.insert(0, (4 - int_part.size() % 4) % 4, '0');
  frac_part.append((4 - frac_part.size() % 4) % 4, '0');
  std::vector<int16_t> digits;
  std::string all = int_part + frac_part;
  for (size_t k = 0; k < all.size(); k += 4) {
    digits.push_back(static_cast<int16_t>(std::stoi(all.substr(k, 4))));
  }
  int weight = static_cast<int>(int_part.size() / 4) - 1;
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = digits.size();
  while (last > first && digits[last - 1] == 0) {
    --last;
  }
  if (first == last) {
    weight = 0;
    negative = false;
  }
  PutInt16(&out, static_cast<int16_t>(last - first));
  PutInt16(&out, static_cast<int16_t>(weight));
  PutInt16(&out, negative ? 0x4000 : 0);
  PutInt16(&out, dscale);
  for (size_t k = first; k < last; ++k) {
    PutInt16(&out, digits[k]);
  }
  return out;
}

}  // namespace shoal::server

// arrow_interop_tool: Shoal's half of the Arrow IPC interop test against apache-arrow (JS).
//
//   arrow_interop_tool write DIR          writes IPC files (.arrow) and streams (.arrows) covering
//                                         every Shoal type, plus DIR/<name>.expected.json each
//   arrow_interop_tool read FILE OUT.json reads an IPC file or stream and writes its canonical JSON
//
// The canonical JSON form is defined in README.md beside this file; read_shoal.mjs and
// compare_json.mjs implement the same form on the JavaScript side. Expected JSON is computed from
// the in-memory batches before they are encoded, so it never depends on Shoal's IPC code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"
#include "shoal/common/result.h"
#include "shoal/common/status.h"

namespace shoal::interop {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BinaryBuilder;
using columnar::BooleanBuilder;
using columnar::Buffer;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::Field;
using columnar::FixedWidthBuilder;
using columnar::int128_t;
using columnar::KeyValueMetadata;
using columnar::MonthDayNano;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::Schema;
using columnar::SchemaPtr;
using columnar::TimeUnit;
using columnar::TypeId;
namespace ipc = columnar::ipc;

// ---------------------------------------------------------------------------------------------
// Canonical JSON

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      *out += fmt::format("\\u{:04x}", u);
    } else {
      out->push_back(c);  // UTF-8 passes through: the arrays were validated as UTF-8
    }
  }
  out->push_back('"');
}

const char* UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

const char* PrimitiveName(TypeId id) {
  switch (id) {
    case TypeId::kNull: return "null";
    case TypeId::kBoolean: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat32: return "float32";
    case TypeId::kFloat64: return "float64";
    case TypeId::kDate32: return "date32";
    case TypeId::kInterval: return "interval_mdn";
    case TypeId::kUtf8: return "utf8";
    case TypeId::kBinary: return "binary";
    default: return nullptr;
  }
}

std::string CanonicalType(const DataType& type);

// "name: type" or "name: type not null", for the children of nested types.
std::string CanonicalField(const Field& field) {
  return fmt::format("{}: {}{}", field.name, CanonicalType(field.type),
                     field.nullable ? "" : " not null");
}

// Spelled as README.md defines it, not as DataType::ToString, so that the JS side can produce the
// same text from apache-arrow's types.
std::string CanonicalType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList: return fmt::format("list<{}>", CanonicalField(type.item_field()));
    case TypeId::kLargeList:
      return fmt::format("large_list<{}>", CanonicalField(type.item_field()));
    case TypeId::kFixedSizeList:
      return fmt::format("fixed_size_list<{}, {}>", type.list_size(),
                         CanonicalField(type.item_field()));
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (int i = 0; i < type.num_fields(); ++i)
        out += (i > 0 ? ", " : "") + CanonicalField(type.field(i));
      return out + ">";
    }
    case TypeId::kMap:
      return fmt::format("map<{}{}>", CanonicalField(type.item_field()),
                         type.keys_sorted() ? ", keys_sorted" : "");
    case TypeId::kDecimal: return fmt::format("decimal({},{})", type.precision(), type.scale());
    case TypeId::kTimestamp:
      if (type.timezone().empty())
        return fmt::format("timestamp({})", UnitName(type.unit()));
      return fmt::format("timestamp({},{})", UnitName(type.unit()), type.timezone());
    case TypeId::kDictionary:
      return fmt::format("dictionary({},{}{})", PrimitiveName(type.index_type()),
                         CanonicalType(type.value_type()), type.ordered() ? ",ordered" : "");
    default: {
      const char* name = PrimitiveName(type.id());
      return name ? name : "?";
    }
  }
}

template <typename T>
std::string IntText(T v) {
  return fmt::format("{}", v);
}

// Appends the JSON token (null or a string) of element i.
Status AppendCanonicalValue(const Array& array, int64_t i, std::string* out) {
  if (array.type_id() == TypeId::kNull || array.IsNull(i)) {
    *out += "null";
    return Status::OK();
  }
  std::string text;
  switch (array.type_id()) {
    case TypeId::kNull: break;
    case TypeId::kBoolean: text = array.BoolValue(i) ? "true" : "false"; break;
    case TypeId::kInt8: text = IntText(array.Value<int8_t>(i)); break;
    case TypeId::kInt16: text = IntText(array.Value<int16_t>(i)); break;
    case TypeId::kInt32: text = IntText(array.Value<int32_t>(i)); break;
    case TypeId::kInt64: text = IntText(array.Value<int64_t>(i)); break;
    case TypeId::kUInt8: text = IntText(array.Value<uint8_t>(i)); break;
    case TypeId::kUInt16: text = IntText(array.Value<uint16_t>(i)); break;
    case TypeId::kUInt32: text = IntText(array.Value<uint32_t>(i)); break;
    case TypeId::kUInt64: text = IntText(array.Value<uint64_t>(i)); break;
    case TypeId::kFloat32: {
      uint32_t bits;
      float v = array.Value<float>(i);
      std::memcpy(&bits, &v, sizeof bits);
      text = fmt::format("{:08x}", bits);
      break;
    }
    case TypeId::kFloat64: {
      uint64_t bits;
      double v = array.Value<double>(i);
      std::memcpy(&bits, &v, sizeof bits);
      text = fmt::format("{:016x}", bits);
      break;
    }
    case TypeId::kDecimal:
      text = array.type().byte_width() == 8 ? IntText(array.Value<int64_t>(i))
                                            : columnar::Int128ToString(array.Value<int128_t>(i));
      break;
    case TypeId::kDate32: text = IntText(array.Value<int32_t>(i)); break;
    case TypeId::kTimestamp: text = IntText(array.Value<int64_t>(i)); break;
    case TypeId::kInterval: {
      MonthDayNano v = array.Value<MonthDayNano>(i);
      text = fmt::format("{},{},{}", v.months, v.days, v.nanoseconds);
      break;
    }
    case TypeId::kUtf8: AppendJsonString(array.StringValue(i), out); return Status::OK();
    case TypeId::kBinary:
      for (char c : array.StringValue(i))
        text += fmt::format("{:02x}", static_cast<unsigned char>(c));
      break;
    case TypeId::kDictionary: {
      const ArrayPtr& dict = array.dictionary();
      int64_t index = array.DictionaryIndex(i);
      if (dict == nullptr || index < 0 || index >= dict->length())
        return Status::InvalidData("dictionary index {} out of range at row {}", index, i);
      return AppendCanonicalValue(*dict, index, out);
    }
    // Nested values are JSON arrays: a list's items, a struct's fields in order, a map's
    // [key, value] entries (its entries struct).
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      *out += "[";
      for (int64_t k = array.ListStart(i); k < array.ListEnd(i); ++k) {
        if (k > array.ListStart(i))
          *out += ", ";
        SHOAL_RETURN_IF_ERROR(AppendCanonicalValue(*array.child(0), k, out));
      }
      *out += "]";
      return Status::OK();
    }
    case TypeId::kStruct: {
      *out += "[";
      for (int f = 0; f < array.num_children(); ++f) {
        if (f > 0)
          *out += ", ";
        SHOAL_RETURN_IF_ERROR(AppendCanonicalValue(*array.child(f), array.ChildRow(i), out));
      }
      *out += "]";
      return Status::OK();
    }
  }
  AppendJsonString(text, out);
  return Status::OK();
}

void AppendMetadata(const KeyValueMetadata& metadata, std::string* out) {
  *out += "{";
  for (size_t k = 0; k < metadata.size(); ++k) {
    if (k > 0)
      *out += ", ";
    AppendJsonString(metadata[k].first, out);
    *out += ": ";
    AppendJsonString(metadata[k].second, out);
  }
  *out += "}";
}

// `ipc_json`, when not empty, is a JSON object describing how the file was written; the JS reader
// checks it against what it finds on the wire.
Result<std::string> CanonicalJson(const Schema& schema, const std::vector<RecordBatchPtr>& batches,
                                  const std::string& ipc_json = "") {
  std::string out = "{\n  \"schema\": [\n";
  for (int f = 0; f < schema.num_fields(); ++f) {
    const Field& field = schema.field(f);
    out += "    {\"name\": ";
    AppendJsonString(field.name, &out);
    out += ", \"type\": ";
    AppendJsonString(CanonicalType(field.type), &out);
    out += fmt::format(", \"nullable\": {}, \"metadata\": ", field.nullable);
    AppendMetadata(field.metadata, &out);
    out += f + 1 < schema.num_fields() ? "},\n" : "}\n";
  }
  out += "  ],\n  \"metadata\": ";
  AppendMetadata(schema.metadata(), &out);
  out += ",\n  \"batches\": [";
  for (size_t b = 0; b < batches.size(); ++b) {
    const RecordBatch& batch = *batches[b];
    if (batch.num_columns() != schema.num_fields())
      return Status::InvalidData("batch {} has {} columns, schema {}", b, batch.num_columns(),
                                 schema.num_fields());
    out += b == 0 ? "\n" : ",\n";
    out += fmt::format("    {{\"num_rows\": {}, \"columns\": [", batch.num_rows());
    for (int c = 0; c < batch.num_columns(); ++c) {
      const Array& column = *batch.column(c);
      if (column.length() != batch.num_rows())
        return Status::InvalidData("batch {} column {} has {} rows, batch {}", b, c,
                                   column.length(), batch.num_rows());
      // A reader that got the null count wrong would mislead every kernel that trusts it.
      int64_t nulls = 0;
      for (int64_t i = 0; i < column.length(); ++i)
        nulls += column.IsNull(i) ? 1 : 0;
      if (column.type_id() != TypeId::kNull && nulls != column.null_count())
        return Status::InvalidData("batch {} column {}: null_count {} but {} null bits", b, c,
                                   column.null_count(), nulls);
      out += c == 0 ? "\n      [" : ",\n      [";
      for (int64_t i = 0; i < column.length(); ++i) {
        if (i > 0)
          out += ", ";
        SHOAL_RETURN_IF_ERROR(AppendCanonicalValue(column, i, &out));
      }
      out += "]";
    }
    out += batch.num_columns() > 0 ? "\n    ]}" : "]}";
  }
  out += batches.empty() ? "]" : "\n  ]";
  if (!ipc_json.empty())
    out += ",\n  \"ipc\": " + ipc_json;
  out += "\n}\n";
  return out;
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file)
    return Status::IoError("cannot write {}", path);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Test data. Every column mixes boundary values (row % 2 == 0) with scrambled ones, and nulls sit
// at a different rhythm in every column so that a swapped column or a shifted bitmap shows.

uint64_t Mix(int64_t row, int col) {
  uint64_t x = static_cast<uint64_t>(row + 1) * 0x9E3779B97F4A7C15ULL;
  x ^= static_cast<uint64_t>(col + 1) * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ULL;
}

bool NullAt(int64_t row, int col, bool with_nulls) {
  return with_nulls && (row * 7 + col * 3) % 5 == 0;
}

template <typename T>
T IntAt(int64_t row, int col) {
  const T specials[] = {std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::max(),
                        T{0},
                        static_cast<T>(-1),
                        T{1},
                        static_cast<T>(std::numeric_limits<T>::min() + 1)};
  if (row % 2 == 0)
    return specials[(row / 2) % 6];
  return static_cast<T>(Mix(row, col));
}

uint32_t Float32BitsAt(int64_t row, int col) {
  static constexpr uint32_t kSpecials[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
                                           0x7fc00000, 0x00000001, 0x7f7fffff, 0xff7fffff,
                                           0x3dcccccd, 0xffc00123, 0x3f800000, 0x00800000};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 12];
  float v = static_cast<float>(static_cast<int64_t>(Mix(row, col) % 2000001) - 1000000) / 7.0f;
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

uint64_t Float64BitsAt(int64_t row, int col) {
  static constexpr uint64_t kSpecials[] = {
      0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000,
      0x7ff8000000000000, 0x0000000000000001, 0x7fefffffffffffff, 0xffefffffffffffff,
      0x3fb999999999999a, 0xfff8000000000123, 0x3ff0000000000000, 0x0010000000000000};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 12];
  double v =
      static_cast<double>(static_cast<int64_t>(Mix(row, col) % 2000000001) - 1000000000) / 3.0;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

int128_t DecimalAt(int64_t row, int col, int precision) {
  const int128_t max = columnar::MaxUnscaled(precision);
  const int128_t specials[] = {0, 1, -1, max, -max, 100, int128_t{1} << 62, -(int128_t{1} << 62)};
  if (row % 2 == 0) {
    int128_t v = specials[(row / 2) % 8];
    if (v <= max && v >= -max)
      return v;
    return 7;
  }
  using uint128_t = unsigned __int128;
  const uint128_t wide = (static_cast<uint128_t>(Mix(row, col)) << 64) | Mix(row + 1000, col);
  const auto x = static_cast<int128_t>(wide % static_cast<uint128_t>(max + 1));
  return Mix(row, col + 99) % 2 ? -x : x;
}

int32_t DateAt(int64_t row, int col) {
  static constexpr int32_t kSpecials[] = {0, -1, 1, 18262, -719162, 2932896};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 6];
  return static_cast<int32_t>(Mix(row, col) % 200000) - 100000;
}

int64_t TimestampAt(int64_t row, int col) {
  static constexpr int64_t kSpecials[] = {0,
                                          -1,
                                          std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(),
                                          1700000000123456,
                                          -62135596800000000};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 6];
  return static_cast<int64_t>(Mix(row, col) % 4000000000000000000ULL) - 2000000000000000000LL;
}

MonthDayNano IntervalAt(int64_t row, int col) {
  static const MonthDayNano kSpecials[] = {
      {0, 0, 0},
      {1, 2, 3},
      {-1, -2, -3},
      {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
       std::numeric_limits<int64_t>::max()},
      {12, 30, 86400000000000},
      {0, 0, std::numeric_limits<int64_t>::min()}};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 6];
  uint64_t x = Mix(row, col);
  return {static_cast<int32_t>(x % 2401) - 1200, static_cast<int32_t>((x >> 16) % 61) - 30,
          static_cast<int64_t>(x >> 1) - static_cast<int64_t>(x >> 2)};
}

std::string Utf8At(int64_t row, int col) {
  static const std::string kSpecials[] = {
      "",
      "a",
      "h\xc3\xa9llo",                                       // héllo
      "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",               // 日本語
      "\xf0\x9f\xa6\x88 shoal",                             // 🦈 shoal
      "quote\" backslash\\ newline\n tab\t",                // JSON escapes
      std::string("nul\0byte \x01\x1f", 11),                // control characters
      "\xe2\x80\xa8 line separator, \xef\xbf\xbf nonchar",  // U+2028, U+FFFF
      std::string(300, 'x') + "\xc3\xa5",                   // long
  };
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 9];
  return fmt::format("row {} col {} \xe2\x9c\x93", row, col);  // ✓
}

std::string BinaryAt(int64_t row, int col) {
  static const std::string kSpecials[] = {
      "", std::string(1, '\0'), std::string("\xff\xfe\x00\x01", 4), "abc", std::string(64, '\x80')};
  if (row % 2 == 0)
    return kSpecials[(row / 2) % 5];
  std::string out;
  uint64_t x = Mix(row, col);
  for (uint64_t k = 0; k < x % 17; ++k)
    out.push_back(static_cast<char>((x >> (k % 8 * 8)) + k));
  return out;
}

template <typename T, typename Gen>
Result<ArrayPtr> BuildFixed(const DataType& type, int col, int64_t first_row, int64_t num_rows,
                            bool with_nulls, const std::shared_ptr<MemoryPool>& pool, Gen gen) {
  FixedWidthBuilder<T> builder(type, pool);
  for (int64_t row = first_row; row < first_row + num_rows; ++row) {
    if (NullAt(row, col, with_nulls)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
    } else {
      SHOAL_RETURN_IF_ERROR(builder.Append(gen(row)));
    }
  }
  return builder.Finish();
}

template <typename Gen>
Result<ArrayPtr> BuildBinary(const DataType& type, int col, int64_t first_row, int64_t num_rows,
                             bool with_nulls, const std::shared_ptr<MemoryPool>& pool, Gen gen) {
  BinaryBuilder builder(type, pool);
  for (int64_t row = first_row; row < first_row + num_rows; ++row) {
    if (NullAt(row, col, with_nulls)) {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
    } else {
      SHOAL_RETURN_IF_ERROR(builder.Append(gen(row)));
    }
  }
  return builder.Finish();
}

Result<ArrayPtr> BuildUtf8(const std::vector<std::optional<std::string>>& values,
                           const std::shared_ptr<MemoryPool>& pool) {
  BinaryBuilder builder(DataType::Utf8(), pool);
  for (const auto& v : values) {
    if (v) {
      SHOAL_RETURN_IF_ERROR(builder.Append(*v));
    } else {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
    }
  }
  return builder.Finish();
}

Result<ArrayPtr> BuildDictionaryColumn(const ArrayPtr& dictionary, int col, int64_t first_row,
                                       int64_t num_rows, bool with_nulls,
                                       const std::shared_ptr<MemoryPool>& pool) {
  const int64_t size = dictionary->length();
  SHOAL_ASSIGN_OR_RETURN(
      ArrayPtr indices,
      BuildFixed<int32_t>(DataType::Int32(), col, first_row, num_rows, with_nulls, pool,
                          [&](int64_t row) { return static_cast<int32_t>((row * 3 + 1) % size); }));
  return columnar::MakeDictionaryArray(indices, dictionary);
}

SchemaPtr AllTypesSchema() {
  const DataType dict = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  std::vector<Field> fields = {
      {"c_null", DataType::Null()},
      {"c_bool", DataType::Boolean()},
      {"c_int8", DataType::Int8()},
      {"c_int16", DataType::Int16()},
      {"c_int32", DataType::Int32()},
      {"c_int64", DataType::Int64()},
      {"c_uint8", DataType::UInt8()},
      {"c_uint16", DataType::UInt16()},
      {"c_uint32", DataType::UInt32()},
      {"c_uint64", DataType::UInt64()},
      {"c_float32", DataType::Float32()},
      {"c_float64", DataType::Float64()},
      {"c_dec15_2", DataType::Decimal(15, 2), true, {{"shoal.sql_type", "DECIMAL(15,2)"}}},
      {"c_dec18_3", DataType::Decimal(18, 3)},
      {"c_dec19_4", DataType::Decimal(19, 4)},
      {"c_dec38_10", DataType::Decimal(38, 10)},
      {"c_date32", DataType::Date32()},
      {"c_ts_s", DataType::Timestamp(TimeUnit::kSecond)},
      {"c_ts_ms", DataType::Timestamp(TimeUnit::kMilli)},
      {"c_ts_us", DataType::Timestamp(TimeUnit::kMicro)},
      {"c_ts_us_utc", DataType::Timestamp(TimeUnit::kMicro, "UTC")},
      {"c_ts_ns_ny", DataType::Timestamp(TimeUnit::kNano, "America/New_York")},
      {"c_interval", DataType::Interval()},
      {"c_utf8", DataType::Utf8()},
      {"c_binary", DataType::Binary()},
      {"c_dict", dict},
      {"c_int32_not_null", DataType::Int32(), false},
      {"c_utf8_\xc3\xa9t\xc3\xa9", DataType::Utf8()},  // a non-ASCII field name
  };
  KeyValueMetadata metadata = {
      {"shoal.interop", "1"},
      {"unicode_\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87",
       "\xd0\xb7\xd0\xbd\xd0\xb0\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd0\xb5"}};
  return std::make_shared<Schema>(std::move(fields), std::move(metadata));
}

// Rows [first_row, first_row + num_rows) of the all-types table. `dictionary` is shared by every
// batch because the file format allows one dictionary per id.
Result<ArrayPtr> BuildNested(const DataType& type, int col, int64_t first_row, int64_t num_rows,
                             bool with_nulls, const std::shared_ptr<MemoryPool>& pool);

// `col_base` is added to each field's index where the values and nulls are derived from it, so
// that the children of nested columns (built as one-field batches) differ from one another.
Result<RecordBatchPtr> AllTypesBatch(const SchemaPtr& schema, const ArrayPtr& dictionary,
                                     int64_t first_row, int64_t num_rows, bool with_nulls,
                                     const std::shared_ptr<MemoryPool>& pool, int col_base = 0) {
  std::vector<ArrayPtr> columns;
  const int64_t r = first_row;
  const int64_t n = num_rows;
  const bool z = with_nulls;
  for (int index = 0; index < schema->num_fields(); ++index) {
    const int col = index + col_base;
    const DataType& type = schema->field(index).type;
    const std::string& name = schema->field(index).name;
    Result<ArrayPtr> array = Status::Internal("no generator for column {}", name);
    switch (type.id()) {
      case TypeId::kNull: array = Array::MakeAllNull(type, n, pool); break;
      case TypeId::kBoolean: {
        BooleanBuilder builder(pool);
        for (int64_t row = r; row < r + n; ++row) {
          if (NullAt(row, col, z)) {
            SHOAL_RETURN_IF_ERROR(builder.AppendNull());
          } else {
            SHOAL_RETURN_IF_ERROR(builder.Append((row * 5 + 1) % 3 != 0));
          }
        }
        array = builder.Finish();
        break;
      }
      case TypeId::kInt8:
        array = BuildFixed<int8_t>(type, col, r, n, z, pool,
                                   [&](int64_t row) { return IntAt<int8_t>(row, col); });
        break;
      case TypeId::kInt16:
        array = BuildFixed<int16_t>(type, col, r, n, z, pool,
                                    [&](int64_t row) { return IntAt<int16_t>(row, col); });
        break;
      case TypeId::kInt32: {
        const bool nullable = schema->field(index).nullable;
        array = BuildFixed<int32_t>(type, col, r, n, z && nullable, pool,
                                    [&](int64_t row) { return IntAt<int32_t>(row, col); });
        break;
      }
      case TypeId::kInt64:
        array = BuildFixed<int64_t>(type, col, r, n, z, pool,
                                    [&](int64_t row) { return IntAt<int64_t>(row, col); });
        break;
      case TypeId::kUInt8:
        array = BuildFixed<uint8_t>(type, col, r, n, z, pool,
                                    [&](int64_t row) { return IntAt<uint8_t>(row, col); });
        break;
      case TypeId::kUInt16:
        array = BuildFixed<uint16_t>(type, col, r, n, z, pool,
                                     [&](int64_t row) { return IntAt<uint16_t>(row, col); });
        break;
      case TypeId::kUInt32:
        array = BuildFixed<uint32_t>(type, col, r, n, z, pool,
                                     [&](int64_t row) { return IntAt<uint32_t>(row, col); });
        break;
      case TypeId::kUInt64:
        array = BuildFixed<uint64_t>(type, col, r, n, z, pool,
                                     [&](int64_t row) { return IntAt<uint64_t>(row, col); });
        break;
      case TypeId::kFloat32:
        array = BuildFixed<float>(type, col, r, n, z, pool, [&](int64_t row) {
          uint32_t bits = Float32BitsAt(row, col);
          float v;
          std::memcpy(&v, &bits, sizeof v);
          return v;
        });
        break;
      case TypeId::kFloat64:
        array = BuildFixed<double>(type, col, r, n, z, pool, [&](int64_t row) {
          uint64_t bits = Float64BitsAt(row, col);
          double v;
          std::memcpy(&v, &bits, sizeof v);
          return v;
        });
        break;
      case TypeId::kDecimal:
        if (type.byte_width() == 8) {
          array = BuildFixed<int64_t>(type, col, r, n, z, pool, [&](int64_t row) {
            return static_cast<int64_t>(DecimalAt(row, col, type.precision()));
          });
        } else {
          array = BuildFixed<int128_t>(type, col, r, n, z, pool, [&](int64_t row) {
            return DecimalAt(row, col, type.precision());
          });
        }
        break;
      case TypeId::kDate32:
        array = BuildFixed<int32_t>(type, col, r, n, z, pool,
                                    [&](int64_t row) { return DateAt(row, col); });
        break;
      case TypeId::kTimestamp:
        array = BuildFixed<int64_t>(type, col, r, n, z, pool,
                                    [&](int64_t row) { return TimestampAt(row, col); });
        break;
      case TypeId::kInterval:
        array = BuildFixed<MonthDayNano>(type, col, r, n, z, pool,
                                         [&](int64_t row) { return IntervalAt(row, col); });
        break;
      case TypeId::kUtf8:
        array =
            BuildBinary(type, col, r, n, z, pool, [&](int64_t row) { return Utf8At(row, col); });
        break;
      case TypeId::kBinary:
        array =
            BuildBinary(type, col, r, n, z, pool, [&](int64_t row) { return BinaryAt(row, col); });
        break;
      case TypeId::kDictionary:
        array = BuildDictionaryColumn(dictionary, col, r, n, z, pool);
        break;
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList:
      case TypeId::kStruct:
      case TypeId::kMap:
        array = BuildNested(type, col, r, n, z && schema->field(index).nullable, pool);
        break;
    }
    if (!array.ok())
      return std::move(array).status().WithContext(fmt::format("building column {}", name));
    columns.push_back(std::move(array).value());
  }
  RecordBatchPtr batch = RecordBatch::Make(schema, n, std::move(columns));
  SHOAL_RETURN_IF_ERROR(batch->Validate());
  return batch;
}

// A column of `type` for a child field: a one-field batch of the all-types generator.
Result<ArrayPtr> BuildChild(const Field& field, int col, int64_t first_row, int64_t num_rows,
                            bool with_nulls, const std::shared_ptr<MemoryPool>& pool) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{field});
  SHOAL_ASSIGN_OR_RETURN(auto batch, AllTypesBatch(schema, nullptr, first_row, num_rows,
                                                   with_nulls && field.nullable, pool, col));
  return batch->column(0);
}

// Nested columns: list lengths 0..3 from the row (empty lists included), nulls at every level
// (the rows of null lists own no items), children built from the rows they hold.
Result<ArrayPtr> BuildNested(const DataType& type, int col, int64_t first_row, int64_t num_rows,
                             bool with_nulls, const std::shared_ptr<MemoryPool>& pool) {
  int64_t null_count = 0;
  BufferPtr validity;
  if (with_nulls) {
    SHOAL_ASSIGN_OR_RETURN(validity, Buffer::AllocateZeroed((num_rows + 7) / 8, pool));
    for (int64_t i = 0; i < num_rows; ++i) {
      if (NullAt(first_row + i, col, true))
        ++null_count;
      else
        validity->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
  }
  auto valid = [&](int64_t i) { return !with_nulls || !NullAt(first_row + i, col, true); };
  const int64_t child_first = first_row * 4 + 1000 * (col + 1);
  std::vector<ArrayPtr> children;
  std::vector<BufferPtr> buffers = {validity};
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      const bool large = type.id() == TypeId::kLargeList;
      SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets,
                             Buffer::Allocate((num_rows + 1) * (large ? 8 : 4), pool));
      int64_t total = 0;
      for (int64_t i = 0; i <= num_rows; ++i) {
        if (large)
          offsets->mutable_data_as<int64_t>()[i] = total;
        else
          offsets->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(total);
        if (i < num_rows && valid(i))
          total += static_cast<int64_t>(Mix(first_row + i, col + 7) % 4);
      }
      buffers.push_back(std::move(offsets));
      if (type.id() == TypeId::kMap) {
        SHOAL_ASSIGN_OR_RETURN(
            auto keys, BuildChild(type.key_field(), col + 1, child_first, total, false, pool));
        SHOAL_ASSIGN_OR_RETURN(auto values, BuildChild(type.value_field(), col + 2, child_first,
                                                       total, with_nulls, pool));
        children.push_back(
            Array::MakeNested(type.item_type(), total, {nullptr}, {keys, values}, 0));
      } else {
        SHOAL_ASSIGN_OR_RETURN(auto items, BuildChild(type.item_field(), col + 1, child_first,
                                                      total, with_nulls, pool));
        children.push_back(std::move(items));
      }
      break;
    }
    case TypeId::kFixedSizeList: {
      SHOAL_ASSIGN_OR_RETURN(auto items, BuildChild(type.item_field(), col + 1, child_first,
                                                    num_rows * type.list_size(), with_nulls, pool));
      children.push_back(std::move(items));
      break;
    }
    case TypeId::kStruct: {
      for (int f = 0; f < type.num_fields(); ++f) {
        SHOAL_ASSIGN_OR_RETURN(auto child, BuildChild(type.field(f), col + 1 + f, first_row,
                                                      num_rows, with_nulls, pool));
        children.push_back(std::move(child));
      }
      break;
    }
    default: return Status::Internal("BuildNested on {}", type.ToString());
  }
  ArrayPtr array =
      Array::MakeNested(type, num_rows, std::move(buffers), std::move(children), null_count);
  SHOAL_RETURN_IF_ERROR(array->Validate());
  return array;
}

// Every nested shape: list of list, list of struct, struct of list, map (also of lists), fixed
// size lists, a non-nullable item field, leaves of several types.
SchemaPtr NestedSchema() {
  const DataType point = DataType::Struct({{"x", DataType::Int32()}, {"name", DataType::Utf8()}});
  std::vector<Field> fields = {
      {"n_ints", DataType::List(DataType::Int32())},
      {"n_strings", DataType::List(Field("element", DataType::Utf8(), false))},
      {"n_matrix", DataType::List(DataType::List(DataType::Int64()))},
      {"n_points", DataType::List(point)},
      {"n_record",
       DataType::Struct({{"id", DataType::Int64(), false},
                         {"tags", DataType::List(DataType::Utf8())},
                         {"price", DataType::Decimal(15, 2)},
                         {"inner", point}}),
       true,
       {{"shoal.comment", "struct of list"}}},
      {"n_map", DataType::Map(DataType::Utf8(), DataType::Int32())},
      {"n_map_of_lists", DataType::Map(DataType::Int64(), DataType::List(DataType::Float64()))},
      {"n_fixed", DataType::FixedSizeList(DataType::Int16(), 3)},
      {"n_fixed_structs", DataType::FixedSizeList(point, 2)},
      {"n_large", DataType::LargeList(DataType::Utf8())},
      {"n_not_null", DataType::List(DataType::Date32()), false},
  };
  return std::make_shared<Schema>(std::move(fields), KeyValueMetadata{{"shoal.interop", "nested"}});
}

struct Case {
  std::string name;
  bool file_format = true;
  ipc::WriteOptions options;
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

const char* CompressionName(ipc::Compression c) {
  switch (c) {
    case ipc::Compression::kNone: return "none";
    case ipc::Compression::kLz4Frame: return "lz4_frame";
    case ipc::Compression::kZstd: return "zstd";
  }
  return "?";
}

Status WriteCase(const std::string& dir, const Case& c, int* self_check_failures) {
  const std::string path = fmt::format("{}/{}.{}", dir, c.name, c.file_format ? "arrow" : "arrows");
  {
    SHOAL_ASSIGN_OR_RETURN(auto sink, ipc::FileSink::Open(path));
    SHOAL_ASSIGN_OR_RETURN(auto writer,
                           c.file_format ? ipc::MakeFileWriter(sink.get(), c.schema, c.options)
                                         : ipc::MakeStreamWriter(sink.get(), c.schema, c.options));
    for (const auto& batch : c.batches)
      SHOAL_RETURN_IF_ERROR(writer->WriteBatch(*batch));
    SHOAL_RETURN_IF_ERROR(writer->Close());
  }
  const std::string ipc_json =
      fmt::format("{{\"format\": \"{}\", \"compression\": \"{}\", \"widen_decimal64\": {}}}",
                  c.file_format ? "file" : "stream", CompressionName(c.options.compression),
                  c.options.widen_decimal64);
  SHOAL_ASSIGN_OR_RETURN(std::string expected, CanonicalJson(*c.schema, c.batches, ipc_json));
  SHOAL_RETURN_IF_ERROR(WriteTextFile(fmt::format("{}/{}.expected.json", dir, c.name), expected));

  // Shoal reading its own output: when the JS side then fails too, this says which half is wrong.
  SHOAL_ASSIGN_OR_RETURN(std::string expected_plain, CanonicalJson(*c.schema, c.batches));
  auto read = ipc::ReadAll(path);
  std::string problem;
  if (!read.ok()) {
    problem = read.status().ToString();
  } else {
    auto actual = CanonicalJson(*read->schema, read->batches);
    if (!actual.ok())
      problem = actual.status().ToString();
    else if (*actual != expected_plain)
      problem = "canonical JSON differs from what was written";
  }
  if (!problem.empty()) {
    ++*self_check_failures;
    fmt::print(stderr, "FAIL shoal self round trip of {}: {}\n", path, problem);
  }
  fmt::print("wrote {} ({} batches)\n", path, c.batches.size());
  return Status::OK();
}

Status WriteAll(const std::string& dir) {
  const auto pool = DefaultMemoryPool();
  SchemaPtr schema = AllTypesSchema();
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr dictionary, BuildUtf8({"alpha", "\xce\xb2\x65ta", std::nullopt,
                                                         "", "\xe3\x82\xac\xe3\x83\xb3\xe3\x83\x9e",
                                                         "delta \xf0\x9f\xa6\x88"},
                                                        pool));

  std::vector<RecordBatchPtr> batches;
  // 17 rows: bitmaps end inside a byte.
  SHOAL_ASSIGN_OR_RETURN(auto b0, AllTypesBatch(schema, dictionary, 0, 17, true, pool));
  batches.push_back(b0);
  SHOAL_ASSIGN_OR_RETURN(auto b1, AllTypesBatch(schema, dictionary, 50, 0, true, pool));
  batches.push_back(b1);
  // A slice at a non-byte-aligned offset: the writer must shift bitmaps and rebase offsets.
  SHOAL_ASSIGN_OR_RETURN(auto big, AllTypesBatch(schema, dictionary, 100, 23, true, pool));
  batches.push_back(big->Slice(5, 11));
  // No nulls at all: no validity bitmaps.
  SHOAL_ASSIGN_OR_RETURN(auto b3, AllTypesBatch(schema, dictionary, 200, 9, false, pool));
  batches.push_back(b3);

  std::vector<Case> cases;
  for (bool file_format : {true, false}) {
    for (auto compression :
         {ipc::Compression::kNone, ipc::Compression::kLz4Frame, ipc::Compression::kZstd}) {
      Case c;
      c.name = fmt::format("shoal_all_types_{}_{}", file_format ? "file" : "stream",
                           CompressionName(compression));
      c.file_format = file_format;
      c.options.compression = compression;
      c.schema = schema;
      c.batches = batches;
      cases.push_back(std::move(c));
    }
  }
  {
    Case c;
    c.name = "shoal_all_types_file_widened";
    c.options.widen_decimal64 = true;
    c.schema = schema;
    c.batches = batches;
    cases.push_back(std::move(c));
  }
  for (bool file_format : {true, false}) {
    Case c;
    c.name = fmt::format("shoal_no_batches_{}", file_format ? "file" : "stream");
    c.file_format = file_format;
    c.schema = schema;
    cases.push_back(std::move(c));
  }
  {
    // Stream format: a later batch with a different dictionary must be sent as a replacement.
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr dict_a, BuildUtf8({"x", "y", "z"}, pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr dict_b, BuildUtf8({"zz", "yy", std::nullopt, "ww"}, pool));
    auto dict_schema = std::make_shared<Schema>(
        std::vector<Field>{{"id", DataType::Int64(), false},
                           {"d", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())}});
    Case c;
    c.name = "shoal_dict_replacement_stream";
    c.file_format = false;
    c.schema = dict_schema;
    int64_t next_id = 0;
    for (const ArrayPtr& dict : {dict_a, dict_b, dict_b, dict_a}) {
      const int64_t n = 6;
      SHOAL_ASSIGN_OR_RETURN(auto ids, BuildFixed<int64_t>(DataType::Int64(), 0, next_id, n, false,
                                                           pool, [](int64_t row) { return row; }));
      SHOAL_ASSIGN_OR_RETURN(auto d, BuildDictionaryColumn(dict, 1, next_id, n, true, pool));
      c.batches.push_back(RecordBatch::Make(dict_schema, n, {ids, d}));
      next_id += n;
    }
    cases.push_back(std::move(c));
  }

  {
    SchemaPtr nested = NestedSchema();
    std::vector<RecordBatchPtr> nested_batches;
    SHOAL_ASSIGN_OR_RETURN(auto n0, AllTypesBatch(nested, nullptr, 0, 19, true, pool));
    nested_batches.push_back(n0);
    SHOAL_ASSIGN_OR_RETURN(auto n1, AllTypesBatch(nested, nullptr, 30, 0, true, pool));
    nested_batches.push_back(n1);
    // A slice at a non-byte-aligned offset: list offsets rebased, children cut to the slice.
    SHOAL_ASSIGN_OR_RETURN(auto n2, AllTypesBatch(nested, nullptr, 60, 29, true, pool));
    nested_batches.push_back(n2->Slice(5, 17));
    SHOAL_ASSIGN_OR_RETURN(auto n3, AllTypesBatch(nested, nullptr, 90, 7, false, pool));
    nested_batches.push_back(n3);
    for (bool file_format : {true, false}) {
      for (auto compression : {ipc::Compression::kNone, ipc::Compression::kZstd}) {
        Case c;
        c.name = fmt::format("shoal_nested_{}_{}", file_format ? "file" : "stream",
                             CompressionName(compression));
        c.file_format = file_format;
        c.options.compression = compression;
        c.schema = nested;
        c.batches = nested_batches;
        cases.push_back(std::move(c));
      }
    }
  }

  int self_check_failures = 0;
  for (const Case& c : cases)
    SHOAL_RETURN_IF_ERROR(WriteCase(dir, c, &self_check_failures).WithContext(c.name));
  if (self_check_failures > 0)
    return Status::InvalidData("{} files did not survive Shoal's own round trip",
                               self_check_failures);
  return Status::OK();
}

Status ReadOne(const std::string& path, const std::string& out_path) {
  SHOAL_ASSIGN_OR_RETURN(auto read, ipc::ReadAll(path));
  for (size_t b = 0; b < read.batches.size(); ++b)
    SHOAL_RETURN_IF_ERROR(read.batches[b]->Validate().WithContext(fmt::format("batch {}", b)));
  SHOAL_ASSIGN_OR_RETURN(std::string json, CanonicalJson(*read.schema, read.batches));
  return WriteTextFile(out_path, json);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Status status;
  if (args.size() == 2 && args[0] == "write") {
    status = WriteAll(args[1]);
  } else if (args.size() == 3 && args[0] == "read") {
    status = ReadOne(args[1], args[2]).WithContext(fmt::format("reading {}", args[1]));
  } else {
    fmt::print(stderr, "usage: {} write DIR | read FILE OUT.json\n", argc > 0 ? argv[0] : "tool");
    return 2;
  }
  if (!status.ok()) {
    fmt::print(stderr, "arrow_interop_tool: {}\n", status.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace shoal::interop

int main(int argc, char** argv) {
  return shoal::interop::Main(argc, argv);
}

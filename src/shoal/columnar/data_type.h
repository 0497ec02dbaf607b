// DataType: the logical types of Shoal's columnar core, one-to-one with Arrow types so that record
// batches cross the wire and reach disk in Arrow IPC without re-encoding.
//
// A DataType is a small value (copy it freely at plan time; hot loops switch on id() once per
// batch, never per row). Physical layout per type, as in the Arrow columnar format:
//   null                        no buffers
//   boolean                     validity bitmap, value bitmap
//   int*/uint*/float*/date32    validity, values (1..8 bytes each)
//   decimal(p, s)               validity, values: int64 when p <= 18, int128 otherwise (see below)
//   timestamp(unit, tz)         validity, int64 values since the Unix epoch in UTC
//   interval (month-day-nano)   validity, 16-byte {int32 months, int32 days, int64 nanoseconds}
//   utf8 / binary               validity, int32 offsets (length + 1), data bytes
//   dictionary(index, value)    validity, integer indices; values in a separate dictionary array
//   list<item>                  validity, int32 offsets (length + 1); one child array of items
//   large_list<item>            validity, int64 offsets (length + 1); one child array of items
//   fixed_size_list<item, n>    validity; one child array, element i is items [i*n, (i+1)*n)
//   struct<fields...>           validity; one child array per field, row i of each is element i
//   map<key, value>             as list, whose one child is a non-null struct<key, value> of
//                               entries ("entries"; keys never null)
//
// Nested types hold their children as Fields (name, type, nullability, metadata). Children of a
// sliced nested array are not sliced: the parent's offset indexes its offsets (lists, maps), its
// item range (fixed-size lists) or the children's rows (structs), as in Arrow.
//
// Decimals of precision <= 18 use 64-bit storage (Arrow's Decimal64 layout, bitWidth 64) because
// int64 arithmetic is several times faster than 128-bit arithmetic and halves memory and wire
// bytes; TPC-H money columns are decimal(15,2). Wider decimals use Arrow's Decimal128 layout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::columnar {

enum class TypeId : uint8_t {
  kNull = 0,
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDecimal,
  kDate32,
  kTimestamp,
  kInterval,
  kUtf8,
  kBinary,
  kDictionary,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
  kMap,
};

enum class TimeUnit : uint8_t { kSecond = 0, kMilli = 1, kMicro = 2, kNano = 3 };

/// Calendar interval with Arrow's MONTH_DAY_NANO layout (16 bytes, little-endian).
struct MonthDayNano {
  int32_t months;
  int32_t days;
  int64_t nanoseconds;
  friend bool operator==(const MonthDayNano&, const MonthDayNano&) = default;
};

static_assert(sizeof(MonthDayNano) == 16);

struct Field;
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

class DataType {
 public:
  static constexpr int kMaxDecimalPrecision = 38;
  static constexpr int kMaxDecimal64Precision = 18;

  DataType() = default;  // null type

  static DataType Null() { return DataType(TypeId::kNull); }

  static DataType Boolean() { return DataType(TypeId::kBoolean); }

  static DataType Int8() { return DataType(TypeId::kInt8); }

  static DataType Int16() { return DataType(TypeId::kInt16); }

  static DataType Int32() { return DataType(TypeId::kInt32); }

  static DataType Int64() { return DataType(TypeId::kInt64); }

  static DataType UInt8() { return DataType(TypeId::kUInt8); }

  static DataType UInt16() { return DataType(TypeId::kUInt16); }

  static DataType UInt32() { return DataType(TypeId::kUInt32); }

  static DataType UInt64() { return DataType(TypeId::kUInt64); }

  static DataType Float32() { return DataType(TypeId::kFloat32); }

  static DataType Float64() { return DataType(TypeId::kFloat64); }

  static DataType Date32() { return DataType(TypeId::kDate32); }

  static DataType Utf8() { return DataType(TypeId::kUtf8); }

  static DataType Binary() { return DataType(TypeId::kBinary); }

  static DataType Interval() { return DataType(TypeId::kInterval); }

  /// Precision 1..38, scale 0..precision. Invalid arguments are a bug in the caller; user-supplied
  /// values go through MakeDecimal.
  static DataType Decimal(int precision, int scale);
  static Result<DataType> MakeDecimal(int precision, int scale);
  /// `timezone` empty: a timestamp without time zone (wall-clock); otherwise an instant in UTC
  /// displayed in that zone.
  static DataType Timestamp(TimeUnit unit = TimeUnit::kMicro, std::string timezone = "");
  /// `index` must be an integer type id.
  static DataType Dictionary(TypeId index, const DataType& value, bool ordered = false);

  /// Nested types. The list kinds take their item field (conventionally named "item"); Map
  /// takes its key and value fields and builds the entries struct (keys are made non-null).
  static DataType List(Field item);
  static DataType List(const DataType& item);
  static DataType LargeList(Field item);
  static DataType LargeList(const DataType& item);
  /// `list_size` >= 0; a negative size is a bug in the caller (outside bytes go through
  /// MakeFixedSizeList).
  static DataType FixedSizeList(Field item, int32_t list_size);
  static DataType FixedSizeList(const DataType& item, int32_t list_size);
  static Result<DataType> MakeFixedSizeList(Field item, int32_t list_size);
  static DataType Struct(std::vector<Field> fields);
  static DataType Map(Field key, Field value, bool keys_sorted = false);
  static DataType Map(const DataType& key, const DataType& value, bool keys_sorted = false);
  /// A map from its entries field (a struct of two fields, the first the key). InvalidData when
  /// `entries` is not such a struct or its key is nullable.
  static Result<DataType> MakeMap(Field entries, bool keys_sorted);

  TypeId id() const { return id_; }

  int precision() const { return precision_; }

  int scale() const { return scale_; }

  TimeUnit unit() const { return unit_; }

  const std::string& timezone() const { return timezone_; }

  /// Dictionary types only.
  TypeId index_type() const { return index_; }

  const DataType& value_type() const;

  /// The type of the values a column holds: a dictionary's value type, any other type itself.
  /// Kernels, accumulators and encoders that decode dictionaries work in this type.
  const DataType& decoded_type() const { return id_ == TypeId::kDictionary ? value_type() : *this; }

  bool ordered() const { return ordered_; }

  /// Nested types: the child fields (one for the list kinds and maps, one per struct field).
  int num_fields() const;
  const Field& field(int i) const;
  const std::vector<Field>& fields() const;
  /// List kinds: the item field / type. Maps: the entries struct.
  const Field& item_field() const { return field(0); }

  const DataType& item_type() const;

  /// Fixed-size lists only.
  int32_t list_size() const { return list_size_; }

  /// Maps only: the key and value fields of the entries struct, and whether keys are sorted.
  const Field& key_field() const;
  const Field& value_field() const;

  bool keys_sorted() const { return ordered_; }

  bool is_nested() const { return IsNestedId(id_); }

  /// List, LargeList or Map: an offsets buffer and one child.
  bool is_list_like() const {
    return id_ == TypeId::kList || id_ == TypeId::kLargeList || id_ == TypeId::kMap;
  }

  /// Bits per value of the values buffer: 1 for boolean, 0 for null and variable-length types.
  int bit_width() const;

  int byte_width() const { return bit_width() / 8; }

  bool is_fixed_width() const { return bit_width() > 0; }

  bool is_integer() const { return IsIntegerId(id_); }

  bool is_binary_like() const { return id_ == TypeId::kUtf8 || id_ == TypeId::kBinary; }

  /// Number of buffers in the Arrow layout, including the validity bitmap.
  int num_buffers() const;

  /// Readable name: "int32", "decimal(15,2)", "timestamp[us, tz=UTC]", "dictionary<int32, utf8>";
  /// nested types as DuckDB spells them: "int32[]", "int32[3]" (fixed size), "large int32[]",
  /// "struct(a int32, b utf8)", "map(utf8, int32)".
  std::string ToString() const;

  friend bool operator==(const DataType& a, const DataType& b);

  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

  static bool IsIntegerId(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }

  static bool IsNestedId(TypeId id) { return id >= TypeId::kList && id <= TypeId::kMap; }

 private:
  explicit DataType(TypeId id) : id_(id) {}

  TypeId id_ = TypeId::kNull;
  uint8_t precision_ = 0;
  uint8_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kMicro;
  TypeId index_ = TypeId::kInt32;
  bool ordered_ = false;
  int32_t list_size_ = 0;
  std::string timezone_;
  std::shared_ptr<const DataType> value_;               // dictionary value type
  std::shared_ptr<const std::vector<Field>> children_;  // nested types
};

struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  KeyValueMetadata metadata;

  Field() = default;

  Field(std::string name, DataType type, bool nullable = true, KeyValueMetadata metadata = {})
      : name(std::move(name)),
        type(std::move(type)),
        nullable(nullable),
        metadata(std::move(metadata)) {}

  std::string ToString() const;
  friend bool operator==(const Field&, const Field&) = default;
};

/// Name of a type id as in DataType::ToString ("int32").
const char* TypeIdName(TypeId id);

}  // namespace shoal::columnar

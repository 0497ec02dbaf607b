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
//
// Decimals of precision <= 18 use 64-bit storage (Arrow's Decimal64 layout, bitWidth 64) because
// int64 arithmetic is several times faster than 128-bit arithmetic and halves memory and wire
// bytes; TPC-H money columns are decimal(15,2). Wider decimals use Arrow's Decimal128 layout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

  /// Bits per value of the values buffer: 1 for boolean, 0 for null and variable-length types.
  int bit_width() const;

  int byte_width() const { return bit_width() / 8; }

  bool is_fixed_width() const { return bit_width() > 0; }

  bool is_integer() const { return IsIntegerId(id_); }

  bool is_binary_like() const { return id_ == TypeId::kUtf8 || id_ == TypeId::kBinary; }

  /// Number of buffers in the Arrow layout, including the validity bitmap.
  int num_buffers() const;

  /// Readable name: "int32", "decimal(15,2)", "timestamp[us, tz=UTC]", "dictionary<int32, utf8>".
  std::string ToString() const;

  friend bool operator==(const DataType& a, const DataType& b);

  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

  static bool IsIntegerId(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }

 private:
  explicit DataType(TypeId id) : id_(id) {}

  TypeId id_ = TypeId::kNull;
  uint8_t precision_ = 0;
  uint8_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kMicro;
  TypeId index_ = TypeId::kInt32;
  bool ordered_ = false;
  std::string timezone_;
  std::shared_ptr<const DataType> value_;  // dictionary value type
};

/// Name of a type id as in DataType::ToString ("int32").
const char* TypeIdName(TypeId id);

}  // namespace shoal::columnar

// Scalar: one typed value outside an array — SQL literals, constant-folded results, aggregate
// results before they are put into a column, partition bounds, plan parameters.
//
// Plans and the binder use scalars; hot loops never do (they read arrays). The representation is a
// small tagged value: integers, decimals, dates and timestamps keep their exact physical value
// (int64 or int128 unscaled), floats a double, strings and binaries their bytes.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "shoal/columnar/array.h"
#include "shoal/columnar/decimal.h"

namespace shoal::columnar {

class Scalar {
 public:
  /// A NULL of the given type (the default: NULL of the null type).
  explicit Scalar(DataType type = DataType::Null()) : type_(std::move(type)) {}

  static Scalar Boolean(bool v) {
    return Scalar(DataType::Boolean(), Storage(static_cast<int64_t>(v)));
  }
  static Scalar Int32(int32_t v) {
    return Scalar(DataType::Int32(), Storage(static_cast<int64_t>(v)));
  }
  static Scalar Int64(int64_t v) { return Scalar(DataType::Int64(), Storage(v)); }
  static Scalar Float64(double v) { return Scalar(DataType::Float64(), Storage(v)); }
  static Scalar Utf8(std::string v) { return Scalar(DataType::Utf8(), Storage(std::move(v))); }
  static Scalar Binary(std::string v) { return Scalar(DataType::Binary(), Storage(std::move(v))); }
  static Scalar Date32(int32_t days) {
    return Scalar(DataType::Date32(), Storage(static_cast<int64_t>(days)));
  }
  /// `unscaled` at the type's scale.
  static Scalar Decimal(int128_t unscaled, int precision, int scale) {
    return Scalar(DataType::Decimal(precision, scale), Storage(unscaled));
  }
  static Scalar Timestamp(int64_t value, TimeUnit unit = TimeUnit::kMicro, std::string tz = "") {
    return Scalar(DataType::Timestamp(unit, std::move(tz)), Storage(value));
  }
  static Scalar Interval(MonthDayNano v) { return Scalar(DataType::Interval(), Storage(v)); }
  /// Any integer-like type (int*, uint*, date32, timestamp) from its int64 physical value.
  static Scalar FromInt(DataType type, int64_t v) { return Scalar(std::move(type), Storage(v)); }
  static Scalar FromFloat(DataType type, double v) { return Scalar(std::move(type), Storage(v)); }

  /// Element i of an array (dictionary arrays are decoded; nested values keep a one-element
  /// slice of the array).
  static Scalar FromArray(const Array& array, int64_t i);

  /// A list, struct or map value: one element of an array, compared by value.
  struct NestedValue {
    ArrayPtr array;
    friend bool operator==(const NestedValue& a, const NestedValue& b);
  };

  const DataType& type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }

  /// Physical accessors; the caller knows the type.
  bool bool_value() const { return std::get<int64_t>(value_) != 0; }
  int64_t int_value() const { return std::get<int64_t>(value_); }
  double float_value() const { return std::get<double>(value_); }
  int128_t decimal_value() const { return std::get<int128_t>(value_); }
  const std::string& string_value() const { return std::get<std::string>(value_); }
  MonthDayNano interval_value() const { return std::get<MonthDayNano>(value_); }

  /// Nested types: the value as an array of one element.
  const ArrayPtr& nested_value() const { return std::get<NestedValue>(value_).array; }

  /// An array of `length` copies of this value.
  Result<ArrayPtr> MakeArray(int64_t length, const std::shared_ptr<MemoryPool>& pool) const;

  /// The value as psql prints it ("NULL" for nulls); also SQL-literal-like for EXPLAIN.
  std::string ToString() const;

  friend bool operator==(const Scalar& a, const Scalar& b) {
    return a.type_ == b.type_ && a.value_ == b.value_;
  }

 private:
  using Storage = std::variant<std::monostate, int64_t, double, int128_t, std::string, MonthDayNano,
                               NestedValue>;
  Scalar(DataType type, Storage value) : type_(std::move(type)), value_(std::move(value)) {}

  DataType type_;
  Storage value_;
};

}  // namespace shoal::columnar

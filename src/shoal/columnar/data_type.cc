#include "shoal/columnar/data_type.h"

#include "shoal/common/check.h"

namespace shoal::columnar {

const char* TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kNull: return "null";
    case TypeId::kBoolean: return "boolean";
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
    case TypeId::kDecimal: return "decimal";
    case TypeId::kDate32: return "date32";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kInterval: return "interval";
    case TypeId::kUtf8: return "utf8";
    case TypeId::kBinary: return "binary";
    case TypeId::kDictionary: return "dictionary";
  }
  return "unknown";
}

DataType DataType::Decimal(int precision, int scale) {
  auto result = MakeDecimal(precision, scale);
  SHOAL_CHECK(result.ok(), "{}", result.status().ToString());
  return std::move(result).value();
}

Result<DataType> DataType::MakeDecimal(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    return Status::InvalidArgument("decimal precision {} is out of range 1..{}", precision,
                                   kMaxDecimalPrecision);
  }
  if (scale < 0 || scale > precision) {
    return Status::InvalidArgument("decimal scale {} is out of range 0..{} (the precision)", scale,
                                   precision);
  }
  DataType t(TypeId::kDecimal);
  t.precision_ = static_cast<uint8_t>(precision);
  t.scale_ = static_cast<uint8_t>(scale);
  return t;
}

DataType DataType::Timestamp(TimeUnit unit, std::string timezone) {
  DataType t(TypeId::kTimestamp);
  t.unit_ = unit;
  t.timezone_ = std::move(timezone);
  return t;
}

DataType DataType::Dictionary(TypeId index, const DataType& value, bool ordered) {
  SHOAL_CHECK(IsIntegerId(index), "dictionary index type must be an integer, got {}",
              TypeIdName(index));
  SHOAL_CHECK(value.id() != TypeId::kDictionary, "nested dictionaries are not supported");
  DataType t(TypeId::kDictionary);
  t.index_ = index;
  t.ordered_ = ordered;
  t.value_ = std::make_shared<const DataType>(value);
  return t;
}

const DataType& DataType::value_type() const {
  SHOAL_CHECK(id_ == TypeId::kDictionary, "value_type() of non-dictionary type {}", ToString());
  return *value_;
}

int DataType::bit_width() const {
  switch (id_) {
    case TypeId::kBoolean: return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8: return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16: return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32: return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp: return 64;
    case TypeId::kDecimal: return precision_ <= kMaxDecimal64Precision ? 64 : 128;
    case TypeId::kInterval: return 128;
    case TypeId::kDictionary: return DataType(index_).bit_width();
    case TypeId::kNull:
    case TypeId::kUtf8:
    case TypeId::kBinary: return 0;
  }
  return 0;
}

int DataType::num_buffers() const {
  switch (id_) {
    case TypeId::kNull: return 0;
    case TypeId::kUtf8:
    case TypeId::kBinary: return 3;
    default: return 2;
  }
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kDecimal: return fmt::format("decimal({},{})", precision_, scale_);
    case TypeId::kTimestamp: {
      const char* units[] = {"s", "ms", "us", "ns"};
      std::string s = fmt::format("timestamp[{}", units[static_cast<int>(unit_)]);
      if (!timezone_.empty())
        s += ", tz=" + timezone_;
      return s + "]";
    }
    case TypeId::kDictionary:
      return fmt::format("dictionary<{}, {}>", TypeIdName(index_), value_->ToString());
    default: return TypeIdName(id_);
  }
}

bool operator==(const DataType& a, const DataType& b) {
  if (a.id_ != b.id_)
    return false;
  switch (a.id_) {
    case TypeId::kDecimal: return a.precision_ == b.precision_ && a.scale_ == b.scale_;
    case TypeId::kTimestamp: return a.unit_ == b.unit_ && a.timezone_ == b.timezone_;
    case TypeId::kDictionary:
      return a.index_ == b.index_ && a.ordered_ == b.ordered_ && *a.value_ == *b.value_;
    default: return true;
  }
}

}  // namespace shoal::columnar

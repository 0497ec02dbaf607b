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
    case TypeId::kList: return "list";
    case TypeId::kLargeList: return "large_list";
    case TypeId::kFixedSizeList: return "fixed_size_list";
    case TypeId::kStruct: return "struct";
    case TypeId::kMap: return "map";
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

DataType DataType::List(Field item) {
  DataType t(TypeId::kList);
  t.children_ = std::make_shared<const std::vector<Field>>(std::vector<Field>{std::move(item)});
  return t;
}

DataType DataType::List(const DataType& item) {
  return List(Field("item", item));
}

DataType DataType::LargeList(Field item) {
  DataType t(TypeId::kLargeList);
  t.children_ = std::make_shared<const std::vector<Field>>(std::vector<Field>{std::move(item)});
  return t;
}

DataType DataType::LargeList(const DataType& item) {
  return LargeList(Field("item", item));
}

Result<DataType> DataType::MakeFixedSizeList(Field item, int32_t list_size) {
  if (list_size < 0)
    return Status::InvalidData("fixed-size list of negative size {}", list_size);
  DataType t(TypeId::kFixedSizeList);
  t.list_size_ = list_size;
  t.children_ = std::make_shared<const std::vector<Field>>(std::vector<Field>{std::move(item)});
  return t;
}

DataType DataType::FixedSizeList(Field item, int32_t list_size) {
  auto result = MakeFixedSizeList(std::move(item), list_size);
  SHOAL_CHECK(result.ok(), "{}", result.status().ToString());
  return std::move(result).value();
}

DataType DataType::FixedSizeList(const DataType& item, int32_t list_size) {
  return FixedSizeList(Field("item", item), list_size);
}

DataType DataType::Struct(std::vector<Field> fields) {
  DataType t(TypeId::kStruct);
  t.children_ = std::make_shared<const std::vector<Field>>(std::move(fields));
  return t;
}

Result<DataType> DataType::MakeMap(Field entries, bool keys_sorted) {
  if (entries.type.id() != TypeId::kStruct || entries.type.num_fields() != 2) {
    return Status::InvalidData("a map's entries must be a struct of a key and a value, not {}",
                               entries.type.ToString());
  }
  if (entries.type.field(0).nullable)
    return Status::InvalidData("a map's key field '{}' is nullable", entries.type.field(0).name);
  DataType t(TypeId::kMap);
  t.ordered_ = keys_sorted;
  t.children_ = std::make_shared<const std::vector<Field>>(std::vector<Field>{std::move(entries)});
  return t;
}

DataType DataType::Map(Field key, Field value, bool keys_sorted) {
  key.nullable = false;
  Field entries("entries", Struct({std::move(key), std::move(value)}), false);
  auto result = MakeMap(std::move(entries), keys_sorted);
  SHOAL_CHECK(result.ok(), "{}", result.status().ToString());
  return std::move(result).value();
}

DataType DataType::Map(const DataType& key, const DataType& value, bool keys_sorted) {
  return Map(Field("key", key, false), Field("value", value), keys_sorted);
}

int DataType::num_fields() const {
  return children_ ? static_cast<int>(children_->size()) : 0;
}

const Field& DataType::field(int i) const {
  SHOAL_CHECK(children_ && i >= 0 && i < num_fields(), "field({}) of {}", i, ToString());
  return (*children_)[static_cast<size_t>(i)];
}

const std::vector<Field>& DataType::fields() const {
  static const std::vector<Field> kNone;
  return children_ ? *children_ : kNone;
}

const DataType& DataType::item_type() const {
  return field(0).type;
}

const Field& DataType::key_field() const {
  SHOAL_CHECK(id_ == TypeId::kMap, "key_field() of {}", ToString());
  return field(0).type.field(0);
}

const Field& DataType::value_field() const {
  SHOAL_CHECK(id_ == TypeId::kMap, "value_field() of {}", ToString());
  return field(0).type.field(1);
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
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return 0;
  }
  return 0;
}

int DataType::num_buffers() const {
  switch (id_) {
    case TypeId::kNull: return 0;
    case TypeId::kUtf8:
    case TypeId::kBinary: return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: return 1;
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
    case TypeId::kList: return item_type().ToString() + "[]";
    case TypeId::kLargeList: return "large " + item_type().ToString() + "[]";
    case TypeId::kFixedSizeList: return fmt::format("{}[{}]", item_type().ToString(), list_size_);
    case TypeId::kStruct: {
      std::string s = "struct(";
      for (size_t i = 0; i < children_->size(); ++i) {
        if (i > 0)
          s += ", ";
        s += (*children_)[i].name + " " + (*children_)[i].type.ToString();
      }
      return s + ")";
    }
    case TypeId::kMap:
      return fmt::format("map({}, {})", key_field().type.ToString(), value_field().type.ToString());
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
    // The item field's name is a convention ("item", "element", "entries") that differs between
    // writers, so lists and maps compare their children by type and nullability only; struct
    // field names are part of the type.
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      return a.list_size_ == b.list_size_ && a.item_field().nullable == b.item_field().nullable &&
             a.item_type() == b.item_type();
    case TypeId::kMap:
      return a.ordered_ == b.ordered_ && a.key_field().type == b.key_field().type &&
             a.value_field().nullable == b.value_field().nullable &&
             a.value_field().type == b.value_field().type;
    case TypeId::kStruct: {
      if (a.num_fields() != b.num_fields())
        return false;
      for (int i = 0; i < a.num_fields(); ++i) {
        const Field& x = a.field(i);
        const Field& y = b.field(i);
        if (x.name != y.name || x.nullable != y.nullable || x.type != y.type)
          return false;
      }
      return true;
    }
    default: return true;
  }
}

}  // namespace shoal::columnar

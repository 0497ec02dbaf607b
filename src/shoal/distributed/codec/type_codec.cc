#include "shoal/distributed/codec/type_codec.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace shoal::distributed {

using columnar::DataType;
using columnar::TypeId;

namespace {

// The physical representation of a scalar follows from its type (scalar.h).
enum class ScalarStorage { kInt, kFloat, kDecimal, kString, kInterval, kNested, kNone };

ScalarStorage StorageOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull: return ScalarStorage::kNone;
    case TypeId::kFloat32:
    case TypeId::kFloat64: return ScalarStorage::kFloat;
    case TypeId::kDecimal: return ScalarStorage::kDecimal;
    case TypeId::kUtf8:
    case TypeId::kBinary: return ScalarStorage::kString;
    case TypeId::kInterval: return ScalarStorage::kInterval;
    case TypeId::kDictionary: return StorageOf(type.value_type());
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return ScalarStorage::kNested;
    default: return ScalarStorage::kInt;
  }
}

}  // namespace

void EncodeType(const DataType& type, proto::DataTypeProto* out) {
  out->set_id(static_cast<uint32_t>(type.id()));
  switch (type.id()) {
    case TypeId::kDecimal:
      out->set_precision(type.precision());
      out->set_scale(type.scale());
      break;
    case TypeId::kTimestamp:
      out->set_unit(static_cast<uint32_t>(type.unit()));
      out->set_timezone(type.timezone());
      break;
    case TypeId::kDictionary:
      out->set_index_type(static_cast<uint32_t>(type.index_type()));
      EncodeType(type.value_type(), out->mutable_value_type());
      out->set_ordered(type.ordered());
      break;
    default: break;
  }
}

Result<DataType> DecodeType(const proto::DataTypeProto& in, int depth) {
  SHOAL_ASSIGN_OR_RETURN(TypeId id, CheckedEnum(in.id(), TypeId::kMap, "type id"));
  switch (id) {
    case TypeId::kNull: return DataType::Null();
    case TypeId::kBoolean: return DataType::Boolean();
    case TypeId::kInt8: return DataType::Int8();
    case TypeId::kInt16: return DataType::Int16();
    case TypeId::kInt32: return DataType::Int32();
    case TypeId::kInt64: return DataType::Int64();
    case TypeId::kUInt8: return DataType::UInt8();
    case TypeId::kUInt16: return DataType::UInt16();
    case TypeId::kUInt32: return DataType::UInt32();
    case TypeId::kUInt64: return DataType::UInt64();
    case TypeId::kFloat32: return DataType::Float32();
    case TypeId::kFloat64: return DataType::Float64();
    case TypeId::kDecimal: return DataType::MakeDecimal(in.precision(), in.scale());
    case TypeId::kDate32: return DataType::Date32();
    case TypeId::kTimestamp: {
      SHOAL_ASSIGN_OR_RETURN(auto unit,
                             CheckedEnum(in.unit(), columnar::TimeUnit::kNano, "time unit"));
      return DataType::Timestamp(unit, in.timezone());
    }
    case TypeId::kInterval: return DataType::Interval();
    case TypeId::kUtf8: return DataType::Utf8();
    case TypeId::kBinary: return DataType::Binary();
    case TypeId::kDictionary: {
      if (depth > 0 || !in.has_value_type())
        return Status::InvalidData("encoded plan: malformed dictionary type");
      SHOAL_ASSIGN_OR_RETURN(
          auto index, CheckedEnum(in.index_type(), TypeId::kDictionary, "dictionary index type"));
      if (!DataType::IsIntegerId(index))
        return Status::InvalidData("encoded plan: dictionary index type is not an integer");
      SHOAL_ASSIGN_OR_RETURN(DataType value, DecodeType(in.value_type(), depth + 1));
      return DataType::Dictionary(index, value, in.ordered());
    }
    // EncodeType writes only the id of a nested type, so plans holding one are refused here
    // rather than decoded without their children.
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
      return Status::NotImplemented("encoded plan: {} types cannot cross the network yet",
                                    columnar::TypeIdName(id));
  }
  return Status::InvalidData("encoded plan: type id {}", in.id());
}

void EncodeScalar(const columnar::Scalar& value, proto::ScalarProto* out) {
  EncodeType(value.type(), out->mutable_type());
  if (value.is_null())
    return;
  switch (StorageOf(value.type())) {
    case ScalarStorage::kInt: out->set_int_value(value.int_value()); break;
    case ScalarStorage::kFloat: out->set_float_value(value.float_value()); break;
    case ScalarStorage::kDecimal: {
      columnar::int128_t v = value.decimal_value();
      std::string bytes(sizeof(v), '\0');
      std::memcpy(bytes.data(), &v, sizeof(v));
      out->set_decimal_value(std::move(bytes));
      break;
    }
    case ScalarStorage::kString: out->set_string_value(value.string_value()); break;
    case ScalarStorage::kInterval: {
      auto* iv = out->mutable_interval_value();
      iv->set_months(value.interval_value().months);
      iv->set_days(value.interval_value().days);
      iv->set_nanoseconds(value.interval_value().nanoseconds);
      break;
    }
    case ScalarStorage::kNested:  // refused by DecodeType, which sees the type first
    case ScalarStorage::kNone: break;
  }
}

Result<columnar::Scalar> DecodeScalar(const proto::ScalarProto& in) {
  SHOAL_ASSIGN_OR_RETURN(DataType type, DecodeType(in.type()));
  if (in.value_case() == proto::ScalarProto::VALUE_NOT_SET)
    return columnar::Scalar(type);
  const ScalarStorage storage = StorageOf(type);
  auto mismatch = [&] {
    return Status::InvalidData("encoded plan: a {} literal with a value of the wrong kind",
                               type.ToString());
  };
  switch (in.value_case()) {
    case proto::ScalarProto::kIntValue:
      if (storage != ScalarStorage::kInt)
        return mismatch();
      return columnar::Scalar::FromInt(type, in.int_value());
    case proto::ScalarProto::kFloatValue:
      if (storage != ScalarStorage::kFloat)
        return mismatch();
      return columnar::Scalar::FromFloat(type, in.float_value());
    case proto::ScalarProto::kDecimalValue: {
      if (storage != ScalarStorage::kDecimal ||
          in.decimal_value().size() != sizeof(columnar::int128_t))
        return mismatch();
      columnar::int128_t v = 0;
      std::memcpy(&v, in.decimal_value().data(), sizeof(v));
      return columnar::Scalar::Decimal(v, type.precision(), type.scale());
    }
    case proto::ScalarProto::kStringValue:
      if (storage != ScalarStorage::kString)
        return mismatch();
      return type.id() == TypeId::kBinary ? columnar::Scalar::Binary(in.string_value())
                                          : columnar::Scalar::Utf8(in.string_value());
    case proto::ScalarProto::kIntervalValue: {
      if (storage != ScalarStorage::kInterval)
        return mismatch();
      columnar::MonthDayNano v{};
      v.months = in.interval_value().months();
      v.days = in.interval_value().days();
      v.nanoseconds = in.interval_value().nanoseconds();
      return columnar::Scalar::Interval(v);
    }
    case proto::ScalarProto::VALUE_NOT_SET: break;
  }
  return mismatch();
}

void EncodeSchema(const columnar::Schema& schema, proto::SchemaProto* out) {
  for (const auto& f : schema.fields()) {
    auto* field = out->add_fields();
    field->set_name(f.name);
    EncodeType(f.type, field->mutable_type());
    field->set_nullable(f.nullable);
    for (const auto& [k, v] : f.metadata) {
      field->add_metadata_keys(k);
      field->add_metadata_values(v);
    }
  }
}

Result<columnar::SchemaPtr> DecodeSchema(const proto::SchemaProto& in) {
  std::vector<columnar::Field> fields;
  for (const auto& f : in.fields()) {
    SHOAL_ASSIGN_OR_RETURN(DataType type, DecodeType(f.type()));
    if (f.metadata_keys_size() != f.metadata_values_size())
      return Status::InvalidData("encoded schema: field '{}' has unpaired metadata", f.name());
    columnar::KeyValueMetadata metadata;
    for (int i = 0; i < f.metadata_keys_size(); ++i)
      metadata.emplace_back(f.metadata_keys(i), f.metadata_values(i));
    fields.emplace_back(f.name(), std::move(type), f.nullable(), std::move(metadata));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

void EncodeStatus(const Status& status, proto::StatusProto* out) {
  out->set_code(static_cast<uint32_t>(status.code()));
  out->set_message(status.UserMessage());
  out->set_sqlstate(status.sqlstate());
  out->set_hint(status.hint());
}

Status DecodeStatus(const proto::StatusProto& in) {
  if (in.code() == 0)
    return Status::OK();
  StatusCode code = in.code() > static_cast<uint32_t>(StatusCode::kInternal)
                        ? StatusCode::kInternal
                        : static_cast<StatusCode>(in.code());
  Status status(code, in.message());
  if (!in.sqlstate().empty() && in.sqlstate() != status.sqlstate())
    status = std::move(status).WithSqlState(in.sqlstate());
  if (!in.hint().empty())
    status = std::move(status).WithHint(in.hint());
  return status;
}

}  // namespace shoal::distributed

#include "shoal/distributed/codec/type_codec.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/ipc/output_sink.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "shoal/columnar/record_batch.h"

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

void EncodeField(const columnar::Field& f, proto::FieldProto* out) {
  out->set_name(f.name);
  EncodeType(f.type, out->mutable_type());
  out->set_nullable(f.nullable);
  for (const auto& [k, v] : f.metadata) {
    out->add_metadata_keys(k);
    out->add_metadata_values(v);
  }
}

void EncodeFields(const std::vector<columnar::Field>& fields,
                  google::protobuf::RepeatedPtrField<proto::FieldProto>* out) {
  for (const auto& f : fields)
    EncodeField(f, out->Add());
}

// Nested types deeper than this are refused: Arrow sets no limit, but a plan's types come from SQL
// and Parquet schemas, where a few levels are usual, and the decoder recurses once per level.
constexpr int kMaxTypeNesting = 64;

Result<columnar::Field> DecodeField(const proto::FieldProto& f, int depth) {
  SHOAL_ASSIGN_OR_RETURN(DataType type, DecodeType(f.type(), depth));
  if (f.metadata_keys_size() != f.metadata_values_size())
    return Status::InvalidData("encoded schema: field '{}' has unpaired metadata", f.name());
  columnar::KeyValueMetadata metadata;
  for (int i = 0; i < f.metadata_keys_size(); ++i)
    metadata.emplace_back(f.metadata_keys(i), f.metadata_values(i));
  return columnar::Field(f.name(), std::move(type), f.nullable(), std::move(metadata));
}

Result<DataType> DecodeNestedType(TypeId id, const proto::DataTypeProto& in, int depth) {
  if (depth >= kMaxTypeNesting)
    return Status::InvalidData("encoded plan: a type nested deeper than {} levels",
                               kMaxTypeNesting);
  std::vector<columnar::Field> children;
  children.reserve(static_cast<size_t>(in.children_size()));
  for (const auto& c : in.children()) {
    SHOAL_ASSIGN_OR_RETURN(columnar::Field f, DecodeField(c, depth + 1));
    children.push_back(std::move(f));
  }
  const bool one_child = children.size() == 1;
  switch (id) {
    case TypeId::kList:
    case TypeId::kLargeList:
      if (!one_child)
        break;
      return id == TypeId::kList ? DataType::List(std::move(children[0]))
                                 : DataType::LargeList(std::move(children[0]));
    case TypeId::kFixedSizeList:
      if (!one_child)
        break;
      return DataType::MakeFixedSizeList(std::move(children[0]), in.list_size());
    case TypeId::kStruct: return DataType::Struct(std::move(children));
    case TypeId::kMap:
      if (!one_child)
        break;
      return DataType::MakeMap(std::move(children[0]), in.ordered());
    default: break;
  }
  return Status::InvalidData("encoded plan: a {} type with {} child fields",
                             columnar::TypeIdName(id), children.size());
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
    case TypeId::kFixedSizeList:
      out->set_list_size(type.list_size());
      EncodeFields(type.fields(), out->mutable_children());
      break;
    case TypeId::kMap:
      out->set_ordered(type.keys_sorted());
      EncodeFields(type.fields(), out->mutable_children());
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kStruct: EncodeFields(type.fields(), out->mutable_children()); break;
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
      if (!in.has_value_type() ||
          in.value_type().id() == static_cast<uint32_t>(TypeId::kDictionary))
        return Status::InvalidData("encoded plan: malformed dictionary type");
      SHOAL_ASSIGN_OR_RETURN(
          auto index, CheckedEnum(in.index_type(), TypeId::kDictionary, "dictionary index type"));
      if (!DataType::IsIntegerId(index))
        return Status::InvalidData("encoded plan: dictionary index type is not an integer");
      SHOAL_ASSIGN_OR_RETURN(DataType value, DecodeType(in.value_type(), depth + 1));
      return DataType::Dictionary(index, value, in.ordered());
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return DecodeNestedType(id, in, depth);
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
    case ScalarStorage::kNested: {
      // A one-row IPC stream: the value's buffers and children exactly as the columnar core holds
      // them. Writing to memory fails only on a bug (the value is a valid array of its type); the
      // empty bytes left then make the receiver refuse the plan rather than read a NULL.
      out->set_nested_value(std::string());
      auto schema = std::make_shared<columnar::Schema>(
          std::vector<columnar::Field>{columnar::Field("value", value.type())});
      columnar::ipc::BufferSink sink;
      auto writer = columnar::ipc::MakeStreamWriter(&sink, schema);
      if (!writer.ok())
        break;
      auto batch = columnar::RecordBatch::Make(schema, 1, {value.nested_value()});
      if ((*writer)->WriteBatch(*batch).ok() && (*writer)->Close().ok())
        out->set_nested_value(sink.TakeBytes());
      break;
    }
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
    case proto::ScalarProto::kNestedValue: {
      if (storage != ScalarStorage::kNested)
        return mismatch();
      auto bytes = std::make_shared<const std::string>(in.nested_value());
      auto read = columnar::ipc::ReadAllFromBytes(bytes);
      if (!read.ok())
        return Status::InvalidData("encoded plan: a {} literal does not read: {}", type.ToString(),
                                   read.status().message());
      if (read->batches.size() != 1 || read->batches[0]->num_columns() != 1 ||
          read->batches[0]->num_rows() != 1 || read->batches[0]->column(0)->type() != type)
        return Status::InvalidData("encoded plan: a {} literal is not one value of its type",
                                   type.ToString());
      const columnar::ArrayPtr& column = read->batches[0]->column(0);
      if (column->IsNull(0))
        return mismatch();
      return columnar::Scalar::FromArray(*column, 0);
    }
    case proto::ScalarProto::VALUE_NOT_SET: break;
  }
  return mismatch();
}

void EncodeSchema(const columnar::Schema& schema, proto::SchemaProto* out) {
  EncodeFields(schema.fields(), out->mutable_fields());
}

Result<columnar::SchemaPtr> DecodeSchema(const proto::SchemaProto& in) {
  std::vector<columnar::Field> fields;
  fields.reserve(static_cast<size_t>(in.fields_size()));
  for (const auto& f : in.fields()) {
    SHOAL_ASSIGN_OR_RETURN(columnar::Field field, DecodeField(f, 0));
    fields.push_back(std::move(field));
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

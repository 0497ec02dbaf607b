#include "shoal/columnar/ipc/metadata_internal.h"

#include <string>
#include <unordered_map>
#include <utility>

namespace shoal::columnar::ipc::internal {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> BuildMetadata(FlatBufferBuilder* fbb,
                                                                const KeyValueMetadata& metadata) {
  if (metadata.empty())
    return 0;
  std::vector<Offset<fb::KeyValue>> pairs;
  pairs.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    auto k = fbb->CreateString(key);
    auto v = fbb->CreateString(value);
    pairs.push_back(fb::CreateKeyValue(*fbb, k, v));
  }
  return fbb->CreateVector(pairs);
}

Offset<fb::Int> BuildInt(FlatBufferBuilder* fbb, TypeId id) {
  DataType t = [&] {
    switch (id) {
      case TypeId::kInt8: return DataType::Int8();
      case TypeId::kInt16: return DataType::Int16();
      case TypeId::kInt32: return DataType::Int32();
      case TypeId::kInt64: return DataType::Int64();
      case TypeId::kUInt8: return DataType::UInt8();
      case TypeId::kUInt16: return DataType::UInt16();
      case TypeId::kUInt32: return DataType::UInt32();
      default: return DataType::UInt64();
    }
  }();
  bool is_signed = id >= TypeId::kInt8 && id <= TypeId::kInt64;
  return fb::CreateInt(*fbb, t.bit_width(), is_signed);
}

// The flatbuffers Type union member for a (non-dictionary) type.
std::pair<fb::Type, Offset<void>> BuildType(FlatBufferBuilder* fbb, const DataType& type,
                                            WireEncoding encoding) {
  switch (type.id()) {
    case TypeId::kNull: return {fb::Type::Null, fb::CreateNull(*fbb).Union()};
    case TypeId::kBoolean: return {fb::Type::Bool, fb::CreateBool(*fbb).Union()};
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64: return {fb::Type::Int, BuildInt(fbb, type.id()).Union()};
    case TypeId::kFloat32:
      return {fb::Type::FloatingPoint,
              fb::CreateFloatingPoint(*fbb, fb::Precision::SINGLE).Union()};
    case TypeId::kFloat64:
      return {fb::Type::FloatingPoint,
              fb::CreateFloatingPoint(*fbb, fb::Precision::DOUBLE).Union()};
    case TypeId::kDecimal: {
      int bit_width = encoding == WireEncoding::kDecimal128As64 ? 128 : type.bit_width();
      return {fb::Type::Decimal,
              fb::CreateDecimal(*fbb, type.precision(), type.scale(), bit_width).Union()};
    }
    case TypeId::kDate32: return {fb::Type::Date, fb::CreateDate(*fbb, fb::DateUnit::DAY).Union()};
    case TypeId::kTimestamp: {
      Offset<flatbuffers::String> tz = 0;
      if (!type.timezone().empty())
        tz = fbb->CreateString(type.timezone());
      auto unit = static_cast<fb::TimeUnit>(static_cast<int16_t>(type.unit()));
      return {fb::Type::Timestamp, fb::CreateTimestamp(*fbb, unit, tz).Union()};
    }
    case TypeId::kInterval:
      return {fb::Type::Interval,
              fb::CreateInterval(*fbb, fb::IntervalUnit::MONTH_DAY_NANO).Union()};
    case TypeId::kUtf8: return {fb::Type::Utf8, fb::CreateUtf8(*fbb).Union()};
    case TypeId::kBinary: return {fb::Type::Binary, fb::CreateBinary(*fbb).Union()};
    case TypeId::kList: return {fb::Type::List, fb::CreateList(*fbb).Union()};
    case TypeId::kLargeList: return {fb::Type::LargeList, fb::CreateLargeList(*fbb).Union()};
    case TypeId::kFixedSizeList:
      return {fb::Type::FixedSizeList, fb::CreateFixedSizeList(*fbb, type.list_size()).Union()};
    case TypeId::kStruct: return {fb::Type::Struct_, fb::CreateStruct_(*fbb).Union()};
    case TypeId::kMap: return {fb::Type::Map, fb::CreateMap(*fbb, type.keys_sorted()).Union()};
    case TypeId::kDictionary: break;
  }
  SHOAL_CHECK(false, "BuildType on {}", type.ToString());
  return {fb::Type::NONE, 0};
}

Offset<fb::Field> BuildField(FlatBufferBuilder* fbb, const Field& field,
                             const FieldEncoding& encoding) {
  auto name = fbb->CreateString(field.name);
  const bool is_dictionary = field.type.id() == TypeId::kDictionary;
  const DataType& value_type = is_dictionary ? field.type.value_type() : field.type;
  auto [type_type, type] = BuildType(fbb, value_type, encoding.values);
  Offset<fb::DictionaryEncoding> dictionary = 0;
  if (is_dictionary) {
    auto index = BuildInt(fbb, field.type.index_type());
    dictionary = fb::CreateDictionaryEncoding(*fbb, encoding.dictionary_id, index,
                                              field.type.ordered(), fb::DictionaryKind::DenseArray);
  }
  // Readers in other languages expect the children vector even when it is empty.
  std::vector<Offset<fb::Field>> child_fields;
  child_fields.reserve(static_cast<size_t>(value_type.num_fields()));
  for (int i = 0; i < value_type.num_fields(); ++i) {
    child_fields.push_back(
        BuildField(fbb, value_type.field(i), encoding.children[static_cast<size_t>(i)]));
  }
  auto children = fbb->CreateVector(child_fields);
  auto metadata = BuildMetadata(fbb, field.metadata);
  return fb::CreateField(*fbb, name, field.nullable, type_type, type, dictionary, children,
                         metadata);
}

Result<TypeId> ParseIntType(const fb::Int* t, const std::string& what) {
  if (t == nullptr)
    return Status::InvalidData("{}: Int type without its parameters", what);
  bool s = t->is_signed();
  switch (t->bit_width()) {
    case 8: return s ? TypeId::kInt8 : TypeId::kUInt8;
    case 16: return s ? TypeId::kInt16 : TypeId::kUInt16;
    case 32: return s ? TypeId::kInt32 : TypeId::kUInt32;
    case 64: return s ? TypeId::kInt64 : TypeId::kUInt64;
    default: break;
  }
  return Status::InvalidData("{}: integer bit width {} (expected 8, 16, 32 or 64)", what,
                             t->bit_width());
}

Result<std::pair<DataType, WireEncoding>> ParseDecimal(const fb::Decimal* d,
                                                       const std::string& what) {
  if (d == nullptr)
    return Status::InvalidData("{}: Decimal type without its parameters", what);
  const int precision = d->precision();
  const int scale = d->scale();
  const int bit_width = d->bit_width();
  int max_precision = 0;
  WireEncoding encoding = WireEncoding::kSame;
  switch (bit_width) {
    case 32:
      max_precision = 9;
      encoding = WireEncoding::kDecimal32As64;
      break;
    case 64: max_precision = DataType::kMaxDecimal64Precision; break;
    case 128:
      max_precision = DataType::kMaxDecimalPrecision;
      if (precision <= DataType::kMaxDecimal64Precision)
        encoding = WireEncoding::kDecimal128As64;
      break;
    case 256:
      return Status::NotImplemented(
          "{}: 256-bit decimals are not supported by Shoal (precision at most {}); cast the column "
          "to decimal128 before writing it",
          what, DataType::kMaxDecimalPrecision);
    default:
      return Status::InvalidData("{}: decimal bit width {} (expected 32, 64, 128 or 256)", what,
                                 bit_width);
  }
  if (precision < 1 || precision > max_precision) {
    return Status::InvalidData("{}: decimal precision {} is outside 1..{} for {}-bit values", what,
                               precision, max_precision, bit_width);
  }
  if (scale < 0 || scale > precision) {
    return Status::NotImplemented(
        "{}: decimal({}, {}) has a scale outside 0..precision, which Shoal does not support", what,
        precision, scale);
  }
  return std::make_pair(DataType::Decimal(precision, scale), encoding);
}

// The Shoal type of a field's values (the dictionary value type for dictionary fields).
Result<std::pair<DataType, WireEncoding>> ParseValueType(const fb::Field* field,
                                                         const std::string& what) {
  auto same = [](DataType t) { return std::make_pair(std::move(t), WireEncoding::kSame); };
  const fb::Type tag = field->type_type();
  switch (tag) {
    case fb::Type::NONE: return Status::InvalidData("{}: the field has no type", what);
    case fb::Type::Null: return same(DataType::Null());
    case fb::Type::Bool: return same(DataType::Boolean());
    case fb::Type::Utf8: return same(DataType::Utf8());
    case fb::Type::Binary: return same(DataType::Binary());
    case fb::Type::Int: {
      SHOAL_ASSIGN_OR_RETURN(TypeId id, ParseIntType(field->type_as_Int(), what));
      switch (id) {
        case TypeId::kInt8: return same(DataType::Int8());
        case TypeId::kInt16: return same(DataType::Int16());
        case TypeId::kInt32: return same(DataType::Int32());
        case TypeId::kInt64: return same(DataType::Int64());
        case TypeId::kUInt8: return same(DataType::UInt8());
        case TypeId::kUInt16: return same(DataType::UInt16());
        case TypeId::kUInt32: return same(DataType::UInt32());
        default: return same(DataType::UInt64());
      }
    }
    case fb::Type::FloatingPoint: {
      const fb::FloatingPoint* t = field->type_as_FloatingPoint();
      if (t == nullptr)
        return Status::InvalidData("{}: FloatingPoint type without its parameters", what);
      switch (t->precision()) {
        case fb::Precision::SINGLE: return same(DataType::Float32());
        case fb::Precision::DOUBLE: return same(DataType::Float64());
        case fb::Precision::HALF:
          return Status::NotImplemented(
              "{}: 16-bit floats are not supported by Shoal; cast the column to float32", what);
      }
      return Status::InvalidData("{}: floating point precision {}", what,
                                 static_cast<int>(t->precision()));
    }
    case fb::Type::Decimal: return ParseDecimal(field->type_as_Decimal(), what);
    case fb::Type::Date: {
      const fb::Date* t = field->type_as_Date();
      if (t == nullptr)
        return Status::InvalidData("{}: Date type without its parameters", what);
      switch (t->unit()) {
        case fb::DateUnit::DAY: return same(DataType::Date32());
        // Shoal has one date type; date64 values (milliseconds, whole days by the spec) are
        // converted to days when read.
        case fb::DateUnit::MILLISECOND:
          return std::make_pair(DataType::Date32(), WireEncoding::kDate64AsDate32);
      }
      return Status::InvalidData("{}: date unit {}", what, static_cast<int>(t->unit()));
    }
    case fb::Type::Timestamp: {
      const fb::Timestamp* t = field->type_as_Timestamp();
      if (t == nullptr)
        return Status::InvalidData("{}: Timestamp type without its parameters", what);
      auto unit = static_cast<int16_t>(t->unit());
      if (unit < 0 || unit > 3)
        return Status::InvalidData("{}: timestamp unit {}", what, unit);
      std::string tz = t->timezone() ? t->timezone()->str() : std::string();
      return same(DataType::Timestamp(static_cast<TimeUnit>(unit), std::move(tz)));
    }
    case fb::Type::List:
    case fb::Type::LargeList:
    case fb::Type::FixedSizeList:
    case fb::Type::Struct_:
    case fb::Type::Map: return Status::Internal("{}: nested types are parsed by ParseField", what);
    case fb::Type::Interval: {
      const fb::Interval* t = field->type_as_Interval();
      if (t == nullptr)
        return Status::InvalidData("{}: Interval type without its parameters", what);
      switch (t->unit()) {
        case fb::IntervalUnit::MONTH_DAY_NANO: return same(DataType::Interval());
        case fb::IntervalUnit::YEAR_MONTH:
        case fb::IntervalUnit::DAY_TIME:
          return Status::NotImplemented(
              "{}: interval unit {} is not supported by Shoal (only MONTH_DAY_NANO)", what,
              fb::EnumNameIntervalUnit(t->unit()));
      }
      return Status::InvalidData("{}: interval unit {}", what, static_cast<int>(t->unit()));
    }
    default: break;
  }
  const char* name = fb::EnumNameType(tag);
  if (name == nullptr || *name == '\0') {
    return Status::InvalidData("{}: unknown Arrow type tag {}", what,
                               static_cast<int>(static_cast<uint8_t>(tag)));
  }
  return Status::NotImplemented(
      "{}: Arrow type {} is not supported by Shoal (supported: null, bool, int, float32/64, "
      "decimal, date, timestamp, interval[month_day_nano], utf8, binary, dictionary, list, "
      "large_list, fixed_size_list, struct, map)",
      what, name);
}

bool IsNestedTag(fb::Type tag) {
  return tag == fb::Type::List || tag == fb::Type::LargeList || tag == fb::Type::FixedSizeList ||
         tag == fb::Type::Struct_ || tag == fb::Type::Map;
}

// One field of the schema with its children; `depth` counts the nested types above it.
Result<std::pair<Field, FieldEncoding>> ParseField(const fb::Field* f, const std::string& what,
                                                   int depth) {
  std::string name = f->name() ? f->name()->str() : std::string();
  const fb::Type tag = f->type_type();
  const uint32_t num_children = f->children() ? f->children()->size() : 0;
  FieldEncoding encoding;
  DataType type;
  if (!IsNestedTag(tag)) {
    SHOAL_ASSIGN_OR_RETURN(auto value, ParseValueType(f, what));
    if (num_children != 0) {
      return Status::InvalidData("{}: a field of type {} cannot have {} children", what,
                                 value.first.ToString(), num_children);
    }
    encoding.values = value.second;
    type = std::move(value.first);
  } else {
    if (f->dictionary() != nullptr) {
      return Status::NotImplemented("{}: dictionary-encoded {} values are not supported by Shoal",
                                    what, fb::EnumNameType(tag));
    }
    if (depth >= kMaxNestingDepth) {
      return Status::InvalidData("{}: types nested more than {} deep", what, kMaxNestingDepth);
    }
    const uint32_t expected = tag == fb::Type::Struct_ ? num_children : 1;
    if (num_children != expected) {
      return Status::InvalidData("{}: a {} field needs exactly one child, not {}", what,
                                 fb::EnumNameType(tag), num_children);
    }
    std::vector<Field> children;
    children.reserve(num_children);
    encoding.children.reserve(num_children);
    for (uint32_t c = 0; c < num_children; ++c) {
      const fb::Field* child = f->children()->Get(c);
      if (child == nullptr)
        return Status::InvalidData("{}: child {} is missing", what, c);
      const std::string child_name = child->name() ? child->name()->str() : std::string();
      SHOAL_ASSIGN_OR_RETURN(
          auto parsed,
          ParseField(child, fmt::format("{}, child {} ('{}')", what, c, child_name), depth + 1));
      if (parsed.first.type.id() == TypeId::kDictionary) {
        return Status::NotImplemented(
            "{}: child '{}' is dictionary-encoded, which Shoal does not support inside nested "
            "types",
            what, parsed.first.name);
      }
      children.push_back(std::move(parsed.first));
      encoding.children.push_back(std::move(parsed.second));
    }
    switch (tag) {
      case fb::Type::List: type = DataType::List(std::move(children[0])); break;
      case fb::Type::LargeList: type = DataType::LargeList(std::move(children[0])); break;
      case fb::Type::FixedSizeList: {
        const fb::FixedSizeList* t = f->type_as_FixedSizeList();
        if (t == nullptr)
          return Status::InvalidData("{}: FixedSizeList type without its parameters", what);
        auto made = DataType::MakeFixedSizeList(std::move(children[0]), t->list_size());
        if (!made.ok())
          return std::move(made).status().WithContext(what);
        type = std::move(made).MoveValueUnsafe();
        break;
      }
      case fb::Type::Struct_: type = DataType::Struct(std::move(children)); break;
      default: {
        const fb::Map* t = f->type_as_Map();
        if (t == nullptr)
          return Status::InvalidData("{}: Map type without its parameters", what);
        auto made = DataType::MakeMap(std::move(children[0]), t->keys_sorted());
        if (!made.ok())
          return std::move(made).status().WithContext(what);
        type = std::move(made).MoveValueUnsafe();
        break;
      }
    }
  }
  if (const fb::DictionaryEncoding* d = f->dictionary()) {
    TypeId index = TypeId::kInt32;
    if (d->index_type() != nullptr) {
      SHOAL_ASSIGN_OR_RETURN(index, ParseIntType(d->index_type(), what + " dictionary index"));
    }
    encoding.dictionary_id = d->id();
    type = DataType::Dictionary(index, type, d->is_ordered());
  }
  return std::make_pair(
      Field(std::move(name), std::move(type), f->nullable(), ParseMetadata(f->custom_metadata())),
      std::move(encoding));
}

Result<FieldEncoding> PlanField(const DataType& t, bool widen_decimal64, int depth,
                                const std::string& name) {
  FieldEncoding e;
  const DataType& values = t.decoded_type();
  if (widen_decimal64 && values.id() == TypeId::kDecimal &&
      values.precision() <= DataType::kMaxDecimal64Precision) {
    e.values = WireEncoding::kDecimal128As64;
  }
  if (!t.is_nested())
    return e;
  if (depth >= kMaxNestingDepth) {
    return Status::InvalidArgument("field '{}': types nested more than {} deep", name,
                                   kMaxNestingDepth);
  }
  e.children.reserve(t.fields().size());
  for (const Field& child : t.fields()) {
    if (child.type.id() == TypeId::kDictionary) {
      return Status::NotImplemented(
          "field '{}': child '{}' is dictionary-encoded, which Shoal's Arrow IPC writer does not "
          "support inside nested types",
          name, child.name);
    }
    SHOAL_ASSIGN_OR_RETURN(FieldEncoding c,
                           PlanField(child.type, widen_decimal64, depth + 1, name));
    e.children.push_back(std::move(c));
  }
  return e;
}

}  // namespace

int64_t NumFieldNodes(const DataType& type) {
  int64_t n = 1;
  for (const Field& f : type.fields())
    n += NumFieldNodes(f.type);
  return n;
}

int64_t NumBuffers(const DataType& type) {
  int64_t n = type.num_buffers();
  for (const Field& f : type.fields())
    n += NumBuffers(f.type);
  return n;
}

Result<IpcSchema> PlanWriteSchema(SchemaPtr schema, bool widen_decimal64) {
  IpcSchema out;
  out.fields.reserve(static_cast<size_t>(schema->num_fields()));
  int64_t next_id = 0;
  for (int i = 0; i < schema->num_fields(); ++i) {
    const Field& f = schema->field(i);
    SHOAL_ASSIGN_OR_RETURN(FieldEncoding e, PlanField(f.type, widen_decimal64, 0, f.name));
    if (f.type.id() == TypeId::kDictionary)
      e.dictionary_id = next_id++;
    out.fields.push_back(std::move(e));
  }
  out.schema = std::move(schema);
  return out;
}

Offset<fb::Schema> BuildSchema(FlatBufferBuilder* fbb, const IpcSchema& schema) {
  const Schema& s = *schema.schema;
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(static_cast<size_t>(s.num_fields()));
  for (int i = 0; i < s.num_fields(); ++i)
    fields.push_back(BuildField(fbb, s.field(i), schema.fields[static_cast<size_t>(i)]));
  auto fields_vector = fbb->CreateVector(fields);
  auto metadata = BuildMetadata(fbb, s.metadata());
  return fb::CreateSchema(*fbb, fb::Endianness::Little, fields_vector, metadata);
}

void FinishMessage(FlatBufferBuilder* fbb, fb::MessageHeader header_type, Offset<void> header,
                   int64_t body_length) {
  auto message = fb::CreateMessage(*fbb, fb::MetadataVersion::V5, header_type, header, body_length);
  fbb->Finish(message);
}

KeyValueMetadata ParseMetadata(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* metadata) {
  KeyValueMetadata out;
  if (metadata == nullptr)
    return out;
  out.reserve(metadata->size());
  for (const fb::KeyValue* kv : *metadata) {
    if (kv == nullptr)
      continue;
    out.emplace_back(kv->key() ? kv->key()->str() : std::string(),
                     kv->value() ? kv->value()->str() : std::string());
  }
  return out;
}

Result<IpcSchema> ParseSchema(const fb::Schema* schema) {
  if (schema == nullptr)
    return Status::InvalidData("the schema message has no schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotImplemented(
        "the data is big-endian; Shoal reads only little-endian Arrow IPC data");
  }
  IpcSchema out;
  std::vector<Field> fields;
  // Several fields may share one dictionary; they must then agree on its value type.
  std::unordered_map<int64_t, std::pair<DataType, WireEncoding>> dictionaries;
  const auto* fb_fields = schema->fields();
  const uint32_t n = fb_fields ? fb_fields->size() : 0;
  fields.reserve(n);
  out.fields.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const fb::Field* f = fb_fields->Get(i);
    if (f == nullptr)
      return Status::InvalidData("schema field {} is missing", i);
    const std::string what =
        fmt::format("field {} ('{}')", i, f->name() ? f->name()->str() : std::string());
    SHOAL_ASSIGN_OR_RETURN(auto parsed, ParseField(f, what, 0));
    auto& [field, encoding] = parsed;
    if (field.type.id() == TypeId::kDictionary) {
      auto value = std::make_pair(field.type.value_type(), encoding.values);
      auto [it, inserted] = dictionaries.emplace(encoding.dictionary_id, value);
      if (!inserted && (it->second.first != value.first || it->second.second != value.second)) {
        return Status::InvalidData(
            "{}: dictionary id {} is shared with a field whose values are {}, not {}", what,
            encoding.dictionary_id, it->second.first.ToString(), value.first.ToString());
      }
    }
    fields.push_back(std::move(field));
    out.fields.push_back(std::move(encoding));
  }
  out.schema =
      std::make_shared<const Schema>(std::move(fields), ParseMetadata(schema->custom_metadata()));
  return out;
}

}  // namespace shoal::columnar::ipc::internal

#include "shoal/io/parquet/parquet_schema.h"

#include <cmath>
#include <cstring>

namespace shoal::io::parquet {

namespace {

using columnar::DataType;
using columnar::Scalar;
using columnar::TimeUnit;
using columnar::TypeId;
using format::ConvertedType;
using format::FieldRepetitionType;
using format::Type;

const char* PhysicalName(Type::type t) {
  switch (t) {
    case Type::BOOLEAN: return "BOOLEAN";
    case Type::INT32: return "INT32";
    case Type::INT64: return "INT64";
    case Type::INT96: return "INT96";
    case Type::FLOAT: return "FLOAT";
    case Type::DOUBLE: return "DOUBLE";
    case Type::BYTE_ARRAY: return "BYTE_ARRAY";
    case Type::FIXED_LEN_BYTE_ARRAY: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "unknown";
}

Result<DataType> DecimalType(int precision, int scale, Type::type physical, int type_length,
                             const std::string& where) {
  if (precision < 1 || precision > DataType::kMaxDecimalPrecision || scale < 0 || scale > precision)
    return Status::NotImplemented(
        "{}: decimal({},{}) is outside Shoal's decimal range (precision "
        "1..38, scale 0..precision)",
        where, precision, scale);
  if ((physical == Type::INT32 && precision > 9) || (physical == Type::INT64 && precision > 18) ||
      (physical == Type::FIXED_LEN_BYTE_ARRAY && (type_length < 1 || type_length > 16)))
    return Status::InvalidData("{}: decimal({},{}) cannot be stored in {}{}", where, precision,
                               scale, PhysicalName(physical),
                               physical == Type::FIXED_LEN_BYTE_ARRAY
                                   ? "(" + std::to_string(type_length) + ")"
                                   : std::string());
  return DataType::Decimal(precision, scale);
}

TimeUnit UnitOf(const format::TimeUnit& unit) {
  if (unit.__isset.MILLIS)
    return TimeUnit::kMilli;
  if (unit.__isset.NANOS)
    return TimeUnit::kNano;
  return TimeUnit::kMicro;
}

Result<DataType> MapType(const format::SchemaElement& e, const std::string& where) {
  const Type::type physical = e.type;
  const bool has_logical = e.__isset.logicalType;
  const format::LogicalType& lt = e.logicalType;
  const bool has_converted = e.__isset.converted_type;
  const ConvertedType::type ct = e.converted_type;
  auto decimal_from_element = [&]() -> Result<DataType> {
    if (has_logical && lt.__isset.DECIMAL)
      return DecimalType(lt.DECIMAL.precision, lt.DECIMAL.scale, physical, e.type_length, where);
    return DecimalType(e.__isset.precision ? e.precision : 0, e.__isset.scale ? e.scale : 0,
                       physical, e.type_length, where);
  };
  const bool is_decimal =
      (has_logical && lt.__isset.DECIMAL) || (has_converted && ct == ConvertedType::DECIMAL);
  const bool is_time =
      (has_logical && lt.__isset.TIME) ||
      (has_converted && (ct == ConvertedType::TIME_MILLIS || ct == ConvertedType::TIME_MICROS));
  if (is_time)
    return Status::NotImplemented(
        "{}: Parquet TIME columns are not supported (Shoal has no time "
        "of day type); cast them to another type when writing the file",
        where);
  if (has_converted && ct == ConvertedType::INTERVAL)
    return Status::NotImplemented("{}: Parquet INTERVAL columns are not supported", where);
  switch (physical) {
    case Type::BOOLEAN: return DataType::Boolean();
    case Type::INT32: {
      if (is_decimal)
        return decimal_from_element();
      if ((has_logical && lt.__isset.DATE) || (has_converted && ct == ConvertedType::DATE))
        return DataType::Date32();
      int bits = 32;
      bool is_signed = true;
      if (has_logical && lt.__isset.INTEGER) {
        bits = lt.INTEGER.bitWidth;
        is_signed = lt.INTEGER.isSigned;
      } else if (has_converted) {
        switch (ct) {
          case ConvertedType::INT_8: bits = 8; break;
          case ConvertedType::INT_16: bits = 16; break;
          case ConvertedType::UINT_8: bits = 8, is_signed = false; break;
          case ConvertedType::UINT_16: bits = 16, is_signed = false; break;
          case ConvertedType::UINT_32: is_signed = false; break;
          default: break;
        }
      }
      switch (bits) {
        case 8: return is_signed ? DataType::Int8() : DataType::UInt8();
        case 16: return is_signed ? DataType::Int16() : DataType::UInt16();
        case 32: return is_signed ? DataType::Int32() : DataType::UInt32();
        default:
          return Status::InvalidData("{}: INT32 column annotated as a {}-bit integer", where, bits);
      }
    }
    case Type::INT64: {
      if (is_decimal)
        return decimal_from_element();
      if (has_logical && lt.__isset.TIMESTAMP)
        return DataType::Timestamp(UnitOf(lt.TIMESTAMP.unit),
                                   lt.TIMESTAMP.isAdjustedToUTC ? "UTC" : "");
      if (has_converted && ct == ConvertedType::TIMESTAMP_MILLIS)
        return DataType::Timestamp(TimeUnit::kMilli, "UTC");
      if (has_converted && ct == ConvertedType::TIMESTAMP_MICROS)
        return DataType::Timestamp(TimeUnit::kMicro, "UTC");
      bool is_signed = true;
      if (has_logical && lt.__isset.INTEGER) {
        if (lt.INTEGER.bitWidth != 64)
          return Status::InvalidData("{}: INT64 column annotated as a {}-bit integer", where,
                                     static_cast<int>(lt.INTEGER.bitWidth));
        is_signed = lt.INTEGER.isSigned;
      } else if (has_converted && ct == ConvertedType::UINT_64) {
        is_signed = false;
      }
      return is_signed ? DataType::Int64() : DataType::UInt64();
    }
    case Type::INT96:
      // Legacy Impala/Spark timestamps: nanoseconds of the day and a Julian day number.
      return DataType::Timestamp(TimeUnit::kNano);
    case Type::FLOAT: return DataType::Float32();
    case Type::DOUBLE: return DataType::Float64();
    case Type::BYTE_ARRAY:
      if (is_decimal)
        return decimal_from_element();
      if ((has_logical && (lt.__isset.STRING || lt.__isset.ENUM || lt.__isset.JSON)) ||
          (has_converted &&
           (ct == ConvertedType::UTF8 || ct == ConvertedType::ENUM || ct == ConvertedType::JSON)))
        return DataType::Utf8();
      return DataType::Binary();
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (!e.__isset.type_length || e.type_length < 1)
        return Status::InvalidData("{}: FIXED_LEN_BYTE_ARRAY without a positive type_length",
                                   where);
      if (is_decimal)
        return decimal_from_element();
      return DataType::Binary();
  }
  return Status::InvalidData("{}: unknown physical type {}", where, static_cast<int>(physical));
}

bool IsSignedOrderType(const ColumnDescriptor& c) {
  switch (c.physical) {
    case Type::BOOLEAN:
    case Type::FLOAT:
    case Type::DOUBLE: return true;
    case Type::INT32:
    case Type::INT64:
      return c.type.id() != TypeId::kUInt8 && c.type.id() != TypeId::kUInt16 &&
             c.type.id() != TypeId::kUInt32 && c.type.id() != TypeId::kUInt64;
    default: return false;
  }
}

// Raw value of an enum field without an enum-typed load.
template <class E>
int64_t RawEnum(const E& e) {
  static_assert(sizeof(E) == sizeof(int32_t), "thrift enums are 32-bit");
  int32_t v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

// The largest value of an enum without a fixed underlying type is 2^bits - 1, bits being what its
// largest enumerator needs.
template <class E>
Status CheckEnum(const E& e, int64_t largest_enumerator, const char* what) {
  int64_t limit = 1;
  while (limit <= largest_enumerator)
    limit <<= 1;
  const int64_t v = RawEnum(e);
  if (v < 0 || v >= limit)
    return Status::InvalidData("{} has the invalid value {}", what, v);
  return Status::OK();
}

}  // namespace

Status CheckEnumRanges(const format::FileMetaData& metadata) {
  for (const auto& e : metadata.schema) {
    SHOAL_RETURN_IF_ERROR(CheckEnum(e.type, 7, "SchemaElement.type"));
    SHOAL_RETURN_IF_ERROR(CheckEnum(e.repetition_type, 2, "SchemaElement.repetition_type"));
    SHOAL_RETURN_IF_ERROR(CheckEnum(e.converted_type, 21, "SchemaElement.converted_type"));
  }
  for (const auto& rg : metadata.row_groups) {
    for (const auto& chunk : rg.columns) {
      const auto& m = chunk.meta_data;
      SHOAL_RETURN_IF_ERROR(CheckEnum(m.type, 7, "ColumnMetaData.type"));
      SHOAL_RETURN_IF_ERROR(CheckEnum(m.codec, 7, "ColumnMetaData.codec"));
      for (const auto& enc : m.encodings)
        SHOAL_RETURN_IF_ERROR(CheckEnum(enc, 9, "ColumnMetaData.encodings"));
      for (const auto& stats : m.encoding_stats) {
        SHOAL_RETURN_IF_ERROR(CheckEnum(stats.page_type, 3, "PageEncodingStats.page_type"));
        SHOAL_RETURN_IF_ERROR(CheckEnum(stats.encoding, 9, "PageEncodingStats.encoding"));
      }
    }
  }
  return Status::OK();
}

Status CheckEnumRanges(const format::PageHeader& h) {
  SHOAL_RETURN_IF_ERROR(CheckEnum(h.type, 3, "PageHeader.type"));
  SHOAL_RETURN_IF_ERROR(CheckEnum(h.data_page_header.encoding, 9, "DataPageHeader.encoding"));
  SHOAL_RETURN_IF_ERROR(CheckEnum(h.data_page_header.definition_level_encoding, 9,
                                  "DataPageHeader.definition_level_encoding"));
  SHOAL_RETURN_IF_ERROR(CheckEnum(h.data_page_header.repetition_level_encoding, 9,
                                  "DataPageHeader.repetition_level_encoding"));
  SHOAL_RETURN_IF_ERROR(
      CheckEnum(h.dictionary_page_header.encoding, 9, "DictionaryPageHeader.encoding"));
  SHOAL_RETURN_IF_ERROR(CheckEnum(h.data_page_header_v2.encoding, 9, "DataPageHeaderV2.encoding"));
  return Status::OK();
}

namespace {

// Nesting deeper than this is refused: levels stay small and the recursion bounded.
constexpr int kMaxSchemaDepth = 64;

// Walks the schema elements depth first, building one SchemaNode per element (the repeated
// groups of lists and maps fold into their list / map node) and a ColumnDescriptor per leaf.
class SchemaBuilder {
 public:
  SchemaBuilder(const format::FileMetaData& metadata, const std::string& file, ParquetSchema* out)
      : metadata_(metadata), elements_(metadata.schema), file_(file), out_(out) {}

  // Builds the node of the element at *i (and its subtree), advancing *i past them.
  // `parent_def` / `parent_rep`: the levels of the parent; `slot_rep` / `slot_def`: the slot
  // condition of the innermost repeated ancestor. `as_element`: the element is the repeated field
  // of a list or map itself, so it adds no level of its own; `as_struct`: a map's key_value group,
  // whose annotation (MAP_KEY_VALUE) is not a map of its own.
  Status Build(size_t* i, int depth, int parent_def, int parent_rep, int slot_rep, int slot_def,
               bool as_element, bool as_struct, const std::string& path, SchemaNode* node) {
    if (depth > kMaxSchemaDepth)
      return Status::NotImplemented("{}: column '{}' is nested more than {} levels deep", file_,
                                    path, kMaxSchemaDepth);
    if (*i >= elements_.size())
      return Status::InvalidData("{}: the Parquet schema ends inside column '{}'", file_, path);
    const format::SchemaElement& e = elements_[*i];
    const std::string name = path.empty() ? e.name : path + "." + e.name;
    const std::string where = file_ + ": column '" + name + "'";
    const bool is_group = e.__isset.num_children && e.num_children > 0;
    const auto repetition =
        e.__isset.repetition_type ? e.repetition_type : FieldRepetitionType::OPTIONAL;
    node->slot_rep = slot_rep;
    node->slot_def = slot_def;
    node->first_leaf = static_cast<int>(out_->leaves.size());
    if (repetition == FieldRepetitionType::REPEATED && !as_element) {
      // A repeated field outside a LIST group: a required list of required elements.
      node->kind = SchemaNode::Kind::kList;
      node->def = parent_def;
      node->rep = parent_rep + 1;
      node->element_def = parent_def + 1;
      SchemaNode element;
      SHOAL_RETURN_IF_ERROR(Build(i, depth + 1, node->element_def, node->rep, node->rep,
                                  node->element_def, true, false, path, &element));
      node->field = columnar::Field(
          e.name, DataType::List(columnar::Field("element", element.field.type, false)), false);
      node->children.push_back(std::move(element));
      node->num_leaves = static_cast<int>(out_->leaves.size()) - node->first_leaf;
      return Status::OK();
    }
    const bool optional = repetition == FieldRepetitionType::OPTIONAL && !as_element;
    node->def = parent_def + (optional ? 1 : 0);
    if (!is_group) {
      if (!e.__isset.type)
        return Status::InvalidData("{} has no physical type", where);
      ColumnDescriptor c;
      c.name = name;
      c.physical = e.type;
      c.type_length = e.__isset.type_length ? e.type_length : 0;
      c.max_def = node->def;
      c.max_rep = parent_rep;
      c.slot_def = slot_def;
      c.optional = c.max_def > c.slot_def;
      SHOAL_ASSIGN_OR_RETURN(c.type, MapType(e, where));
      const size_t leaf = out_->leaves.size();
      if (c.physical == Type::INT96) {
        c.stats_usable = false;
      } else if (metadata_.__isset.column_orders) {
        c.stats_usable = leaf < metadata_.column_orders.size() &&
                         metadata_.column_orders[leaf].__isset.TYPE_ORDER;
      }
      c.legacy_stats_usable = IsSignedOrderType(c);
      node->kind = SchemaNode::Kind::kLeaf;
      node->field = columnar::Field(e.name, c.type, optional);
      out_->leaves.push_back(std::move(c));
      node->num_leaves = 1;
      ++*i;
      return Status::OK();
    }
    const size_t children = static_cast<size_t>(e.num_children);
    if (children > elements_.size() - *i - 1)
      return Status::InvalidData("{} claims {} children but {} schema elements follow", where,
                                 e.num_children, elements_.size() - *i - 1);
    const bool is_list = (e.__isset.logicalType && e.logicalType.__isset.LIST) ||
                         (e.__isset.converted_type && e.converted_type == ConvertedType::LIST);
    const bool is_map =
        !as_struct &&
        ((e.__isset.logicalType && e.logicalType.__isset.MAP) ||
         (e.__isset.converted_type && (e.converted_type == ConvertedType::MAP ||
                                       e.converted_type == ConvertedType::MAP_KEY_VALUE)));
    ++*i;
    if (is_list || is_map) {
      if (children != 1)
        return Status::InvalidData(
            "{} is a {} group with {} children instead of one repeated field", where,
            is_list ? "LIST" : "MAP", children);
      const format::SchemaElement& r = elements_[*i];
      if (!r.__isset.repetition_type || r.repetition_type != FieldRepetitionType::REPEATED)
        return Status::InvalidData("{}: the child '{}' of a {} group is not REPEATED", where,
                                   r.name, is_list ? "LIST" : "MAP");
      node->kind = is_list ? SchemaNode::Kind::kList : SchemaNode::Kind::kMap;
      node->rep = parent_rep + 1;
      node->element_def = node->def + 1;
      const bool r_group = r.__isset.num_children && r.num_children > 0;
      SchemaNode element;
      if (is_map) {
        // LogicalTypes.md: the key_value group holds the key and, optionally, the value; a map
        // without one reads as a map whose values are all NULL.
        if (!r_group || r.num_children > 2)
          return Status::InvalidData(
              "{}: a MAP whose key_value group has {} fields instead of a key and a value", where,
              r_group ? r.num_children : 0);
        SHOAL_RETURN_IF_ERROR(Build(i, depth + 1, node->element_def, node->rep, node->rep,
                                    node->element_def, true, true, name, &element));
        if (element.kind != SchemaNode::Kind::kStruct)
          return Status::InvalidData("{}: the key_value group is not a group", where);
        columnar::Field key = element.children[0].field;
        key.nullable = false;
        const columnar::Field value = element.children.size() > 1
                                          ? element.children[1].field
                                          : columnar::Field("value", DataType::Null(), true);
        node->field = columnar::Field(e.name, DataType::Map(key, value), optional);
      } else {
        // LogicalTypes.md's backward-compatibility rules: the repeated field is the element
        // unless it is a group of one field named neither "array" nor "<list>_tuple".
        const bool repeated_is_element =
            !r_group || r.num_children > 1 || r.name == "array" || r.name == e.name + "_tuple";
        if (repeated_is_element) {
          SHOAL_RETURN_IF_ERROR(Build(i, depth + 1, node->element_def, node->rep, node->rep,
                                      node->element_def, true, false, name, &element));
        } else {
          ++*i;
          SHOAL_RETURN_IF_ERROR(Build(i, depth + 1, node->element_def, node->rep, node->rep,
                                      node->element_def, false, false, name + "." + r.name,
                                      &element));
        }
        node->field = columnar::Field(e.name, DataType::List(element.field), optional);
      }
      node->children.push_back(std::move(element));
    } else {
      node->kind = SchemaNode::Kind::kStruct;
      std::vector<columnar::Field> fields;
      for (size_t k = 0; k < children; ++k) {
        SchemaNode child;
        SHOAL_RETURN_IF_ERROR(Build(i, depth + 1, node->def, parent_rep, slot_rep, slot_def, false,
                                    false, name, &child));
        fields.push_back(child.field);
        node->children.push_back(std::move(child));
      }
      node->field = columnar::Field(e.name, DataType::Struct(std::move(fields)), optional);
    }
    node->num_leaves = static_cast<int>(out_->leaves.size()) - node->first_leaf;
    if (node->num_leaves == 0)
      return Status::InvalidData("{} is a group without leaf columns", where);
    return Status::OK();
  }

 private:
  const format::FileMetaData& metadata_;
  const std::vector<format::SchemaElement>& elements_;
  const std::string& file_;
  ParquetSchema* out_;
};

}  // namespace

Result<ParquetSchema> ConvertSchema(const format::FileMetaData& metadata, const std::string& file) {
  const auto& elements = metadata.schema;
  if (elements.empty())
    return Status::InvalidData("{}: the Parquet schema is empty", file);
  const auto& root = elements[0];
  const int64_t children = root.__isset.num_children ? root.num_children : 0;
  if (children < 0 || static_cast<size_t>(children) > elements.size() - 1)
    return Status::InvalidData(
        "{}: the Parquet schema root claims {} children but {} elements "
        "follow",
        file, children, elements.size() - 1);
  ParquetSchema schema;
  SchemaBuilder builder(metadata, file, &schema);
  size_t i = 1;
  for (int64_t child = 0; child < children; ++child) {
    SchemaNode node;
    SHOAL_RETURN_IF_ERROR(builder.Build(&i, 1, 0, 0, 0, 0, false, false, "", &node));
    if (node.kind == SchemaNode::Kind::kLeaf) {
      schema.columns.push_back(schema.leaves[static_cast<size_t>(node.first_leaf)]);
    } else {
      ColumnDescriptor c;
      c.name = node.field.name;
      c.type = node.field.type;
      c.optional = node.field.nullable;
      c.stats_usable = false;
      for (int l = 0; l < node.num_leaves; ++l)
        schema.leaves[static_cast<size_t>(node.first_leaf) + static_cast<size_t>(l)].nested = true;
      schema.columns.push_back(std::move(c));
    }
    schema.nodes.push_back(std::move(node));
  }
  if (i != elements.size())
    return Status::InvalidData("{}: {} schema elements after the root's {} children", file,
                               elements.size() - i, children);
  return schema;
}

columnar::SchemaPtr ToSchema(const std::vector<ColumnDescriptor>& columns) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (const auto& c : columns)
    fields.emplace_back(c.name, c.type, c.optional);
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

columnar::int128_t DecodeBigEndianDecimal(const uint8_t* bytes, size_t size) {
  // Sign-extend from the first byte, then shift the rest in.
  auto v = static_cast<columnar::int128_t>(static_cast<int8_t>(bytes[0]));
  for (size_t i = 1; i < size; ++i)
    v = static_cast<columnar::int128_t>((static_cast<unsigned __int128>(v) << 8) | bytes[i]);
  return v;
}

std::optional<Scalar> DecodeStatisticsValue(const ColumnDescriptor& c, const std::string& bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  const DataType& t = c.type;
  switch (c.physical) {
    case Type::BOOLEAN:
      if (n < 1)
        return std::nullopt;
      return Scalar::Boolean((p[0] & 1) != 0);
    case Type::INT32: {
      if (n != 4)
        return std::nullopt;
      int32_t v;
      std::memcpy(&v, p, 4);
      if (t.id() == TypeId::kDecimal)
        return Scalar::Decimal(v, t.precision(), t.scale());
      if (t.id() == TypeId::kUInt32)
        return Scalar::FromInt(t, static_cast<uint32_t>(v));
      return Scalar::FromInt(t, v);
    }
    case Type::INT64: {
      if (n != 8)
        return std::nullopt;
      int64_t v;
      std::memcpy(&v, p, 8);
      if (t.id() == TypeId::kDecimal)
        return Scalar::Decimal(v, t.precision(), t.scale());
      if (t.id() == TypeId::kUInt64)
        return std::nullopt;  // scalars hold int64
      return Scalar::FromInt(t, v);
    }
    case Type::FLOAT: {
      if (n != 4)
        return std::nullopt;
      float v;
      std::memcpy(&v, p, 4);
      if (std::isnan(v))
        return std::nullopt;
      return Scalar::FromFloat(t, v);
    }
    case Type::DOUBLE: {
      if (n != 8)
        return std::nullopt;
      double v;
      std::memcpy(&v, p, 8);
      if (std::isnan(v))
        return std::nullopt;
      return Scalar::FromFloat(t, v);
    }
    case Type::BYTE_ARRAY:
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (t.id() == TypeId::kDecimal) {
        if (n < 1 || n > 16)
          return std::nullopt;
        return Scalar::Decimal(DecodeBigEndianDecimal(p, n), t.precision(), t.scale());
      }
      if (t.id() == TypeId::kUtf8)
        return Scalar::Utf8(bytes);
      return Scalar::Binary(bytes);
    default: return std::nullopt;
  }
}

void DecodeMinMax(const ColumnDescriptor& column, const format::Statistics& stats,
                  std::optional<Scalar>* min, std::optional<Scalar>* max) {
  min->reset();
  max->reset();
  if (column.stats_usable && stats.__isset.min_value && stats.__isset.max_value) {
    *min = DecodeStatisticsValue(column, stats.min_value);
    *max = DecodeStatisticsValue(column, stats.max_value);
  } else if (column.legacy_stats_usable && stats.__isset.min && stats.__isset.max) {
    *min = DecodeStatisticsValue(column, stats.min);
    *max = DecodeStatisticsValue(column, stats.max);
  }
  if (!min->has_value() || !max->has_value()) {
    min->reset();
    max->reset();
  }
}

std::optional<int> CompareScalars(const Scalar& a, const Scalar& b) {
  if (a.is_null() || b.is_null() || a.type().id() != b.type().id())
    return std::nullopt;
  auto three_way = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type().id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kDate32: return three_way(a.int_value(), b.int_value());
    case TypeId::kTimestamp:
      if (a.type().unit() != b.type().unit())
        return std::nullopt;
      return three_way(a.int_value(), b.int_value());
    case TypeId::kFloat32:
    case TypeId::kFloat64: return three_way(a.float_value(), b.float_value());
    case TypeId::kDecimal:
      if (a.type().scale() != b.type().scale())
        return std::nullopt;
      return three_way(a.decimal_value(), b.decimal_value());
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int c = a.string_value().compare(b.string_value());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return std::nullopt;
  }
}

}  // namespace shoal::io::parquet

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

Result<std::vector<ColumnDescriptor>> ConvertSchema(const format::FileMetaData& metadata,
                                                    const std::string& file) {
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
  std::vector<ColumnDescriptor> columns;
  size_t i = 1;
  for (int64_t child = 0; child < children; ++child) {
    if (i >= elements.size())
      return Status::InvalidData("{}: the Parquet schema ends inside its root", file);
    const auto& e = elements[i];
    const std::string where = file + ": column '" + e.name + "'";
    if (e.__isset.num_children && e.num_children > 0)
      return Status::NotImplemented(
          "{} is a nested group (struct, list or map); nested Parquet "
          "columns are not supported yet",
          where);
    if (e.__isset.repetition_type && e.repetition_type == FieldRepetitionType::REPEATED)
      return Status::NotImplemented(
          "{} is REPEATED (a list); nested Parquet columns are not "
          "supported yet",
          where);
    if (!e.__isset.type)
      return Status::InvalidData("{} has no physical type", where);
    ColumnDescriptor c;
    c.name = e.name;
    c.physical = e.type;
    c.type_length = e.__isset.type_length ? e.type_length : 0;
    c.optional = !e.__isset.repetition_type || e.repetition_type == FieldRepetitionType::OPTIONAL;
    SHOAL_ASSIGN_OR_RETURN(c.type, MapType(e, where));
    if (c.physical == Type::INT96) {
      c.stats_usable = false;
    } else if (metadata.__isset.column_orders) {
      c.stats_usable = columns.size() < metadata.column_orders.size() &&
                       metadata.column_orders[columns.size()].__isset.TYPE_ORDER;
    }
    c.legacy_stats_usable = IsSignedOrderType(c);
    columns.push_back(std::move(c));
    ++i;
  }
  if (i != elements.size())
    return Status::InvalidData("{}: {} schema elements after the root's {} children", file,
                               elements.size() - i, children);
  return columns;
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

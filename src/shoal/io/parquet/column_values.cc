#include "shoal/io/parquet/column_values_internal.h"

namespace shoal::io::parquet::internal {

using columnar::Array;
using columnar::DataType;
using columnar::int128_t;
using columnar::TimeUnit;
using columnar::TypeId;

// Bytes of the smallest two's-complement integer that holds every decimal of `precision` digits.
namespace {

int DecimalBytes(int precision) {
  const int128_t max = columnar::MaxUnscaled(precision);
  for (int bytes = 1; bytes < 16; ++bytes) {
    if (max < (static_cast<int128_t>(1) << (8 * bytes - 1))) {
      return bytes;
    }
  }
  return 16;
}

}  // namespace

Result<Layout> LayoutOf(const columnar::Field& field) {
  const DataType& type = field.type.decoded_type();
  Layout layout;
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate32:
      layout.physical = Physical::kInt32;
      layout.legacy_stats = true;
      return layout;
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
      layout.physical = Physical::kInt32;
      layout.order = Order::kUnsigned;
      return layout;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      layout.physical = Physical::kInt64;
      layout.legacy_stats = true;
      return layout;
    case TypeId::kUInt64:
      layout.physical = Physical::kInt64;
      layout.order = Order::kUnsigned;
      return layout;
    case TypeId::kFloat32:
      layout.physical = Physical::kFloat;
      layout.order = Order::kFloat;
      layout.legacy_stats = true;
      return layout;
    case TypeId::kFloat64:
      layout.physical = Physical::kDouble;
      layout.order = Order::kFloat;
      layout.legacy_stats = true;
      return layout;
    case TypeId::kBoolean:
      layout.physical = Physical::kBoolean;
      layout.legacy_stats = true;
      return layout;
    case TypeId::kDecimal:
      if (type.precision() <= 9) {
        layout.physical = Physical::kInt32;
      } else if (type.precision() <= DataType::kMaxDecimal64Precision) {
        layout.physical = Physical::kInt64;
      } else {
        layout.physical = Physical::kFixed;
        layout.fixed_width = DecimalBytes(type.precision());
      }
      return layout;
    case TypeId::kUtf8:
    case TypeId::kBinary:
      layout.physical = Physical::kByteArray;
      layout.order = Order::kBytes;
      layout.utf8 = type.id() == TypeId::kUtf8;
      return layout;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kInterval:
    case TypeId::kDictionary: break;
  }
  return Status::NotImplemented("column \"{}\" of type {} cannot be written to Parquet", field.name,
                                field.type.ToString())
      .WithHint("cast it to text, or leave it out of the COPY");
}

format::Type::type PhysicalType(Physical physical) {
  switch (physical) {
    case Physical::kBoolean: return format::Type::BOOLEAN;
    case Physical::kInt32: return format::Type::INT32;
    case Physical::kInt64: return format::Type::INT64;
    case Physical::kFloat: return format::Type::FLOAT;
    case Physical::kDouble: return format::Type::DOUBLE;
    case Physical::kByteArray: return format::Type::BYTE_ARRAY;
    case Physical::kFixed: return format::Type::FIXED_LEN_BYTE_ARRAY;
  }
  return format::Type::INT32;
}

format::CompressionCodec::type CodecOf(ParquetCompression compression) {
  switch (compression) {
    case ParquetCompression::kNone: return format::CompressionCodec::UNCOMPRESSED;
    case ParquetCompression::kSnappy: return format::CompressionCodec::SNAPPY;
    case ParquetCompression::kGzip: return format::CompressionCodec::GZIP;
    case ParquetCompression::kZstd: return format::CompressionCodec::ZSTD;
    case ParquetCompression::kLz4Raw: return format::CompressionCodec::LZ4_RAW;
  }
  return format::CompressionCodec::UNCOMPRESSED;
}

namespace {

// Copies `count` values of `source` (at `positions`, or 0 .. count when null) converted by
// `convert`.
template <typename Src, typename Dst, typename Convert>
void AppendConverted(const Array& source, const int64_t* positions, int64_t count,
                     std::vector<Dst>* out, Convert convert) {
  const Src* src = source.values<Src>();
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(count));
  Dst* dst = out->data() + start;
  if (positions == nullptr) {
    for (int64_t i = 0; i < count; ++i) {
      dst[i] = convert(src[i]);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      dst[i] = convert(src[positions[i]]);
    }
  }
}

template <typename Dst>
struct Cast {
  template <typename Src>
  Dst operator()(Src v) const {
    return static_cast<Dst>(v);
  }
};

Status AppendValues(const Array& source, const int64_t* positions, int64_t count,
                    const columnar::Field& field, Values* out) {
  const DataType& type = source.type();
  switch (type.id()) {
    case TypeId::kNull: return Status::OK();
    case TypeId::kInt8:
      AppendConverted<int8_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kInt16:
      AppendConverted<int16_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate32:
      AppendConverted<int32_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kUInt8:
      AppendConverted<uint8_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kUInt16:
      AppendConverted<uint16_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kUInt32:
      // The two's-complement bit pattern; the UINT_32 annotation tells readers.
      AppendConverted<uint32_t>(source, positions, count, &out->i32, Cast<int32_t>());
      return Status::OK();
    case TypeId::kInt64:
      AppendConverted<int64_t>(source, positions, count, &out->i64, Cast<int64_t>());
      return Status::OK();
    case TypeId::kUInt64:
      AppendConverted<uint64_t>(source, positions, count, &out->i64, Cast<int64_t>());
      return Status::OK();
    case TypeId::kTimestamp: {
      if (type.unit() != TimeUnit::kSecond) {
        AppendConverted<int64_t>(source, positions, count, &out->i64, Cast<int64_t>());
        return Status::OK();
      }
      // Parquet has no seconds unit: milliseconds, refusing values that do not fit.
      bool overflow = false;
      constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / 1000;
      AppendConverted<int64_t>(source, positions, count, &out->i64, [&overflow](int64_t v) {
        overflow |= v > kLimit || v < -kLimit;
        return v * 1000;
      });
      if (overflow) {
        return Status::OutOfRange("column \"{}\": a timestamp is too far from 1970 for Parquet",
                                  field.name);
      }
      return Status::OK();
    }
    case TypeId::kFloat32:
      AppendConverted<float>(source, positions, count, &out->f32, Cast<float>());
      return Status::OK();
    case TypeId::kFloat64:
      AppendConverted<double>(source, positions, count, &out->f64, Cast<double>());
      return Status::OK();
    case TypeId::kDecimal:
      if (type.precision() <= 9) {
        AppendConverted<int64_t>(source, positions, count, &out->i32, Cast<int32_t>());
      } else if (type.precision() <= DataType::kMaxDecimal64Precision) {
        AppendConverted<int64_t>(source, positions, count, &out->i64, Cast<int64_t>());
      } else {
        AppendConverted<int128_t>(source, positions, count, &out->i128, Cast<int128_t>());
      }
      return Status::OK();
    case TypeId::kBoolean: {
      const size_t start = out->bools.size();
      out->bools.resize(start + static_cast<size_t>(count));
      uint32_t* dst = out->bools.data() + start;
      for (int64_t i = 0; i < count; ++i) {
        dst[i] = source.BoolValue(positions == nullptr ? i : positions[i]) ? 1U : 0U;
      }
      return Status::OK();
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int32_t* offsets = source.offsets();
      const auto* data = reinterpret_cast<const char*>(source.string_data());
      if (positions == nullptr) {
        // One copy of the whole byte range, then rebased offsets.
        const int64_t base = static_cast<int64_t>(out->bytes.size()) - offsets[0];
        out->bytes.append(data + offsets[0], static_cast<size_t>(offsets[count] - offsets[0]));
        const size_t start = out->offsets.size();
        out->offsets.resize(start + static_cast<size_t>(count));
        int64_t* dst = out->offsets.data() + start;
        for (int64_t i = 0; i < count; ++i) {
          dst[i] = base + offsets[i + 1];
        }
        return Status::OK();
      }
      for (int64_t i = 0; i < count; ++i) {
        const int64_t p = positions[i];
        out->bytes.append(data + offsets[p], static_cast<size_t>(offsets[p + 1] - offsets[p]));
        out->offsets.push_back(static_cast<int64_t>(out->bytes.size()));
      }
      return Status::OK();
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kInterval:
    case TypeId::kDictionary: break;
  }
  return Status::Internal("column \"{}\": unexpected type {}", field.name, type.ToString());
}

template <typename Index>
void DictionaryPositions(const Array& piece, const Array& dictionary,
                         std::vector<int64_t>* positions, std::vector<uint32_t>* levels,
                         bool optional) {
  const Index* indices = piece.values<Index>();
  for (int64_t i = 0; i < piece.length(); ++i) {
    const bool valid = piece.IsValid(i) && dictionary.IsValid(static_cast<int64_t>(indices[i]));
    if (valid) {
      positions->push_back(static_cast<int64_t>(indices[i]));
    }
    if (optional) {
      levels->push_back(valid ? 1U : 0U);
    }
  }
}

}  // namespace

Status GatherPiece(const Array& piece, const columnar::Field& field, bool optional, Values* out) {
  const int64_t length = piece.length();
  out->num_rows += length;
  std::vector<int64_t> positions;
  const Array* source = &piece;
  bool selected = false;
  const size_t levels_before = out->levels.size();
  if (piece.type_id() == TypeId::kDictionary) {
    source = piece.dictionary().get();
    selected = true;
    positions.reserve(static_cast<size_t>(length));
    switch (piece.type().index_type()) {
      case TypeId::kInt8:
        DictionaryPositions<int8_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kInt16:
        DictionaryPositions<int16_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kInt32:
        DictionaryPositions<int32_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kInt64:
        DictionaryPositions<int64_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kUInt8:
        DictionaryPositions<uint8_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kUInt16:
        DictionaryPositions<uint16_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kUInt32:
        DictionaryPositions<uint32_t>(piece, *source, &positions, &out->levels, optional);
        break;
      case TypeId::kUInt64:
        DictionaryPositions<uint64_t>(piece, *source, &positions, &out->levels, optional);
        break;
      default: return Status::Internal("column \"{}\": bad dictionary index type", field.name);
    }
  } else if (piece.type_id() == TypeId::kNull) {
    selected = true;
    if (optional) {
      out->levels.insert(out->levels.end(), static_cast<size_t>(length), 0U);
    }
  } else if (piece.null_count() > 0) {
    selected = true;
    positions.reserve(static_cast<size_t>(length - piece.null_count()));
    for (int64_t i = 0; i < length; ++i) {
      const bool valid = piece.IsValid(i);
      if (valid) {
        positions.push_back(i);
      }
      if (optional) {
        out->levels.push_back(valid ? 1U : 0U);
      }
    }
  } else if (optional) {
    out->levels.insert(out->levels.end(), static_cast<size_t>(length), 1U);
  }
  const int64_t count = selected ? static_cast<int64_t>(positions.size()) : length;
  if (count < length) {
    if (!optional) {
      return Status::InvalidArgument("column \"{}\" is declared NOT NULL but holds a null",
                                     field.name);
    }
    out->null_count += length - count;
  }
  (void)levels_before;
  return AppendValues(*source, selected ? positions.data() : nullptr, count, field, out);
}

Status GatherSelected(const Array& source, const int64_t* positions, int64_t count,
                      const columnar::Field& field, Values* out) {
  if (source.type_id() == TypeId::kDictionary)
    return Status::NotImplemented(
        "column \"{}\": dictionary-encoded values inside a nested column cannot be written to "
        "Parquet",
        field.name);
  return AppendValues(source, positions, count, field, out);
}

int64_t NumValues(const Values& v, Physical physical) {
  switch (physical) {
    case Physical::kBoolean: return static_cast<int64_t>(v.bools.size());
    case Physical::kInt32: return static_cast<int64_t>(v.i32.size());
    case Physical::kInt64: return static_cast<int64_t>(v.i64.size());
    case Physical::kFloat: return static_cast<int64_t>(v.f32.size());
    case Physical::kDouble: return static_cast<int64_t>(v.f64.size());
    case Physical::kByteArray: return static_cast<int64_t>(v.offsets.size()) - 1;
    case Physical::kFixed: return static_cast<int64_t>(v.i128.size());
  }
  return 0;
}

}  // namespace shoal::io::parquet::internal

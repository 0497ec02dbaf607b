#include "shoal/io/parquet/column_chunk_writer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "shoal/io/parquet/column_shredder_internal.h"
#include "shoal/io/parquet/column_statistics_internal.h"
#include "shoal/io/parquet/column_values_internal.h"
#include "shoal/io/parquet/page_checksum.h"
#include "shoal/io/parquet/rle_encoder.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "shoal/io/parquet/value_encoders_internal.h"

namespace shoal::io::parquet {

using namespace internal;  // NOLINT(google-build-using-namespace): the writer's own stages
using columnar::DataType;
using columnar::TimeUnit;
using columnar::TypeId;

// ---- schema ------------------------------------------------------------------------------------

Result<format::SchemaElement> MakeSchemaElement(const columnar::Field& field) {
  SHOAL_ASSIGN_OR_RETURN(Layout layout, LayoutOf(field));
  const DataType& type = field.type.decoded_type();
  format::SchemaElement element;
  element.__set_name(field.name);
  element.__set_type(PhysicalType(layout.physical));
  element.__set_repetition_type(field.nullable ? format::FieldRepetitionType::OPTIONAL
                                               : format::FieldRepetitionType::REQUIRED);
  format::LogicalType logical;
  auto integer = [&](int bits, bool is_signed, format::ConvertedType::type converted) {
    format::IntType int_type;
    int_type.__set_bitWidth(static_cast<int8_t>(bits));
    int_type.__set_isSigned(is_signed);
    logical.__set_INTEGER(int_type);
    element.__set_logicalType(logical);
    element.__set_converted_type(converted);
  };
  switch (type.id()) {
    case TypeId::kNull:
      logical.__set_UNKNOWN(format::NullType());
      element.__set_logicalType(logical);
      break;
    case TypeId::kInt8: integer(8, true, format::ConvertedType::INT_8); break;
    case TypeId::kInt16: integer(16, true, format::ConvertedType::INT_16); break;
    case TypeId::kInt32: integer(32, true, format::ConvertedType::INT_32); break;
    case TypeId::kInt64: integer(64, true, format::ConvertedType::INT_64); break;
    case TypeId::kUInt8: integer(8, false, format::ConvertedType::UINT_8); break;
    case TypeId::kUInt16: integer(16, false, format::ConvertedType::UINT_16); break;
    case TypeId::kUInt32: integer(32, false, format::ConvertedType::UINT_32); break;
    case TypeId::kUInt64: integer(64, false, format::ConvertedType::UINT_64); break;
    case TypeId::kDate32:
      logical.__set_DATE(format::DateType());
      element.__set_logicalType(logical);
      element.__set_converted_type(format::ConvertedType::DATE);
      break;
    case TypeId::kDecimal: {
      format::DecimalType decimal;
      decimal.__set_precision(type.precision());
      decimal.__set_scale(type.scale());
      logical.__set_DECIMAL(decimal);
      element.__set_logicalType(logical);
      element.__set_converted_type(format::ConvertedType::DECIMAL);
      element.__set_precision(type.precision());
      element.__set_scale(type.scale());
      if (layout.physical == Physical::kFixed) {
        element.__set_type_length(layout.fixed_width);
      }
      break;
    }
    case TypeId::kTimestamp: {
      format::TimestampType timestamp;
      // A time zone means the values are instants in UTC; without one they are wall-clock times.
      timestamp.__set_isAdjustedToUTC(!type.timezone().empty());
      format::TimeUnit unit;
      std::optional<format::ConvertedType::type> converted;
      switch (type.unit()) {
        case TimeUnit::kSecond:
        case TimeUnit::kMilli:
          unit.__set_MILLIS(format::MilliSeconds());
          converted = format::ConvertedType::TIMESTAMP_MILLIS;
          break;
        case TimeUnit::kMicro:
          unit.__set_MICROS(format::MicroSeconds());
          converted = format::ConvertedType::TIMESTAMP_MICROS;
          break;
        case TimeUnit::kNano: unit.__set_NANOS(format::NanoSeconds()); break;
      }
      timestamp.__set_unit(unit);
      logical.__set_TIMESTAMP(timestamp);
      element.__set_logicalType(logical);
      // The legacy annotations mean UTC-adjusted instants (LogicalTypes.md), so local
      // timestamps carry only the LogicalType.
      if (converted && !type.timezone().empty()) {
        element.__set_converted_type(*converted);
      }
      break;
    }
    case TypeId::kUtf8:
      logical.__set_STRING(format::StringType());
      element.__set_logicalType(logical);
      element.__set_converted_type(format::ConvertedType::UTF8);
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kBoolean:
    case TypeId::kBinary: break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kInterval:
    case TypeId::kDictionary: break;  // refused by LayoutOf
  }
  return element;
}

// ---- the writer
// ----------------------------------------------------------------------------------

struct ColumnChunkWriter::Impl {
  columnar::Field field;
  Layout layout;
  bool optional = true;
  std::optional<ColumnShredder> shredder;  // nested columns
  std::vector<format::SchemaElement> elements;
  ColumnEncodingOptions options;
  std::unique_ptr<CompressionEncoder> compressor;
  std::string page;        // uncompressed page body, reused
  std::string compressed;  // compressed page body, reused

  // Appends one page (header + compressed body of `page`) to `out`.
  Status PutPage(format::PageHeader* header, std::string* out, int64_t* uncompressed_total,
                 int64_t* compressed_total) {
    SHOAL_RETURN_IF_ERROR(compressor->Compress(page, &compressed));
    if (page.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
        compressed.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("column \"{}\": a Parquet page would exceed 2 GiB",
                                     field.name);
    }
    header->__set_uncompressed_page_size(static_cast<int32_t>(page.size()));
    header->__set_compressed_page_size(static_cast<int32_t>(compressed.size()));
    // PageHeader.crc: CRC-32 (zlib's polynomial, as parquet-mr and Arrow compute it) of the page
    // bytes as stored, so a reader detects a flipped bit even in an uncompressed page, whose
    // values would otherwise decode into silently wrong numbers.
    const uint32_t crc =
        PageChecksum(reinterpret_cast<const uint8_t*>(compressed.data()), compressed.size());
    header->__set_crc(static_cast<int32_t>(crc));
    SHOAL_ASSIGN_OR_RETURN(std::string header_bytes, SerializeThrift(*header));
    out->append(header_bytes);
    out->append(compressed);
    *uncompressed_total += static_cast<int64_t>(header_bytes.size() + page.size());
    *compressed_total += static_cast<int64_t>(header_bytes.size() + compressed.size());
    return Status::OK();
  }

  // PLAIN bytes of values [begin, end).
  void PutPlainValues(const Values& v, int64_t begin, int64_t end) {
    const int64_t n = end - begin;
    switch (layout.physical) {
      case Physical::kBoolean: RleEncoder::BitPack(v.bools.data() + begin, n, 1, &page); break;
      case Physical::kInt32: PutPlain(v.i32.data() + begin, n, &page); break;
      case Physical::kInt64: PutPlain(v.i64.data() + begin, n, &page); break;
      case Physical::kFloat: PutPlain(v.f32.data() + begin, n, &page); break;
      case Physical::kDouble: PutPlain(v.f64.data() + begin, n, &page); break;
      case Physical::kFixed:
        for (int64_t k = begin; k < end; ++k) {
          page.append(BigEndian(v.i128[static_cast<size_t>(k)], layout.fixed_width));
        }
        break;
      case Physical::kByteArray:
        for (int64_t k = begin; k < end; ++k) {
          std::string_view b = v.Bytes(k);
          PutLength(static_cast<int64_t>(b.size()), &page);
          page.append(b);
        }
        break;
    }
  }

  int64_t PlainBytes(const Values& v) const {
    const int64_t n = NumValues(v, layout.physical);
    switch (layout.physical) {
      case Physical::kBoolean: return (n + 7) / 8;
      case Physical::kInt32:
      case Physical::kFloat: return 4 * n;
      case Physical::kInt64:
      case Physical::kDouble: return 8 * n;
      case Physical::kFixed: return layout.fixed_width * n;
      case Physical::kByteArray: return static_cast<int64_t>(v.bytes.size()) + 4 * n;
    }
    return 0;
  }

  // Tries dictionary encoding; on success fills the dictionary page body into `dictionary_page`
  // and returns the number of entries (indices in `indices`); 0 when PLAIN is better.
  int64_t TryDictionary(const Values& v, std::vector<uint32_t>* indices,
                        std::string* dictionary_page) {
    if (!options.use_dictionary) {
      return 0;
    }
    const int64_t limit = options.dictionary_page_limit;
    int64_t entries = 0;
    switch (layout.physical) {
      case Physical::kBoolean:
      case Physical::kFixed: return 0;
      case Physical::kInt32: {
        std::vector<int32_t> d;
        if (!BuildDictionary(v.i32, limit, &d, indices))
          return 0;
        PutPlain(d.data(), static_cast<int64_t>(d.size()), dictionary_page);
        entries = static_cast<int64_t>(d.size());
        break;
      }
      case Physical::kInt64: {
        std::vector<int64_t> d;
        if (!BuildDictionary(v.i64, limit, &d, indices))
          return 0;
        PutPlain(d.data(), static_cast<int64_t>(d.size()), dictionary_page);
        entries = static_cast<int64_t>(d.size());
        break;
      }
      case Physical::kFloat: {
        std::vector<float> d;
        if (!BuildDictionary(v.f32, limit, &d, indices))
          return 0;
        PutPlain(d.data(), static_cast<int64_t>(d.size()), dictionary_page);
        entries = static_cast<int64_t>(d.size());
        break;
      }
      case Physical::kDouble: {
        std::vector<double> d;
        if (!BuildDictionary(v.f64, limit, &d, indices))
          return 0;
        PutPlain(d.data(), static_cast<int64_t>(d.size()), dictionary_page);
        entries = static_cast<int64_t>(d.size());
        break;
      }
      case Physical::kByteArray: {
        ByteDictionary d;
        if (!BuildByteDictionary(v, limit, &d, indices))
          return 0;
        for (uint32_t k = 0; k < d.size(); ++k) {
          std::string_view b = d.Get(k);
          PutLength(static_cast<int64_t>(b.size()), dictionary_page);
          dictionary_page->append(b);
        }
        entries = static_cast<int64_t>(d.size());
        break;
      }
    }
    if (entries == 0) {
      return 0;
    }
    const int bit_width = std::max(1, RleEncoder::BitWidth(static_cast<uint64_t>(entries - 1)));
    const int64_t n = static_cast<int64_t>(indices->size());
    const int64_t dictionary_bytes =
        static_cast<int64_t>(dictionary_page->size()) + (n * bit_width + 7) / 8;
    if (dictionary_bytes >= PlainBytes(v)) {
      dictionary_page->clear();
      indices->clear();
      return 0;
    }
    return entries;
  }

  Result<std::vector<format::ColumnChunk>> Write(const std::vector<columnar::ArrayPtr>& pieces,
                                                 int64_t file_offset, std::string* out) {
    std::vector<format::ColumnChunk> chunks;
    if (!shredder) {
      Values v;
      for (const auto& piece : pieces) {
        SHOAL_RETURN_IF_ERROR(GatherPiece(*piece, field, optional, &v));
      }
      SHOAL_ASSIGN_OR_RETURN(format::ColumnChunk chunk,
                             WriteChunk(v, {field.name}, optional ? 1 : 0, 0, file_offset, out));
      chunks.push_back(std::move(chunk));
      return chunks;
    }
    SHOAL_ASSIGN_OR_RETURN(std::vector<Values> leaves, shredder->Shred(pieces));
    const size_t start = out->size();
    const Layout saved = layout;
    for (size_t l = 0; l < leaves.size(); ++l) {
      const ColumnShredder::Leaf& leaf = shredder->leaves()[l];
      layout = leaf.layout;
      Result<format::ColumnChunk> chunk =
          WriteChunk(leaves[l], leaf.path, leaf.max_def, leaf.max_rep,
                     file_offset + static_cast<int64_t>(out->size() - start), out);
      if (!chunk.ok()) {
        layout = saved;
        return std::move(chunk).status();
      }
      chunks.push_back(std::move(*chunk));
    }
    layout = saved;
    return chunks;
  }

  // Appends the pages of one leaf column chunk (values and levels in `v`) to `out`, which ends at
  // file offset `file_offset`.
  Result<format::ColumnChunk> WriteChunk(const Values& v, const std::vector<std::string>& path,
                                         int max_def, int max_rep, int64_t file_offset,
                                         std::string* out) {
    const int64_t num_values = NumValues(v, layout.physical);
    const size_t out_start = out->size();
    int64_t uncompressed_total = 0;
    int64_t compressed_total = 0;
    format::ColumnMetaData meta;
    meta.__set_type(PhysicalType(layout.physical));
    meta.__set_path_in_schema(path);
    meta.__set_codec(CodecOf(options.compression));
    meta.__set_num_values(v.num_rows);
    meta.__set_statistics(MakeStatistics(v, layout));

    std::vector<uint32_t> indices;
    std::string dictionary_page;
    const int64_t entries = TryDictionary(v, &indices, &dictionary_page);
    int bit_width = 0;
    std::vector<format::Encoding::type> encodings;
    if (entries > 0) {
      bit_width = std::max(1, RleEncoder::BitWidth(static_cast<uint64_t>(entries - 1)));
      meta.__set_dictionary_page_offset(file_offset);
      page = std::move(dictionary_page);
      format::PageHeader header;
      header.__set_type(format::PageType::DICTIONARY_PAGE);
      format::DictionaryPageHeader dictionary_header;
      dictionary_header.__set_num_values(static_cast<int32_t>(entries));
      dictionary_header.__set_encoding(format::Encoding::PLAIN);
      header.__set_dictionary_page_header(dictionary_header);
      SHOAL_RETURN_IF_ERROR(PutPage(&header, out, &uncompressed_total, &compressed_total));
      encodings = {format::Encoding::PLAIN, format::Encoding::RLE_DICTIONARY,
                   format::Encoding::RLE};
    } else {
      encodings = {format::Encoding::PLAIN, format::Encoding::RLE};
    }
    meta.__set_encodings(encodings);
    meta.__set_data_page_offset(file_offset + static_cast<int64_t>(out->size() - out_start));

    // Entries (rows of a flat column) per page from the estimated encoded size of the whole
    // chunk; a page of a repeated column starts at a row (repetition level 0).
    const int64_t estimate =
        entries > 0 ? (num_values * bit_width + 7) / 8 + 1 : std::max<int64_t>(1, PlainBytes(v));
    const int64_t num_rows = v.num_rows;
    const int64_t rows_per_page =
        std::clamp<int64_t>(options.page_size * std::max<int64_t>(num_rows, 1) / estimate, 1,
                            std::max<int64_t>(num_rows, 1));
    const int def_width = RleEncoder::BitWidth(static_cast<uint64_t>(max_def));
    const int rep_width = RleEncoder::BitWidth(static_cast<uint64_t>(max_rep));
    const auto put_levels = [&](const uint32_t* levels, int64_t count, int width) {
      const size_t at = page.size();
      page.append(4, '\0');
      RleEncoder::Encode(levels, count, width, &page);
      const auto length = static_cast<uint32_t>(page.size() - at - 4);
      std::memcpy(page.data() + at, &length, 4);
    };
    int64_t value_begin = 0;
    int64_t row_end = 0;
    for (int64_t row_begin = 0; row_begin < num_rows || row_begin == 0; row_begin = row_end) {
      row_end = std::min(num_rows, row_begin + rows_per_page);
      if (max_rep > 0) {
        while (row_end < num_rows && v.reps[static_cast<size_t>(row_end)] != 0)
          ++row_end;
      }
      int64_t page_values = row_end - row_begin;
      page.clear();
      if (max_rep > 0)
        put_levels(v.reps.data() + row_begin, row_end - row_begin, rep_width);
      if (max_def > 0) {
        const uint32_t* levels = v.levels.data() + row_begin;
        const auto full = static_cast<uint32_t>(max_def);
        page_values = 0;
        for (int64_t r = 0; r < row_end - row_begin; ++r) {
          page_values += levels[r] == full ? 1 : 0;
        }
        put_levels(levels, row_end - row_begin, def_width);
      }
      const int64_t value_end = value_begin + page_values;
      if (entries > 0) {
        page.push_back(static_cast<char>(bit_width));
        RleEncoder::Encode(indices.data() + value_begin, page_values, bit_width, &page);
      } else {
        PutPlainValues(v, value_begin, value_end);
      }
      value_begin = value_end;
      format::PageHeader header;
      header.__set_type(format::PageType::DATA_PAGE);
      format::DataPageHeader data_header;
      data_header.__set_num_values(static_cast<int32_t>(row_end - row_begin));
      data_header.__set_encoding(entries > 0 ? format::Encoding::RLE_DICTIONARY
                                             : format::Encoding::PLAIN);
      data_header.__set_definition_level_encoding(format::Encoding::RLE);
      data_header.__set_repetition_level_encoding(format::Encoding::RLE);
      header.__set_data_page_header(data_header);
      SHOAL_RETURN_IF_ERROR(PutPage(&header, out, &uncompressed_total, &compressed_total));
      if (num_rows == 0) {
        break;
      }
    }
    if (value_begin != num_values) {
      return Status::Internal("column \"{}\": pages hold {} values of {}", path.back(), value_begin,
                              num_values);
    }
    meta.__set_total_uncompressed_size(uncompressed_total);
    meta.__set_total_compressed_size(compressed_total);
    format::ColumnChunk chunk;
    chunk.__set_file_offset(file_offset);
    chunk.__set_meta_data(meta);
    return chunk;
  }
};

Result<std::unique_ptr<ColumnChunkWriter>> ColumnChunkWriter::Make(
    const columnar::Field& field, const ColumnEncodingOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->field = field;
  if (!field.type.is_nested()) {
    SHOAL_ASSIGN_OR_RETURN(impl->layout, LayoutOf(field));
  }
  impl->optional = field.nullable;
  impl->options = options;
  if (field.type.is_nested()) {
    SHOAL_ASSIGN_OR_RETURN(ColumnShredder shredder, ColumnShredder::Make(field, &impl->elements));
    impl->shredder.emplace(std::move(shredder));
  } else {
    SHOAL_ASSIGN_OR_RETURN(format::SchemaElement element, MakeSchemaElement(field));
    impl->elements.push_back(std::move(element));
  }
  SHOAL_ASSIGN_OR_RETURN(impl->compressor,
                         CompressionEncoder::Make(options.compression, options.compression_level));
  return std::unique_ptr<ColumnChunkWriter>(new ColumnChunkWriter(std::move(impl)));
}

ColumnChunkWriter::ColumnChunkWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ColumnChunkWriter::~ColumnChunkWriter() = default;

Result<std::vector<format::ColumnChunk>> ColumnChunkWriter::Write(
    const std::vector<columnar::ArrayPtr>& pieces, int64_t file_offset, std::string* out) {
  return impl_->Write(pieces, file_offset, out);
}

const std::vector<format::SchemaElement>& ColumnChunkWriter::schema_elements() const {
  return impl_->elements;
}

int ColumnChunkWriter::num_leaves() const {
  return impl_->shredder ? static_cast<int>(impl_->shredder->leaves().size()) : 1;
}

}  // namespace shoal::io::parquet

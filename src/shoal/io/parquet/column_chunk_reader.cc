#include "shoal/io/parquet/column_chunk_reader.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <zlib.h>

#include "shoal/columnar/bitmap.h"
#include "shoal/io/parquet/page_decompressor.h"
#include "shoal/io/parquet/rle_decoder.h"
#include "shoal/io/parquet/thrift_codec.h"

namespace shoal::io::parquet {

namespace {

using columnar::ArrayPtr;
using columnar::Buffer;
using columnar::BufferPtr;
using columnar::TypeId;
using format::CompressionCodec;
using format::Encoding;
using format::PageType;
using format::Type;

constexpr int64_t kMaxPageBytes = int64_t{1} << 30;
constexpr int64_t kJulianDayOfUnixEpoch = 2440588;
constexpr uint64_t kNanosPerDay = uint64_t{86400} * 1000 * 1000 * 1000;

const char* EncodingName(Encoding::type e) {
  switch (e) {
    case Encoding::PLAIN: return "PLAIN";
    case Encoding::PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case Encoding::RLE: return "RLE";
    case Encoding::BIT_PACKED: return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY: return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
  }
  return "unknown encoding";
}

// Bytes of one PLAIN value of a fixed-size physical type; 0 for BYTE_ARRAY, bits for BOOLEAN are
// handled apart.
int PhysicalSize(const ColumnDescriptor& c) {
  switch (c.physical) {
    case Type::INT32:
    case Type::FLOAT: return 4;
    case Type::INT64:
    case Type::DOUBLE: return 8;
    case Type::INT96: return 12;
    case Type::FIXED_LEN_BYTE_ARRAY: return c.type_length;
    default: return 0;
  }
}

template <class Src, class Dst>
void CastCopy(const uint8_t* src, int64_t n, uint8_t* dst) {
  if (n == 0)
    return;  // src may be an empty vector's null data()
  if constexpr (sizeof(Src) == sizeof(Dst)) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(Src));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      Src v;
      std::memcpy(&v, src + i * static_cast<int64_t>(sizeof(Src)), sizeof(Src));
      const auto d = static_cast<Dst>(v);
      std::memcpy(dst + i * static_cast<int64_t>(sizeof(Dst)), &d, sizeof(Dst));
    }
  }
}

template <int kWidth>
void GatherFixed(const uint8_t* dict, const uint32_t* indices, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * kWidth, dict + static_cast<size_t>(indices[i]) * kWidth, kWidth);
}

// Moves `dense` values (the first popcount(defs) slots of dst) to their row slots, back to front
// so the move is in place; null slots are zeroed.
template <int kWidth>
void ScatterFixed(const uint8_t* defs, int64_t rows, int64_t dense, uint8_t* dst) {
  int64_t j = dense;
  for (int64_t i = rows - 1; i >= 0; --i) {
    if (defs[i]) {
      --j;
      if (j != i)
        std::memcpy(dst + i * kWidth, dst + j * kWidth, kWidth);
    } else {
      std::memset(dst + i * kWidth, 0, kWidth);
    }
  }
}

// Sets bits [start, start + n) of a zero-initialised bitmap, whole bytes at a time in the middle.
void SetBitRange(uint8_t* bits, int64_t start, int64_t n) {
  int64_t i = start;
  const int64_t end = start + n;
  for (; i < end && (i & 7) != 0; ++i)
    columnar::bitmap::SetBit(bits, i);
  const int64_t whole = (end - i) / 8;
  if (whole > 0) {
    std::memset(bits + i / 8, 0xFF, static_cast<size_t>(whole));
    i += whole * 8;
  }
  for (; i < end; ++i)
    columnar::bitmap::SetBit(bits, i);
}

class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& column, const format::ColumnMetaData& meta, int64_t num_rows,
               std::shared_ptr<MemoryPool> pool)
      : c_(column), codec_(meta.codec), num_rows_(num_rows), pool_(std::move(pool)) {}

  Status Init() {
    if (num_rows_ < 0 || num_rows_ > INT32_MAX)
      return Status::InvalidData("row group of {} rows (Shoal reads at most 2^31-1 per group)",
                                 num_rows_);
    if (c_.type.id() == TypeId::kBoolean) {
      target_ = Target::kBool;
      SHOAL_ASSIGN_OR_RETURN(
          values_, Buffer::AllocateZeroed(columnar::bitmap::BytesForBits(num_rows_), pool_));
    } else if (c_.type.is_binary_like()) {
      target_ = Target::kVar;
      SHOAL_ASSIGN_OR_RETURN(values_, Buffer::Allocate((num_rows_ + 1) * 4, pool_));
      values_->mutable_data_as<int32_t>()[0] = 0;
      SHOAL_ASSIGN_OR_RETURN(data_, Buffer::Allocate(0, pool_));
    } else {
      target_ = Target::kFixed;
      width_ = c_.type.byte_width();
      SHOAL_ASSIGN_OR_RETURN(values_, Buffer::Allocate(num_rows_ * width_, pool_));
    }
    if (c_.optional) {
      SHOAL_ASSIGN_OR_RETURN(
          validity_, Buffer::AllocateZeroed(columnar::bitmap::BytesForBits(num_rows_), pool_));
    }
    SHOAL_ASSIGN_OR_RETURN(page_, Buffer::Allocate(0, pool_));
    SHOAL_ASSIGN_OR_RETURN(dict_page_, Buffer::Allocate(0, pool_));
    return Status::OK();
  }

  Status Run(const uint8_t* chunk, int64_t size, int64_t file_offset) {
    int64_t pos = 0;
    int page = 0;
    while (rows_ < num_rows_ && pos < size) {
      const int64_t page_offset = file_offset + pos;
      Status st = DecodePage(chunk, size, &pos);
      if (!st.ok())
        return std::move(st).WithContext(
            fmt::format("page {} at file offset {}", page, page_offset));
      ++page;
    }
    if (rows_ != num_rows_)
      return Status::InvalidData("the column chunk holds {} values but the row group has {} rows",
                                 rows_, num_rows_);
    return Status::OK();
  }

  Result<ArrayPtr> Finish() {
    BufferPtr validity = null_count_ > 0 ? validity_ : nullptr;
    ArrayPtr array;
    if (target_ == Target::kVar) {
      SHOAL_RETURN_IF_ERROR(data_->Resize(data_size_));
      array = columnar::Array::Make(c_.type, num_rows_, {validity, values_, data_}, null_count_);
      // Offsets are built here and monotonic by construction; UTF-8 was checked per page (and
      // once per dictionary entry), so no Validate pass over the whole array is needed.
    } else {
      array = columnar::Array::Make(c_.type, num_rows_, {validity, values_}, null_count_);
    }
    return array;
  }

 private:
  enum class Target { kBool, kFixed, kVar };

  // Page body bytes, decompressed into `out` when the codec asks for it; returns the readable
  // range (always followed by kDecodePadding readable bytes).
  Status Body(const uint8_t* src, int64_t src_size, int64_t raw_size, bool compressed,
              const BufferPtr& out, const uint8_t** data, int64_t* size) {
    if (!compressed || codec_ == CompressionCodec::UNCOMPRESSED) {
      *data = src;
      *size = src_size;
      return Status::OK();
    }
    if (raw_size < 0 || raw_size > kMaxPageBytes)
      return Status::InvalidData("uncompressed page size {} is out of range", raw_size);
    SHOAL_RETURN_IF_ERROR(out->Resize(raw_size + static_cast<int64_t>(kDecodePadding)));
    std::memset(out->mutable_data() + raw_size, 0, kDecodePadding);
    SHOAL_RETURN_IF_ERROR(DecompressPage(codec_, src, static_cast<size_t>(src_size),
                                         out->mutable_data(), static_cast<size_t>(raw_size)));
    *data = out->data();
    *size = raw_size;
    return Status::OK();
  }

  Status DecodePage(const uint8_t* chunk, int64_t size, int64_t* pos) {
    format::PageHeader h;
    SHOAL_ASSIGN_OR_RETURN(size_t header_bytes,
                           DeserializeThrift(chunk + *pos, static_cast<size_t>(size - *pos), &h));
    SHOAL_RETURN_IF_ERROR(CheckEnumRanges(h));
    const int64_t body = *pos + static_cast<int64_t>(header_bytes);
    if (h.compressed_page_size < 0 || h.compressed_page_size > size - body)
      return Status::InvalidData("the page claims {} bytes but only {} remain in the column chunk",
                                 h.compressed_page_size, size - body);
    if (h.uncompressed_page_size < 0)
      return Status::InvalidData("negative uncompressed page size {}", h.uncompressed_page_size);
    *pos = body + h.compressed_page_size;
    const uint8_t* src = chunk + body;
    if (h.__isset.crc) {
      // CRC-32 (zlib's polynomial) of the page bytes as stored, when the writer recorded one.
      const uLong crc = crc32(crc32(0L, Z_NULL, 0), src, static_cast<uInt>(h.compressed_page_size));
      if (static_cast<uint32_t>(crc) != static_cast<uint32_t>(h.crc))
        return Status::InvalidData("page checksum mismatch: the page is corrupted");
    }
    switch (h.type) {
      case PageType::DICTIONARY_PAGE: return DictionaryPage(h, src);
      case PageType::DATA_PAGE: return DataPageV1(h, src);
      case PageType::DATA_PAGE_V2: return DataPageV2(h, src);
      default: return Status::OK();  // index pages and unknown page types carry no values
    }
  }

  Status DictionaryPage(const format::PageHeader& h, const uint8_t* src) {
    if (!h.__isset.dictionary_page_header)
      return Status::InvalidData("dictionary page without a dictionary page header");
    if (have_dictionary_)
      return Status::InvalidData("a second dictionary page in the column chunk");
    const auto& d = h.dictionary_page_header;
    if (d.encoding != Encoding::PLAIN && d.encoding != Encoding::PLAIN_DICTIONARY)
      return Status::NotImplemented("dictionary page encoding {}", EncodingName(d.encoding));
    if (d.num_values < 0)
      return Status::InvalidData("dictionary of {} values", d.num_values);
    const uint8_t* data = nullptr;
    int64_t size = 0;
    SHOAL_RETURN_IF_ERROR(Body(src, h.compressed_page_size, h.uncompressed_page_size, true,
                               dict_page_, &data, &size));
    dict_size_ = d.num_values;
    if (target_ == Target::kVar) {
      SHOAL_RETURN_IF_ERROR(
          DecodeValues(Encoding::PLAIN, data, size, dict_size_, nullptr, &dict_views_));
    } else {
      const int w = target_ == Target::kBool ? 1 : width_;
      dict_fixed_.assign(static_cast<size_t>(dict_size_) * static_cast<size_t>(w), 0);
      SHOAL_RETURN_IF_ERROR(
          DecodeValues(Encoding::PLAIN, data, size, dict_size_, dict_fixed_.data(), &views_));
    }
    if (target_ == Target::kVar)
      SHOAL_RETURN_IF_ERROR(CheckUtf8(dict_views_, data, size, "dictionary"));
    have_dictionary_ = true;
    return Status::OK();
  }

  Status CheckValueCount(int64_t num_values) {
    if (num_values < 0 || num_values > num_rows_ - rows_)
      return Status::InvalidData(
          "the page holds {} values but only {} rows of the row group remain", num_values,
          num_rows_ - rows_);
    return Status::OK();
  }

  Status DataPageV1(const format::PageHeader& h, const uint8_t* src) {
    if (!h.__isset.data_page_header)
      return Status::InvalidData("data page without a data page header");
    const auto& dp = h.data_page_header;
    SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
    const uint8_t* data = nullptr;
    int64_t size = 0;
    SHOAL_RETURN_IF_ERROR(
        Body(src, h.compressed_page_size, h.uncompressed_page_size, true, page_, &data, &size));
    const int64_t n = dp.num_values;
    if (c_.optional) {
      defs_.resize(static_cast<size_t>(n));
      if (dp.definition_level_encoding == Encoding::RLE) {
        if (size < 4)
          return Status::InvalidData("definition levels cut off");
        uint32_t len;
        std::memcpy(&len, data, 4);
        if (len > static_cast<uint64_t>(size - 4))
          return Status::InvalidData("definition levels claim {} bytes, the page has {}", len,
                                     size - 4);
        RleBitPackedDecoder levels(data + 4, len, 1);
        SHOAL_RETURN_IF_ERROR(levels.Decode(defs_.data(), n));
        data += 4 + len;
        size -= 4 + static_cast<int64_t>(len);
      } else if (dp.definition_level_encoding == Encoding::BIT_PACKED) {
        // Deprecated: most significant bit first, no length prefix.
        const int64_t bytes = (n + 7) / 8;
        if (bytes > size)
          return Status::InvalidData("BIT_PACKED definition levels cut off");
        for (int64_t i = 0; i < n; ++i)
          defs_[static_cast<size_t>(i)] = (data[i / 8] >> (7 - i % 8)) & 1;
        data += bytes;
        size -= bytes;
      } else {
        return Status::InvalidData("definition levels encoded as {}",
                                   EncodingName(dp.definition_level_encoding));
      }
    }
    return Values(dp.encoding, data, size, n);
  }

  Status DataPageV2(const format::PageHeader& h, const uint8_t* src) {
    if (!h.__isset.data_page_header_v2)
      return Status::InvalidData("data page v2 without its header");
    const auto& dp = h.data_page_header_v2;
    SHOAL_RETURN_IF_ERROR(CheckValueCount(dp.num_values));
    const int64_t rep_len = dp.repetition_levels_byte_length;
    const int64_t def_len = dp.definition_levels_byte_length;
    if (rep_len < 0 || def_len < 0 || rep_len + def_len > h.compressed_page_size ||
        rep_len + def_len > h.uncompressed_page_size)
      return Status::InvalidData("level lengths {} and {} do not fit the page", rep_len, def_len);
    const int64_t n = dp.num_values;
    if (c_.optional) {
      defs_.resize(static_cast<size_t>(n));
      RleBitPackedDecoder levels(src + rep_len, static_cast<size_t>(def_len), 1);
      SHOAL_RETURN_IF_ERROR(levels.Decode(defs_.data(), n));
    }
    const uint8_t* data = nullptr;
    int64_t size = 0;
    SHOAL_RETURN_IF_ERROR(Body(src + rep_len + def_len, h.compressed_page_size - rep_len - def_len,
                               h.uncompressed_page_size - rep_len - def_len, dp.is_compressed,
                               page_, &data, &size));
    return Values(dp.encoding, data, size, n);
  }

  // Decodes the values of a data page of `n` rows (definition levels in defs_ when optional) and
  // appends them to the output.
  Status Values(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n) {
    int64_t dense = n;
    if (c_.optional) {
      dense = 0;
      for (int64_t i = 0; i < n; ++i)
        dense += defs_[static_cast<size_t>(i)];
    }
    const uint8_t* defs = c_.optional ? defs_.data() : nullptr;
    switch (target_) {
      case Target::kFixed: {
        uint8_t* dst = values_->mutable_data() + rows_ * width_;
        SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, dst, &views_));
        if (dense != n) {
          switch (width_) {
            case 1: ScatterFixed<1>(defs, n, dense, dst); break;
            case 2: ScatterFixed<2>(defs, n, dense, dst); break;
            case 4: ScatterFixed<4>(defs, n, dense, dst); break;
            case 8: ScatterFixed<8>(defs, n, dense, dst); break;
            case 16: ScatterFixed<16>(defs, n, dense, dst); break;
            default: return Status::Internal("unexpected value width {}", width_);
          }
        }
        break;
      }
      case Target::kBool: {
        bools_.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
        SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, bools_.data(), &views_));
        if (dense != n)
          ScatterFixed<1>(defs, n, dense, bools_.data());
        uint8_t* bits = values_->mutable_data();
        for (int64_t i = 0; i < n; ++i)
          if (bools_[static_cast<size_t>(i)])
            columnar::bitmap::SetBit(bits, rows_ + i);
        break;
      }
      case Target::kVar: {
        SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, nullptr, &views_));
        // Dictionary pages hold values already checked.
        if (encoding != Encoding::PLAIN_DICTIONARY && encoding != Encoding::RLE_DICTIONARY)
          SHOAL_RETURN_IF_ERROR(CheckUtf8(views_, data, size, "value"));
        SHOAL_RETURN_IF_ERROR(AppendViews(defs, n));
        break;
      }
    }
    if (c_.optional) {
      uint8_t* valid = validity_->mutable_data();
      if (dense == n) {
        SetBitRange(valid, rows_, n);  // the common case: a nullable column without nulls
      } else {
        for (int64_t i = 0; i < n; ++i)
          if (defs_[static_cast<size_t>(i)])
            columnar::bitmap::SetBit(valid, rows_ + i);
      }
      null_count_ += n - dense;
    }
    rows_ += n;
    return Status::OK();
  }

  // Values decoded from a page are built only from the page's bytes, so a page without a byte
  // >= 0x80 (lengths and headers included) holds only ASCII values: one fast scan instead of a
  // check per value, which is the common case.
  Status CheckUtf8(const std::vector<ByteView>& views, const uint8_t* page, int64_t page_size,
                   const char* what) const {
    if (c_.type.id() != TypeId::kUtf8)
      return Status::OK();
    uint64_t high = 0;
    int64_t i = 0;
    for (; i + 8 <= page_size; i += 8) {
      uint64_t w;
      std::memcpy(&w, page + i, 8);
      high |= w;
    }
    for (; i < page_size; ++i)
      high |= page[i];
    if ((high & 0x8080808080808080ULL) == 0)
      return Status::OK();
    for (size_t i = 0; i < views.size(); ++i) {
      if (!columnar::IsValidUtf8(reinterpret_cast<const uint8_t*>(views[i].data()),
                                 static_cast<int64_t>(views[i].size())))
        return Status::InvalidData("{} {} of a string column is not valid UTF-8", what, i);
    }
    return Status::OK();
  }

  Status AppendViews(const uint8_t* defs, int64_t n) {
    uint64_t total = 0;
    for (const ByteView& v : views_)
      total += v.size();
    if (static_cast<uint64_t>(data_size_) + total > static_cast<uint64_t>(INT32_MAX))
      return Status::NotImplemented(
          "the column chunk holds over 2 GiB of string data in one row group");
    const int64_t need = data_size_ + static_cast<int64_t>(total);
    if (need > data_->size())
      SHOAL_RETURN_IF_ERROR(data_->Resize(std::max(need, data_->size() * 2)));
    uint8_t* out = data_->mutable_data();
    int32_t* offsets = values_->mutable_data_as<int32_t>() + rows_;
    int64_t pos = data_size_;
    size_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (defs == nullptr || defs[i]) {
        const ByteView& v = views_[j++];
        if (!v.empty())
          std::memcpy(out + pos, v.data(), v.size());
        pos += static_cast<int64_t>(v.size());
      }
      offsets[i + 1] = static_cast<int32_t>(pos);
    }
    data_size_ = pos;
    return Status::OK();
  }

  // Physical values (fixed size, little-endian, contiguous) to the column type at dst.
  Status ConvertFixed(const uint8_t* src, int64_t n, uint8_t* dst) {
    const TypeId id = c_.type.id();
    switch (c_.physical) {
      case Type::INT32:
        switch (id) {
          case TypeId::kInt8:
          case TypeId::kUInt8: CastCopy<int32_t, int8_t>(src, n, dst); return Status::OK();
          case TypeId::kInt16:
          case TypeId::kUInt16: CastCopy<int32_t, int16_t>(src, n, dst); return Status::OK();
          case TypeId::kDecimal:
            if (width_ == 8) {
              CastCopy<int32_t, int64_t>(src, n, dst);
            } else {
              CastCopy<int32_t, columnar::int128_t>(src, n, dst);
            }
            return Status::OK();
          default: CastCopy<int32_t, int32_t>(src, n, dst); return Status::OK();
        }
      case Type::INT64:
        if (id == TypeId::kDecimal && width_ == 16) {
          CastCopy<int64_t, columnar::int128_t>(src, n, dst);
        } else {
          CastCopy<int64_t, int64_t>(src, n, dst);
        }
        return Status::OK();
      case Type::FLOAT: CastCopy<float, float>(src, n, dst); return Status::OK();
      case Type::DOUBLE: CastCopy<double, double>(src, n, dst); return Status::OK();
      case Type::INT96:
        for (int64_t i = 0; i < n; ++i) {
          uint64_t nanos;
          int32_t day;
          std::memcpy(&nanos, src + i * 12, 8);
          std::memcpy(&day, src + i * 12 + 8, 4);
          const uint64_t v =
              static_cast<uint64_t>(static_cast<int64_t>(day) - kJulianDayOfUnixEpoch) *
                  kNanosPerDay +
              nanos;
          std::memcpy(dst + i * 8, &v, 8);
        }
        return Status::OK();
      case Type::FIXED_LEN_BYTE_ARRAY: {
        views_.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          views_[static_cast<size_t>(i)] =
              ByteView(reinterpret_cast<const char*>(src) + i * c_.type_length,
                       static_cast<size_t>(c_.type_length));
        return ConvertViews(n, dst);
      }
      default:
        return Status::Internal("no fixed conversion from physical type {}",
                                static_cast<int>(c_.physical));
    }
  }

  // views_ (BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY decimals) to the decimal storage at dst.
  Status ConvertViews(int64_t n, uint8_t* dst) {
    if (c_.type.id() != TypeId::kDecimal)
      return Status::Internal("byte-array values for a {} column", c_.type.ToString());
    for (int64_t i = 0; i < n; ++i) {
      const ByteView& v = views_[static_cast<size_t>(i)];
      if (v.empty() || v.size() > 16)
        return Status::InvalidData("decimal value {} has {} bytes (1 to 16 expected)", i, v.size());
      const columnar::int128_t x =
          DecodeBigEndianDecimal(reinterpret_cast<const uint8_t*>(v.data()), v.size());
      if (width_ == 8) {
        if (x > INT64_MAX || x < INT64_MIN)
          return Status::InvalidData("decimal value {} does not fit decimal({},{})", i,
                                     c_.type.precision(), c_.type.scale());
        const auto y = static_cast<int64_t>(x);
        std::memcpy(dst + i * 8, &y, 8);
      } else {
        std::memcpy(dst + i * 16, &x, 16);
      }
    }
    return Status::OK();
  }

  // Decodes `n` non-null values. Fixed and boolean columns write to `dst` (booleans one byte
  // each); byte-array columns fill `views`.
  Status DecodeValues(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n,
                      uint8_t* dst, std::vector<ByteView>* views) {
    const bool var = target_ == Target::kVar;
    switch (encoding) {
      case Encoding::PLAIN: return Plain(data, size, n, dst, views);
      case Encoding::PLAIN_DICTIONARY:
      case Encoding::RLE_DICTIONARY: {
        if (!have_dictionary_)
          return Status::InvalidData("dictionary-encoded page without a dictionary page");
        if (n == 0)
          return Status::OK();
        if (size < 1)
          return Status::InvalidData("dictionary page data is empty");
        const int bit_width = data[0];
        if (bit_width > 32)
          return Status::InvalidData("dictionary index width {} over 32", bit_width);
        indices_.resize(static_cast<size_t>(n));
        RleBitPackedDecoder decoder(data + 1, static_cast<size_t>(size - 1), bit_width);
        SHOAL_RETURN_IF_ERROR(decoder.Decode(indices_.data(), n));
        uint32_t max_index = 0;
        for (int64_t i = 0; i < n; ++i)
          max_index = std::max(max_index, indices_[static_cast<size_t>(i)]);
        if (static_cast<int64_t>(max_index) >= dict_size_)
          return Status::InvalidData(
              "dictionary index {} out of range (the dictionary has {} values)", max_index,
              dict_size_);
        if (var) {
          views->resize(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i)
            (*views)[static_cast<size_t>(i)] = dict_views_[indices_[static_cast<size_t>(i)]];
          return Status::OK();
        }
        const int w = target_ == Target::kBool ? 1 : width_;
        switch (w) {
          case 1: GatherFixed<1>(dict_fixed_.data(), indices_.data(), n, dst); break;
          case 2: GatherFixed<2>(dict_fixed_.data(), indices_.data(), n, dst); break;
          case 4: GatherFixed<4>(dict_fixed_.data(), indices_.data(), n, dst); break;
          case 8: GatherFixed<8>(dict_fixed_.data(), indices_.data(), n, dst); break;
          case 16: GatherFixed<16>(dict_fixed_.data(), indices_.data(), n, dst); break;
          default: return Status::Internal("unexpected value width {}", w);
        }
        return Status::OK();
      }
      case Encoding::RLE: {
        if (c_.physical != Type::BOOLEAN)
          return Status::InvalidData("RLE values for a non-boolean column");
        if (size < 4)
          return Status::InvalidData("RLE boolean values cut off");
        uint32_t len;
        std::memcpy(&len, data, 4);
        if (len > static_cast<uint64_t>(size - 4))
          return Status::InvalidData("RLE boolean values claim {} bytes, the page has {}", len,
                                     size - 4);
        RleBitPackedDecoder decoder(data + 4, len, 1);
        return decoder.Decode(dst, n);
      }
      case Encoding::DELTA_BINARY_PACKED: {
        if (c_.physical != Type::INT32 && c_.physical != Type::INT64)
          return Status::InvalidData("DELTA_BINARY_PACKED values for a {} column",
                                     c_.type.ToString());
        DeltaBinaryPackedDecoder decoder(data, static_cast<size_t>(size));
        SHOAL_RETURN_IF_ERROR(decoder.Init());
        if (decoder.total_values() < n)
          return Status::InvalidData("DELTA_BINARY_PACKED holds {} values, the page needs {}",
                                     decoder.total_values(), n);
        ints_.resize(static_cast<size_t>(n));
        SHOAL_RETURN_IF_ERROR(decoder.Decode(ints_.data(), n));
        if (c_.physical == Type::INT32) {
          ints32_.resize(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i)
            ints32_[static_cast<size_t>(i)] = static_cast<int32_t>(ints_[static_cast<size_t>(i)]);
          return ConvertFixed(reinterpret_cast<const uint8_t*>(ints32_.data()), n, dst);
        }
        return ConvertFixed(reinterpret_cast<const uint8_t*>(ints_.data()), n, dst);
      }
      case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      case Encoding::DELTA_BYTE_ARRAY: {
        if (c_.physical != Type::BYTE_ARRAY &&
            !(c_.physical == Type::FIXED_LEN_BYTE_ARRAY && encoding == Encoding::DELTA_BYTE_ARRAY))
          return Status::InvalidData("{} values for a {} column", EncodingName(encoding),
                                     c_.type.ToString());
        if (encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY) {
          SHOAL_RETURN_IF_ERROR(
              DecodeDeltaLengthByteArray(data, static_cast<size_t>(size), n, views));
        } else {
          SHOAL_RETURN_IF_ERROR(
              DecodeDeltaByteArray(data, static_cast<size_t>(size), n, &arena_, views));
        }
        if (c_.physical == Type::FIXED_LEN_BYTE_ARRAY) {
          for (const ByteView& v : *views)
            if (v.size() != static_cast<size_t>(c_.type_length))
              return Status::InvalidData("a FIXED_LEN_BYTE_ARRAY({}) value has {} bytes",
                                         c_.type_length, v.size());
        }
        if (var)
          return Status::OK();
        if (views != &views_)
          return Status::Internal("decimal views in a foreign list");
        return ConvertViews(n, dst);
      }
      case Encoding::BYTE_STREAM_SPLIT: {
        const int k = PhysicalSize(c_);
        if (k == 0 || c_.physical == Type::INT96)
          return Status::InvalidData("BYTE_STREAM_SPLIT values for a {} column",
                                     c_.type.ToString());
        if (n * k > size)
          return Status::InvalidData("BYTE_STREAM_SPLIT page holds {} bytes, {} values need {}",
                                     size, n, n * k);
        // Byte j of every value is in stream j; only non-null values are encoded, so each stream
        // is n bytes long.
        split_.resize(static_cast<size_t>(n * k) + kDecodePadding);
        for (int j = 0; j < k; ++j) {
          const uint8_t* stream = data + static_cast<int64_t>(j) * n;
          for (int64_t i = 0; i < n; ++i)
            split_[static_cast<size_t>(i * k + j)] = stream[i];
        }
        if (var) {
          views->resize(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i)
            (*views)[static_cast<size_t>(i)] = ByteView(
                reinterpret_cast<const char*>(split_.data()) + i * k, static_cast<size_t>(k));
          return Status::OK();
        }
        return ConvertFixed(split_.data(), n, dst);
      }
      default:
        return Status::NotImplemented("Parquet value encoding {} is not supported",
                                      EncodingName(encoding));
    }
  }

  Status Plain(const uint8_t* data, int64_t size, int64_t n, uint8_t* dst,
               std::vector<ByteView>* views) {
    switch (c_.physical) {
      case Type::BOOLEAN: {
        if ((n + 7) / 8 > size)
          return Status::InvalidData("PLAIN page holds {} bytes, {} booleans need {}", size, n,
                                     (n + 7) / 8);
        for (int64_t i = 0; i < n; ++i)
          dst[i] = (data[i >> 3] >> (i & 7)) & 1;
        return Status::OK();
      }
      case Type::BYTE_ARRAY: {
        if (n > size / 4)
          return Status::InvalidData("PLAIN page holds {} bytes, too few for {} byte arrays", size,
                                     n);
        views->resize(static_cast<size_t>(n));
        int64_t pos = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (size - pos < 4)
            return Status::InvalidData("PLAIN byte array {} cut off", i);
          uint32_t len;
          std::memcpy(&len, data + pos, 4);
          pos += 4;
          if (len > static_cast<uint64_t>(size - pos))
            return Status::InvalidData("PLAIN byte array {} claims {} bytes, {} remain", i, len,
                                       size - pos);
          (*views)[static_cast<size_t>(i)] =
              ByteView(reinterpret_cast<const char*>(data + pos), len);
          pos += len;
        }
        if (target_ == Target::kVar)
          return Status::OK();
        if (views != &views_)
          return Status::Internal("decimal views in a foreign list");
        return ConvertViews(n, dst);
      }
      default: {
        const int k = PhysicalSize(c_);
        if (k <= 0)
          return Status::InvalidData("bad value width {}", k);
        if (n > size / k)
          return Status::InvalidData("PLAIN page holds {} bytes, {} values need {}", size, n,
                                     n * k);
        if (target_ == Target::kVar) {
          views->resize(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i)
            (*views)[static_cast<size_t>(i)] =
                ByteView(reinterpret_cast<const char*>(data) + i * k, static_cast<size_t>(k));
          return Status::OK();
        }
        return ConvertFixed(data, n, dst);
      }
    }
  }

  const ColumnDescriptor& c_;
  CompressionCodec::type codec_;
  int64_t num_rows_;
  std::shared_ptr<MemoryPool> pool_;
  Target target_ = Target::kFixed;
  int width_ = 0;

  BufferPtr validity_;
  BufferPtr values_;  // fixed values, boolean bits, or int32 offsets
  BufferPtr data_;    // byte-array data
  int64_t data_size_ = 0;
  int64_t rows_ = 0;
  int64_t null_count_ = 0;

  BufferPtr page_;       // decompressed data page
  BufferPtr dict_page_;  // decompressed dictionary page, alive for the whole chunk
  bool have_dictionary_ = false;
  int64_t dict_size_ = 0;
  std::vector<uint8_t> dict_fixed_;
  std::vector<ByteView> dict_views_;

  // Per-page scratch, reused.
  std::vector<uint8_t> defs_;
  std::vector<uint8_t> bools_;
  std::vector<uint32_t> indices_;
  std::vector<int64_t> ints_;
  std::vector<int32_t> ints32_;
  std::vector<uint8_t> split_;
  std::vector<char> arena_;
  std::vector<ByteView> views_;
};

}  // namespace

Result<ChunkRange> LocateColumnChunk(const format::ColumnChunk& chunk, int64_t file_size,
                                     const std::string& where) {
  if (!chunk.__isset.meta_data)
    return Status::InvalidData("{}: the column chunk has no metadata", where);
  if (chunk.__isset.file_path && !chunk.file_path.empty())
    return Status::NotImplemented("{}: column data in another file ('{}') is not supported", where,
                                  chunk.file_path);
  const auto& m = chunk.meta_data;
  int64_t start = m.data_page_offset;
  if (m.__isset.dictionary_page_offset && m.dictionary_page_offset > 0 &&
      m.dictionary_page_offset < start)
    start = m.dictionary_page_offset;
  if (start < 4 || m.total_compressed_size <= 0 || m.total_compressed_size > file_size ||
      start > file_size - m.total_compressed_size)
    return Status::InvalidData(
        "{}: column chunk at offset {} of {} bytes lies outside the file "
        "({} bytes)",
        where, start, m.total_compressed_size, file_size);
  return ChunkRange{start, m.total_compressed_size};
}

Result<ArrayPtr> DecodeColumnChunk(const ColumnDescriptor& column,
                                   const format::ColumnMetaData& meta, int64_t num_rows,
                                   const uint8_t* chunk, int64_t chunk_size, int64_t chunk_offset,
                                   const std::shared_ptr<MemoryPool>& pool,
                                   const std::string& where) {
  if (meta.type != column.physical)
    return Status::InvalidData("{}: the column chunk's type {} differs from the schema's {}", where,
                               static_cast<int>(meta.type), static_cast<int>(column.physical));
  ChunkDecoder decoder(column, meta, num_rows, pool);
  Status st = decoder.Init();
  if (st.ok())
    st = decoder.Run(chunk, chunk_size, chunk_offset);
  if (!st.ok())
    return std::move(st).WithContext(where);
  Result<ArrayPtr> array = decoder.Finish();
  if (!array.ok())
    return std::move(array).status().WithContext(where);
  return array;
}

}  // namespace shoal::io::parquet

#include <algorithm>
#include <cstring>

#include "shoal/columnar/bitmap.h"
#include "shoal/io/parquet/chunk_decoder_internal.h"

namespace shoal::io::parquet::internal {
namespace {

constexpr int64_t kJulianDayOfUnixEpoch = 2440588;
constexpr uint64_t kNanosPerDay = uint64_t{86400} * 1000 * 1000 * 1000;

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

// Values picks[0, n) of `src` (kWidth bytes each) to dst, one after the other.
template <int kWidth>
void PickFixed(const uint8_t* src, const int32_t* picks, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * kWidth, src + static_cast<int64_t>(picks[i]) * kWidth, kWidth);
}

template <int kWidth>
void GatherFixed(const uint8_t* dict, const uint32_t* indices, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * kWidth, dict + static_cast<size_t>(indices[i]) * kWidth, kWidth);
}

// The values of an RLE-encoded boolean page: a 4-byte length, then RLE / bit-packed runs of
// width 1.
Result<RleBitPackedDecoder> RleBooleanValues(const ColumnDescriptor& c, const uint8_t* data,
                                             int64_t size) {
  if (c.physical != Type::BOOLEAN)
    return Status::InvalidData("RLE values for a non-boolean column");
  if (size < 4)
    return Status::InvalidData("RLE boolean values cut off");
  uint32_t len;
  std::memcpy(&len, data, 4);
  if (len > static_cast<uint64_t>(size - 4))
    return Status::InvalidData("RLE boolean values claim {} bytes, the page has {}", len, size - 4);
  return RleBitPackedDecoder(data + 4, len, 1);
}

// The indices of a dictionary-encoded page (`size` >= 1): a width byte, then RLE / bit-packed runs.
Result<RleBitPackedDecoder> DictionaryIndices(const uint8_t* data, int64_t size) {
  const int bit_width = data[0];
  if (bit_width > 32)
    return Status::InvalidData("dictionary index width {} over 32", bit_width);
  return RleBitPackedDecoder(data + 1, static_cast<size_t>(size - 1), bit_width);
}

}  // namespace

Status ChunkDecoder::ConvertFixed(const uint8_t* src, int64_t n, uint8_t* dst) {
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

Status ChunkDecoder::ConvertViews(int64_t n, uint8_t* dst) {
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

Status ChunkDecoder::DecodeValues(Encoding::type encoding, const uint8_t* data, int64_t size,
                                  int64_t n, uint8_t* dst, std::vector<ByteView>* views) {
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
      SHOAL_ASSIGN_OR_RETURN(auto decoder, DictionaryIndices(data, size));
      indices_.resize(static_cast<size_t>(n));
      SHOAL_RETURN_IF_ERROR(decoder.Decode(indices_.data(), n));
      return GatherDictionary(n, dst, views);
    }
    case Encoding::RLE: {
      SHOAL_ASSIGN_OR_RETURN(auto decoder, RleBooleanValues(c_, data, size));
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
      return ConvertInts(n, dst);
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
        return Status::InvalidData("BYTE_STREAM_SPLIT values for a {} column", c_.type.ToString());
      if (n * k > size)
        return Status::InvalidData("BYTE_STREAM_SPLIT page holds {} bytes, {} values need {}", size,
                                   n, n * k);
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

Status ChunkDecoder::GatherDictionary(int64_t n, uint8_t* dst, std::vector<ByteView>* views) {
  uint32_t max_index = 0;
  for (int64_t i = 0; i < n; ++i)
    max_index = std::max(max_index, indices_[static_cast<size_t>(i)]);
  if (static_cast<int64_t>(max_index) >= dict_size_)
    return Status::InvalidData("dictionary index {} out of range (the dictionary has {} values)",
                               max_index, dict_size_);
  if (target_ == Target::kVar) {
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

Status ChunkDecoder::ConvertInts(int64_t n, uint8_t* dst) {
  if (c_.physical == Type::INT32) {
    ints32_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      ints32_[static_cast<size_t>(i)] = static_cast<int32_t>(ints_[static_cast<size_t>(i)]);
    return ConvertFixed(reinterpret_cast<const uint8_t*>(ints32_.data()), n, dst);
  }
  return ConvertFixed(reinterpret_cast<const uint8_t*>(ints_.data()), n, dst);
}

Status ChunkDecoder::StartValues(Encoding::type encoding, const uint8_t* data, int64_t size,
                                 int64_t n) {
  vdata_ = data;
  vsize_ = size;
  vpos_ = 0;
  page_ascii_ = true;
  switch (encoding) {
    case Encoding::PLAIN:
      if (c_.physical == Type::BOOLEAN) {
        source_ = Source::kPlainBool;
      } else if (c_.physical == Type::BYTE_ARRAY) {
        source_ = Source::kPlainBytes;
      } else {
        source_ = Source::kPlainFixed;
        if (PhysicalSize(c_) <= 0)
          return Status::InvalidData("bad value width {}", PhysicalSize(c_));
      }
      if (target_ == Target::kVar && c_.type.id() == TypeId::kUtf8)
        page_ascii_ = AllAscii(data, size);
      return Status::OK();
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      if (!have_dictionary_)
        return Status::InvalidData("dictionary-encoded page without a dictionary page");
      source_ = Source::kDictionary;
      index_width_ = -1;
      if (size >= 1) {
        SHOAL_ASSIGN_OR_RETURN(values_rle_, DictionaryIndices(data, size));
        index_width_ = data[0];
      }
      return Status::OK();
    case Encoding::RLE: {
      SHOAL_ASSIGN_OR_RETURN(values_rle_, RleBooleanValues(c_, data, size));
      source_ = Source::kRleBool;
      return Status::OK();
    }
    case Encoding::DELTA_BINARY_PACKED:
      if (c_.physical != Type::INT32 && c_.physical != Type::INT64)
        return Status::InvalidData("DELTA_BINARY_PACKED values for a {} column",
                                   c_.type.ToString());
      source_ = Source::kDelta;
      delta_ = DeltaBinaryPackedDecoder(data, static_cast<size_t>(size));
      return delta_.Init();
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
    case Encoding::DELTA_BYTE_ARRAY:
    case Encoding::BYTE_STREAM_SPLIT: {
      // These layouts need the page's count of values up front (the streams' lengths, the
      // lengths block before the data): the page's values are decoded at once, and batches copy
      // their share. The definition levels are read twice, once here to count.
      int64_t dense = n;
      if (c_.optional) {
        std::vector<uint8_t>& defs = bools_;
        defs.resize(static_cast<size_t>(std::max<int64_t>(n, 1)));
        if (levels_bits_ != nullptr) {
          for (int64_t i = 0; i < n; ++i)
            defs[static_cast<size_t>(i)] = (levels_bits_[i / 8] >> (7 - i % 8)) & 1;
        } else {
          RleBitPackedDecoder levels = levels_rle_;
          SHOAL_RETURN_IF_ERROR(levels.Decode(defs.data(), n));
        }
        dense = 0;
        for (int64_t i = 0; i < n; ++i)
          dense += defs[static_cast<size_t>(i)];
      }
      source_ = Source::kPage;
      if (target_ == Target::kVar) {
        SHOAL_RETURN_IF_ERROR(DecodeValues(encoding, data, size, dense, nullptr, &page_views_));
        page_views_.resize(static_cast<size_t>(dense));
        return CheckUtf8(page_views_, data, size, "value");
      }
      page_fixed_.resize(static_cast<size_t>(dense * width_) + 1);
      return DecodeValues(encoding, data, size, dense, page_fixed_.data(), &views_);
    }
    default:
      return Status::NotImplemented("Parquet value encoding {} is not supported",
                                    EncodingName(encoding));
  }
}

Status ChunkDecoder::NextValues(int64_t dense, uint8_t* dst, std::vector<ByteView>* views,
                                bool skip) {
  switch (source_) {
    case Source::kPlainFixed: {
      const int k = PhysicalSize(c_);
      const int64_t left = vsize_ - vpos_;
      if (dense > left / k)
        return Status::InvalidData("PLAIN page holds {} bytes, {} more values need {}", left, dense,
                                   dense * k);
      if (!skip)
        SHOAL_RETURN_IF_ERROR(Plain(vdata_ + vpos_, left, dense, dst, views));
      vpos_ += dense * k;
      return Status::OK();
    }
    case Source::kPlainBool: {
      if ((vpos_ + dense + 7) / 8 > vsize_)
        return Status::InvalidData("PLAIN page holds {} bytes, {} booleans need {}", vsize_,
                                   vpos_ + dense, (vpos_ + dense + 7) / 8);
      if (!skip) {
        for (int64_t i = 0; i < dense; ++i) {
          const int64_t b = vpos_ + i;
          dst[i] = (vdata_[b >> 3] >> (b & 7)) & 1;
        }
      }
      vpos_ += dense;
      return Status::OK();
    }
    case Source::kPlainBytes: {
      if (!skip) {
        SHOAL_RETURN_IF_ERROR(Plain(vdata_ + vpos_, vsize_ - vpos_, dense, dst, &views_));
        if (dense > 0) {
          const ByteView& last = views_[static_cast<size_t>(dense - 1)];
          vpos_ = reinterpret_cast<const uint8_t*>(last.data()) + last.size() - vdata_;
        }
        if (views != &views_)
          *views = views_;
        return Status::OK();
      }
      for (int64_t i = 0; i < dense; ++i) {
        if (vsize_ - vpos_ < 4)
          return Status::InvalidData("PLAIN byte array {} cut off", i);
        uint32_t len;
        std::memcpy(&len, vdata_ + vpos_, 4);
        vpos_ += 4;
        if (len > static_cast<uint64_t>(vsize_ - vpos_))
          return Status::InvalidData("PLAIN byte array {} claims {} bytes, {} remain", i, len,
                                     vsize_ - vpos_);
        vpos_ += len;
      }
      return Status::OK();
    }
    case Source::kDictionary:
      if (dense == 0) {
        views->clear();  // no stale views for AppendViews
        return Status::OK();
      }
      if (index_width_ < 0)
        return Status::InvalidData("dictionary page data is empty");
      indices_.resize(static_cast<size_t>(dense));
      SHOAL_RETURN_IF_ERROR(values_rle_.Decode(indices_.data(), dense));
      if (skip)
        return Status::OK();
      return GatherDictionary(dense, dst, views);
    case Source::kRleBool:
      if (skip) {
        indices_.resize(static_cast<size_t>(dense));
        return values_rle_.Decode(indices_.data(), dense);
      }
      return values_rle_.Decode(dst, dense);
    case Source::kDelta:
      if (dense > delta_.total_values() - vpos_)
        return Status::InvalidData("DELTA_BINARY_PACKED holds {} values, the page needs more",
                                   delta_.total_values());
      ints_.resize(static_cast<size_t>(dense));
      SHOAL_RETURN_IF_ERROR(delta_.Decode(ints_.data(), dense));
      vpos_ += dense;
      if (skip)
        return Status::OK();
      return ConvertInts(dense, dst);
    case Source::kPage: {
      const int64_t have = target_ == Target::kVar
                               ? static_cast<int64_t>(page_views_.size())
                               : static_cast<int64_t>(page_fixed_.size() - 1) / width_;
      if (dense > have - vpos_)
        return Status::Internal("page values overrun: {} of {} at {}", dense, have, vpos_);
      if (!skip) {
        if (target_ == Target::kVar) {
          views->assign(page_views_.begin() + vpos_, page_views_.begin() + vpos_ + dense);
        } else if (dense > 0) {
          std::memcpy(dst, page_fixed_.data() + vpos_ * width_,
                      static_cast<size_t>(dense * width_));
        }
      }
      vpos_ += dense;
      return Status::OK();
    }
  }
  return Status::Internal("unknown value source");
}

Status ChunkDecoder::GatherPage(const int32_t* picks, int64_t count, int64_t dense, uint8_t* dst) {
  const int64_t have = target_ == Target::kVar
                           ? static_cast<int64_t>(page_views_.size())
                           : static_cast<int64_t>(page_fixed_.size() - 1) / width_;
  if (dense > have - vpos_)
    return Status::Internal("page values overrun: {} of {} at {}", dense, have, vpos_);
  if (target_ == Target::kVar) {
    views_.resize(static_cast<size_t>(count));
    for (int64_t m = 0; m < count; ++m)
      views_[static_cast<size_t>(m)] = page_views_[static_cast<size_t>(vpos_ + picks[m])];
  } else {
    const uint8_t* src = page_fixed_.data() + vpos_ * width_;
    switch (width_) {
      case 1: PickFixed<1>(src, picks, count, dst); break;
      case 2: PickFixed<2>(src, picks, count, dst); break;
      case 4: PickFixed<4>(src, picks, count, dst); break;
      case 8: PickFixed<8>(src, picks, count, dst); break;
      case 16: PickFixed<16>(src, picks, count, dst); break;
      default: return Status::Internal("unexpected value width {}", width_);
    }
  }
  vpos_ += dense;
  return Status::OK();
}

Status ChunkDecoder::GatherPlainFixed(const int32_t* picks, int64_t count, int64_t dense,
                                      uint8_t* dst) {
  const int k = PhysicalSize(c_);
  if (dense > (vsize_ - vpos_) / k)
    return Status::InvalidData("PLAIN page holds {} bytes, {} more values need {}", vsize_ - vpos_,
                               dense, dense * k);
  const uint8_t* src = vdata_ + vpos_;
  gathered_.resize(static_cast<size_t>(count * k) + 1);
  uint8_t* g = gathered_.data();
  switch (k) {
    case 4: PickFixed<4>(src, picks, count, g); break;
    case 8: PickFixed<8>(src, picks, count, g); break;
    case 12: PickFixed<12>(src, picks, count, g); break;
    case 16: PickFixed<16>(src, picks, count, g); break;
    default:
      for (int64_t m = 0; m < count; ++m)
        std::memcpy(g + m * k, src + static_cast<int64_t>(picks[m]) * k, static_cast<size_t>(k));
  }
  vpos_ += dense * k;
  return ConvertFixed(g, count, dst);
}

Status ChunkDecoder::Plain(const uint8_t* data, int64_t size, int64_t n, uint8_t* dst,
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
        (*views)[static_cast<size_t>(i)] = ByteView(reinterpret_cast<const char*>(data + pos), len);
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
        return Status::InvalidData("PLAIN page holds {} bytes, {} values need {}", size, n, n * k);
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

}  // namespace shoal::io::parquet::internal

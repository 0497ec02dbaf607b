#include "shoal/io/parquet/column_chunk_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>

#include "shoal/columnar/decimal.h"
#include "shoal/io/parquet/rle_encoder.h"
#include "shoal/io/parquet/thrift_codec.h"

namespace shoal::io::parquet {

namespace {

using columnar::Array;
using columnar::DataType;
using columnar::int128_t;
using columnar::TimeUnit;
using columnar::TypeId;

enum class Physical : uint8_t { kBoolean, kInt32, kInt64, kFloat, kDouble, kByteArray, kFixed };

// How min / max compare: by the logical type, as the spec's "sort order" section requires.
enum class Order : uint8_t { kSigned, kUnsigned, kFloat, kBytes };

struct Layout {
  Physical physical = Physical::kInt32;
  Order order = Order::kSigned;
  int fixed_width = 0;        // kFixed: bytes per value
  bool legacy_stats = false;  // the deprecated min / max agree with this order
  bool utf8 = false;
};

// Bytes of the smallest two's-complement integer that holds every decimal of `precision` digits.
int DecimalBytes(int precision) {
  const int128_t max = columnar::MaxUnscaled(precision);
  for (int bytes = 1; bytes < 16; ++bytes) {
    if (max < (static_cast<int128_t>(1) << (8 * bytes - 1))) {
      return bytes;
    }
  }
  return 16;
}

const DataType& ValueType(const DataType& type) {
  return type.id() == TypeId::kDictionary ? type.value_type() : type;
}

Result<Layout> LayoutOf(const columnar::Field& field) {
  const DataType& type = ValueType(field.type);
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

// The column's rows gathered into contiguous physical values (non-null rows only) and levels.
struct Values {
  int64_t num_rows = 0;
  int64_t null_count = 0;
  std::vector<uint32_t> levels;  // OPTIONAL columns: 1 per valid row, 0 per null
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<uint32_t> bools;
  std::vector<int128_t> i128;
  std::vector<int64_t> offsets{0};  // BYTE_ARRAY value k: bytes[offsets[k], offsets[k + 1])
  std::string bytes;

  std::string_view Bytes(int64_t k) const {
    return {
        bytes.data() + offsets[static_cast<size_t>(k)],
        static_cast<size_t>(offsets[static_cast<size_t>(k) + 1] - offsets[static_cast<size_t>(k)])};
  }
};

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

// ---- statistics
// ----------------------------------------------------------------------------------

template <typename T>
std::string RawBytes(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

std::string BigEndian(int128_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(u & 0xFFU));
    u >>= 8;
  }
  return out;
}

template <typename T, typename Less>
bool MinMax(const std::vector<T>& v, Less less, T* min, T* max) {
  if (v.empty()) {
    return false;
  }
  T lo = v[0];
  T hi = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    lo = less(v[i], lo) ? v[i] : lo;
    hi = less(hi, v[i]) ? v[i] : hi;
  }
  *min = lo;
  *max = hi;
  return true;
}

template <typename T>
bool FloatMinMax(const std::vector<T>& v, T* min, T* max) {
  T lo = std::numeric_limits<T>::infinity();
  T hi = -std::numeric_limits<T>::infinity();
  bool any = false;
  for (T x : v) {
    if (std::isnan(x)) {
      continue;
    }
    any = true;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (!any) {
    return false;
  }
  // The spec: a zero bound is written as -0.0 for min and +0.0 for max, whatever the data held.
  *min = lo == 0 ? -static_cast<T>(0) : lo;
  *max = hi == 0 ? static_cast<T>(0) : hi;
  return true;
}

constexpr size_t kMaxStatBytes = 64;

// A lower bound of at most kMaxStatBytes bytes (a prefix, cut at a character boundary for utf8).
std::string TruncateMin(std::string_view v, bool utf8) {
  if (v.size() <= kMaxStatBytes) {
    return std::string(v);
  }
  size_t n = kMaxStatBytes;
  while (utf8 && n > 0 && (static_cast<uint8_t>(v[n]) & 0xC0U) == 0x80U) {
    --n;
  }
  return std::string(v.substr(0, n));
}

// An upper bound of at most kMaxStatBytes bytes, or nothing when none can be made short (the
// prefix with its last incrementable byte incremented; for utf8 only ASCII bytes are incremented
// so the bound stays valid UTF-8).
bool TruncateMax(std::string_view v, bool utf8, std::string* out) {
  if (v.size() <= kMaxStatBytes) {
    *out = std::string(v);
    return true;
  }
  for (size_t n = kMaxStatBytes; n > 0; --n) {
    const auto c = static_cast<uint8_t>(v[n - 1]);
    if (utf8 ? c < 0x7FU : c < 0xFFU) {
      *out = std::string(v.substr(0, n));
      (*out)[n - 1] = static_cast<char>(c + 1);
      return true;
    }
  }
  return false;
}

format::Statistics MakeStatistics(const Values& v, const Layout& layout) {
  format::Statistics stats;
  stats.__set_null_count(v.null_count);
  std::string min;
  std::string max;
  bool have = false;
  switch (layout.physical) {
    case Physical::kBoolean: {
      uint32_t lo = 0;
      uint32_t hi = 0;
      have = MinMax(v.bools, std::less<uint32_t>(), &lo, &hi);
      min = std::string(1, static_cast<char>(lo));
      max = std::string(1, static_cast<char>(hi));
      break;
    }
    case Physical::kInt32: {
      int32_t lo = 0;
      int32_t hi = 0;
      if (layout.order == Order::kUnsigned) {
        have = MinMax(
            v.i32,
            [](int32_t a, int32_t b) {
              return static_cast<uint32_t>(a) < static_cast<uint32_t>(b);
            },
            &lo, &hi);
      } else {
        have = MinMax(v.i32, std::less<int32_t>(), &lo, &hi);
      }
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kInt64: {
      int64_t lo = 0;
      int64_t hi = 0;
      if (layout.order == Order::kUnsigned) {
        have = MinMax(
            v.i64,
            [](int64_t a, int64_t b) {
              return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
            },
            &lo, &hi);
      } else {
        have = MinMax(v.i64, std::less<int64_t>(), &lo, &hi);
      }
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kFloat: {
      float lo = 0;
      float hi = 0;
      have = FloatMinMax(v.f32, &lo, &hi);
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kDouble: {
      double lo = 0;
      double hi = 0;
      have = FloatMinMax(v.f64, &lo, &hi);
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kFixed: {
      int128_t lo = 0;
      int128_t hi = 0;
      have = MinMax(v.i128, std::less<int128_t>(), &lo, &hi);
      min = BigEndian(lo, layout.fixed_width);
      max = BigEndian(hi, layout.fixed_width);
      break;
    }
    case Physical::kByteArray: {
      const int64_t n = static_cast<int64_t>(v.offsets.size()) - 1;
      if (n == 0) {
        break;
      }
      std::string_view lo = v.Bytes(0);
      std::string_view hi = lo;
      for (int64_t k = 1; k < n; ++k) {
        std::string_view x = v.Bytes(k);
        lo = x < lo ? x : lo;
        hi = hi < x ? x : hi;
      }
      min = TruncateMin(lo, layout.utf8);
      have = TruncateMax(hi, layout.utf8, &max);
      break;
    }
  }
  if (have) {
    stats.__set_min_value(min);
    stats.__set_max_value(max);
    if (layout.legacy_stats) {
      stats.__set_min(min);
      stats.__set_max(max);
    }
  }
  return stats;
}

// ---- dictionary ------------------------------------------------------------------------------

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Open addressing over indices into the dictionary (0 = empty slot), kept at most half full.
class SlotTable {
 public:
  SlotTable() : slots_(1024, 0), mask_(1023) {}

  // The slot for `hash` whose entry satisfies `equal`, or the empty slot where it belongs.
  template <typename Equal>
  uint32_t* Find(uint64_t hash, Equal equal) {
    size_t h = hash & mask_;
    for (;;) {
      uint32_t& slot = slots_[h];
      if (slot == 0 || equal(slot - 1)) {
        return &slot;
      }
      h = (h + 1) & mask_;
    }
  }

  // Call after filling a slot; `hash_of(i)` gives entry i's hash for rehashing.
  template <typename HashOf>
  void Added(uint32_t size, HashOf hash_of) {
    if (static_cast<size_t>(size) * 2 <= slots_.size()) {
      return;
    }
    slots_.assign(slots_.size() * 2, 0);
    mask_ = slots_.size() - 1;
    for (uint32_t i = 0; i < size; ++i) {
      size_t h = hash_of(i) & mask_;
      while (slots_[h] != 0) {
        h = (h + 1) & mask_;
      }
      slots_[h] = i + 1;
    }
  }

 private:
  std::vector<uint32_t> slots_;
  size_t mask_;
};

template <typename T>
uint64_t BitsOf(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t b = 0;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    uint64_t b = 0;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

// A column whose first kDictionaryProbe values are more than half distinct gives up on a
// dictionary at once: it would not pay, and building it to the size limit costs more than PLAIN.
constexpr size_t kDictionaryProbe = 8192;

// Fills `dictionary` (distinct values by first appearance, compared bit for bit) and `indices`;
// false when the dictionary's PLAIN size passes `limit`, or the probe says it will not pay.
template <typename T>
bool BuildDictionary(const std::vector<T>& values, int64_t limit, std::vector<T>* dictionary,
                     std::vector<uint32_t>* indices) {
  SlotTable table;
  indices->resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = BitsOf(values[i]);
    uint32_t* slot =
        table.Find(Mix(bits), [&](uint32_t k) { return BitsOf((*dictionary)[k]) == bits; });
    uint32_t index = *slot - 1;
    if (*slot == 0) {
      dictionary->push_back(values[i]);
      const auto size = static_cast<uint32_t>(dictionary->size());
      if (static_cast<int64_t>(size * sizeof(T)) > limit) {
        return false;
      }
      *slot = size;
      index = size - 1;
      // May rehash, which invalidates `slot`.
      table.Added(size, [&](uint32_t k) { return Mix(BitsOf((*dictionary)[k])); });
    }
    (*indices)[i] = index;
    if (i + 1 == kDictionaryProbe && dictionary->size() > kDictionaryProbe / 2) {
      return false;
    }
  }
  return true;
}

struct ByteDictionary {
  std::vector<int64_t> offsets{0};
  std::string bytes;
  std::vector<uint64_t> hashes;

  std::string_view Get(uint32_t k) const {
    return {bytes.data() + offsets[k], static_cast<size_t>(offsets[k + 1] - offsets[k])};
  }
  size_t size() const { return hashes.size(); }
};

bool BuildByteDictionary(const Values& values, int64_t limit, ByteDictionary* dictionary,
                         std::vector<uint32_t>* indices) {
  SlotTable table;
  const int64_t n = static_cast<int64_t>(values.offsets.size()) - 1;
  indices->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(i) == kDictionaryProbe && dictionary->size() > kDictionaryProbe / 2) {
      return false;
    }
    std::string_view v = values.Bytes(i);
    const uint64_t hash = Mix(std::hash<std::string_view>()(v));
    uint32_t* slot = table.Find(
        hash, [&](uint32_t k) { return dictionary->hashes[k] == hash && dictionary->Get(k) == v; });
    if (*slot == 0) {
      dictionary->bytes.append(v);
      dictionary->offsets.push_back(static_cast<int64_t>(dictionary->bytes.size()));
      dictionary->hashes.push_back(hash);
      const auto size = static_cast<uint32_t>(dictionary->size());
      // PLAIN bytes: a 4-byte length per value plus the bytes.
      if (static_cast<int64_t>(dictionary->bytes.size() + 4 * dictionary->size()) > limit) {
        return false;
      }
      *slot = size;
      // May rehash, which invalidates `slot`.
      table.Added(size, [&](uint32_t k) { return dictionary->hashes[k]; });
      (*indices)[static_cast<size_t>(i)] = size - 1;
      continue;
    }
    (*indices)[static_cast<size_t>(i)] = *slot - 1;
  }
  return true;
}

// ---- PLAIN ------------------------------------------------------------------------------------

template <typename T>
void PutPlain(const T* values, int64_t count, std::string* out) {
  out->append(reinterpret_cast<const char*>(values), static_cast<size_t>(count) * sizeof(T));
}

void PutLength(int64_t length, std::string* out) {
  const auto n = static_cast<uint32_t>(length);
  char bytes[4];
  std::memcpy(bytes, &n, 4);
  out->append(bytes, 4);
}

}  // namespace

// ---- schema ------------------------------------------------------------------------------------

Result<format::SchemaElement> MakeSchemaElement(const columnar::Field& field) {
  SHOAL_ASSIGN_OR_RETURN(Layout layout, LayoutOf(field));
  const DataType& type = ValueType(field.type);
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

  Result<format::ColumnChunk> Write(const std::vector<columnar::ArrayPtr>& pieces,
                                    int64_t file_offset, std::string* out) {
    Values v;
    for (const auto& piece : pieces) {
      SHOAL_RETURN_IF_ERROR(GatherPiece(*piece, field, optional, &v));
    }
    const int64_t num_values = NumValues(v, layout.physical);
    const size_t out_start = out->size();
    int64_t uncompressed_total = 0;
    int64_t compressed_total = 0;
    format::ColumnMetaData meta;
    meta.__set_type(PhysicalType(layout.physical));
    meta.__set_path_in_schema({field.name});
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

    // Rows per page from the estimated encoded size of the whole chunk.
    const int64_t estimate =
        entries > 0 ? (num_values * bit_width + 7) / 8 + 1 : std::max<int64_t>(1, PlainBytes(v));
    const int64_t num_rows = v.num_rows;
    const int64_t rows_per_page =
        std::clamp<int64_t>(options.page_size * std::max<int64_t>(num_rows, 1) / estimate, 1,
                            std::max<int64_t>(num_rows, 1));
    int64_t value_begin = 0;
    for (int64_t row_begin = 0; row_begin < num_rows || row_begin == 0;
         row_begin += rows_per_page) {
      const int64_t row_end = std::min(num_rows, row_begin + rows_per_page);
      int64_t page_values = row_end - row_begin;
      page.clear();
      if (optional) {
        const uint32_t* levels = v.levels.data() + row_begin;
        page_values = 0;
        for (int64_t r = 0; r < row_end - row_begin; ++r) {
          page_values += levels[r];
        }
        page.append(4, '\0');
        RleEncoder::Encode(levels, row_end - row_begin, 1, &page);
        const auto length = static_cast<uint32_t>(page.size() - 4);
        std::memcpy(page.data(), &length, 4);
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
      return Status::Internal("column \"{}\": pages hold {} values of {}", field.name, value_begin,
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
  SHOAL_ASSIGN_OR_RETURN(impl->layout, LayoutOf(field));
  impl->optional = field.nullable;
  impl->options = options;
  SHOAL_ASSIGN_OR_RETURN(impl->compressor,
                         CompressionEncoder::Make(options.compression, options.compression_level));
  return std::unique_ptr<ColumnChunkWriter>(new ColumnChunkWriter(std::move(impl)));
}

ColumnChunkWriter::ColumnChunkWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ColumnChunkWriter::~ColumnChunkWriter() = default;

Result<format::ColumnChunk> ColumnChunkWriter::Write(const std::vector<columnar::ArrayPtr>& pieces,
                                                     int64_t file_offset, std::string* out) {
  return impl_->Write(pieces, file_offset, out);
}

}  // namespace shoal::io::parquet

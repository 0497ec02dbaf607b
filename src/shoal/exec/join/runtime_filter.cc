#include "shoal/exec/join/runtime_filter.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "shoal/exec/hash.h"

namespace shoal::exec {
namespace {

using columnar::Array;
using columnar::Buffer;
using columnar::DataType;
using columnar::Scalar;
using columnar::TypeId;

// The split-block Bloom filter's salts (those of Parquet's SBBF): each picks one bit of a word.
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

inline uint64_t StoredHash(uint64_t h) {
  return h == 0 ? 1 : h;
}

// Keeps, in place, the rows[0..count) whose hash h[row] may be in the Bloom filter `words` of
// `blocks` 32-byte blocks. A probe is eight independent word tests: portable code does them one
// after another (the baseline x86-64 target has no 32-bit multiply or variable shift in SIMD),
// the AVX2 kernel in one 256-bit lane each; both keep exactly the same rows.
size_t BloomSelectPortable(const uint32_t* words, uint64_t blocks, const uint64_t* h, int32_t* rows,
                           size_t count) {
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const int32_t r = rows[i];
    const uint64_t hash = h[r];
    const uint32_t* block = words + 8 * (((hash >> 32) * blocks) >> 32);
    const uint32_t low = static_cast<uint32_t>(hash);
    uint32_t missing = 0;
    for (int w = 0; w < 8; ++w)
      missing |= ~block[w] & (1U << ((low * kSalt[w]) >> 27));
    rows[kept] = r;
    kept += static_cast<size_t>(missing == 0);
  }
  return kept;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t BloomSelectAvx2(const uint32_t* words, uint64_t blocks,
                                                       const uint64_t* h, int32_t* rows,
                                                       size_t count) {
  const __m256i salt = _mm256_setr_epi32(static_cast<int>(kSalt[0]), static_cast<int>(kSalt[1]),
                                         static_cast<int>(kSalt[2]), static_cast<int>(kSalt[3]),
                                         static_cast<int>(kSalt[4]), static_cast<int>(kSalt[5]),
                                         static_cast<int>(kSalt[6]), static_cast<int>(kSalt[7]));
  const __m256i one = _mm256_set1_epi32(1);
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const int32_t r = rows[i];
    const uint64_t hash = h[r];
    const __m256i block = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(words + 8 * (((hash >> 32) * blocks) >> 32)));
    const __m256i low = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(hash)));
    const __m256i bits =
        _mm256_sllv_epi32(one, _mm256_srli_epi32(_mm256_mullo_epi32(low, salt), 27));
    rows[kept] = r;
    // testc: 1 when every bit of `bits` is set in `block`.
    kept += static_cast<size_t>(_mm256_testc_si256(block, bits));
  }
  return kept;
}

bool BloomHasAvx2() {
  static const bool kHas = __builtin_cpu_supports("avx2");
  return kHas;
}
#endif

size_t BloomSelect(const uint32_t* words, uint64_t blocks, const uint64_t* h, int32_t* rows,
                   size_t count) {
#if defined(__x86_64__)
  if (BloomHasAvx2())
    return BloomSelectAvx2(words, blocks, h, rows, count);
#endif
  return BloomSelectPortable(words, blocks, h, rows, count);
}

// Integer-like values as int64 (RuntimeFilterHasRange types only).
template <typename T>
void ReadInts(const Array& a, int64_t* out) {
  const T* v = a.values<T>();
  for (int64_t i = 0; i < a.length(); ++i)
    out[i] = static_cast<int64_t>(v[i]);
}

bool ReadAsInt64(const Array& a, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(a.length()));
  switch (a.type_id()) {
    case TypeId::kInt8: ReadInts<int8_t>(a, out->data()); return true;
    case TypeId::kInt16: ReadInts<int16_t>(a, out->data()); return true;
    case TypeId::kInt32:
    case TypeId::kDate32: ReadInts<int32_t>(a, out->data()); return true;
    case TypeId::kInt64:
    case TypeId::kTimestamp: ReadInts<int64_t>(a, out->data()); return true;
    case TypeId::kUInt8: ReadInts<uint8_t>(a, out->data()); return true;
    case TypeId::kUInt16: ReadInts<uint16_t>(a, out->data()); return true;
    case TypeId::kUInt32: ReadInts<uint32_t>(a, out->data()); return true;
    default: return false;
  }
}

// Range check of one row, typed once per batch by the caller's switch.
// Keeps, in place, the rows[0..count) whose value lies in [lo, hi]; returns how many remain.
template <typename T>
size_t SelectRange(const T* values, int64_t lo, int64_t hi, int32_t* rows, size_t count) {
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const int32_t r = rows[i];
    const int64_t v = static_cast<int64_t>(values[r]);
    rows[kept] = r;
    kept += static_cast<size_t>(v >= lo && v <= hi);
  }
  return kept;
}

// Keeps, in place, the rows[0..count) (already inside the range) whose value's bit is set.
template <typename T>
size_t SelectBits(const T* values, int64_t lo, const uint8_t* bitmap, int32_t* rows, size_t count) {
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const int32_t r = rows[i];
    const uint64_t bit =
        static_cast<uint64_t>(static_cast<int64_t>(values[r])) - static_cast<uint64_t>(lo);
    rows[kept] = r;
    kept += static_cast<size_t>((bitmap[bit >> 3] >> (bit & 7)) & 1U);
  }
  return kept;
}

inline void BloomInsert(uint32_t* words, uint64_t blocks, uint64_t h) {
  uint32_t* block = words + 8 * (((h >> 32) * blocks) >> 32);
  const uint32_t low = static_cast<uint32_t>(h);
  for (int w = 0; w < 8; ++w)
    block[w] |= 1U << ((low * kSalt[w]) >> 27);
}

template <typename T>
Result<columnar::ArrayPtr> IntArrayOf(const DataType& type, const std::vector<int64_t>& values,
                                      const std::shared_ptr<MemoryPool>& pool) {
  const auto n = static_cast<int64_t>(values.size());
  SHOAL_ASSIGN_OR_RETURN(columnar::BufferPtr buffer,
                         Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)), pool));
  T* out = buffer->mutable_data_as<T>();
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<T>(values[i]);
  return Array::Make(type, n, {nullptr, std::move(buffer)}, 0);
}

// `values` as an array of `type` (a RuntimeFilterHasRange type), to hash them as the build keys
// were hashed.
Result<columnar::ArrayPtr> IntArray(const DataType& type, const std::vector<int64_t>& values,
                                    const std::shared_ptr<MemoryPool>& pool) {
  switch (type.id()) {
    case TypeId::kInt8: return IntArrayOf<int8_t>(type, values, pool);
    case TypeId::kInt16: return IntArrayOf<int16_t>(type, values, pool);
    case TypeId::kInt32:
    case TypeId::kDate32: return IntArrayOf<int32_t>(type, values, pool);
    case TypeId::kInt64:
    case TypeId::kTimestamp: return IntArrayOf<int64_t>(type, values, pool);
    case TypeId::kUInt8: return IntArrayOf<uint8_t>(type, values, pool);
    case TypeId::kUInt16: return IntArrayOf<uint16_t>(type, values, pool);
    case TypeId::kUInt32: return IntArrayOf<uint32_t>(type, values, pool);
    default: return Status::Internal("a bitmap runtime filter on {}", type.ToString());
  }
}

// Appends the stored hashes (StoredHash) of the values of bitmap filter bits [0, bits) from `min`.
Status AppendBitmapHashes(const uint8_t* bitmap, uint64_t bits, int64_t min, const DataType& type,
                          const std::shared_ptr<MemoryPool>& pool, std::vector<uint64_t>* out) {
  constexpr size_t kChunk = 65536;
  std::vector<int64_t> values;
  std::vector<uint64_t> hashes;
  auto flush = [&]() -> Status {
    if (values.empty())
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr array, IntArray(type, values, pool));
    SHOAL_RETURN_IF_ERROR(HashColumns({array}, array->length(), &hashes));
    for (uint64_t h : hashes)
      out->push_back(StoredHash(h));
    values.clear();
    return Status::OK();
  };
  for (uint64_t b = 0; b < bits; ++b) {
    if (((bitmap[b >> 3] >> (b & 7)) & 1U) == 0)
      continue;
    values.push_back(static_cast<int64_t>(static_cast<uint64_t>(min) + b));
    if (values.size() == kChunk)
      SHOAL_RETURN_IF_ERROR(flush());
  }
  return flush();
}

}  // namespace

bool RuntimeFilterHasRange(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kDate32:
    case TypeId::kTimestamp: return true;
    default: return false;
  }
}

const char* RuntimeFilter::KindName(Kind kind) {
  switch (kind) {
    case Kind::kEmpty: return "empty";
    case Kind::kExact: return "exact";
    case Kind::kBloom: return "bloom";
    case Kind::kBitmap: return "bitmap";
  }
  return "?";
}

Result<std::shared_ptr<const RuntimeFilter>> RuntimeFilter::Build(
    const columnar::ArrayPtr& keys_ptr, const std::shared_ptr<MemoryPool>& pool, bool mergeable) {
  const Array& keys = *keys_ptr;
  std::shared_ptr<RuntimeFilter> filter(new RuntimeFilter());
  filter->key_type_ = keys.type();
  const int64_t n = keys.length();
  std::vector<uint64_t> hashes;
  SHOAL_RETURN_IF_ERROR(HashColumns({keys_ptr}, n, &hashes));
  int64_t non_null = 0;
  for (int64_t i = 0; i < n; ++i)
    non_null += keys.IsValid(i) ? 1 : 0;
  // Range of the non-NULL keys.
  std::vector<int64_t> ints;
  if (keys.type_id() != TypeId::kDictionary && ReadAsInt64(keys, &ints)) {
    for (int64_t i = 0; i < n; ++i) {
      if (!keys.IsValid(i))
        continue;
      const int64_t v = ints[static_cast<size_t>(i)];
      if (!filter->has_range_) {
        filter->min_ = filter->max_ = v;
        filter->has_range_ = true;
      } else {
        filter->min_ = std::min(filter->min_, v);
        filter->max_ = std::max(filter->max_, v);
      }
    }
    filter->SetRangeScalars();
  }
  if (non_null == 0) {
    filter->kind_ = Kind::kEmpty;
    return std::shared_ptr<const RuntimeFilter>(std::move(filter));
  }
  if (filter->has_range_) {
    // The range's width, without overflowing for extreme keys.
    const uint64_t width =
        static_cast<uint64_t>(filter->max_) - static_cast<uint64_t>(filter->min_);
    if (width < static_cast<uint64_t>(kMaxBitmapBits) ||
        width < static_cast<uint64_t>(non_null) * kBitmapValuesPerKey) {
      const int64_t bits = static_cast<int64_t>(width) + 1;
      SHOAL_ASSIGN_OR_RETURN(filter->table_, Buffer::Allocate((bits + 7) / 8, pool));
      uint8_t* bitmap = filter->table_->mutable_data();
      std::memset(bitmap, 0, static_cast<size_t>((bits + 7) / 8));
      int64_t distinct = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!keys.IsValid(i))
          continue;
        const uint64_t bit = static_cast<uint64_t>(ints[static_cast<size_t>(i)]) -
                             static_cast<uint64_t>(filter->min_);
        const uint8_t mask = static_cast<uint8_t>(1U << (bit & 7));
        distinct += (bitmap[bit >> 3] & mask) == 0 ? 1 : 0;
        bitmap[bit >> 3] |= mask;
      }
      filter->kind_ = Kind::kBitmap;
      filter->num_keys_ = distinct;
      return std::shared_ptr<const RuntimeFilter>(std::move(filter));
    }
  }
  if (non_null <= kMaxExactKeys) {
    // Open addressing at a load of at most 1/2.
    const uint64_t slots = std::bit_ceil(static_cast<uint64_t>(non_null) * 2);
    SHOAL_ASSIGN_OR_RETURN(filter->table_,
                           Buffer::Allocate(static_cast<int64_t>(slots * sizeof(uint64_t)), pool));
    uint64_t* table = filter->table_->mutable_data_as<uint64_t>();
    std::memset(table, 0, slots * sizeof(uint64_t));
    filter->mask_ = slots - 1;
    int64_t distinct = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!keys.IsValid(i))
        continue;
      const uint64_t h = StoredHash(hashes[static_cast<size_t>(i)]);
      uint64_t s = HashMix(h) & filter->mask_;
      while (table[s] != 0 && table[s] != h)
        s = (s + 1) & filter->mask_;
      if (table[s] == 0) {
        table[s] = h;
        ++distinct;
      }
    }
    filter->kind_ = Kind::kExact;
    filter->num_keys_ = distinct;
    return std::shared_ptr<const RuntimeFilter>(std::move(filter));
  }
  const uint64_t bits = static_cast<uint64_t>(non_null) * kBloomBitsPerKey;
  // Any block count works (blocks are picked by multiply-shift), so no power-of-two rounding
  // doubles the filter: it stays as small as its false positive rate allows.
  // A mergeable filter rounds up to a power of two, so that Merge can fold it.
  uint64_t blocks = std::max<uint64_t>(1, (bits + 255) / 256);
  if (mergeable)
    blocks = std::bit_ceil(blocks);
  SHOAL_ASSIGN_OR_RETURN(filter->table_, Buffer::Allocate(static_cast<int64_t>(blocks * 32), pool));
  uint32_t* words = filter->table_->mutable_data_as<uint32_t>();
  std::memset(words, 0, blocks * 32);
  filter->num_blocks_ = blocks;
  for (int64_t i = 0; i < n; ++i) {
    if (keys.IsValid(i))
      BloomInsert(words, blocks, hashes[static_cast<size_t>(i)]);
  }
  filter->kind_ = Kind::kBloom;
  filter->num_keys_ = non_null;
  return std::shared_ptr<const RuntimeFilter>(std::move(filter));
}

void RuntimeFilter::SetRangeScalars() {
  if (has_range_) {
    min_scalar_ = Scalar::FromInt(key_type_, min_);
    max_scalar_ = Scalar::FromInt(key_type_, max_);
  } else {
    min_scalar_.reset();
    max_scalar_.reset();
  }
}

Result<std::shared_ptr<const RuntimeFilter>> RuntimeFilter::Merge(
    const std::vector<std::shared_ptr<const RuntimeFilter>>& parts,
    const std::shared_ptr<MemoryPool>& pool) {
  if (parts.empty() || parts.front() == nullptr)
    return Status::Internal("merging no runtime filters");
  std::shared_ptr<RuntimeFilter> out(new RuntimeFilter());
  out->key_type_ = parts.front()->key_type_;
  std::vector<const RuntimeFilter*> live;
  int64_t total_keys = 0;
  bool all_bitmaps = true;
  bool all_ranged = true;
  bool any_bloom = false;
  uint64_t min_bloom_blocks = UINT64_MAX;
  for (const auto& part : parts) {
    if (part == nullptr)
      return Status::Internal("merging a missing runtime filter");
    if (!(part->key_type_ == out->key_type_)) {
      return Status::Internal("merging runtime filters of {} and {}", out->key_type_.ToString(),
                              part->key_type_.ToString());
    }
    if (part->kind_ == Kind::kEmpty)
      continue;  // no key: adds nothing to the union
    live.push_back(part.get());
    total_keys += part->num_keys_;
    all_ranged = all_ranged && part->has_range_;
    if (part->has_range_) {
      out->min_ = out->has_range_ ? std::min(out->min_, part->min_) : part->min_;
      out->max_ = out->has_range_ ? std::max(out->max_, part->max_) : part->max_;
      out->has_range_ = true;
    }
    all_bitmaps = all_bitmaps && part->kind_ == Kind::kBitmap;
    if (part->kind_ == Kind::kBloom) {
      if (!std::has_single_bit(part->num_blocks_)) {
        return Status::Internal("a Bloom runtime filter of {} blocks cannot be merged",
                                part->num_blocks_);
      }
      any_bloom = true;
      min_bloom_blocks = std::min(min_bloom_blocks, part->num_blocks_);
    }
  }
  if (live.empty())
    return std::shared_ptr<const RuntimeFilter>(std::move(out));
  // A part without a range would let keys outside the others' ranges through: no range then.
  out->has_range_ = out->has_range_ && all_ranged;
  out->SetRangeScalars();
  if (all_bitmaps && out->has_range_) {
    const uint64_t width = static_cast<uint64_t>(out->max_) - static_cast<uint64_t>(out->min_);
    if (width < static_cast<uint64_t>(kMaxBitmapBits) ||
        width < static_cast<uint64_t>(total_keys) * kBitmapValuesPerKey) {
      const uint64_t bits = width + 1;
      SHOAL_ASSIGN_OR_RETURN(out->table_,
                             Buffer::AllocateZeroed(static_cast<int64_t>((bits + 7) / 8), pool));
      uint8_t* bitmap = out->table_->mutable_data();
      for (const RuntimeFilter* part : live) {
        const uint8_t* in = part->table_->data();
        const uint64_t part_bits =
            static_cast<uint64_t>(part->max_) - static_cast<uint64_t>(part->min_) + 1;
        const uint64_t offset =
            static_cast<uint64_t>(part->min_) - static_cast<uint64_t>(out->min_);
        // A byte at a time, shifted into place: the merge runs on the join's critical path
        // once its last partition is built (TPC-H Q14: 200,000 part keys).
        const uint64_t part_bytes = (part_bits + 7) / 8;
        const uint64_t out_bytes = (bits + 7) / 8;
        const uint64_t first = offset >> 3;
        const unsigned shift = static_cast<unsigned>(offset & 7);
        for (uint64_t i = 0; i < part_bytes; ++i) {
          const unsigned byte = in[i];  // bits past part_bits are zero
          if (byte == 0)
            continue;
          bitmap[first + i] = static_cast<uint8_t>(bitmap[first + i] | (byte << shift));
          if (shift != 0 && first + i + 1 < out_bytes)
            bitmap[first + i + 1] =
                static_cast<uint8_t>(bitmap[first + i + 1] | (byte >> (8 - shift)));
        }
      }
      int64_t distinct = 0;
      for (uint64_t i = 0; i < (bits + 7) / 8; ++i)
        distinct += std::popcount(bitmap[i]);
      out->kind_ = Kind::kBitmap;
      out->num_keys_ = distinct;
      return std::shared_ptr<const RuntimeFilter>(std::move(out));
    }
  }
  // The keys of exact and bitmap parts, as stored hashes.
  std::vector<uint64_t> hashes;
  for (const RuntimeFilter* part : live) {
    if (part->kind_ == Kind::kExact) {
      const uint64_t* table = part->table_->data_as<uint64_t>();
      for (uint64_t s = 0; s <= part->mask_; ++s) {
        if (table[s] != 0)
          hashes.push_back(table[s]);
      }
    } else if (part->kind_ == Kind::kBitmap) {
      SHOAL_RETURN_IF_ERROR(AppendBitmapHashes(
          part->table_->data(),
          static_cast<uint64_t>(part->max_) - static_cast<uint64_t>(part->min_) + 1, part->min_,
          part->key_type_, pool, &hashes));
    }
  }
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  if (!any_bloom && static_cast<int64_t>(hashes.size()) <= kMaxExactKeys) {
    const uint64_t slots = std::bit_ceil(static_cast<uint64_t>(hashes.size()) * 2);
    SHOAL_ASSIGN_OR_RETURN(
        out->table_, Buffer::AllocateZeroed(static_cast<int64_t>(slots * sizeof(uint64_t)), pool));
    uint64_t* table = out->table_->mutable_data_as<uint64_t>();
    out->mask_ = slots - 1;
    for (uint64_t h : hashes) {
      uint64_t s = HashMix(h) & out->mask_;
      while (table[s] != 0)
        s = (s + 1) & out->mask_;
      table[s] = h;
    }
    out->kind_ = Kind::kExact;
    out->num_keys_ = static_cast<int64_t>(hashes.size());
    return std::shared_ptr<const RuntimeFilter>(std::move(out));
  }
  // A Bloom filter sized from all the keys, but no larger than the smallest Bloom part, whose
  // bits cannot be spread over more blocks than it has.
  const uint64_t bits = static_cast<uint64_t>(std::max<int64_t>(total_keys, 1)) * kBloomBitsPerKey;
  uint64_t blocks = std::bit_ceil(std::max<uint64_t>(1, (bits + 255) / 256));
  blocks = std::min(blocks, min_bloom_blocks);
  SHOAL_ASSIGN_OR_RETURN(out->table_,
                         Buffer::AllocateZeroed(static_cast<int64_t>(blocks * 32), pool));
  uint32_t* words = out->table_->mutable_data_as<uint32_t>();
  out->num_blocks_ = blocks;
  for (const RuntimeFilter* part : live) {
    if (part->kind_ != Kind::kBloom)
      continue;
    // Block i of the part is block i >> shift here (both counts are powers of two).
    const int shift = std::countr_zero(part->num_blocks_) - std::countr_zero(blocks);
    const uint32_t* in = part->table_->data_as<uint32_t>();
    for (uint64_t i = 0; i < part->num_blocks_; ++i) {
      uint32_t* block = words + 8 * (i >> shift);
      for (int w = 0; w < 8; ++w)
        block[w] |= in[8 * i + w];
    }
  }
  for (uint64_t h : hashes) {
    BloomInsert(words, blocks, h);
    if (h == 1)
      BloomInsert(words, blocks, 0);  // a stored 1 may stand for a hash of 0
  }
  out->kind_ = Kind::kBloom;
  out->num_keys_ = total_keys;
  return std::shared_ptr<const RuntimeFilter>(std::move(out));
}

RuntimeFilter::Parts RuntimeFilter::parts() const {
  Parts p;
  p.kind = kind_;
  p.num_keys = num_keys_;
  p.has_range = has_range_;
  p.min = min_;
  p.max = max_;
  p.key_type = key_type_;
  if (table_)
    p.table = std::string_view(reinterpret_cast<const char*>(table_->data()),
                               static_cast<size_t>(table_->size()));
  return p;
}

Result<std::shared_ptr<const RuntimeFilter>> RuntimeFilter::FromParts(
    const Parts& parts, const std::shared_ptr<MemoryPool>& pool) {
  std::shared_ptr<RuntimeFilter> f(new RuntimeFilter());
  f->kind_ = parts.kind;
  f->key_type_ = parts.key_type;
  f->num_keys_ = parts.num_keys;
  f->has_range_ = parts.has_range;
  f->min_ = parts.min;
  f->max_ = parts.max;
  const auto size = static_cast<uint64_t>(parts.table.size());
  if (parts.num_keys < 0)
    return Status::InvalidData("a runtime filter with {} keys", parts.num_keys);
  if (parts.has_range && (!RuntimeFilterHasRange(parts.key_type) || parts.min > parts.max)) {
    return Status::InvalidData("a runtime filter range [{}, {}] on {}", parts.min, parts.max,
                               parts.key_type.ToString());
  }
  switch (parts.kind) {
    case Kind::kEmpty:
      if (size != 0)
        return Status::InvalidData("an empty runtime filter with {} bytes", size);
      break;
    case Kind::kBitmap: {
      if (!parts.has_range)
        return Status::InvalidData("a bitmap runtime filter without a range");
      const uint64_t width = static_cast<uint64_t>(parts.max) - static_cast<uint64_t>(parts.min);
      if (width >= (uint64_t{1} << 40) || size != (width + 8) / 8)
        return Status::InvalidData("a bitmap runtime filter of {} bytes for a range of {}", size,
                                   width + 1);
      break;
    }
    case Kind::kExact: {
      if (size == 0 || size % 8 != 0 || !std::has_single_bit(size / 8))
        return Status::InvalidData("an exact runtime filter of {} bytes", size);
      f->mask_ = size / 8 - 1;
      break;
    }
    case Kind::kBloom:
      if (size == 0 || size % 32 != 0 || size / 32 > (uint64_t{1} << 32))
        return Status::InvalidData("a Bloom runtime filter of {} bytes", size);
      f->num_blocks_ = size / 32;
      break;
    default: return Status::InvalidData("a runtime filter of unknown kind");
  }
  if (size > 0) {
    SHOAL_ASSIGN_OR_RETURN(f->table_, Buffer::Allocate(static_cast<int64_t>(size), pool));
    std::memcpy(f->table_->mutable_data(), parts.table.data(), size);
  }
  if (parts.kind == Kind::kExact) {
    // A probe ends at an empty slot: a full table would loop forever.
    const uint64_t* table = f->table_->data_as<uint64_t>();
    bool has_empty = false;
    for (uint64_t s = 0; s <= f->mask_ && !has_empty; ++s)
      has_empty = table[s] == 0;
    if (!has_empty)
      return Status::InvalidData("an exact runtime filter without an empty slot");
  }
  f->SetRangeScalars();
  return std::shared_ptr<const RuntimeFilter>(std::move(f));
}

bool RuntimeFilter::MayContainHash(uint64_t hash) const {
  switch (kind_) {
    case Kind::kEmpty: return false;
    case Kind::kExact: {
      const uint64_t* table = table_->data_as<uint64_t>();
      const uint64_t h = StoredHash(hash);
      uint64_t s = HashMix(h) & mask_;
      for (;;) {
        if (table[s] == h)
          return true;
        if (table[s] == 0)
          return false;
        s = (s + 1) & mask_;
      }
    }
    case Kind::kBitmap: return true;  // needs the value, not the hash: see Select
    case Kind::kBloom: {
      const uint32_t* block =
          table_->data_as<uint32_t>() + 8 * (((hash >> 32) * num_blocks_) >> 32);
      const uint32_t low = static_cast<uint32_t>(hash);
      uint32_t missing = 0;
      for (int w = 0; w < 8; ++w)
        missing |= ~block[w] & (1U << ((low * kSalt[w]) >> 27));
      return missing == 0;
    }
  }
  return true;
}

Status RuntimeFilter::Select(const columnar::ArrayPtr& column_ptr, std::vector<uint64_t>* hashes,
                             std::vector<int32_t>* rows_out, bool refine) const {
  const Array& column = *column_ptr;
  const int64_t n = column.length();
  if (kind_ == Kind::kEmpty || n == 0) {
    rows_out->clear();
    return Status::OK();
  }
  // Candidates: the given rows (refine) or every row; NULLs never pass.
  size_t count = 0;
  if (refine) {
    int32_t* rows = rows_out->data();
    const size_t given = rows_out->size();
    if (column.null_count() == 0) {
      count = given;
    } else {
      for (size_t i = 0; i < given; ++i) {
        rows[count] = rows[i];
        count += column.IsValid(rows[i]) ? 1 : 0;
      }
    }
  } else {
    rows_out->resize(static_cast<size_t>(n));
    int32_t* rows = rows_out->data();
    if (column.null_count() == 0) {
      for (int64_t i = 0; i < n; ++i)
        rows[i] = static_cast<int32_t>(i);
      count = static_cast<size_t>(n);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        rows[count] = static_cast<int32_t>(i);
        count += column.IsValid(i) ? 1 : 0;
      }
    }
  }
  int32_t* rows = rows_out->data();
  // Range first (cheap), then membership, both in place in rows[0..count).
  if (has_range_) {
    switch (column.type_id()) {
      case TypeId::kInt8:
        count = SelectRange(column.values<int8_t>(), min_, max_, rows, count);
        break;
      case TypeId::kInt16:
        count = SelectRange(column.values<int16_t>(), min_, max_, rows, count);
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        count = SelectRange(column.values<int32_t>(), min_, max_, rows, count);
        break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        count = SelectRange(column.values<int64_t>(), min_, max_, rows, count);
        break;
      case TypeId::kUInt8:
        count = SelectRange(column.values<uint8_t>(), min_, max_, rows, count);
        break;
      case TypeId::kUInt16:
        count = SelectRange(column.values<uint16_t>(), min_, max_, rows, count);
        break;
      case TypeId::kUInt32:
        count = SelectRange(column.values<uint32_t>(), min_, max_, rows, count);
        break;
      default: break;  // a dictionary array: membership only
    }
  }
  if (count == 0) {
    rows_out->clear();
    return Status::OK();
  }
  if (kind_ == Kind::kBitmap && column.type_id() != TypeId::kDictionary) {
    const uint8_t* bitmap = table_->data();
    switch (column.type_id()) {
      case TypeId::kInt8:
        count = SelectBits(column.values<int8_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kInt16:
        count = SelectBits(column.values<int16_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        count = SelectBits(column.values<int32_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        count = SelectBits(column.values<int64_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kUInt8:
        count = SelectBits(column.values<uint8_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kUInt16:
        count = SelectBits(column.values<uint16_t>(), min_, bitmap, rows, count);
        break;
      case TypeId::kUInt32:
        count = SelectBits(column.values<uint32_t>(), min_, bitmap, rows, count);
        break;
      default: return Status::Internal("bitmap runtime filter on {}", column.type().ToString());
    }
    rows_out->resize(count);
    return Status::OK();
  }
  if (kind_ == Kind::kBitmap) {
    // A dictionary array: its values are decoded once per batch here (rare: integer keys are
    // not dictionary-encoded by Shoal's writer, and range pruning still applies).
    rows_out->resize(count);  // keeps the candidates (no false negatives)
    return Status::OK();
  }
  SHOAL_RETURN_IF_ERROR(HashColumns({column_ptr}, n, hashes));
  const uint64_t* h = hashes->data();
  size_t kept = 0;
  if (kind_ == Kind::kBloom) {
    kept = BloomSelect(table_->data_as<uint32_t>(), num_blocks_, h, rows, count);
  } else {
    const uint64_t* table = table_->data_as<uint64_t>();
    const uint64_t mask = mask_;
    for (size_t i = 0; i < count; ++i) {
      const int32_t r = rows[i];
      const uint64_t key = StoredHash(h[r]);
      uint64_t slot = HashMix(key) & mask;
      while (table[slot] != key && table[slot] != 0)
        slot = (slot + 1) & mask;
      rows[kept] = r;
      kept += static_cast<size_t>(table[slot] == key);
    }
  }
  rows_out->resize(kept);
  return Status::OK();
}

std::string RuntimeFilter::Describe() const {
  std::string text = KindName(kind_);
  if (kind_ != Kind::kEmpty)
    text += fmt::format(" {}, {} keys", FormatBytes(size_bytes()), num_keys_);
  if (min_scalar_ && max_scalar_)
    text += fmt::format(", range [{}, {}]", min_scalar_->ToString(), max_scalar_->ToString());
  return text;
}

}  // namespace shoal::exec

#include "shoal/exec/row_key/grouper.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/row_key/nested_key_encoder.h"

namespace shoal::exec {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::TypeId;

// One key column's values for every group, in group id order.
class Grouper::KeyStore {
 public:
  explicit KeyStore(DataType type) : type_(std::move(type)) {}

  virtual ~KeyStore() = default;

  /// Appends the keys of `rows` of `input` as new groups.
  virtual void Append(const Array& input, const uint32_t* rows, int64_t n) = 0;
  /// match[i] &= (input[rows[i]] equals the key of group groups[i]).
  virtual void Match(const Array& input, const uint32_t* rows, const uint32_t* groups, int64_t n,
                     uint8_t* match) const = 0;
  virtual Result<ArrayPtr> Emit(int64_t start, int64_t length,
                                const std::shared_ptr<MemoryPool>& pool) const = 0;
  /// Stores that compare an encoding of the keys (nested ones) also see the keys themselves for the
  /// groups Append just added, to emit them; the others ignore the call.
  virtual Status AppendSource(const Array& /*source*/, const uint32_t* /*rows*/, int64_t /*n*/) {
    return Status::OK();
  }

  virtual int64_t MemoryBytes() const { return static_cast<int64_t>(valid_.capacity()); }

 protected:
  void AppendValidity(const Array& input, const uint32_t* rows, int64_t n) {
    if (input.null_count() == 0) {
      valid_.insert(valid_.end(), static_cast<size_t>(n), 1);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      bool v = input.IsValid(rows[i]);
      has_null_ |= !v;
      valid_.push_back(v);
    }
  }

  // The validity bitmap of groups [start, start + length), or null when all are valid.
  Result<BufferPtr> EmitValidity(int64_t start, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool,
                                 int64_t* null_count) const {
    *null_count = 0;
    if (!has_null_)
      return BufferPtr();
    const uint8_t* v = valid_.data() + start;
    for (int64_t i = 0; i < length; ++i)
      *null_count += v[i] == 0;
    if (*null_count == 0)
      return BufferPtr();
    SHOAL_ASSIGN_OR_RETURN(BufferPtr bitmap, bits::Allocate(length, pool));
    bits::PackBytes(v, length, bitmap->mutable_data());
    return bitmap;
  }

  DataType type_;
  std::vector<uint8_t> valid_;
  bool has_null_ = false;
};

namespace {

// Rows ahead whose stored key a comparison loop prefetches (the groups are random accesses).
constexpr int64_t kMatchPrefetchDistance = 16;

template <typename T>
bool KeyEqual(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

// Fixed-width keys stored as their physical C type (signedness does not matter for equality).
template <typename T>
class FixedKeyStore final : public Grouper::KeyStore {
 public:
  using KeyStore::KeyStore;

  void Append(const Array& input, const uint32_t* rows, int64_t n) override {
    AppendValidity(input, rows, n);
    const T* v = input.values<T>();
    const size_t old = values_.size();
    values_.resize(old + static_cast<size_t>(n));
    T* out = values_.data() + old;
    for (int64_t i = 0; i < n; ++i)
      out[i] = v[rows[i]];
  }

  void Match(const Array& input, const uint32_t* rows, const uint32_t* groups, int64_t n,
             uint8_t* match) const override {
    const T* v = input.values<T>();
    const T* stored = values_.data();
    if (input.null_count() == 0 && !has_null_) {
      for (int64_t i = 0; i < n; ++i) {
        if (i + kMatchPrefetchDistance < n)
          __builtin_prefetch(&stored[groups[i + kMatchPrefetchDistance]]);
        match[i] &= KeyEqual(v[rows[i]], stored[groups[i]]);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const bool a = input.IsValid(rows[i]);
      const bool b = valid_[groups[i]] != 0;
      match[i] &= a == b && (!a || KeyEqual(v[rows[i]], stored[groups[i]]));
    }
  }

  Result<ArrayPtr> Emit(int64_t start, int64_t length,
                        const std::shared_ptr<MemoryPool>& pool) const override {
    int64_t null_count;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, EmitValidity(start, length, pool, &null_count));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<T>(length, pool));
    if (length > 0)
      std::memcpy(values->mutable_data(), values_.data() + start,
                  static_cast<size_t>(length) * sizeof(T));
    return Array::Make(type_, length, {std::move(validity), std::move(values)}, null_count);
  }

  int64_t MemoryBytes() const override { return KeyStore::MemoryBytes() + CapacityBytes(); }

 private:
  int64_t CapacityBytes() const { return static_cast<int64_t>(values_.capacity() * sizeof(T)); }

  std::vector<T> values_;
};

class BooleanKeyStore final : public Grouper::KeyStore {
 public:
  using KeyStore::KeyStore;

  void Append(const Array& input, const uint32_t* rows, int64_t n) override {
    AppendValidity(input, rows, n);
    for (int64_t i = 0; i < n; ++i)
      values_.push_back(input.IsValid(rows[i]) && input.BoolValue(rows[i]));
  }

  void Match(const Array& input, const uint32_t* rows, const uint32_t* groups, int64_t n,
             uint8_t* match) const override {
    for (int64_t i = 0; i < n; ++i) {
      const bool a = input.IsValid(rows[i]);
      const bool b = valid_[groups[i]] != 0;
      match[i] &= a == b && (!a || input.BoolValue(rows[i]) == (values_[groups[i]] != 0));
    }
  }

  Result<ArrayPtr> Emit(int64_t start, int64_t length,
                        const std::shared_ptr<MemoryPool>& pool) const override {
    int64_t null_count;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, EmitValidity(start, length, pool, &null_count));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(length, pool));
    bits::PackBytes(values_.data() + start, length, values->mutable_data());
    return Array::Make(type_, length, {std::move(validity), std::move(values)}, null_count);
  }

  int64_t MemoryBytes() const override {
    return KeyStore::MemoryBytes() + static_cast<int64_t>(values_.capacity());
  }

 private:
  std::vector<uint8_t> values_;
};

class BinaryKeyStore : public Grouper::KeyStore {
 public:
  explicit BinaryKeyStore(DataType type) : KeyStore(std::move(type)) { offsets_.push_back(0); }

  void Append(const Array& input, const uint32_t* rows, int64_t n) override {
    AppendValidity(input, rows, n);
    const int32_t* o = input.offsets();
    const char* data = reinterpret_cast<const char*>(input.string_data());
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t r = rows[i];
      // A null's offsets are equal in Shoal's arrays, but outside arrays need not be.
      if (input.IsValid(r))
        data_.insert(data_.end(), data + o[r], data + o[r + 1]);
      offsets_.push_back(static_cast<int64_t>(data_.size()));
    }
  }

  void Match(const Array& input, const uint32_t* rows, const uint32_t* groups, int64_t n,
             uint8_t* match) const override {
    const int32_t* o = input.offsets();
    const char* data = reinterpret_cast<const char*>(input.string_data());
    const bool nulls = input.null_count() != 0 || has_null_;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t r = rows[i];
      const uint32_t g = groups[i];
      if (nulls) {
        const bool a = input.IsValid(r);
        const bool b = valid_[g] != 0;
        if (a != b) {
          match[i] = 0;
          continue;
        }
        if (!a)
          continue;
      }
      const int64_t len = o[r + 1] - o[r];
      const int64_t stored_len = offsets_[g + 1] - offsets_[g];
      // len == 0 first: with only empty keys stored, data_ has no bytes and no data pointer.
      match[i] &=
          len == stored_len && (len == 0 || std::memcmp(data + o[r], data_.data() + offsets_[g],
                                                        static_cast<size_t>(len)) == 0);
    }
  }

  Result<ArrayPtr> Emit(int64_t start, int64_t length,
                        const std::shared_ptr<MemoryPool>& pool) const override {
    int64_t null_count;
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, EmitValidity(start, length, pool, &null_count));
    const int64_t base = offsets_[start];
    const int64_t bytes = offsets_[start + length] - base;
    if (bytes > INT32_MAX)
      return Status::OutOfRange("group keys of {} bytes exceed a string column's 2 GiB", bytes);
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(length + 1, pool));
    int32_t* out = offsets->mutable_data_as<int32_t>();
    for (int64_t i = 0; i <= length; ++i)
      out[i] = static_cast<int32_t>(offsets_[start + i] - base);
    SHOAL_ASSIGN_OR_RETURN(BufferPtr data, columnar::Buffer::Allocate(bytes, pool));
    if (bytes > 0)
      std::memcpy(data->mutable_data(), data_.data() + base, static_cast<size_t>(bytes));
    return Array::Make(type_, length, {std::move(validity), std::move(offsets), std::move(data)},
                       null_count);
  }

  int64_t MemoryBytes() const override {
    return KeyStore::MemoryBytes() + static_cast<int64_t>(data_.capacity()) +
           static_cast<int64_t>(offsets_.capacity() * sizeof(int64_t));
  }

 private:
  std::vector<int64_t> offsets_;
  std::vector<char> data_;
};

// Nested keys (lists, structs, maps): groups are found by the bytes of their key encoding
// (nested_key_encoder.h), which the grouper computes once per batch and passes as the input; each
// new group's value itself is copied from the batch (AppendSource) to be emitted. New groups are
// rare next to the rows matched, so the value-at-a-time copy is off the hot path.
class NestedKeyStore final : public BinaryKeyStore {
 public:
  explicit NestedKeyStore(DataType type)
      : BinaryKeyStore(DataType::Binary()), nested_type_(std::move(type)) {}

  Status AppendSource(const Array& source, const uint32_t* rows, int64_t n) override {
    if (!builder_)
      builder_ = columnar::MakeBuilder(nested_type_, DefaultMemoryPool());
    SHOAL_RETURN_IF_ERROR(builder_->Reserve(n));
    for (int64_t i = 0; i < n; ++i)
      SHOAL_RETURN_IF_ERROR(builder_->AppendFrom(source, rows[i]));
    source_bytes_ += n * 16;
    return Status::OK();
  }

  Result<ArrayPtr> Emit(int64_t start, int64_t length,
                        const std::shared_ptr<MemoryPool>& pool) const override {
    if (builder_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr chunk, builder_->Finish());
      builder_.reset();
      if (emitted_) {
        SHOAL_ASSIGN_OR_RETURN(emitted_, Concatenate({emitted_, std::move(chunk)}, pool));
      } else {
        emitted_ = std::move(chunk);
      }
    }
    if (!emitted_ || start + length > emitted_->length())
      return Status::Internal("grouper: {} nested keys emitted of {}", start + length,
                              emitted_ ? emitted_->length() : 0);
    return emitted_->Slice(start, length);
  }

  int64_t MemoryBytes() const override {
    return BinaryKeyStore::MemoryBytes() + source_bytes_ + (emitted_ ? emitted_->BufferBytes() : 0);
  }

 private:
  DataType nested_type_;
  // The groups' values: those appended since the last Emit in the builder, the earlier ones
  // concatenated (Emit, const to its callers, moves the builder's into the array).
  mutable std::unique_ptr<columnar::ArrayBuilder> builder_;
  mutable ArrayPtr emitted_;
  int64_t source_bytes_ = 0;  // a rough size of the builder's contents
};

class NullKeyStore final : public Grouper::KeyStore {
 public:
  using KeyStore::KeyStore;

  void Append(const Array&, const uint32_t*, int64_t) override {}

  void Match(const Array&, const uint32_t*, const uint32_t*, int64_t, uint8_t*) const override {}

  Result<ArrayPtr> Emit(int64_t, int64_t length,
                        const std::shared_ptr<MemoryPool>&) const override {
    return Array::Make(type_, length, {});
  }
};

Result<std::unique_ptr<Grouper::KeyStore>> MakeKeyStore(const DataType& type) {
  using Ptr = std::unique_ptr<Grouper::KeyStore>;
  switch (type.id()) {
    case TypeId::kNull: return Ptr(new NullKeyStore(type));
    case TypeId::kBoolean: return Ptr(new BooleanKeyStore(type));
    case TypeId::kInt8:
    case TypeId::kUInt8: return Ptr(new FixedKeyStore<uint8_t>(type));
    case TypeId::kInt16:
    case TypeId::kUInt16: return Ptr(new FixedKeyStore<uint16_t>(type));
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32: return Ptr(new FixedKeyStore<uint32_t>(type));
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kTimestamp: return Ptr(new FixedKeyStore<uint64_t>(type));
    case TypeId::kFloat32: return Ptr(new FixedKeyStore<float>(type));
    case TypeId::kFloat64: return Ptr(new FixedKeyStore<double>(type));
    case TypeId::kDecimal:
      if (type.precision() <= DataType::kMaxDecimal64Precision)
        return Ptr(new FixedKeyStore<uint64_t>(type));
      return Ptr(new FixedKeyStore<columnar::int128_t>(type));
    case TypeId::kInterval: return Ptr(new FixedKeyStore<columnar::MonthDayNano>(type));
    case TypeId::kUtf8:
    case TypeId::kBinary: return Ptr(new BinaryKeyStore(type));
    case TypeId::kDictionary: break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap: return Ptr(new NestedKeyStore(type));
  }
  return Status::NotImplemented("grouping by {}", type.ToString());
}

constexpr int64_t kMinSlots = 1024;
constexpr size_t kPrefetchDistance = 16;  // rows ahead whose directory slot is prefetched
constexpr uint64_t kMaxGroups = 0xFFFFFFFEULL;

// ---- the small-domain path ---------------------------------------------------------------------

constexpr int64_t kMinSmallDomainRows = 64;  // smaller batches are not worth a code table
constexpr int64_t kMinSmallDomain = 64;
constexpr int64_t kMaxSmallDomain = 4096;  // code table entries (16 KiB)
constexpr int kMaxBackoff = 64;            // batches skipped after repeated misses
constexpr uint32_t kNoRep = 0xFFFFFFFFU;
constexpr int kStringSlots = 512;           // local table of one string column (power of 2)
constexpr uint32_t kMaxStringValues = 255;  // distinct strings per batch (< kStringSlots / 2)

bool HasSmallDomain(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kUInt8:
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32:
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kTimestamp:
    case TypeId::kUtf8:
    case TypeId::kBinary: return true;
    case TypeId::kDecimal: return type.precision() <= DataType::kMaxDecimal64Precision;
    default: return false;
  }
}

// Integers: code 0 is NULL, 1 + (v - min) a value, where min and max are the batch's. Returns the
// domain (max - min + 2), or 0 when it exceeds `limit`.
template <typename T>
uint64_t EncodeRange(const Array& a, int64_t n, uint32_t stride, uint64_t limit, uint32_t* codes) {
  using U = std::make_unsigned_t<T>;
  const T* v = a.values<T>();
  const bool nulls = a.null_count() != 0;
  T lo{}, hi{};
  bool any = false;
  if (!nulls) {
    lo = hi = v[0];
    for (int64_t i = 1; i < n; ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    any = true;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (!a.IsValid(i))
        continue;
      if (!any) {
        lo = hi = v[i];
        any = true;
      }
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
  }
  if (!any)
    return 1;  // all NULL: code 0 everywhere
  const uint64_t range =
      static_cast<uint64_t>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
  if (limit < 2 || range > limit - 2)
    return 0;
  const U base = static_cast<U>(lo);
  if (!nulls) {
    for (int64_t i = 0; i < n; ++i)
      codes[i] += (static_cast<uint32_t>(static_cast<U>(static_cast<U>(v[i]) - base)) + 1) * stride;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsValid(i))
        codes[i] +=
            (static_cast<uint32_t>(static_cast<U>(static_cast<U>(v[i]) - base)) + 1) * stride;
    }
  }
  return range + 2;
}

uint64_t EncodeBoolean(const Array& a, int64_t n, uint32_t stride, uint64_t limit,
                       uint32_t* codes) {
  if (limit < 3)
    return 0;
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsValid(i))
      codes[i] += (a.BoolValue(i) ? 2U : 1U) * stride;
  }
  return 3;
}

// Strings of at most 8 bytes: each distinct value of the batch gets a code from a small local
// table keyed by the packed bytes and the length (code 0 is NULL). Returns the number of codes,
// or 0 when a string is longer or there are too many distinct values.
uint64_t EncodeShortStrings(const Array& a, int64_t n, uint32_t stride, uint64_t limit,
                            uint32_t* codes, std::vector<uint64_t>* slot_bytes,
                            std::vector<uint32_t>* slot_ids) {
  if (limit < 2)
    return 0;
  const uint64_t max_values = std::min<uint64_t>(kMaxStringValues, limit - 1);
  const int32_t* o = a.offsets();
  const uint8_t* data = a.string_data();
  const int32_t end = o[n];  // bytes at or after this may not exist: load 8 only below it
  slot_bytes->assign(kStringSlots, 0);
  slot_ids->assign(kStringSlots, 0);
  uint64_t* bytes = slot_bytes->data();
  uint32_t* ids = slot_ids->data();
  const bool nulls = a.null_count() != 0;
  uint32_t num_values = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (nulls && !a.IsValid(i))
      continue;
    const int32_t start = o[i];
    const int32_t len = o[i + 1] - start;
    if (len > 8)
      return 0;
    uint64_t x = 0;
    if (start + 8 <= end) {
      std::memcpy(&x, data + start, 8);
      x &= len == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
    } else if (len > 0) {
      std::memcpy(&x, data + start, static_cast<size_t>(len));
    }
    const uint32_t len_tag = static_cast<uint32_t>(len) << 24;
    uint64_t s = ((x + static_cast<uint64_t>(len)) * 0x9E3779B97F4A7C15ULL) >> 55;  // 9 bits
    for (;;) {
      const uint32_t e = ids[s];
      if (e == 0) {
        if (++num_values > max_values)
          return 0;
        bytes[s] = x;
        ids[s] = len_tag | num_values;
        codes[i] += num_values * stride;
        break;
      }
      if (bytes[s] == x && (e & 0xFF000000U) == len_tag) {
        codes[i] += (e & 0xFFFFFFU) * stride;
        break;
      }
      s = (s + 1) & (kStringSlots - 1);
    }
  }
  return num_values + 1;
}

// Adds the codes of one key column (times `stride`) to `codes`; returns its domain, or 0 when
// the column has more than `limit` codes in this batch.
uint64_t EncodeSmallDomain(const Array& a, int64_t n, uint32_t stride, uint64_t limit,
                           uint32_t* codes, std::vector<uint64_t>* slot_bytes,
                           std::vector<uint32_t>* slot_ids) {
  switch (a.type_id()) {
    case TypeId::kNull: return 1;
    case TypeId::kBoolean: return EncodeBoolean(a, n, stride, limit, codes);
    case TypeId::kInt8: return EncodeRange<int8_t>(a, n, stride, limit, codes);
    case TypeId::kUInt8: return EncodeRange<uint8_t>(a, n, stride, limit, codes);
    case TypeId::kInt16: return EncodeRange<int16_t>(a, n, stride, limit, codes);
    case TypeId::kUInt16: return EncodeRange<uint16_t>(a, n, stride, limit, codes);
    case TypeId::kInt32:
    case TypeId::kDate32: return EncodeRange<int32_t>(a, n, stride, limit, codes);
    case TypeId::kUInt32: return EncodeRange<uint32_t>(a, n, stride, limit, codes);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDecimal: return EncodeRange<int64_t>(a, n, stride, limit, codes);
    case TypeId::kUInt64: return EncodeRange<uint64_t>(a, n, stride, limit, codes);
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return EncodeShortStrings(a, n, stride, limit, codes, slot_bytes, slot_ids);
    default: return 0;
  }
}

}  // namespace

Result<std::unique_ptr<Grouper>> Grouper::Make(const std::vector<DataType>& key_types) {
  std::unique_ptr<Grouper> g(new Grouper());
  for (const DataType& type : key_types) {
    SHOAL_ASSIGN_OR_RETURN(auto store, MakeKeyStore(type));
    g->stores_.push_back(std::move(store));
    g->has_nested_ |= type.is_nested();
  }
  g->small_domain_types_ = !key_types.empty();
  for (const DataType& type : key_types)
    g->small_domain_types_ &= HasSmallDomain(type);
  g->Grow(0);
  return g;
}

Grouper::~Grouper() = default;

void Grouper::Grow(int64_t min_entries) {
  // Load factor at most 1/2 keeps linear probe sequences short.
  int64_t size = kMinSlots;
  while (size < 2 * min_entries)
    size *= 2;
  if (static_cast<int64_t>(slots_.size()) >= size)
    return;
  std::vector<uint64_t>().swap(slots_);
  slots_.assign(static_cast<size_t>(size), 0);
  mask_ = static_cast<uint64_t>(size - 1);
  for (size_t g = 0; g < group_hashes_.size(); ++g) {
    const uint64_t h = group_hashes_[g];
    uint64_t s = h & mask_;
    while (slots_[s] != 0)
      s = (s + 1) & mask_;
    slots_[s] = (h & 0xFFFFFFFF00000000ULL) | (g + 1);
  }
}

Status Grouper::Consume(const std::vector<ArrayPtr>& keys, int64_t num_rows,
                        std::vector<uint32_t>* group_ids) {
  if (keys.size() != stores_.size())
    return Status::Internal("grouper expects {} key columns, got {}", stores_.size(), keys.size());
  group_ids->resize(static_cast<size_t>(num_rows));
  if (num_rows == 0)
    return Status::OK();
  if (static_cast<uint64_t>(num_groups() + num_rows) > kMaxGroups)
    return Status::OutOfRange("more than {} groups in one hash aggregation", kMaxGroups);
  if (small_domain_types_ && num_rows >= kMinSmallDomainRows) {
    if (small_domain_skip_ > 0) {
      --small_domain_skip_;
    } else {
      SHOAL_ASSIGN_OR_RETURN(bool done, ConsumeSmallDomain(keys, num_rows, group_ids->data()));
      if (done) {
        small_domain_backoff_ = 0;
        return Status::OK();
      }
      small_domain_backoff_ = std::min(std::max(1, 2 * small_domain_backoff_), kMaxBackoff);
      small_domain_skip_ = small_domain_backoff_;
    }
  }
  if (!has_nested_) {
    SHOAL_RETURN_IF_ERROR(HashColumns(keys, num_rows, &hashes_));
    ConsumeHashed(keys, num_rows, group_ids->data());
    return Status::OK();
  }
  // Nested keys are hashed and compared by their encodings, computed once for the batch; the
  // stores copy the new groups' values from the keys themselves.
  std::vector<ArrayPtr> encoded = keys;
  for (ArrayPtr& key : encoded) {
    if (key->type().is_nested()) {
      SHOAL_ASSIGN_OR_RETURN(key, EncodeNestedKeys(*key, DefaultMemoryPool()));
    }
  }
  SHOAL_RETURN_IF_ERROR(HashColumns(encoded, num_rows, &hashes_));
  sources_ = &keys;
  ConsumeHashed(encoded, num_rows, group_ids->data());
  sources_ = nullptr;
  return source_status_;
}

Result<bool> Grouper::ConsumeSmallDomain(const std::vector<ArrayPtr>& keys, int64_t num_rows,
                                         uint32_t* gids) {
  const size_t n = static_cast<size_t>(num_rows);
  // The code table is cleared per batch, so it may be at most about as large as the batch.
  const uint64_t limit =
      static_cast<uint64_t>(std::clamp<int64_t>(num_rows / 2, kMinSmallDomain, kMaxSmallDomain));
  codes_.assign(n, 0);
  uint64_t domain = 1;
  for (const ArrayPtr& key : keys) {
    const uint64_t d =
        EncodeSmallDomain(*key, num_rows, static_cast<uint32_t>(domain), limit / domain,
                          codes_.data(), &string_slots_, &string_ids_);
    if (d == 0)
      return false;
    domain *= d;
  }
  code_rep_.assign(domain, kNoRep);
  reps_.clear();
  const uint32_t* codes = codes_.data();
  uint32_t* code_rep = code_rep_.data();
  for (size_t r = 0; r < n; ++r) {
    if (code_rep[codes[r]] == kNoRep) {
      code_rep[codes[r]] = static_cast<uint32_t>(reps_.size());
      reps_.push_back(static_cast<int32_t>(r));
    }
  }
  // The first row of each code finds or makes its group the hashed way, in row order, so group
  // ids keep their order of first appearance.
  const int64_t num_reps = static_cast<int64_t>(reps_.size());
  std::vector<ArrayPtr> rep_keys;
  rep_keys.reserve(keys.size());
  for (const ArrayPtr& key : keys) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr k, Take(*key, reps_.data(), num_reps, DefaultMemoryPool()));
    rep_keys.push_back(std::move(k));
  }
  SHOAL_RETURN_IF_ERROR(HashColumns(rep_keys, num_reps, &hashes_));
  rep_groups_.resize(static_cast<size_t>(num_reps));
  ConsumeHashed(rep_keys, num_reps, rep_groups_.data());
  const uint32_t* rep_groups = rep_groups_.data();
  for (size_t r = 0; r < n; ++r)
    gids[r] = rep_groups[code_rep[codes[r]]];
  return true;
}

void Grouper::ConsumeHashed(const std::vector<ArrayPtr>& keys, int64_t num_rows, uint32_t* gids) {
  Grow(num_groups() + num_rows);
  const size_t n = static_cast<size_t>(num_rows);
  pending_.resize(n);
  slot_of_.resize(n);
  for (size_t r = 0; r < n; ++r) {
    pending_[r] = static_cast<uint32_t>(r);
    slot_of_[r] = hashes_[r] & mask_;
  }
  // Every scratch list is sized once per round and written by index (no push_back per row).
  while (!pending_.empty()) {
    const size_t p = pending_.size();
    candidates_.resize(p);
    candidate_groups_.resize(p);
    new_rows_.resize(p);
    size_t num_candidates = 0, num_new = 0;
    const uint32_t* pending = pending_.data();
    for (size_t i = 0; i < p; ++i) {
      // A slot is a random access into a directory larger than the cache once there are many
      // groups: ask for the slot of a row a few ahead while this one is probed.
      if (i + kPrefetchDistance < p)
        __builtin_prefetch(&slots_[slot_of_[pending[i + kPrefetchDistance]]]);
      const uint32_t r = pending[i];
      const uint64_t h = hashes_[r];
      const uint64_t tag = h & 0xFFFFFFFF00000000ULL;
      uint64_t s = slot_of_[r];
      for (;;) {
        const uint64_t e = slots_[s];
        if (e == 0) {
          const uint64_t g = group_hashes_.size();
          group_hashes_.push_back(h);
          slots_[s] = tag | (g + 1);
          gids[r] = static_cast<uint32_t>(g);
          new_rows_[num_new++] = r;
          break;
        }
        if ((e & 0xFFFFFFFF00000000ULL) == tag) {
          candidates_[num_candidates] = r;
          candidate_groups_[num_candidates] = static_cast<uint32_t>((e & 0xFFFFFFFFULL) - 1);
          ++num_candidates;
          break;
        }
        s = (s + 1) & mask_;
      }
      slot_of_[r] = s;
    }
    // New keys go in before the comparison: later rows of this round may have found them.
    if (num_new > 0) {
      for (size_t c = 0; c < stores_.size(); ++c) {
        stores_[c]->Append(*keys[c], new_rows_.data(), static_cast<int64_t>(num_new));
        if (sources_ != nullptr && source_status_.ok())
          source_status_ = stores_[c]->AppendSource(*(*sources_)[c], new_rows_.data(),
                                                    static_cast<int64_t>(num_new));
      }
    }
    const size_t m = num_candidates;
    match_.assign(m, 1);
    for (size_t c = 0; c < stores_.size(); ++c)
      stores_[c]->Match(*keys[c], candidates_.data(), candidate_groups_.data(),
                        static_cast<int64_t>(m), match_.data());
    next_pending_.resize(m);
    size_t num_next = 0;
    for (size_t i = 0; i < m; ++i) {
      const uint32_t r = candidates_[i];
      if (match_[i]) {
        gids[r] = candidate_groups_[i];
      } else {
        slot_of_[r] = (slot_of_[r] + 1) & mask_;
        next_pending_[num_next++] = r;
      }
    }
    next_pending_.resize(num_next);
    pending_.swap(next_pending_);
  }
}

Result<std::vector<ArrayPtr>> Grouper::GetKeys(int64_t start, int64_t length,
                                               const std::shared_ptr<MemoryPool>& pool) const {
  std::vector<ArrayPtr> out;
  out.reserve(stores_.size());
  for (const auto& store : stores_) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, store->Emit(start, length, pool));
    out.push_back(std::move(a));
  }
  return out;
}

int64_t Grouper::MemoryBytes() const {
  int64_t bytes = static_cast<int64_t>(
      (slots_.capacity() + group_hashes_.capacity() + hashes_.capacity() + slot_of_.capacity()) *
      sizeof(uint64_t));
  bytes += static_cast<int64_t>(
      (pending_.capacity() + next_pending_.capacity() + candidates_.capacity() +
       candidate_groups_.capacity() + new_rows_.capacity() + codes_.capacity() +
       code_rep_.capacity() + rep_groups_.capacity() + reps_.capacity() + string_ids_.capacity()) *
      sizeof(uint32_t));
  bytes += static_cast<int64_t>(string_slots_.capacity() * sizeof(uint64_t));
  for (const auto& store : stores_)
    bytes += store->MemoryBytes();
  return bytes;
}

}  // namespace shoal::exec

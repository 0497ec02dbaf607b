#include "shoal/exec/row_key/grouper.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/hash.h"

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
    for (int64_t i = 0; i < n; ++i)
      values_.push_back(v[rows[i]]);
  }

  void Match(const Array& input, const uint32_t* rows, const uint32_t* groups, int64_t n,
             uint8_t* match) const override {
    const T* v = input.values<T>();
    const T* stored = values_.data();
    if (input.null_count() == 0 && !has_null_) {
      for (int64_t i = 0; i < n; ++i)
        match[i] &= KeyEqual(v[rows[i]], stored[groups[i]]);
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

class BinaryKeyStore final : public Grouper::KeyStore {
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
  }
  return Status::NotImplemented("grouping by {}", type.ToString());
}

constexpr int64_t kMinSlots = 1024;
constexpr uint64_t kMaxGroups = 0xFFFFFFFEULL;

}  // namespace

Result<std::unique_ptr<Grouper>> Grouper::Make(const std::vector<DataType>& key_types) {
  std::unique_ptr<Grouper> g(new Grouper());
  for (const DataType& type : key_types) {
    SHOAL_ASSIGN_OR_RETURN(auto store, MakeKeyStore(type));
    g->stores_.push_back(std::move(store));
  }
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
  SHOAL_RETURN_IF_ERROR(HashColumns(keys, num_rows, &hashes_));
  Grow(num_groups() + num_rows);

  uint32_t* gids = group_ids->data();
  const size_t n = static_cast<size_t>(num_rows);
  pending_.resize(n);
  slot_of_.resize(n);
  for (size_t r = 0; r < n; ++r) {
    pending_[r] = static_cast<uint32_t>(r);
    slot_of_[r] = hashes_[r] & mask_;
  }
  while (!pending_.empty()) {
    candidates_.clear();
    candidate_groups_.clear();
    new_rows_.clear();
    for (uint32_t r : pending_) {
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
          new_rows_.push_back(r);
          break;
        }
        if ((e & 0xFFFFFFFF00000000ULL) == tag) {
          candidates_.push_back(r);
          candidate_groups_.push_back(static_cast<uint32_t>((e & 0xFFFFFFFFULL) - 1));
          break;
        }
        s = (s + 1) & mask_;
      }
      slot_of_[r] = s;
    }
    // New keys go in before the comparison: later rows of this round may have found them.
    if (!new_rows_.empty()) {
      for (size_t c = 0; c < stores_.size(); ++c)
        stores_[c]->Append(*keys[c], new_rows_.data(), static_cast<int64_t>(new_rows_.size()));
    }
    const size_t m = candidates_.size();
    match_.assign(m, 1);
    for (size_t c = 0; c < stores_.size(); ++c)
      stores_[c]->Match(*keys[c], candidates_.data(), candidate_groups_.data(),
                        static_cast<int64_t>(m), match_.data());
    next_pending_.clear();
    for (size_t i = 0; i < m; ++i) {
      const uint32_t r = candidates_[i];
      if (match_[i]) {
        gids[r] = candidate_groups_[i];
      } else {
        slot_of_[r] = (slot_of_[r] + 1) & mask_;
        next_pending_.push_back(r);
      }
    }
    pending_.swap(next_pending_);
  }
  return Status::OK();
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
  bytes += static_cast<int64_t>((pending_.capacity() + next_pending_.capacity() +
                                 candidates_.capacity() + candidate_groups_.capacity() +
                                 new_rows_.capacity()) *
                                sizeof(uint32_t));
  for (const auto& store : stores_)
    bytes += store->MemoryBytes();
  return bytes;
}

}  // namespace shoal::exec

#include "shoal/exec/join/join_hash_table.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/hash.h"

namespace shoal::exec {
namespace {

using columnar::Buffer;
using columnar::TypeId;
namespace bitmap = columnar::bitmap;

// How many rows ahead the probe loops prefetch their random accesses: far enough to hide a
// cache miss behind the work of the rows between, near enough to stay in the cache.
constexpr int64_t kPrefetchDistance = 16;

struct Bytes16 {
  uint64_t lo, hi;
  bool operator==(const Bytes16&) const = default;
};

template <typename T>
bool KeyEquals(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

// Branch-free compaction: every pair is written, the cursor moves only past equal ones.
template <typename T>
int64_t KeepEqualFixed(const columnar::Array& pa, const columnar::Array& ba, int32_t* probe,
                       int32_t* build, int64_t count) {
  const T* pv = reinterpret_cast<const T*>(pa.buffer(1)->data()) + pa.offset();
  const T* bv = reinterpret_cast<const T*>(ba.buffer(1)->data()) + ba.offset();
  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int32_t p = probe[i];
    const int32_t b = build[i];
    probe[kept] = p;
    build[kept] = b;
    kept += KeyEquals(pv[p], bv[b]);
  }
  return kept;
}

int64_t KeepEqualBinary(const columnar::Array& pa, const columnar::Array& ba, int32_t* probe,
                        int32_t* build, int64_t count) {
  const int32_t* po = pa.offsets();
  const int32_t* bo = ba.offsets();
  const uint8_t* pd = pa.string_data();
  const uint8_t* bd = ba.string_data();
  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int32_t p = probe[i];
    const int32_t b = build[i];
    const int32_t len = po[p + 1] - po[p];
    bool eq = len == bo[b + 1] - bo[b] &&
              (len == 0 || std::memcmp(pd + po[p], bd + bo[b], static_cast<size_t>(len)) == 0);
    probe[kept] = p;
    build[kept] = b;
    kept += eq;
  }
  return kept;
}

int64_t KeepEqualBoolean(const columnar::Array& pa, const columnar::Array& ba, int32_t* probe,
                         int32_t* build, int64_t count) {
  const uint8_t* pv = pa.buffer(1)->data();
  const uint8_t* bv = ba.buffer(1)->data();
  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int32_t p = probe[i];
    const int32_t b = build[i];
    probe[kept] = p;
    build[kept] = b;
    kept += bitmap::GetBit(pv, pa.offset() + p) == bitmap::GetBit(bv, ba.offset() + b);
  }
  return kept;
}

}  // namespace

int64_t KeepEqualKeys(const columnar::Array& pa, const columnar::Array& ba, int32_t* probe,
                      int32_t* build, int64_t count) {
  switch (pa.type_id()) {
    case TypeId::kNull: return 0;  // only NULLs, which never match
    case TypeId::kBoolean: return KeepEqualBoolean(pa, ba, probe, build, count);
    case TypeId::kFloat32: return KeepEqualFixed<float>(pa, ba, probe, build, count);
    case TypeId::kFloat64: return KeepEqualFixed<double>(pa, ba, probe, build, count);
    case TypeId::kUtf8:
    case TypeId::kBinary: return KeepEqualBinary(pa, ba, probe, build, count);
    default: break;
  }
  // Every other type compares by its bytes: integers, dates, timestamps, decimals of one type.
  switch (PhysicalByteWidth(pa.type())) {
    case 1: return KeepEqualFixed<uint8_t>(pa, ba, probe, build, count);
    case 2: return KeepEqualFixed<uint16_t>(pa, ba, probe, build, count);
    case 4: return KeepEqualFixed<uint32_t>(pa, ba, probe, build, count);
    case 8: return KeepEqualFixed<uint64_t>(pa, ba, probe, build, count);
    case 16: return KeepEqualFixed<Bytes16>(pa, ba, probe, build, count);
    default: break;
  }
  SHOAL_CHECK(false, "join keys of type {}", pa.type().ToString());
  return 0;
}

Result<std::unique_ptr<JoinHashTable>> JoinHashTable::Make(std::vector<columnar::ArrayPtr> keys,
                                                           std::vector<columnar::ArrayPtr> payload,
                                                           int64_t num_rows,
                                                           const std::shared_ptr<MemoryPool>& pool,
                                                           bool track_matches) {
  if (num_rows > std::numeric_limits<int32_t>::max()) {
    return Status::NotImplemented("hash join build side of {} rows (at most {} per table)",
                                  num_rows, std::numeric_limits<int32_t>::max());
  }
  std::unique_ptr<JoinHashTable> table(new JoinHashTable());
  table->num_rows_ = num_rows;
  // Twice the rows, rounded up to a power of two: short chains, and a mask instead of a modulo.
  const uint64_t buckets =
      std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(16, 2 * num_rows)));
  table->mask_ = buckets - 1;
  SHOAL_ASSIGN_OR_RETURN(table->heads_, Buffer::Allocate(static_cast<int64_t>(buckets) * 4, pool));
  SHOAL_ASSIGN_OR_RETURN(table->next_, Buffer::Allocate(std::max<int64_t>(num_rows, 1) * 4, pool));
  SHOAL_ASSIGN_OR_RETURN(table->hashes_,
                         Buffer::Allocate(std::max<int64_t>(num_rows, 1) * 8, pool));
  if (track_matches) {
    SHOAL_ASSIGN_OR_RETURN(table->matched_,
                           Buffer::AllocateZeroed(std::max<int64_t>(num_rows, 1), pool));
  }
  std::memset(table->heads_->mutable_data(), 0xff, buckets * 4);

  std::vector<uint64_t> hashes;
  SHOAL_RETURN_IF_ERROR(HashColumns(keys, num_rows, &hashes));
  if (num_rows > 0)
    std::memcpy(table->hashes_->mutable_data(), hashes.data(), static_cast<size_t>(num_rows) * 8);
  hashes = {};

  std::vector<const columnar::Array*> key_arrays;
  key_arrays.reserve(keys.size());
  for (const auto& k : keys)
    key_arrays.push_back(k.get());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr valid, bits::AndValidity(key_arrays, num_rows, pool));

  int32_t* heads = table->heads_->mutable_data_as<int32_t>();
  int32_t* next = table->next_->mutable_data_as<int32_t>();
  const uint64_t* h = table->hashes_->data_as<uint64_t>();
  const uint64_t mask = table->mask_;
  int64_t indexed = 0;
  // Inserting from the last row makes every chain list its rows in ascending order.
  if (!valid) {
    for (int64_t i = num_rows - 1; i >= 0; --i) {
      const uint64_t b = h[i] & mask;
      next[i] = heads[b];
      heads[b] = static_cast<int32_t>(i);
    }
    indexed = num_rows;
  } else {
    const uint8_t* v = valid->data();
    for (int64_t i = num_rows - 1; i >= 0; --i) {
      next[i] = -1;
      if (!bitmap::GetBit(v, i))
        continue;
      const uint64_t b = h[i] & mask;
      next[i] = heads[b];
      heads[b] = static_cast<int32_t>(i);
      ++indexed;
    }
  }
  table->num_indexed_ = indexed;
  table->keys_ = std::move(keys);
  table->payload_ = std::move(payload);
  return table;
}

int64_t JoinHashTable::memory_bytes() const {
  int64_t bytes = heads_->capacity() + next_->capacity() + hashes_->capacity();
  if (matched_)
    bytes += matched_->capacity();
  for (const auto& a : payload_)
    bytes += a->BufferBytes();
  return bytes;
}

void JoinHashTable::StartProbe(const std::vector<columnar::ArrayPtr>& keys, const uint64_t* hashes,
                               const int32_t* probe_rows, int64_t count,
                               ProbeCursor* cursor) const {
  cursor->keys = &keys;
  cursor->hashes = hashes;
  cursor->probe_rows.resize(static_cast<size_t>(count));
  cursor->build_rows.resize(static_cast<size_t>(count));
  int32_t* out_p = cursor->probe_rows.data();
  int32_t* out_b = cursor->build_rows.data();
  const int32_t* heads = heads_->data_as<int32_t>();
  int64_t active = 0;
  for (int64_t i = 0; i < count; ++i) {
    // The bucket heads are a random access into a table larger than the cache: ask for the one
    // a few rows ahead while this row's loads are in flight.
    if (i + kPrefetchDistance < count)
      __builtin_prefetch(&heads[hashes[probe_rows[i + kPrefetchDistance]] & mask_]);
    const int32_t p = probe_rows[i];
    const int32_t head = heads[hashes[p] & mask_];
    out_p[active] = p;
    out_b[active] = head;
    active += head >= 0;
  }
  cursor->probe_rows.resize(static_cast<size_t>(active));
  cursor->build_rows.resize(static_cast<size_t>(active));
}

void JoinHashTable::MatchRound(const ProbeCursor& cursor, std::vector<int32_t>* out_probe,
                               std::vector<int32_t>* out_build) const {
  const size_t start = out_probe->size();
  const int64_t count = static_cast<int64_t>(cursor.probe_rows.size());
  out_probe->resize(start + static_cast<size_t>(count));
  out_build->resize(start + static_cast<size_t>(count));
  int32_t* op = out_probe->data() + start;
  int32_t* ob = out_build->data() + start;
  const uint64_t* build_hashes = hashes_->data_as<uint64_t>();
  const int32_t* cp = cursor.probe_rows.data();
  const int32_t* cb = cursor.build_rows.data();
  int64_t kept = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count)
      __builtin_prefetch(&build_hashes[cb[i + kPrefetchDistance]]);
    const int32_t p = cp[i];
    const int32_t b = cb[i];
    op[kept] = p;
    ob[kept] = b;
    kept += build_hashes[b] == cursor.hashes[p];
  }
  for (size_t k = 0; k < keys_.size() && kept > 0; ++k)
    kept = KeepEqualKeys(*(*cursor.keys)[k], *keys_[k], op, ob, kept);
  out_probe->resize(start + static_cast<size_t>(kept));
  out_build->resize(start + static_cast<size_t>(kept));
}

void JoinHashTable::Advance(ProbeCursor* cursor, const uint8_t* finished) const {
  const int32_t* next = next_->data_as<int32_t>();
  int32_t* cp = cursor->probe_rows.data();
  int32_t* cb = cursor->build_rows.data();
  const int64_t count = static_cast<int64_t>(cursor->probe_rows.size());
  int64_t active = 0;
  if (finished == nullptr) {
    for (int64_t i = 0; i < count; ++i) {
      if (i + kPrefetchDistance < count)
        __builtin_prefetch(&next[cb[i + kPrefetchDistance]]);
      const int32_t n = next[cb[i]];
      cp[active] = cp[i];
      cb[active] = n;
      active += n >= 0;
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      if (i + kPrefetchDistance < count)
        __builtin_prefetch(&next[cb[i + kPrefetchDistance]]);
      const int32_t p = cp[i];
      const int32_t n = next[cb[i]];
      cp[active] = p;
      cb[active] = n;
      active += (n >= 0) & (finished[p] == 0);
    }
  }
  cursor->probe_rows.resize(static_cast<size_t>(active));
  cursor->build_rows.resize(static_cast<size_t>(active));
}

void JoinHashTable::MarkMatched(const int32_t* rows, int64_t count) {
  SHOAL_DCHECK(matched_ != nullptr, "MarkMatched without track_matches");
  uint8_t* flags = matched_->mutable_data();
  for (int64_t i = 0; i < count; ++i) {
    // Reading first keeps the cache line shared when the flag is already set (hot build rows).
    std::atomic_ref<uint8_t> flag(flags[rows[i]]);
    if (flag.load(std::memory_order_relaxed) == 0)
      flag.store(1, std::memory_order_relaxed);
  }
}

void JoinHashTable::UnmatchedRows(int64_t begin, int64_t end, std::vector<int32_t>* out) const {
  const uint8_t* flags = matched_ ? matched_->data() : nullptr;
  for (int64_t i = begin; i < end; ++i) {
    if (flags == nullptr || flags[i] == 0)
      out->push_back(static_cast<int32_t>(i));
  }
}

void JoinHashTable::MatchedRows(int64_t begin, int64_t end, std::vector<int32_t>* out) const {
  const uint8_t* flags = matched_ ? matched_->data() : nullptr;
  if (flags == nullptr)
    return;
  for (int64_t i = begin; i < end; ++i) {
    if (flags[i] != 0)
      out->push_back(static_cast<int32_t>(i));
  }
}

}  // namespace shoal::exec

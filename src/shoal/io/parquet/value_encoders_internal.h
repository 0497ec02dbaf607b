// Value encoders of the Parquet column chunk writer (column_chunk_writer.h): dictionary building
// (a hash table assigning indices by first appearance, given up when the dictionary would not
// pay) and PLAIN encoding of physical values (column_values_internal.h). Templates over the
// physical value types, so they live in this header.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/io/parquet/column_values_internal.h"

namespace shoal::io::parquet::internal {

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

/// The same for BYTE_ARRAY values.
bool BuildByteDictionary(const Values& values, int64_t limit, ByteDictionary* dictionary,
                         std::vector<uint32_t>* indices);

template <typename T>
void PutPlain(const T* values, int64_t count, std::string* out) {
  out->append(reinterpret_cast<const char*>(values), static_cast<size_t>(count) * sizeof(T));
}

inline void PutLength(int64_t length, std::string* out) {
  const auto n = static_cast<uint32_t>(length);
  char bytes[4];
  std::memcpy(bytes, &n, 4);
  out->append(bytes, 4);
}

/// A FIXED_LEN_BYTE_ARRAY decimal: `width` bytes of two's complement, big-endian.
inline std::string BigEndian(columnar::int128_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(u & 0xFFU));
    u >>= 8;
  }
  return out;
}

}  // namespace shoal::io::parquet::internal

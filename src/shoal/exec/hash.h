// Vectorized row hashing over columnar keys, for hash repartitioning, hash joins and hash
// aggregation. Each key column is hashed in one typed loop and combined into the running per-row
// hash, so rows with equal keys (of equal types) hash equally on every node: the function is fixed
// (no per-process seed) because exchanges on different workers must agree.
//
// NULL hashes to a fixed value; floats hash by value (0.0 and -0.0 equal, all NaNs equal),
// dictionary arrays hash their decoded values, and nested values (lists, structs, maps) the bytes
// of their key encoding (row_key/nested_key_encoder.h), as the binary column it produces would.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "shoal/columnar/array.h"

namespace shoal::exec {

inline uint64_t HashMix(uint64_t h) {
  // MurmurHash3's finaliser.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

inline uint64_t HashCombine(uint64_t seed, uint64_t value) {
  return HashMix(seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

uint64_t HashBytes(const void* data, size_t size);

/// Combines the hash of every element of `array` into hashes[0..length).
Status HashArray(const columnar::Array& array, uint64_t* hashes);
/// Hashes of each row over the key columns (all of equal length), starting from a fixed seed.
Status HashColumns(const std::vector<columnar::ArrayPtr>& columns, int64_t num_rows,
                   std::vector<uint64_t>* hashes);

}  // namespace shoal::exec

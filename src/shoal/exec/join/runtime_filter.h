// RuntimeFilter: what a hash join's finished build side knows about one key column, published so
// that the probe side's scan can drop rows that cannot match before they travel up the plan
// (runtime join filters; docs/architecture.md, "Runtime join filters").
//
// A filter holds, for one join key column of the build side:
//  - min / max of the non-NULL keys, for integer-like types (integers, date, timestamp): rows
//    outside the range are dropped, and a Parquet row group whose statistics lie outside it is
//    never read;
//  - membership:
//      kBitmap: integer-like keys whose range is small (at most kMaxBitmapBits values, or at most
//              kBitmapValuesPerKey values a key): one bit per value of the range, exact, probed
//              without hashing (TPC-H's part and supplier keys);
//    otherwise by the 64-bit key hash of exec/hash.h (the function the join itself uses, so
//    equal keys of equal types hash equally on both sides):
//      kExact: an open-addressing set of the hashes, when there are few keys (at most
//              kMaxExactKeys); exact up to a 64-bit hash collision;
//      kBloom: a split-block Bloom filter sized from the key count (kBloomBitsPerKey bits a key):
//              blocks of 8 x 32-bit words (32 bytes, never straddling a cache line), each key
//              setting one bit in every word of one block (any number of blocks), so a probe
//              reads one block and its loop over the 8 words vectorises. False positive rate
//              about 0.2% at 16 bits/key.
//      kEmpty: the build side has no non-NULL key: nothing matches.
// NULL keys are never in a filter and never pass one (SQL equality never matches NULL).
//
// A filter may only be used where dropping a row whose key is not in the build side cannot change
// the answer (the planner decides that: runtime_filter_planner.h); it never drops a row that has a
// matching build row (no false negatives), so the answer never depends on whether it arrived.
//
// Across tasks (docs/architecture.md, "Runtime join filters"): each task of a distributed build
// side publishes the filter of its share of the keys, and Merge unions them. A filter built
// `mergeable` has a power-of-two Bloom block count, so Bloom filters of different sizes fold into
// the smallest (block i of 2^k blocks is block i >> j of 2^(k-j): blocks are picked by the hash's
// top bits, bits within a block by its low 32 bits). Parts / FromParts are its wire form, checked
// on the way in (an exact set without an empty slot would never end a probe).
//
// Immutable after Build; probed concurrently by any number of threads. Probing a batch is one
// vectorised hash pass and one loop, with no allocation beyond the caller's reused vectors and no
// virtual call per row.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/scalar.h"
#include "shoal/common/memory_pool.h"

namespace shoal::exec {

class RuntimeFilter {
 public:
  enum class Kind : uint8_t { kEmpty, kBitmap, kExact, kBloom };

  /// Up to this many distinct keys the filter is an exact set (64 KiB of hashes at most).
  static constexpr int64_t kMaxExactKeys = 4096;
  /// Integer keys whose range [min, max] spans at most this many values, or at most
  /// kBitmapValuesPerKey values a key, are a bitmap over the range (256 KiB at most).
  static constexpr int64_t kMaxBitmapBits = int64_t{1} << 21;
  static constexpr int64_t kBitmapValuesPerKey = 16;
  static constexpr int64_t kBloomBitsPerKey = 16;

  /// The filter of the non-NULL values of `keys` (one build key column, dictionaries decoded).
  /// Memory comes from `pool`.
  /// Memory comes from `pool`. `mergeable`: a partial filter that Merge will union with others
  /// (its Bloom block count is a power of two).
  static Result<std::shared_ptr<const RuntimeFilter>> Build(const columnar::ArrayPtr& keys,
                                                            const std::shared_ptr<MemoryPool>& pool,
                                                            bool mergeable = false);

  /// The union of `parts`, filters of shares of one key column's build keys (same key type): a
  /// row passes the result when it passes some part. Range: the union of the ranges. Membership:
  /// a bitmap when every part is one and the union's range still qualifies; an exact set when
  /// no part is a Bloom filter and the distinct hashes fit kMaxExactKeys; otherwise a Bloom
  /// filter sized from the summed key counts and never larger than the smallest Bloom part, into
  /// which Bloom parts are folded (they must be mergeable) and other parts' keys inserted.
  static Result<std::shared_ptr<const RuntimeFilter>> Merge(
      const std::vector<std::shared_ptr<const RuntimeFilter>>& parts,
      const std::shared_ptr<MemoryPool>& pool);

  /// The wire form (distributed/proto: RuntimeFilterProto).
  struct Parts {
    Kind kind = Kind::kEmpty;
    int64_t num_keys = 0;
    bool has_range = false;
    int64_t min = 0;
    int64_t max = 0;
    columnar::DataType key_type;
    std::string_view table;  // the set or bit array's bytes
  };
  Parts parts() const;
  /// A filter from its wire form, checked: InvalidData when the parts are inconsistent.
  static Result<std::shared_ptr<const RuntimeFilter>> FromParts(
      const Parts& parts, const std::shared_ptr<MemoryPool>& pool);

  /// The build keys' type.
  const columnar::DataType& key_type() const { return key_type_; }

  Kind kind() const { return kind_; }

  /// Distinct non-NULL keys (kExact, kEmpty) or non-NULL build rows (kBloom) it was built from.
  int64_t num_keys() const { return num_keys_; }

  /// Bytes of the set or bit array.
  int64_t size_bytes() const { return table_ ? table_->size() : 0; }

  /// The key range, when the type has one (integer-like types) and some key is not NULL.
  const std::optional<columnar::Scalar>& min() const { return min_scalar_; }
  const std::optional<columnar::Scalar>& max() const { return max_scalar_; }

  /// Sets `rows` to the rows i in [0, column.length()) whose value may match a build key (not
  /// NULL, inside the range, in the set), ascending; with `refine`, `rows` holds ascending
  /// candidate rows and keeps only those that pass (a second filter tests only what the first
  /// kept). `hashes` is scratch space the caller reuses. `column` must have the build keys' type
  /// (dictionary arrays are read by value).
  Status Select(const columnar::ArrayPtr& column, std::vector<uint64_t>* hashes,
                std::vector<int32_t>* rows, bool refine = false) const;

  /// Whether a key with this hash may be in the set (min / max not checked).
  bool MayContainHash(uint64_t hash) const;

  /// "bloom 64 KiB, 20000 keys, range [1, 200000]", for EXPLAIN ANALYZE.
  std::string Describe() const;

  static const char* KindName(Kind kind);

 private:
  RuntimeFilter() = default;

  // Sets min_scalar_ / max_scalar_ from has_range_, min_, max_ and key_type_.
  void SetRangeScalars();

  Kind kind_ = Kind::kEmpty;
  columnar::DataType key_type_;
  int64_t num_keys_ = 0;
  bool has_range_ = false;
  int64_t min_ = 0;
  int64_t max_ = 0;
  std::optional<columnar::Scalar> min_scalar_;
  std::optional<columnar::Scalar> max_scalar_;
  // kExact: uint64[mask_ + 1] hashes (0 marks an empty slot; a hash of 0 is stored as 1).
  // kBloom: uint32[8 * num_blocks_] words. kBitmap: bit (v - min_) for each key v.
  columnar::BufferPtr table_;
  uint64_t mask_ = 0;
  uint64_t num_blocks_ = 0;
};

/// Whether values of `type` are read as int64 for a filter's range (integer-like types).
bool RuntimeFilterHasRange(const columnar::DataType& type);

}  // namespace shoal::exec

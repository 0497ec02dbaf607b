// JoinHashTable: the build side of a hash join — every build row kept as concatenated columnar
// arrays, plus a bucket-chained index over the rows' key hashes (hash.h) — and the vectorized
// probe that finds, for a batch of probe rows, every build row with equal keys.
//
// Layout: `heads_` (a power-of-two directory of int32 row numbers, -1 empty) and `next_` (one
// int32 per build row) chain the rows of each bucket in ascending row order; `hashes_` keeps each
// row's full 64-bit hash so most non-matching chain entries are rejected without touching the key
// columns. Rows with a NULL in any key column are not indexed (SQL equality never matches NULL) but
// stay in the payload, so RIGHT and FULL joins still emit them as unmatched. All of it is
// allocated from the given pool, so the table's size counts against the query's memory limit.
//
// Probing works a batch at a time, breadth-first along the chains: a ProbeCursor holds the probe
// rows still walking a chain and each one's current build row; every round compares the current
// positions of all of them at once (hash first, then each key column in one typed loop per
// column), reports the equal pairs, and advances every chain one step. No per-row virtual call,
// allocation or boxed value happens on this path.
//
// Thread safety: after Make, the table is immutable except for the matched flags (RIGHT and FULL
// joins), which MarkMatched sets with relaxed atomic stores so that probe threads sharing one
// table may mark concurrently; readers of the flags (UnmatchedRows) must run after every marking
// thread has synchronised with them (the collect-build state's finish counter does that).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/buffer.h"
#include "shoal/common/memory_pool.h"

namespace shoal::exec {

/// The probe rows of one batch that are still walking a chain, each with its current build row.
struct ProbeCursor {
  std::vector<int32_t> probe_rows;
  std::vector<int32_t> build_rows;
  const uint64_t* hashes = nullptr;  // the probe batch's row hashes
  const std::vector<columnar::ArrayPtr>* keys = nullptr;

  bool done() const { return probe_rows.empty(); }
};

class JoinHashTable {
 public:
  /// Indexes `num_rows` build rows. `keys` are the key columns (already decoded from dictionaries,
  /// one per join key), `payload` the build side's columns as the join outputs them. With
  /// `track_matches`, a flag per row records whether any probe row matched it. Fails with
  /// OutOfMemory when the pool refuses the index, and with NotImplemented beyond 2^31-1 rows.
  static Result<std::unique_ptr<JoinHashTable>> Make(std::vector<columnar::ArrayPtr> keys,
                                                     std::vector<columnar::ArrayPtr> payload,
                                                     int64_t num_rows,
                                                     const std::shared_ptr<MemoryPool>& pool,
                                                     bool track_matches);

  int64_t num_rows() const { return num_rows_; }

  /// Rows in the index (rows without NULL keys).
  int64_t num_indexed_rows() const { return num_indexed_; }

  /// Whether some build row has a NULL in a key column (NOT IN and mark joins need it).
  bool has_null_key() const { return num_indexed_ < num_rows_; }

  const std::vector<columnar::ArrayPtr>& payload() const { return payload_; }

  const std::vector<columnar::ArrayPtr>& keys() const { return keys_; }

  /// Bytes the index and the concatenated arrays hold.
  int64_t memory_bytes() const;

  /// Starts probing: every row of `probe_rows` (rows without NULL keys) whose bucket is not empty
  /// enters the cursor. `keys` and `hashes` must outlive the cursor's use.
  void StartProbe(const std::vector<columnar::ArrayPtr>& keys, const uint64_t* hashes,
                  const int32_t* probe_rows, int64_t count, ProbeCursor* cursor) const;
  /// Appends to (out_probe, out_build) the cursor positions whose keys are equal.
  void MatchRound(const ProbeCursor& cursor, std::vector<int32_t>* out_probe,
                  std::vector<int32_t>* out_build) const;
  /// Moves every chain one step; chains that end leave the cursor, and so do probe rows whose
  /// `finished` byte is set (semi, anti and mark joins need one match per row). `finished` may be
  /// null.
  void Advance(ProbeCursor* cursor, const uint8_t* finished) const;

  /// Records that build rows `rows[0..count)` matched.
  void MarkMatched(const int32_t* rows, int64_t count);
  /// Appends the build rows in [begin, end) never marked matched (NULL-key rows included).
  void UnmatchedRows(int64_t begin, int64_t end, std::vector<int32_t>* out) const;
  /// Appends the build rows in [begin, end) marked matched (right semi joins).
  void MatchedRows(int64_t begin, int64_t end, std::vector<int32_t>* out) const;

  JoinHashTable(const JoinHashTable&) = delete;
  JoinHashTable& operator=(const JoinHashTable&) = delete;

 private:
  JoinHashTable() = default;

  std::vector<columnar::ArrayPtr> keys_;
  std::vector<columnar::ArrayPtr> payload_;
  int64_t num_rows_ = 0;
  int64_t num_indexed_ = 0;
  uint64_t mask_ = 0;
  columnar::BufferPtr heads_;    // int32[mask_ + 1]
  columnar::BufferPtr next_;     // int32[num_rows_]
  columnar::BufferPtr hashes_;   // uint64[num_rows_]
  columnar::BufferPtr matched_;  // uint8[num_rows_], track_matches only
};

/// Keeps, in place, the pairs (probe[i], build[i]) whose values in `probe_keys` and `build_keys`
/// are equal (neither side may be NULL at those rows); returns how many remain. Floats compare
/// -0.0 equal to 0.0 and NaN equal to NaN, as hash.h hashes them.
int64_t KeepEqualKeys(const columnar::Array& pa, const columnar::Array& ba, int32_t* probe,
                      int32_t* build, int64_t count);

}  // namespace shoal::exec

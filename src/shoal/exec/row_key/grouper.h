// Grouper: the grouping hash table of hash aggregation (and of DISTINCT aggregates): maps each
// row of a set of key columns to a dense group id, assigning new ids in order of first appearance.
//
// Layout, chosen for columnar input:
//  - keys live column-wise, one typed store per key column (values plus one validity byte per
//    group; strings as offsets into one byte arena), so equality is checked one column at a time
//    in typed loops and the key columns of the output are memcpy'd out;
//  - the directory is open addressing with linear probing over 8-byte slots holding a 32-bit tag
//    of the row hash and the group id, so a probe touches one cache line and compares keys only
//    when the tags agree; each group's full hash is kept to rehash without touching keys.
// A batch is processed in rounds: every pending row walks to its first slot that is empty (a new
// group) or has its tag (a candidate), then all candidates are compared column-wise at once;
// mismatches move one slot on and go round again. NULL keys equal each other (SQL grouping), and
// float keys compare as the hash does: -0.0 equals 0.0 and all NaNs are one group.
//
// Small domains skip the hashing: when every key column of a batch has few distinct values
// (integers whose batch range is small, booleans, strings of at most 8 bytes with few distinct
// values), each row gets a dense code from its columns' values, the first row of each code goes
// through the hashed path above, and the other rows copy its group id from a direct-indexed
// table of codes (DuckDB's perfect hash aggregate, found per batch instead of from statistics).
// A batch that does not fit makes the next few skip the attempt, so high-cardinality keys pay
// for at most a partial pass now and then.
//
// Not thread-safe: one grouper per stream. Memory is std::vector-held and reported by
// MemoryBytes() for the owner to reserve.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"

namespace shoal::exec {

class Grouper {
 public:
  /// Key types must not be dictionaries (decode first); any other type is supported, nested ones
  /// by their key encoding (nested_key_encoder.h).
  static Result<std::unique_ptr<Grouper>> Make(const std::vector<columnar::DataType>& key_types);
  ~Grouper();

  /// Group ids of rows [0, num_rows) of `keys` (one array per key type) into `group_ids`.
  Status Consume(const std::vector<columnar::ArrayPtr>& keys, int64_t num_rows,
                 std::vector<uint32_t>* group_ids);

  int64_t num_groups() const { return static_cast<int64_t>(group_hashes_.size()); }

  /// The key columns of groups [start, start + length), allocated from `pool`.
  Result<std::vector<columnar::ArrayPtr>> GetKeys(int64_t start, int64_t length,
                                                  const std::shared_ptr<MemoryPool>& pool) const;

  /// Bytes held by the directory and the key stores.
  int64_t MemoryBytes() const;

  class KeyStore;

 private:
  Grouper() = default;
  void Grow(int64_t min_entries);
  // The hashed path: group ids of rows [0, num_rows) into gids.
  void ConsumeHashed(const std::vector<columnar::ArrayPtr>& keys, int64_t num_rows, uint32_t* gids);
  // The small-domain path; false (nothing done) when some key column has too many values.
  Result<bool> ConsumeSmallDomain(const std::vector<columnar::ArrayPtr>& keys, int64_t num_rows,
                                  uint32_t* gids);

  std::vector<std::unique_ptr<KeyStore>> stores_;
  std::vector<uint64_t> slots_;  // (tag << 32) | (group id + 1); 0 = empty
  uint64_t mask_ = 0;
  std::vector<uint64_t> group_hashes_;
  // Per-batch scratch, kept to avoid reallocating.
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> pending_, next_pending_, candidates_, candidate_groups_, new_rows_;
  std::vector<uint64_t> slot_of_;
  std::vector<uint8_t> match_;
  // Small-domain path: whether every key type has one, per-row codes, the first row of each code
  // (code -> index into reps_), and the group ids of those rows. The reps' keys are gathered from
  // the default pool: at most a few thousand rows, freed before Consume returns.
  bool small_domain_types_ = false;
  // Nested key columns: ConsumeHashed sees their encodings; sources_ points at the batch's keys
  // themselves meanwhile, and source_status_ keeps the first failure copying from them.
  bool has_nested_ = false;
  const std::vector<columnar::ArrayPtr>* sources_ = nullptr;
  Status source_status_;
  int small_domain_skip_ = 0, small_domain_backoff_ = 0;
  std::vector<uint32_t> codes_, code_rep_, rep_groups_;
  std::vector<int32_t> reps_;
  std::vector<uint64_t> string_slots_;  // strings: packed bytes per local table slot
  std::vector<uint32_t> string_ids_;    // strings: (length << 24 | id + 1) per slot, 0 = empty
};

}  // namespace shoal::exec

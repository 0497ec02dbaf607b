// Accumulator: the per-group state of one aggregate function (count, sum, avg, min, max,
// stddev/variance, bool_and/bool_or, string_agg) inside a hash aggregation.
//
// States are kept column-wise (one vector per state component, indexed by group id) and updated
// by typed loops over (group id, value) pairs: one virtual call per batch, none per row.
//
// Two-phase aggregation ships partial states between nodes as ORDINARY COLUMNS, described by
// StateFields(): count → (count int64), sum → (sum), avg → (sum, count) with an exact
// decimal(38, s) sum for integer and decimal inputs, variances → (count, mean, m2) merged with
// Chan's formula, string_agg → (value so far, its first separator). A final aggregation Merge()s
// those columns and Finalize()s them into the SQL result type the binder chose (function_registry).
//
// Aggregates that need ordered input (sql/ordered_aggregates.h: string_agg(x, s ORDER BY y),
// percentile_cont / percentile_disc / mode WITHIN GROUP) get an accumulator whose Update() takes
// the arguments followed by the evaluated ORDER BY keys; it buffers the rows, sorts them once at
// the end and has no partial state (ordered_accumulator.cc).
//
// Not thread-safe: one accumulator per stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/schema.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

/// Rows of a batch fed to an accumulator: rows[0..count) when `rows` is set, else 0..count-1.
/// groups[row] is the group id of each row (indexed by row, not by position in `rows`).
struct GroupedRows {
  const uint32_t* groups = nullptr;
  const int32_t* rows = nullptr;
  int64_t count = 0;
};

class Accumulator {
 public:
  virtual ~Accumulator() = default;

  /// Grows the state to `num_groups` groups; new groups start empty.
  virtual void Resize(int64_t num_groups) = 0;
  /// Adds the evaluated arguments (one array per argument; none for count(*)).
  virtual Status Update(const std::vector<columnar::ArrayPtr>& args, const GroupedRows& rows) = 0;
  /// Adds partial states, one array per StateFields() entry.
  virtual Status Merge(const std::vector<columnar::ArrayPtr>& states, const GroupedRows& rows) = 0;
  /// The partial state of groups [start, start + length) as columns.
  virtual Result<std::vector<columnar::ArrayPtr>> State(
      int64_t start, int64_t length, const std::shared_ptr<MemoryPool>& pool) const = 0;
  /// The SQL result of groups [start, start + length).
  virtual Result<columnar::ArrayPtr> Finalize(int64_t start, int64_t length,
                                              const std::shared_ptr<MemoryPool>& pool) const = 0;
  virtual int64_t MemoryBytes() const = 0;
  /// Aggregates over ordered input, which have no partial state: the rows buffered so far, in
  /// Update()'s layout (arguments, then ORDER BY keys), and the group of each, so that a spilling
  /// operator can write them out and feed them back through Update() later. Others: Internal.
  virtual Status BufferedRows(const std::shared_ptr<MemoryPool>& pool,
                              std::vector<columnar::ArrayPtr>* columns,
                              std::vector<uint32_t>* groups) const;
};

/// The partial-state columns of a kAggregate expression (names prefixed by `prefix`);
/// NotImplemented for aggregates that need ordered input (they have none).
Result<std::vector<columnar::Field>> AggregateStateFields(const sql::Expr& agg,
                                                          const std::string& prefix);
/// An accumulator for a kAggregate expression whose argument types are the args' types
/// (dictionary arguments must be decoded by the caller). DISTINCT and FILTER are the caller's.
Result<std::unique_ptr<Accumulator>> MakeAccumulator(const sql::Expr& aggregate);

}  // namespace shoal::exec

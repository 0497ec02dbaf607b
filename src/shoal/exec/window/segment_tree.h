// SegmentTreeAggregator: an aggregate function (sum, count, avg, min, max, variances, bool_and/or)
// evaluated over one frame per row, for window functions with arbitrary frames.
//
// The rows are the leaves of a binary segment tree whose nodes are the aggregate's partial states
// (exec/aggregate/accumulator.h: the same accumulators, states and finalization as the hash
// aggregate, so a windowed sum has exactly the type, scale and overflow behaviour of a grouped
// one). Level 0 is one state per row; each level above Merge()s pairs of the level below. A frame
// [start, end) is covered by at most two nodes per level, so each row's result merges O(log n)
// states: O(n log n) for any mix of frame shapes, where recomputing each frame would cost
// O(n * frame). The merges are done level by level for all rows at once (gather the needed node
// states into columns, one Merge call), so there is no virtual call or allocation per row.
//
// Frames must not cross the caller's partitions: the tree itself knows nothing about them, the
// caller gives each row's bounds. An empty frame gives the aggregate of no rows (NULL, or 0 for
// count).
//
// Not thread-safe; one per stream. The level states are ordinary arrays from `pool`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

class SegmentTreeAggregator {
 public:
  /// `aggregate`: a kAggregate (or aggregate kWindow) expression; only its name and argument
  /// types matter. `args`: the evaluated, dictionary-decoded arguments, `num_rows` each (none for
  /// count(*)). `include`: rows to aggregate, one byte per row (FILTER), or null for all rows.
  static Result<std::unique_ptr<SegmentTreeAggregator>> Make(
      const sql::Expr& aggregate, const std::vector<columnar::ArrayPtr>& args,
      const uint8_t* include, int64_t num_rows, std::shared_ptr<MemoryPool> pool);

  /// The aggregate over rows [starts[i], ends[i]) for every i in [0, num_rows); an end not after
  /// its start is an empty frame.
  Result<columnar::ArrayPtr> Evaluate(const int64_t* starts, const int64_t* ends) const;

  /// Bytes held by the tree's states.
  int64_t MemoryBytes() const;

 private:
  SegmentTreeAggregator() = default;

  sql::ExprPtr aggregate_;
  int64_t num_rows_ = 0;
  std::shared_ptr<MemoryPool> pool_;
  // levels_[l][c]: state column c of the nodes of level l (level 0: one node per row).
  std::vector<std::vector<columnar::ArrayPtr>> levels_;
};

}  // namespace shoal::exec

// What the pieces of WindowExec (operators/window_exec.h) share: the stream that evaluates the
// functions of one partition, and the frame-bound helpers the plan-time checks use too. The
// stream's methods are defined by job:
//   window_stream.cc     collecting and sorting the input, partition and peer-group boundaries,
//                        the dispatch per function, and the output batches
//   window_ranking.cc    ranking and navigation: row_number, rank, dense_rank, percent_rank,
//                        cume_dist, ntile, lag, lead, first_value, last_value, nth_value
//   window_frames.cc     frame bounds (ROWS / RANGE / GROUPS) of every row, and aggregates over
//                        frames through the segment tree (segment_tree.h)
// Private to exec.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/scalar.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/window_exec.h"
#include "shoal/exec/row_key/memory_reservation.h"

namespace shoal::exec::internal {

using columnar::int128_t;
using columnar::Scalar;
using sql::WindowFrame;
using BoundKind = WindowFrame::BoundKind;
using Units = WindowFrame::Units;

/// Whether window function `name` is evaluated over a frame (aggregates, first/last/nth_value).
bool UsesFrame(const std::string& name);

/// A frame bound of the plan, its offset evaluated (a constant) and checked.
Result<WindowExec::Bound> ResolveBound(BoundKind kind, const sql::ExprPtr& offset, Units units,
                                       bool is_start);

/// The error for a RANGE offset over a key type (or key and offset types) without in_range support.
Status UnsupportedRange(const DataType& key, const DataType& offset);

// The offset in the key's domain (see KeyDomain), or an error for a combination PostgreSQL has
// no in_range support for. `scale_up` receives the factor the keys must be multiplied by.
Result<int128_t> IntOffset(const DataType& key, const Scalar& offset, int128_t* scale_up);

/// Evaluates the window functions of one WindowExec over one input partition.
class WindowStream final : public OperatorStream {
 public:
  WindowStream(const WindowExec* node, int partition, std::shared_ptr<TaskContext> context,
               StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        input_(std::move(input)),
        reservation_(pool()) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override;

 private:
  const sql::Expr& spec() const { return *node_->functions()[0]; }

  Status Reserve();
  Result<std::vector<ArrayPtr>> Evaluate(const std::vector<sql::ExprPtr>& exprs,
                                         const RecordBatch& batch);
  Status Compute();
  // Marks where each row's window partition and peer group start and end (in sorted order).
  Status FindBoundaries(int64_t n);
  Result<ArrayPtr> ComputeFunction(size_t f, int64_t n);

  // Ranking and navigation (window_ranking.cc).
  Result<ArrayPtr> Int64Result(const std::vector<int64_t>& values);
  Result<ArrayPtr> Float64Result(const std::vector<double>& values);
  /// The rows of `source` at `indices` (-1 gives NULL).
  Result<ArrayPtr> Gathered(const Array& source, const std::vector<int32_t>& indices);
  /// row_number, rank, dense_rank, percent_rank, cume_dist: from the boundaries alone.
  Result<ArrayPtr> Ranking(const std::string& name, int64_t n);
  Result<ArrayPtr> Ntile(const Array& buckets_arg, int64_t n);
  Result<ArrayPtr> LagLead(bool lag, const std::vector<ArrayPtr>& args, int64_t n);
  /// first_value, last_value, nth_value over the frames of ComputeFrames.
  Result<ArrayPtr> FrameValue(const std::string& name, const std::vector<ArrayPtr>& args,
                              int64_t n);

  // Frames (window_frames.cc).
  // frame_start_ / frame_end_ of every row for function f.
  Status ComputeFrames(size_t f, int64_t n);
  /// Aggregate function `fn` over the frames of ComputeFrames.
  Result<ArrayPtr> FrameAggregate(const sql::Expr& fn, const std::vector<ArrayPtr>& args,
                                  int64_t n);

  const WindowExec* node_;
  StreamPtr input_;
  MemoryReservation reservation_;
  RecordBatchPtr sorted_;
  std::vector<ArrayPtr> results_;
  int64_t emitted_ = 0;
  int64_t extra_bytes_ = 0;
  // Per row, in sorted order: its partition [start, end), its peer group [start, end), the
  // global index of its peer group, and its frame [start, end) for the current function.
  std::vector<int64_t> partition_start_;
  std::vector<int64_t> partition_end_;
  std::vector<int64_t> peer_start_;
  std::vector<int64_t> peer_end_;
  std::vector<int64_t> group_index_;
  std::vector<int64_t> group_starts_;  // first row of each peer group, then n
  std::vector<int64_t> frame_start_;
  std::vector<int64_t> frame_end_;
};

}  // namespace shoal::exec::internal

// LoadSampler: the worker side of adaptive task counts (`dist_adaptive_task_counts`).
//
// Statically planned stages get their task counts from what the leaves scan, before any row
// moved. In adaptive mode the coordinator starts a stage, looks at the first rows of each of its
// tasks' output partitions, and sizes the consumer stage from what it saw. On the worker, that
// means a task starts running as soon as its plan arrives: one sampler thread per output
// partition pulls the first batches (at most `dist_sample_rows` rows or `dist_sample_bytes`
// bytes), keeps them, and reports a LoadInfo (rows, bytes, distinct and null share per column,
// rows the task's leaves produced so far, whether the partition ended) over the task's
// coordinator channel; after the last partition, the end of the feed.
//
// The sample is not a copy: plan() wraps the task plan so that the first Execute of a partition
// hands out the sampled stream itself (buffered batches first, then the same stream continues).
// Consumers and producer heads (repartition, broadcast) execute plan(), so every row reaches the
// first consumer exactly once, memory stays bounded by the sample limits, and a second Execute of
// a partition simply recomputes it, as with any plan.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/worker_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/task_context.h"

namespace shoal::distributed {

/// Per-column statistics of the batches sampled from one partition. Distinct values are counted
/// with a small HyperLogLog per column (2^kPrecision one-byte registers), so the cost per row is
/// one hash and one register update, and memory does not grow with the sample.
class SampleStats {
 public:
  static constexpr int kPrecision = 11;

  explicit SampleStats(int num_columns);

  Status Add(const columnar::RecordBatch& batch);

  int64_t rows() const { return rows_; }

  int64_t bytes() const;

  /// rows_ready and the per-column vectors (the caller sets the rest).
  LoadInfo ToLoadInfo(int partition) const;

 private:
  using Sketch = std::array<uint8_t, size_t{1} << kPrecision>;

  double EstimateDistinct(const Sketch& sketch) const;

  int64_t rows_ = 0;
  std::vector<int64_t> bytes_;
  std::vector<int64_t> nulls_;
  std::vector<Sketch> sketches_;
  std::vector<uint64_t> hashes_;  // scratch, reused across batches
};

/// Bytes a column's values take (what a batch of it costs on the wire), counting only the slice.
int64_t ColumnBytes(const columnar::Array& array);

struct SampleLimits {
  int64_t rows = 8192;
  int64_t bytes = 8LL << 20;
  /// A partition that finds few rows (a selective filter) stops sampling after this long, so the
  /// coordinator is not kept waiting for the whole scan; checked between batches.
  std::chrono::milliseconds time{2000};
};

/// The limits from a task's settings (dist_sample_rows, dist_sample_bytes, dist_sample_time_ms).
SampleLimits SampleLimitsFrom(const Settings& settings);

/// Whether `settings` turn adaptive task counts on.
bool AdaptiveTaskCounts(const Settings& settings);

/// Rows the leaves of `plan` (scans and exchanges) produced so far in `context`, over all
/// partitions.
int64_t LeafRowsPulled(const exec::ExecutionPlan& plan, const exec::TaskContext& context);

class LoadSampler {
 public:
  /// Starts sampling every output partition of `plan` (one thread each). `sink` gets one LoadInfo
  /// per partition, then null.
  static std::unique_ptr<LoadSampler> Start(exec::ExecPlanPtr plan,
                                            std::shared_ptr<exec::TaskContext> context,
                                            SampleLimits limits, LoadInfoSink sink);
  ~LoadSampler();

  LoadSampler(const LoadSampler&) = delete;
  LoadSampler& operator=(const LoadSampler&) = delete;

  /// What consumers execute instead of the task plan (see the file comment).
  const exec::ExecPlanPtr& plan() const { return sampled_plan_; }

  /// Waits for the sampler threads (cancel the task's context first to cut them short). The sink
  /// is not called after this returns.
  void Stop();

  struct State;

 private:
  LoadSampler() = default;

  std::shared_ptr<State> state_;
  exec::ExecPlanPtr sampled_plan_;
};

}  // namespace shoal::distributed

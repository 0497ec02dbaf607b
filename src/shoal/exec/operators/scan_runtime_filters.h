// ScanRuntimeFilters: the runtime join filters one scan partition applies (the request's
// io::RuntimeFilterTarget list), as the io::ScanRowFilter a provider calls while decoding, or on
// whole batches after the scan for providers that do not (ScanUnitStream decides).
//
// Filters arrive while the scan runs (a join publishes them when its build side is complete;
// join/runtime_filter_registry.h): each call first looks up the filters still missing, then uses
// those present, so batches read before a filter arrived are simply not filtered. What it does per
// filter, and the counters EXPLAIN ANALYZE shows on the scan (`rf<id>_...`, summed over
// partitions):
//  - a row group whose statistics lie outside the filter's [min, max] is skipped
//    (rf<id>_row_groups_pruned; also every row group when the build side had no key);
//  - rows whose key cannot match are dropped (rf<id>_rows_in, rf<id>_rows_removed); a scan's
//    filters run one after another, each on the rows the ones before it kept;
//  - before its first row group the scan waits, at most `runtime_filter_wait` milliseconds, for
//    filters not yet published that come from another stage (RuntimeFilterRegistry::Expect;
//    rf<id>_waited_ms summed over partitions; rf<id>_wait_expired counts the partitions that
//    started without it);
//  - after kSampleRows rows, a filter that removed less than kMinRemovedFraction of them stops
//    filtering rows in this partition (rf<id>_switched_off counts the partitions); its row-group
//    pruning, which costs nothing per row, goes on.
//
// Single-threaded: one per scan stream.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/join/runtime_filter.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/table_provider.h"

namespace shoal::exec {

class ScanRuntimeFilters final : public io::ScanRowFilter {
 public:
  static constexpr int64_t kSampleRows = 65536;
  static constexpr double kMinRemovedFraction = 0.1;

  /// The filters of `request` (projection positions are found from its projection); `context`,
  /// `metrics` and `pool` must outlive this object.
  ScanRuntimeFilters(const io::ScanRequest& request, const TaskContext* context,
                     OperatorMetrics* metrics, std::shared_ptr<MemoryPool> pool);

  bool empty() const { return entries_.empty(); }

  bool BlockRuledOut(const std::function<bool(const io::ColumnPredicate&)>& ruled_out) override;
  const std::vector<int>& columns() override;
  Result<int64_t> Select(const std::vector<columnar::ArrayPtr>& columns, int64_t num_rows,
                         std::vector<int32_t>* selection) override;
  Result<columnar::RecordBatchPtr> Take(const columnar::RecordBatch& batch,
                                        const std::vector<int32_t>& selection) override;

  /// The rows of `batch` (the scan's output columns) the filters keep; the batch itself when all.
  Result<columnar::RecordBatchPtr> Apply(columnar::RecordBatchPtr batch);

 private:
  struct Entry {
    int id = 0;
    int table_column = 0;
    int position = -1;  // in the scan's output
    std::shared_ptr<const RuntimeFilter> filter;
    bool switched_off = false;
    int64_t rows_in = 0;
    int64_t rows_removed = 0;
  };

  // Looks up the filters not yet arrived and recomputes active_ and columns_; the first time,
  // waits for the missing ones first (WaitOnce).
  void Refresh();
  // Waits up to the `runtime_filter_wait` setting for filters not yet published (a join in another
  // stage: the coordinator forwards its filter), counting rf<id>_waited_ms and, when it was not
  // worth it, rf<id>_wait_expired.
  void WaitOnce();

  const TaskContext* context_;
  OperatorMetrics* metrics_;
  std::shared_ptr<MemoryPool> pool_;
  std::vector<Entry> entries_;
  std::vector<size_t> active_;  // entries filtering rows now
  std::vector<int> columns_;    // their positions, parallel to active_
  bool all_arrived_ = false;
  bool waited_ = false;
  std::vector<uint64_t> hashes_;
  std::vector<columnar::ArrayPtr> batch_columns_;
};

}  // namespace shoal::exec

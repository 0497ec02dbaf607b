// ScanUnitStream: the stream of one scan partition, reading scan units (io/table_provider.h) one
// after another from a ScanUnitSource and returning their non-empty batches until the units run
// out or the request's row limit is reached.
//
// Both ways a partition learns its units use it: TableScanExec's partitions own a fixed list
// (ListUnitSource), and the distributed layer's WorkUnitFeedScanExec pulls units from a work-unit
// feed as it goes. The loop (open a unit's reader with the task's pool and metrics, skip empty
// batches, stop at the limit, move on at a unit's end) lives only here; a source says where units
// come from and how to name them in errors. Runtime join filters (scan_runtime_filters.h) and the
// request's filter (a WHERE folded into the scan: scan_filter_expr.h) are applied here too, through
// one ScanPredicateFilter: by the provider while it decodes when it can, otherwise to each batch.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/scan_predicate_filter.h"
#include "shoal/io/table_provider.h"

namespace shoal::exec {

/// What a ScanUnitStream needs from the stream it feeds (its partition, task and metrics).
struct ScanUnitStreamEnv {
  int partition = 0;
  TaskContext* context = nullptr;
  OperatorMetrics* metrics = nullptr;
};

class ScanUnitSource {
 public:
  virtual ~ScanUnitSource() = default;

  /// The next unit to scan; nullopt once there are no more.
  virtual Result<std::optional<io::ScanUnit>> Next(const ScanUnitStreamEnv& env) = 0;

  /// Context added to an error opening `unit` ("scanning <unit>").
  virtual std::string OpenErrorContext(const io::ScanUnit& unit,
                                       const ScanUnitStreamEnv& env) const;

  /// Context added to an error reading `unit`'s batches; empty: none.
  virtual std::string ReadErrorContext(const io::ScanUnit&, const ScanUnitStreamEnv&) const {
    return "";
  }
};

/// A fixed list of units, in order.
class ListUnitSource final : public ScanUnitSource {
 public:
  explicit ListUnitSource(std::vector<io::ScanUnit> units) : units_(std::move(units)) {}

  Result<std::optional<io::ScanUnit>> Next(const ScanUnitStreamEnv& env) override;

 private:
  std::vector<io::ScanUnit> units_;
  size_t next_ = 0;
};

class ScanUnitStream final : public OperatorStream {
 public:
  /// `request`'s batch size is replaced by the task's.
  ScanUnitStream(const ExecutionPlan* node, int partition, std::shared_ptr<TaskContext> context,
                 io::TableProviderPtr table, io::ScanRequest request,
                 std::unique_ptr<ScanUnitSource> source);

 protected:
  Result<columnar::RecordBatchPtr> NextImpl() override;

 private:
  // The next non-empty batch of the units, filtered.
  Result<columnar::RecordBatchPtr> NextBatch();
  ScanUnitStreamEnv env() const;
  // Credits the query's progress up to `unit_bytes_read` of the current unit.
  void CreditProgress(int64_t unit_bytes_read);

  io::TableProviderPtr table_;
  io::ScanRequest request_;
  std::unique_ptr<ScanUnitSource> source_;
  io::ScanContext scan_context_;
  std::optional<io::ScanUnit> unit_;  // the unit reader_ reads
  int64_t produced_ = 0;
  int64_t unit_rows_read_ = 0;       // rows the current unit's reader returned
  int64_t unit_bytes_credited_ = 0;  // of the current unit, to the query's progress
  columnar::RecordBatchReaderPtr reader_;
  // The request's runtime join filters and filter: handed to providers that apply them while
  // decoding, applied here to the batches of the others. Null when the request has neither.
  std::unique_ptr<ScanPredicateFilter> filter_;
  bool filter_batches_ = false;
  Status init_status_;  // an error making filter_, returned by the first Next
  std::vector<columnar::RecordBatchPtr> pending_;  // small filtered batches held back to merge
  int64_t pending_rows_ = 0;
};

}  // namespace shoal::exec

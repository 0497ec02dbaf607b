// ScanPredicateFilter: everything one scan partition filters its rows with while it reads — the
// runtime join filters (ScanRuntimeFilters) and the WHERE conjuncts folded into the scan
// (ScanFilterExpr) — behind the one io::ScanRowFilter a provider calls while decoding, or applied
// to whole batches for providers that do not (ScanUnitStream decides).
//
// The runtime filters run first (as before the predicate was folded in, so a row they drop is
// never tested), then the predicate, compiled once with the exec layer's vectorized evaluator over
// a batch of just its columns, on the rows they kept. Two ways, chosen per batch:
//  - combined: columns() are the runtime filters' columns followed by the predicate's, and Select
//    runs both, so a provider decodes its other columns only for the rows both keep;
//  - deferred, while the runtime filters drop most rows (kDeferBelow of them kept, measured; also
//    before the first measure): columns() are the runtime filters' alone, so the predicate's
//    columns too are decoded only for the rows they keep, and the predicate runs on the batch the
//    provider returns (ApplyDeferred). A join's filter that leaves 1% of lineitem's rows (TPC-H
//    Q19) then decodes the WHERE's string columns for that 1% only.
// EXPLAIN ANALYZE shows on the scan `filter_rows_in` and `filter_rows_out`: the rows the predicate
// tested and kept, summed over partitions.
//
// Single-threaded: one per scan stream.
#pragma once

#include <memory>
#include <vector>

#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/operators/scan_runtime_filters.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/table_provider.h"

namespace shoal::exec {

class ScanPredicateFilter final : public io::ScanRowFilter {
 public:
  /// `predicate` (may be null): a physical expression over `scan_schema` (the scan's output);
  /// `runtime` (may be null): the scan's runtime filters. `metrics` must outlive this object.
  static Result<std::unique_ptr<ScanPredicateFilter>> Make(
      const columnar::Schema& scan_schema, const sql::ExprPtr& predicate,
      std::unique_ptr<ScanRuntimeFilters> runtime, OperatorMetrics* metrics,
      std::shared_ptr<MemoryPool> pool);

  bool BlockRuledOut(const std::function<bool(const io::ColumnPredicate&)>& ruled_out) override;
  const std::vector<int>& columns() override;
  Result<int64_t> Select(const std::vector<columnar::ArrayPtr>& columns, int64_t num_rows,
                         std::vector<int32_t>* selection) override;
  Result<columnar::RecordBatchPtr> Take(const columnar::RecordBatch& batch,
                                        const std::vector<int32_t>& selection) override;

  /// The rows of `batch` (the scan's output columns) the filters keep; the batch itself when all.
  Result<columnar::RecordBatchPtr> Apply(columnar::RecordBatchPtr batch);

  /// For a batch a provider returned after calling columns() and Select: the rows of it the
  /// predicate keeps when the predicate was deferred for it, else the batch itself.
  Result<columnar::RecordBatchPtr> ApplyDeferred(columnar::RecordBatchPtr batch);

  /// Runtime filters keeping less than this fraction of rows defer the predicate.
  static constexpr double kDeferBelow = 0.5;

 private:
  ScanPredicateFilter(OperatorMetrics* metrics, std::shared_ptr<MemoryPool> pool)
      : metrics_(metrics), pool_(std::move(pool)) {}

  OperatorMetrics* metrics_;
  std::shared_ptr<MemoryPool> pool_;
  std::unique_ptr<ScanRuntimeFilters> runtime_;
  // The predicate, compiled against predicate_schema_: its columns (scan positions
  // predicate_positions_) in that order.
  std::unique_ptr<ExprEvaluator> predicate_;
  columnar::SchemaPtr predicate_schema_;
  std::vector<int> predicate_positions_;
  // columns(): the runtime filters' active columns (runtime_columns_) then the predicate's.
  std::vector<int> runtime_columns_;
  std::vector<int> columns_;
  bool deferred_ = false;  // the predicate's columns are left out of columns_
  int64_t runtime_rows_in_ = 0;
  int64_t runtime_rows_out_ = 0;
  std::vector<columnar::ArrayPtr> runtime_args_;
  SelectionVector hits_;
  std::vector<columnar::ArrayPtr> batch_columns_;

  // Runs the predicate over `rows` rows whose predicate columns are `args`; fills hits_.
  Status RunPredicate(std::vector<columnar::ArrayPtr> args, int64_t rows);
};

}  // namespace shoal::exec

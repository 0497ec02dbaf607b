// ScanPredicateFilter: everything one scan partition filters its rows with while it reads — the
// runtime join filters (ScanRuntimeFilters) and the WHERE conjuncts folded into the scan
// (ScanFilterExpr) — behind the one io::ScanRowFilter a provider calls while decoding, or applied
// to whole batches for providers that do not (ScanUnitStream decides).
//
// columns() are the runtime filters' columns followed by the predicate's; Select runs the runtime
// filters first (as before the predicate was folded in, so a row they drop is never tested), then
// the predicate, compiled once with the exec layer's vectorized evaluator over a batch of just its
// columns, on the rows they kept. EXPLAIN ANALYZE shows on the scan `filter_rows_in` and
// `filter_rows_out`: the rows the predicate tested and kept, summed over partitions.
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
  std::vector<columnar::ArrayPtr> runtime_args_;
  std::vector<columnar::ArrayPtr> predicate_args_;
  SelectionVector hits_;
  std::vector<columnar::ArrayPtr> batch_columns_;
};

}  // namespace shoal::exec

#include "shoal/exec/operators/scan_predicate_filter.h"

#include <algorithm>
#include <set>

#include "shoal/exec/array_ops.h"

namespace shoal::exec {

Result<std::unique_ptr<ScanPredicateFilter>> ScanPredicateFilter::Make(
    const columnar::Schema& scan_schema, const sql::ExprPtr& predicate,
    std::unique_ptr<ScanRuntimeFilters> runtime, OperatorMetrics* metrics,
    std::shared_ptr<MemoryPool> pool) {
  std::unique_ptr<ScanPredicateFilter> out(new ScanPredicateFilter(metrics, std::move(pool)));
  out->runtime_ = std::move(runtime);
  if (predicate != nullptr) {
    // The predicate reads a batch of its own columns only: its references become positions there.
    std::set<int> used;
    sql::VisitExpr(predicate, [&](const sql::Expr& e) {
      if (e.kind == sql::ExprKind::kColumnRef && e.outer_depth == 0)
        used.insert(static_cast<int>(e.column));
    });
    std::vector<columnar::Field> fields;
    for (int p : used) {
      if (p < 0 || p >= scan_schema.num_fields())
        return Status::Internal("scan filter reads column {} of {}", p, scan_schema.num_fields());
      out->predicate_positions_.push_back(p);
      fields.push_back(scan_schema.field(p));
    }
    const std::vector<int>& positions = out->predicate_positions_;
    sql::ExprPtr local = sql::TransformExpr(predicate, [&](const sql::ExprPtr& e) -> sql::ExprPtr {
      if (e->kind != sql::ExprKind::kColumnRef || e->outer_depth != 0)
        return nullptr;
      auto copy = std::make_shared<sql::Expr>(*e);
      copy->column = static_cast<sql::ColumnId>(
          std::lower_bound(positions.begin(), positions.end(), static_cast<int>(e->column)) -
          positions.begin());
      return copy;
    });
    out->predicate_schema_ = std::make_shared<const columnar::Schema>(std::move(fields));
    SHOAL_ASSIGN_OR_RETURN(out->predicate_,
                           ExprEvaluator::Make(local, *out->predicate_schema_, out->pool_));
    if (out->predicate_->type().id() != TypeId::kBoolean &&
        out->predicate_->type().id() != TypeId::kNull)
      return Status::Internal("scan filter is {}, not boolean", out->predicate_->type().ToString());
  }
  return out;
}

bool ScanPredicateFilter::BlockRuledOut(
    const std::function<bool(const io::ColumnPredicate&)>& ruled_out) {
  return runtime_ != nullptr && runtime_->BlockRuledOut(ruled_out);
}

const std::vector<int>& ScanPredicateFilter::columns() {
  // Runtime filters arrive while the scan runs: their columns are looked up every time.
  static const std::vector<int> kNone;
  const std::vector<int>& runtime = runtime_ != nullptr ? runtime_->columns() : kNone;
  const bool defer =
      predicate_ != nullptr && !runtime.empty() &&
      (runtime_rows_in_ == 0 || static_cast<double>(runtime_rows_out_) <
                                    kDeferBelow * static_cast<double>(runtime_rows_in_));
  if (columns_.empty() || runtime != runtime_columns_ || defer != deferred_) {
    runtime_columns_ = runtime;
    deferred_ = defer;
    columns_ = runtime_columns_;
    if (!deferred_)
      columns_.insert(columns_.end(), predicate_positions_.begin(), predicate_positions_.end());
  }
  return columns_;
}

Status ScanPredicateFilter::RunPredicate(std::vector<columnar::ArrayPtr> args, int64_t rows) {
  columnar::RecordBatchPtr batch =
      columnar::RecordBatch::Make(predicate_schema_, rows, std::move(args));
  hits_.clear();
  SHOAL_RETURN_IF_ERROR(predicate_->Select(*batch, &hits_));
  metrics_->AddExtra("filter_rows_in", rows);
  metrics_->AddExtra("filter_rows_out", static_cast<int64_t>(hits_.size()));
  return Status::OK();
}

Result<int64_t> ScanPredicateFilter::Select(const std::vector<columnar::ArrayPtr>& columns,
                                            int64_t num_rows, std::vector<int32_t>* selection) {
  const size_t r = runtime_columns_.size();
  const bool with_predicate = predicate_ != nullptr && !deferred_;
  if (columns.size() != r + (with_predicate ? predicate_positions_.size() : 0))
    return Status::Internal("scan filters got {} columns for {}", columns.size(), columns_.size());
  int64_t kept = -1;
  selection->clear();
  if (r > 0) {
    runtime_args_.assign(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(r));
    SHOAL_ASSIGN_OR_RETURN(kept, runtime_->Select(runtime_args_, num_rows, selection));
    runtime_args_.clear();
    runtime_rows_in_ += num_rows;
    runtime_rows_out_ += kept < 0 ? num_rows : kept;
    if (kept == 0)
      return int64_t{0};
  }
  if (!with_predicate)
    return kept;
  // The predicate tests the rows the runtime filters kept.
  const int64_t rows = kept < 0 ? num_rows : kept;
  std::vector<columnar::ArrayPtr> args;
  for (size_t i = r; i < columns.size(); ++i) {
    if (kept < 0) {
      args.push_back(columns[i]);
    } else {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr taken,
                             exec::Take(*columns[i], selection->data(), kept, pool_));
      args.push_back(std::move(taken));
    }
  }
  SHOAL_RETURN_IF_ERROR(RunPredicate(std::move(args), rows));
  const auto out = static_cast<int64_t>(hits_.size());
  if (kept < 0) {
    if (out == num_rows)
      return int64_t{-1};
    selection->assign(hits_.begin(), hits_.end());
    return out;
  }
  for (size_t k = 0; k < hits_.size(); ++k)
    hits_[k] = (*selection)[static_cast<size_t>(hits_[k])];
  selection->assign(hits_.begin(), hits_.end());
  return out;
}

Result<columnar::RecordBatchPtr> ScanPredicateFilter::ApplyDeferred(
    columnar::RecordBatchPtr batch) {
  if (!deferred_ || predicate_ == nullptr)
    return batch;
  std::vector<columnar::ArrayPtr> args;
  for (int p : predicate_positions_)
    args.push_back(batch->column(p));
  SHOAL_RETURN_IF_ERROR(RunPredicate(std::move(args), batch->num_rows()));
  if (static_cast<int64_t>(hits_.size()) == batch->num_rows())
    return batch;
  return TakeBatch(*batch, hits_.data(), static_cast<int64_t>(hits_.size()), pool_);
}

Result<columnar::RecordBatchPtr> ScanPredicateFilter::Take(const columnar::RecordBatch& batch,
                                                           const std::vector<int32_t>& selection) {
  return TakeBatch(batch, selection.data(), static_cast<int64_t>(selection.size()), pool_);
}

Result<columnar::RecordBatchPtr> ScanPredicateFilter::Apply(columnar::RecordBatchPtr batch) {
  const std::vector<int>& positions = columns();
  if (positions.empty())
    return batch;
  batch_columns_.clear();
  for (int p : positions)
    batch_columns_.push_back(batch->column(p));
  std::vector<int32_t> selection;
  SHOAL_ASSIGN_OR_RETURN(int64_t kept, Select(batch_columns_, batch->num_rows(), &selection));
  batch_columns_.clear();
  if (kept >= 0) {
    SHOAL_ASSIGN_OR_RETURN(batch, Take(*batch, selection));
  }
  return ApplyDeferred(std::move(batch));
}

}  // namespace shoal::exec

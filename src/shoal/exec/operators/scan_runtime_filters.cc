#include "shoal/exec/operators/scan_runtime_filters.h"

#include <algorithm>
#include <chrono>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/join/runtime_filter_registry.h"

namespace shoal::exec {

ScanRuntimeFilters::ScanRuntimeFilters(const io::ScanRequest& request, const TaskContext* context,
                                       OperatorMetrics* metrics, std::shared_ptr<MemoryPool> pool)
    : context_(context), metrics_(metrics), pool_(std::move(pool)) {
  for (const io::RuntimeFilterTarget& target : request.runtime_filters) {
    auto it = std::find(request.projection.begin(), request.projection.end(), target.column);
    if (it == request.projection.end())
      continue;  // not produced by this scan: nothing to test
    Entry entry;
    entry.id = target.id;
    entry.table_column = target.column;
    entry.position = static_cast<int>(it - request.projection.begin());
    entries_.push_back(std::move(entry));
  }
}

void ScanRuntimeFilters::WaitOnce() {
  waited_ = true;
  const int64_t wait_ms = context_->settings().GetInt("runtime_filter_wait");
  std::vector<int> missing;
  for (const Entry& e : entries_) {
    if (e.filter == nullptr && context_->runtime_filters().IsExpected(e.id) &&
        context_->runtime_filters().Find(e.id) == nullptr)
      missing.push_back(e.id);
  }
  if (missing.empty() || wait_ms <= 0)
    return;
  const auto start = std::chrono::steady_clock::now();
  (void)context_->runtime_filters().WaitFor(missing, std::chrono::milliseconds(wait_ms));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  for (int id : missing) {
    metrics_->AddExtra(fmt::format("rf{}_waited_ms", id), waited);
    if (context_->runtime_filters().Find(id) == nullptr)
      metrics_->AddExtra(fmt::format("rf{}_wait_expired", id), 1);
  }
}

void ScanRuntimeFilters::Refresh() {
  if (!waited_)
    WaitOnce();
  if (!all_arrived_) {
    bool all = true;
    for (Entry& e : entries_) {
      if (e.filter == nullptr)
        e.filter = context_->runtime_filters().Find(e.id);
      all = all && e.filter != nullptr;
    }
    all_arrived_ = all;
  }
  active_.clear();
  columns_.clear();
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].filter != nullptr && !entries_[i].switched_off) {
      active_.push_back(i);
      columns_.push_back(entries_[i].position);
    }
  }
}

bool ScanRuntimeFilters::BlockRuledOut(
    const std::function<bool(const io::ColumnPredicate&)>& ruled_out) {
  Refresh();
  for (Entry& e : entries_) {
    if (e.filter == nullptr)
      continue;
    bool out = e.filter->kind() == RuntimeFilter::Kind::kEmpty;
    if (!out && e.filter->min() && e.filter->max()) {
      out = ruled_out({e.table_column, io::PredicateOp::kGe, {*e.filter->min()}}) ||
            ruled_out({e.table_column, io::PredicateOp::kLe, {*e.filter->max()}});
    }
    if (out) {
      metrics_->AddExtra(fmt::format("rf{}_row_groups_pruned", e.id), 1);
      return true;
    }
  }
  return false;
}

const std::vector<int>& ScanRuntimeFilters::columns() {
  Refresh();
  return columns_;
}

Result<int64_t> ScanRuntimeFilters::Select(const std::vector<columnar::ArrayPtr>& columns,
                                           int64_t num_rows, std::vector<int32_t>* selection) {
  if (columns.size() != active_.size())
    return Status::Internal("runtime filters got {} columns for {} filters", columns.size(),
                            active_.size());
  // Each filter tests only the rows the previous ones kept, and measures its selectivity on them.
  bool filtered = false;
  for (size_t k = 0; k < active_.size(); ++k) {
    Entry& e = entries_[active_[k]];
    const int64_t in = filtered ? static_cast<int64_t>(selection->size()) : num_rows;
    SHOAL_RETURN_IF_ERROR(e.filter->Select(columns[k], &hashes_, selection, filtered));
    filtered = true;
    const int64_t removed = in - static_cast<int64_t>(selection->size());
    e.rows_in += in;
    e.rows_removed += removed;
    metrics_->AddExtra(fmt::format("rf{}_rows_in", e.id), in);
    metrics_->AddExtra(fmt::format("rf{}_rows_removed", e.id), removed);
    if (e.rows_in >= kSampleRows && !e.switched_off &&
        static_cast<double>(e.rows_removed) <
            kMinRemovedFraction * static_cast<double>(e.rows_in)) {
      e.switched_off = true;
      metrics_->AddExtra(fmt::format("rf{}_switched_off", e.id), 1);
    }
    if (selection->empty())
      break;
  }
  if (!filtered || static_cast<int64_t>(selection->size()) == num_rows)
    return int64_t{-1};
  return static_cast<int64_t>(selection->size());
}

Result<columnar::RecordBatchPtr> ScanRuntimeFilters::Take(const columnar::RecordBatch& batch,
                                                          const std::vector<int32_t>& selection) {
  return TakeBatch(batch, selection.data(), static_cast<int64_t>(selection.size()), pool_);
}

Result<columnar::RecordBatchPtr> ScanRuntimeFilters::Apply(columnar::RecordBatchPtr batch) {
  const std::vector<int>& positions = columns();
  if (positions.empty())
    return batch;
  batch_columns_.clear();
  for (int p : positions)
    batch_columns_.push_back(batch->column(p));
  std::vector<int32_t> selection;
  SHOAL_ASSIGN_OR_RETURN(int64_t kept, Select(batch_columns_, batch->num_rows(), &selection));
  if (kept < 0)
    return batch;
  return Take(*batch, selection);
}

}  // namespace shoal::exec

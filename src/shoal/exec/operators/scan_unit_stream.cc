#include "shoal/exec/operators/scan_unit_stream.h"

#include <algorithm>
#include <utility>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/operators/scan_filter_expr.h"
#include "shoal/exec/task_context.h"

namespace shoal::exec {

std::string ScanUnitSource::OpenErrorContext(const io::ScanUnit& unit,
                                             const ScanUnitStreamEnv&) const {
  return "scanning " + unit.description;
}

Result<std::optional<io::ScanUnit>> ListUnitSource::Next(const ScanUnitStreamEnv&) {
  if (next_ >= units_.size())
    return std::optional<io::ScanUnit>();
  return std::optional<io::ScanUnit>(units_[next_++]);
}

ScanUnitStream::ScanUnitStream(const ExecutionPlan* node, int partition,
                               std::shared_ptr<TaskContext> context, io::TableProviderPtr table,
                               io::ScanRequest request, std::unique_ptr<ScanUnitSource> source)
    : OperatorStream(node, partition, std::move(context)),
      table_(std::move(table)),
      request_(std::move(request)),
      source_(std::move(source)) {
  request_.batch_size = this->context()->batch_size();
  scan_context_.pool = pool();
  // The units of this stream (one thread at a time) reuse their chunks' and pages' buffers.
  scan_context_.buffers = std::make_shared<io::ScanBuffers>(pool());
  OperatorMetrics* m = metrics();
  scan_context_.add_metric = [m](const std::string& name, int64_t value) {
    m->AddExtra(name, value);
  };
  std::unique_ptr<ScanRuntimeFilters> runtime;
  if (!request_.runtime_filters.empty()) {
    runtime = std::make_unique<ScanRuntimeFilters>(request_, this->context().get(), m, pool());
    if (runtime->empty())
      runtime.reset();
  }
  Result<sql::ExprPtr> predicate = ScanFilterExpression(request_);
  if (!predicate.ok()) {
    init_status_ = predicate.status();
    return;
  }
  if (*predicate == nullptr && runtime == nullptr)
    return;
  Result<std::unique_ptr<ScanPredicateFilter>> filter =
      ScanPredicateFilter::Make(*schema(), *predicate, std::move(runtime), m, pool());
  if (!filter.ok()) {
    init_status_ = filter.status();
    return;
  }
  filter_ = std::move(filter).MoveValueUnsafe();
  if (table_->AppliesRowFilter())
    scan_context_.row_filter = filter_.get();
  else
    filter_batches_ = true;
}

ScanUnitStreamEnv ScanUnitStream::env() const {
  return ScanUnitStreamEnv{partition(), context().get(), metrics()};
}

void ScanUnitStream::CreditProgress(int64_t unit_bytes_read) {
  if (unit_bytes_read <= unit_bytes_credited_)
    return;
  context()->progress().AddRead(unit_bytes_read - unit_bytes_credited_);
  unit_bytes_credited_ = unit_bytes_read;
}

Result<columnar::RecordBatchPtr> ScanUnitStream::NextImpl() {
  SHOAL_RETURN_IF_ERROR(init_status_);
  if (filter_ == nullptr)
    return NextBatch();
  // A filtered scan's batches (by a WHERE or a runtime join filter) may be slivers: like
  // FilterExec, hold back those under half a batch and merge them, so operators downstream, and
  // on workers the network, do not pay per-batch costs on a few rows.
  const int64_t target = context()->batch_size();
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, NextBatch());
    if (batch == nullptr)
      break;
    if (pending_.empty() && batch->num_rows() * 2 >= target)
      return batch;
    pending_rows_ += batch->num_rows();
    pending_.push_back(std::move(batch));
    if (pending_rows_ >= target)
      break;
  }
  if (pending_.empty())
    return columnar::RecordBatchPtr();
  if (pending_.size() == 1) {
    pending_rows_ = 0;
    return std::exchange(pending_, {}).front();
  }
  Result<columnar::RecordBatchPtr> out = ConcatenateBatches(schema(), pending_, pool());
  pending_.clear();
  pending_rows_ = 0;
  return out;
}

Result<columnar::RecordBatchPtr> ScanUnitStream::NextBatch() {
  for (;;) {
    if (request_.limit >= 0 && produced_ >= request_.limit)
      return columnar::RecordBatchPtr();
    if (!reader_) {
      SHOAL_ASSIGN_OR_RETURN(unit_, source_->Next(env()));
      if (!unit_.has_value())
        return columnar::RecordBatchPtr();
      Result<columnar::RecordBatchReaderPtr> opened =
          table_->OpenUnit(*unit_, request_, scan_context_);
      if (!opened.ok())
        return std::move(opened).status().WithContext(source_->OpenErrorContext(*unit_, env()));
      reader_ = std::move(opened).MoveValueUnsafe();
      unit_rows_read_ = 0;
      unit_bytes_credited_ = 0;
    }
    Result<columnar::RecordBatchPtr> batch = reader_->Next();
    if (!batch.ok()) {
      std::string context = source_->ReadErrorContext(*unit_, env());
      if (context.empty())
        return std::move(batch).status();
      return std::move(batch).status().WithContext(context);
    }
    if (!*batch) {
      reader_.reset();
      CreditProgress(unit_->bytes);
      continue;
    }
    if (unit_->rows > 0) {
      unit_rows_read_ += (*batch)->num_rows();
      CreditProgress(unit_->bytes * std::min(unit_rows_read_, unit_->rows) / unit_->rows);
    }
    if ((*batch)->num_rows() == 0)
      continue;
    columnar::RecordBatchPtr out = std::move(batch).MoveValueUnsafe();
    if (filter_batches_) {
      SHOAL_ASSIGN_OR_RETURN(out, filter_->Apply(std::move(out)));
      if (out->num_rows() == 0)
        continue;
    } else if (filter_ != nullptr) {
      SHOAL_ASSIGN_OR_RETURN(out, filter_->ApplyDeferred(std::move(out)));
      if (out->num_rows() == 0)
        continue;
    }
    produced_ += out->num_rows();
    return out;
  }
}

}  // namespace shoal::exec

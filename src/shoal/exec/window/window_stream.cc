// WindowStream's main line: collect the input partition, sort it by (partition keys, order
// keys), find partition and peer-group boundaries, compute each function (window_ranking.cc,
// window_frames.cc), then emit the sorted rows with the results in batch_size slices.

#include <algorithm>

#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/operators/window_exec_internal.h"
#include "shoal/exec/row_key/sort_key_encoder.h"

namespace shoal::exec::internal {

namespace {

Result<int64_t> CheckedRows(int64_t n) {
  if (n >= std::numeric_limits<int32_t>::max() / 2)
    return Status::NotImplemented("window partition stream of {} rows (at most 1073741823)", n);
  return n;
}

}  // namespace

Result<RecordBatchPtr> WindowStream::NextImpl() {
  if (input_) {
    SHOAL_RETURN_IF_ERROR(Compute());
    input_.reset();
  }
  if (!sorted_ || emitted_ >= sorted_->num_rows()) {
    sorted_.reset();
    results_.clear();
    reservation_.Resize(0).ok();
    return RecordBatchPtr();
  }
  const int64_t length = std::min(context()->batch_size(), sorted_->num_rows() - emitted_);
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(schema()->num_fields()));
  for (const auto& c : sorted_->columns())
    columns.push_back(c->Slice(emitted_, length));
  for (const auto& r : results_)
    columns.push_back(r->Slice(emitted_, length));
  emitted_ += length;
  return RecordBatch::Make(schema(), length, std::move(columns));
}

Status WindowStream::Reserve() {
  int64_t bytes = CapacityBytes(partition_start_) + CapacityBytes(partition_end_) +
                  CapacityBytes(peer_start_) + CapacityBytes(peer_end_) +
                  CapacityBytes(group_index_) + CapacityBytes(group_starts_) +
                  CapacityBytes(frame_start_) + CapacityBytes(frame_end_) + extra_bytes_;
  Status st = reservation_.Resize(bytes);
  if (!st.ok())
    return std::move(st).WithContext("window (spilling is not implemented yet)");
  return Status::OK();
}

Result<std::vector<ArrayPtr>> WindowStream::Evaluate(const std::vector<sql::ExprPtr>& exprs,
                                                     const RecordBatch& batch) {
  std::vector<ArrayPtr> out;
  for (const auto& e : exprs) {
    SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(e, *batch.schema(), pool()));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, eval->Evaluate(batch));
    out.push_back(std::move(a));
  }
  return out;
}

Status WindowStream::Compute() {
  std::vector<RecordBatchPtr> batches;
  for (;;) {
    if (context()->cancelled())
      return TaskContext::CancelledStatus();
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
    if (!batch)
      break;
    if (batch->num_rows() > 0)
      batches.push_back(std::move(batch));
  }
  if (batches.empty())
    return Status::OK();
  const auto& input_schema = node_->children()[0]->schema();
  SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr all, ConcatenateBatches(input_schema, batches, pool()));
  batches.clear();
  SHOAL_ASSIGN_OR_RETURN(const int64_t n, CheckedRows(all->num_rows()));

  // Sort by (partition keys, order keys); partition keys in any fixed order.
  std::vector<sql::ExprPtr> key_exprs = spec().partition_by;
  std::vector<SortOrder> orders(key_exprs.size(), SortOrder{true, false});
  for (const auto& k : spec().order_by) {
    key_exprs.push_back(k.expr);
    orders.push_back({k.ascending, k.nulls_first});
  }
  if (key_exprs.empty()) {
    sorted_ = all;
  } else {
    SHOAL_ASSIGN_OR_RETURN(auto keys, Evaluate(key_exprs, *all));
    EncodedRows rows;
    SHOAL_RETURN_IF_ERROR(rows.Encode(keys, orders, n, /*compact=*/true));
    std::vector<int32_t> permutation;
    extra_bytes_ = rows.MemoryBytes() + n * 4;
    SHOAL_RETURN_IF_ERROR(Reserve());
    rows.Sort(&permutation);
    SHOAL_ASSIGN_OR_RETURN(sorted_, TakeBatch(*all, permutation.data(), n, pool()));
    extra_bytes_ = 0;
  }
  all.reset();

  SHOAL_RETURN_IF_ERROR(FindBoundaries(n));
  for (size_t f = 0; f < node_->functions().size(); ++f) {
    if (context()->cancelled())
      return TaskContext::CancelledStatus();
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr result, ComputeFunction(f, n));
    results_.push_back(std::move(result));
  }
  return Status::OK();
}

Status WindowStream::FindBoundaries(int64_t n) {
  partition_start_.assign(static_cast<size_t>(n), 0);
  partition_end_.assign(static_cast<size_t>(n), n);
  peer_start_.assign(static_cast<size_t>(n), 0);
  peer_end_.assign(static_cast<size_t>(n), n);
  group_index_.assign(static_cast<size_t>(n), 0);
  group_starts_.clear();
  SHOAL_RETURN_IF_ERROR(Reserve());
  std::vector<uint8_t> new_partition(static_cast<size_t>(n), 0);
  std::vector<uint8_t> new_peer(static_cast<size_t>(n), 0);
  new_partition[0] = 1;
  auto mark_changes = [&](const std::vector<sql::ExprPtr>& exprs,
                          const std::vector<SortOrder>& orders,
                          std::vector<uint8_t>* marks) -> Status {
    if (exprs.empty())
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(auto keys, Evaluate(exprs, *sorted_));
    EncodedRows rows;
    SHOAL_RETURN_IF_ERROR(rows.Encode(keys, orders, n));
    extra_bytes_ = rows.MemoryBytes();
    SHOAL_RETURN_IF_ERROR(Reserve());
    for (int64_t i = 1; i < n; ++i) {
      if (EncodedRows::Compare(rows, i - 1, rows, i) != 0)
        (*marks)[static_cast<size_t>(i)] = 1;
    }
    extra_bytes_ = 0;
    return Status::OK();
  };
  SHOAL_RETURN_IF_ERROR(mark_changes(
      spec().partition_by, std::vector<SortOrder>(spec().partition_by.size()), &new_partition));
  std::vector<sql::ExprPtr> order_exprs;
  std::vector<SortOrder> order_orders;
  for (const auto& k : spec().order_by) {
    order_exprs.push_back(k.expr);
    order_orders.push_back({k.ascending, k.nulls_first});
  }
  SHOAL_RETURN_IF_ERROR(mark_changes(order_exprs, order_orders, &new_peer));
  // Forward pass for starts, backward pass for ends.
  int64_t p_start = 0;
  int64_t g_start = 0;
  int64_t group = -1;
  for (int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<size_t>(i);
    if (new_partition[u]) {
      p_start = i;
      g_start = i;
      ++group;
      group_starts_.push_back(i);
    } else if (new_peer[u]) {
      g_start = i;
      ++group;
      group_starts_.push_back(i);
    }
    partition_start_[u] = p_start;
    peer_start_[u] = g_start;
    group_index_[u] = group;
  }
  group_starts_.push_back(n);
  int64_t p_end = n;
  int64_t g_end = n;
  for (int64_t i = n - 1; i >= 0; --i) {
    const auto u = static_cast<size_t>(i);
    partition_end_[u] = p_end;
    peer_end_[u] = g_end;
    if (new_partition[u]) {
      p_end = i;
      g_end = i;
    } else if (new_peer[u]) {
      g_end = i;
    }
  }
  return Reserve();
}

Result<ArrayPtr> WindowStream::ComputeFunction(size_t f, int64_t n) {
  const sql::Expr& fn = *node_->functions()[f];
  const std::string& name = fn.name;
  if (name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
      name == "cume_dist")
    return Ranking(name, n);
  SHOAL_ASSIGN_OR_RETURN(auto args, Evaluate(fn.args, *sorted_));
  for (auto& a : args) {
    SHOAL_ASSIGN_OR_RETURN(a, DecodeDictionary(a, pool()));
  }
  if (name == "ntile")
    return Ntile(*args[0], n);
  if (name == "lag" || name == "lead")
    return LagLead(name == "lag", args, n);
  if (!UsesFrame(name))
    return Status::NotImplemented("window function {}", name);
  SHOAL_RETURN_IF_ERROR(ComputeFrames(f, n));
  if (name == "first_value" || name == "last_value" || name == "nth_value")
    return FrameValue(name, args, n);
  return FrameAggregate(fn, args, n);
}

}  // namespace shoal::exec::internal

#include "shoal/exec/operators/window_exec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/row_key/memory_reservation.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "shoal/exec/window/segment_tree.h"

namespace shoal::exec {
namespace {

using columnar::int128_t;
using columnar::Scalar;
using sql::WindowFrame;
using BoundKind = WindowFrame::BoundKind;
using Units = WindowFrame::Units;

bool IsAggregateName(const std::string& name) {
  return name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max" ||
         name == "stddev_samp" || name == "stddev_pop" || name == "var_samp" || name == "var_pop" ||
         name == "bool_and" || name == "bool_or" || name == "string_agg";
}

bool UsesFrame(const std::string& name) {
  return IsAggregateName(name) || name == "first_value" || name == "last_value" ||
         name == "nth_value";
}

bool SameSortKeys(const std::vector<sql::SortKey>& a, const std::vector<sql::SortKey>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].ascending != b[i].ascending || a[i].nulls_first != b[i].nulls_first ||
        !sql::ExprEquals(*a[i].expr, *b[i].expr))
      return false;
  }
  return true;
}

bool SameExprs(const std::vector<sql::ExprPtr>& a, const std::vector<sql::ExprPtr>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!sql::ExprEquals(*a[i], *b[i]))
      return false;
  }
  return true;
}

// Evaluates a constant expression (a frame offset) once.
Result<Scalar> EvaluateConstant(const sql::ExprPtr& expr) {
  auto schema = std::make_shared<columnar::Schema>(std::vector<columnar::Field>{});
  SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(expr, *schema, DefaultMemoryPool()));
  auto batch = RecordBatch::Make(schema, 1, {});
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr value, eval->Evaluate(*batch));
  SHOAL_ASSIGN_OR_RETURN(value, DecodeDictionary(value, DefaultMemoryPool()));
  return Scalar::FromArray(*value, 0);
}

bool IsNegative(const Scalar& s) {
  switch (s.type().id()) {
    case TypeId::kFloat32:
    case TypeId::kFloat64: return s.float_value() < 0;
    case TypeId::kDecimal: return s.decimal_value() < 0;
    case TypeId::kInterval: {
      auto v = s.interval_value();
      return v.months < 0 || v.days < 0 || v.nanoseconds < 0;
    }
    default: return s.type().is_integer() && s.int_value() < 0;
  }
}

Result<WindowExec::Bound> ResolveBound(BoundKind kind, const sql::ExprPtr& offset, Units units,
                                       bool is_start) {
  WindowExec::Bound bound;
  bound.kind = kind;
  if (kind != BoundKind::kPreceding && kind != BoundKind::kFollowing)
    return bound;
  const char* which = is_start ? "starting" : "ending";
  if (!offset)
    return Status::Internal("frame {} offset without an expression", which);
  if (!sql::ReferencedColumns(offset).empty())
    return Status::InvalidArgument("argument of ROWS/RANGE/GROUPS must not contain variables")
        .WithSqlState("42P10");
  SHOAL_ASSIGN_OR_RETURN(bound.offset, EvaluateConstant(offset));
  if (bound.offset.is_null())
    return Status::InvalidArgument("frame {} offset must not be null", which).WithSqlState("22004");
  if (units != Units::kRange) {
    if (!bound.offset.type().is_integer())
      return Status::TypeError("argument of {} must be type bigint, not type {}",
                               units == Units::kRows ? "ROWS" : "GROUPS",
                               bound.offset.type().ToString())
          .WithSqlState("42804");
  }
  if (IsNegative(bound.offset))
    return Status::InvalidArgument("frame {} offset must not be negative", which)
        .WithSqlState("22013");
  return bound;
}

// RANGE offsets: the single order key and the offsets mapped into one numeric domain where the
// key is ascending (DESC keys negated), so bounds are binary searches.
struct RangeDomain {
  bool is_float = false;
  std::vector<int128_t> ints;
  std::vector<double> floats;
};

Status UnsupportedRange(const DataType& key, const DataType& offset) {
  const bool orderable_key = key.is_integer() || key.id() == TypeId::kDecimal ||
                             key.id() == TypeId::kFloat32 || key.id() == TypeId::kFloat64 ||
                             key.id() == TypeId::kDate32 || key.id() == TypeId::kTimestamp;
  if (!orderable_key)
    return Status::NotImplemented(
        "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {}",
        key.ToString());
  return Status::NotImplemented(
             "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and "
             "offset type {}",
             key.ToString(), offset.ToString())
      .WithHint(
          "give the offset the type of the ORDER BY column (an interval for dates and "
          "timestamps)");
}

// The offset in the key's domain (see KeyDomain), or an error for a combination PostgreSQL has
// no in_range support for. `scale_up` receives the factor the keys must be multiplied by.
Result<int128_t> IntOffset(const DataType& key, const Scalar& offset, int128_t* scale_up) {
  *scale_up = 1;
  const DataType& t = offset.type();
  if (key.is_integer() || key.id() == TypeId::kDecimal) {
    const int key_scale = key.id() == TypeId::kDecimal ? key.scale() : 0;
    if (t.is_integer())
      return static_cast<int128_t>(offset.int_value()) * columnar::PowerOfTen(key_scale);
    if (t.id() == TypeId::kDecimal && key.id() == TypeId::kDecimal) {
      if (t.scale() <= key_scale)
        return offset.decimal_value() * columnar::PowerOfTen(key_scale - t.scale());
      *scale_up = columnar::PowerOfTen(t.scale() - key_scale);
      return offset.decimal_value();
    }
    return UnsupportedRange(key, t);
  }
  if (key.id() == TypeId::kDate32 || key.id() == TypeId::kTimestamp) {
    if (t.id() != TypeId::kInterval)
      return UnsupportedRange(key, t);
    auto v = offset.interval_value();
    if (v.months != 0)
      return Status::NotImplemented("RANGE offsets with months or years over {} keys",
                                    key.ToString());
    return static_cast<int128_t>(v.days) * 86400 * 1000000000LL + v.nanoseconds;
  }
  return UnsupportedRange(key, t);
}

// Key values in nanoseconds (dates, timestamps) or unscaled units (integers, decimals).
Status KeyDomain(const Array& key, bool ascending, int128_t scale_up, std::vector<int128_t>* out) {
  const int64_t n = key.length();
  out->resize(static_cast<size_t>(n));
  const DataType& t = key.type();
  auto fill = [&](auto get) {
    for (int64_t i = 0; i < n; ++i) {
      const int128_t v = static_cast<int128_t>(get(i)) * scale_up;
      (*out)[static_cast<size_t>(i)] = ascending ? v : -v;
    }
  };
  switch (t.id()) {
    case TypeId::kInt8: fill([&](int64_t i) { return key.values<int8_t>()[i]; }); break;
    case TypeId::kInt16: fill([&](int64_t i) { return key.values<int16_t>()[i]; }); break;
    case TypeId::kInt32: fill([&](int64_t i) { return key.values<int32_t>()[i]; }); break;
    case TypeId::kInt64: fill([&](int64_t i) { return key.values<int64_t>()[i]; }); break;
    case TypeId::kUInt8: fill([&](int64_t i) { return key.values<uint8_t>()[i]; }); break;
    case TypeId::kUInt16: fill([&](int64_t i) { return key.values<uint16_t>()[i]; }); break;
    case TypeId::kUInt32: fill([&](int64_t i) { return key.values<uint32_t>()[i]; }); break;
    case TypeId::kUInt64: fill([&](int64_t i) { return key.values<uint64_t>()[i]; }); break;
    case TypeId::kDecimal:
      if (t.bit_width() == 64)
        fill([&](int64_t i) { return key.values<int64_t>()[i]; });
      else
        fill([&](int64_t i) { return key.values<int128_t>()[i]; });
      break;
    case TypeId::kDate32:
      fill([&](int64_t i) {
        return static_cast<int128_t>(key.values<int32_t>()[i]) * 86400 * 1000000000LL;
      });
      break;
    case TypeId::kTimestamp: {
      int64_t per_unit = 1;
      switch (t.unit()) {
        case columnar::TimeUnit::kSecond: per_unit = 1000000000LL; break;
        case columnar::TimeUnit::kMilli: per_unit = 1000000LL; break;
        case columnar::TimeUnit::kMicro: per_unit = 1000LL; break;
        case columnar::TimeUnit::kNano: per_unit = 1; break;
      }
      fill([&](int64_t i) { return static_cast<int128_t>(key.values<int64_t>()[i]) * per_unit; });
      break;
    }
    default: return Status::Internal("RANGE key of type {}", t.ToString());
  }
  return Status::OK();
}

Result<int64_t> CheckedRows(int64_t n) {
  if (n >= std::numeric_limits<int32_t>::max() / 2)
    return Status::NotImplemented("window partition stream of {} rows (at most 1073741823)", n);
  return n;
}

class WindowStream final : public OperatorStream {
 public:
  WindowStream(const WindowExec* node, int partition, std::shared_ptr<TaskContext> context,
               StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        input_(std::move(input)),
        reservation_(pool()) {}

 protected:
  Result<RecordBatchPtr> NextImpl() override {
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

 private:
  const sql::Expr& spec() const { return *node_->functions()[0]; }

  Status Reserve() {
    int64_t bytes = CapacityBytes(partition_start_) + CapacityBytes(partition_end_) +
                    CapacityBytes(peer_start_) + CapacityBytes(peer_end_) +
                    CapacityBytes(group_index_) + CapacityBytes(group_starts_) +
                    CapacityBytes(frame_start_) + CapacityBytes(frame_end_) + extra_bytes_;
    Status st = reservation_.Resize(bytes);
    if (!st.ok())
      return std::move(st).WithContext("window (spilling is not implemented yet)");
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> Evaluate(const std::vector<sql::ExprPtr>& exprs,
                                         const RecordBatch& batch) {
    std::vector<ArrayPtr> out;
    for (const auto& e : exprs) {
      SHOAL_ASSIGN_OR_RETURN(auto eval, ExprEvaluator::Make(e, *batch.schema(), pool()));
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, eval->Evaluate(batch));
      out.push_back(std::move(a));
    }
    return out;
  }

  Status Compute() {
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

  // Marks where each row's window partition and peer group start and end (in sorted order).
  Status FindBoundaries(int64_t n) {
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
    auto mark_changes = [&](const std::vector<sql::ExprPtr>& exprs, std::vector<SortOrder> orders,
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

  Result<ArrayPtr> Int64Result(const std::vector<int64_t>& values) {
    SHOAL_ASSIGN_OR_RETURN(auto buffer,
                           AllocateValues<int64_t>(static_cast<int64_t>(values.size()), pool()));
    std::copy(values.begin(), values.end(), buffer->template mutable_data_as<int64_t>());
    return Array::Make(DataType::Int64(), static_cast<int64_t>(values.size()),
                       {nullptr, std::move(buffer)}, 0);
  }

  Result<ArrayPtr> Float64Result(const std::vector<double>& values) {
    SHOAL_ASSIGN_OR_RETURN(auto buffer,
                           AllocateValues<double>(static_cast<int64_t>(values.size()), pool()));
    std::copy(values.begin(), values.end(), buffer->template mutable_data_as<double>());
    return Array::Make(DataType::Float64(), static_cast<int64_t>(values.size()),
                       {nullptr, std::move(buffer)}, 0);
  }

  // Converts an int64 array to the function's declared result type when they differ.
  Result<ArrayPtr> Gathered(const Array& source, const std::vector<int32_t>& indices) {
    return Take(source, indices.data(), static_cast<int64_t>(indices.size()), pool(),
                /*allow_null_index=*/true);
  }

  Result<ArrayPtr> ComputeFunction(size_t f, int64_t n) {
    const sql::Expr& fn = *node_->functions()[f];
    const std::string& name = fn.name;
    if (name == "row_number" || name == "rank" || name == "dense_rank") {
      std::vector<int64_t> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        const int64_t ps = partition_start_[u];
        out[u] = name == "row_number" ? i - ps + 1
                 : name == "rank"     ? peer_start_[u] - ps + 1
                                      : group_index_[u] - group_index_[static_cast<size_t>(ps)] + 1;
      }
      return Int64Result(out);
    }
    if (name == "percent_rank" || name == "cume_dist") {
      std::vector<double> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        const int64_t ps = partition_start_[u];
        const int64_t rows = partition_end_[u] - ps;
        if (name == "percent_rank") {
          out[u] = rows > 1
                       ? static_cast<double>(peer_start_[u] - ps) / static_cast<double>(rows - 1)
                       : 0.0;
        } else {
          out[u] = static_cast<double>(peer_end_[u] - ps) / static_cast<double>(rows);
        }
      }
      return Float64Result(out);
    }
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
    if (name == "first_value" || name == "last_value" || name == "nth_value") {
      std::vector<int32_t> indices(static_cast<size_t>(n), -1);
      for (int64_t i = 0; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        const int64_t s = frame_start_[u];
        const int64_t e = frame_end_[u];
        if (s >= e)
          continue;
        if (name == "first_value") {
          indices[u] = static_cast<int32_t>(s);
        } else if (name == "last_value") {
          indices[u] = static_cast<int32_t>(e - 1);
        } else {
          const Array& nth = *args[1];
          if (nth.IsNull(i))
            continue;
          const int64_t k = nth.values<int64_t>()[i];
          if (k <= 0)
            return Status::InvalidArgument("argument of nth_value must be greater than zero")
                .WithSqlState("22016");
          if (k <= e - s)
            indices[u] = static_cast<int32_t>(s + k - 1);
        }
      }
      return Gathered(*args[0], indices);
    }
    // Aggregates.
    if (fn.distinct)
      return Status::NotImplemented("DISTINCT is not implemented for window functions");
    std::vector<uint8_t> include;
    if (fn.filter) {
      SHOAL_ASSIGN_OR_RETURN(auto filter, Evaluate({fn.filter}, *sorted_));
      const Array& pred = *filter[0];
      include.assign(static_cast<size_t>(n), 0);
      for (int64_t i = 0; i < n; ++i)
        include[static_cast<size_t>(i)] = pred.IsValid(i) && pred.BoolValue(i) ? 1 : 0;
    }
    if (name == "count" && fn.args.empty() && !fn.filter) {
      // count(*) over a frame is its width.
      std::vector<int64_t> out(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const auto u = static_cast<size_t>(i);
        out[u] = std::max<int64_t>(0, frame_end_[u] - frame_start_[u]);
      }
      return Int64Result(out);
    }
    SHOAL_ASSIGN_OR_RETURN(
        auto tree, SegmentTreeAggregator::Make(fn, args, include.empty() ? nullptr : include.data(),
                                               n, pool()));
    // The tree's states are pool buffers; its query keeps per-row cursors and node lists.
    extra_bytes_ = 32 * n;
    SHOAL_RETURN_IF_ERROR(Reserve());
    auto result = tree->Evaluate(frame_start_.data(), frame_end_.data());
    extra_bytes_ = 0;
    return result;
  }

  Result<ArrayPtr> Ntile(const Array& buckets_arg, int64_t n) {
    std::vector<int64_t> out(static_cast<size_t>(n), 0);
    std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
    bool any_null = false;
    for (int64_t ps = 0; ps < n;) {
      const int64_t pe = partition_end_[static_cast<size_t>(ps)];
      const int64_t rows = pe - ps;
      if (buckets_arg.IsNull(ps)) {
        for (int64_t i = ps; i < pe; ++i)
          valid[static_cast<size_t>(i)] = 0;
        any_null = true;
      } else {
        const int64_t buckets = buckets_arg.values<int64_t>()[ps];
        if (buckets <= 0)
          return Status::InvalidArgument("argument of ntile must be greater than zero")
              .WithSqlState("22014");
        // The first rows % buckets buckets get one row more than the others.
        const int64_t small = rows / buckets;
        const int64_t large_count = rows % buckets;
        for (int64_t r = 0; r < rows; ++r) {
          int64_t bucket;
          if (r < large_count * (small + 1))
            bucket = r / (small + 1);
          else
            bucket = large_count + (r - large_count * (small + 1)) / std::max<int64_t>(small, 1);
          out[static_cast<size_t>(ps + r)] = bucket + 1;
        }
      }
      ps = pe;
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr values, Int64Result(out));
    if (!any_null)
      return values;
    SHOAL_ASSIGN_OR_RETURN(auto bitmap, bits::Allocate(n, pool()));
    bits::PackBytes(valid.data(), n, bitmap->mutable_data());
    return Array::Make(DataType::Int64(), n, {std::move(bitmap), values->buffer(1)});
  }

  Result<ArrayPtr> LagLead(bool lag, const std::vector<ArrayPtr>& args, int64_t n) {
    const Array* offsets = args.size() >= 2 ? args[1].get() : nullptr;
    const bool has_default = args.size() >= 3;
    ArrayPtr source = args[0];
    if (has_default) {
      // Rows outside the partition read the default: index n + i of [value; default].
      SHOAL_ASSIGN_OR_RETURN(source, Concatenate({args[0], args[2]}, pool()));
    }
    std::vector<int32_t> indices(static_cast<size_t>(n), -1);
    for (int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<size_t>(i);
      int64_t offset = 1;
      if (offsets != nullptr) {
        if (offsets->IsNull(i))
          continue;  // a NULL offset gives NULL, not the default
        offset = offsets->values<int64_t>()[i];
      }
      // Saturate so huge offsets cannot overflow.
      offset = std::clamp<int64_t>(offset, -n - 1, n + 1);
      const int64_t target = lag ? i - offset : i + offset;
      if (target >= partition_start_[u] && target < partition_end_[u])
        indices[u] = static_cast<int32_t>(target);
      else if (has_default)
        indices[u] = static_cast<int32_t>(n + i);
    }
    return Gathered(*source, indices);
  }

  // frame_start_ / frame_end_ of every row for function f.
  Status ComputeFrames(size_t f, int64_t n) {
    const sql::Expr& fn = *node_->functions()[f];
    const WindowExec::Bound& start = node_->starts()[f];
    const WindowExec::Bound& end = node_->ends()[f];
    const Units units = fn.frame.units;
    frame_start_.assign(static_cast<size_t>(n), 0);
    frame_end_.assign(static_cast<size_t>(n), 0);
    SHOAL_RETURN_IF_ERROR(Reserve());
    RangeDomain range;
    int128_t start_offset = 0;
    int128_t end_offset = 0;
    double start_offset_f = 0;
    double end_offset_f = 0;
    const bool range_offsets =
        units == Units::kRange &&
        (start.kind == BoundKind::kPreceding || start.kind == BoundKind::kFollowing ||
         end.kind == BoundKind::kPreceding || end.kind == BoundKind::kFollowing);
    ArrayPtr range_key;
    if (range_offsets) {
      if (spec().order_by.size() != 1)
        return Status::InvalidArgument(
                   "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
            .WithSqlState("42P20");
      SHOAL_ASSIGN_OR_RETURN(auto keys, Evaluate({spec().order_by[0].expr}, *sorted_));
      SHOAL_ASSIGN_OR_RETURN(range_key, DecodeDictionary(keys[0], pool()));
      const DataType& kt = range_key->type();
      const bool asc = spec().order_by[0].ascending;
      if (kt.id() == TypeId::kFloat32 || kt.id() == TypeId::kFloat64) {
        range.is_float = true;
        auto as_double = [&](const Scalar& s) -> Result<double> {
          switch (s.type().id()) {
            case TypeId::kFloat32:
            case TypeId::kFloat64: return s.float_value();
            case TypeId::kDecimal:
              return static_cast<double>(s.decimal_value()) / std::pow(10.0, s.type().scale());
            default:
              if (s.type().is_integer())
                return static_cast<double>(s.int_value());
              return UnsupportedRange(kt, s.type());
          }
        };
        if (start.offset.type().id() != TypeId::kNull && !start.offset.is_null()) {
          SHOAL_ASSIGN_OR_RETURN(start_offset_f, as_double(start.offset));
        }
        if (end.offset.type().id() != TypeId::kNull && !end.offset.is_null()) {
          SHOAL_ASSIGN_OR_RETURN(end_offset_f, as_double(end.offset));
        }
        range.floats.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          const double v = kt.id() == TypeId::kFloat32
                               ? static_cast<double>(range_key->values<float>()[i])
                               : range_key->values<double>()[i];
          range.floats[static_cast<size_t>(i)] = asc ? v : -v;
        }
      } else {
        int128_t scale_start = 1;
        int128_t scale_end = 1;
        if (!start.offset.is_null()) {
          SHOAL_ASSIGN_OR_RETURN(start_offset, IntOffset(kt, start.offset, &scale_start));
        }
        if (!end.offset.is_null()) {
          SHOAL_ASSIGN_OR_RETURN(end_offset, IntOffset(kt, end.offset, &scale_end));
        }
        // Both offsets at the finer scale.
        const int128_t scale_up = std::max(scale_start, scale_end);
        if (!start.offset.is_null())
          start_offset *= scale_up / scale_start;
        if (!end.offset.is_null())
          end_offset *= scale_up / scale_end;
        SHOAL_RETURN_IF_ERROR(KeyDomain(*range_key, asc, scale_up, &range.ints));
      }
      extra_bytes_ = CapacityBytes(range.ints) + CapacityBytes(range.floats);
      SHOAL_RETURN_IF_ERROR(Reserve());
    }

    // Non-null rows of each partition, for RANGE offsets: [nn_start, nn_end).
    auto non_null_span = [&](int64_t i, int64_t* nn_start, int64_t* nn_end) {
      const auto u = static_cast<size_t>(i);
      *nn_start = partition_start_[u];
      *nn_end = partition_end_[u];
      const bool nulls_first = spec().order_by[0].nulls_first;
      if (range_key->null_count() == 0)
        return;
      if (nulls_first) {
        while (*nn_start < *nn_end && range_key->IsNull(*nn_start))
          *nn_start = peer_end_[static_cast<size_t>(*nn_start)];
      } else {
        while (*nn_end > *nn_start && range_key->IsNull(*nn_end - 1))
          *nn_end = peer_start_[static_cast<size_t>(*nn_end - 1)];
      }
    };
    // First row in [lo, hi) whose key is >= target (strict: > target).
    auto search = [&](int64_t lo, int64_t hi, int64_t i, bool add, bool is_start_offset,
                      bool strict) -> int64_t {
      if (range.is_float) {
        const double off = is_start_offset ? start_offset_f : end_offset_f;
        const double target = range.floats[static_cast<size_t>(i)] + (add ? off : -off);
        auto first = range.floats.begin() + lo;
        auto last = range.floats.begin() + hi;
        auto it =
            strict ? std::upper_bound(first, last, target) : std::lower_bound(first, last, target);
        return it - range.floats.begin();
      }
      const int128_t off = is_start_offset ? start_offset : end_offset;
      const int128_t target = range.ints[static_cast<size_t>(i)] + (add ? off : -off);
      auto first = range.ints.begin() + lo;
      auto last = range.ints.begin() + hi;
      auto it =
          strict ? std::upper_bound(first, last, target) : std::lower_bound(first, last, target);
      return it - range.ints.begin();
    };
    auto group_offset = [&](const Scalar& s) { return s.int_value(); };

    for (int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<size_t>(i);
      const int64_t ps = partition_start_[u];
      const int64_t pe = partition_end_[u];
      int64_t s = ps;
      int64_t e = pe;
      const bool null_key = range_offsets && range_key->IsNull(i);
      int64_t nn_start = ps;
      int64_t nn_end = pe;
      if (range_offsets && !null_key)
        non_null_span(i, &nn_start, &nn_end);
      switch (start.kind) {
        case BoundKind::kUnboundedPreceding: s = ps; break;
        case BoundKind::kCurrentRow: s = units == Units::kRows ? i : peer_start_[u]; break;
        case BoundKind::kPreceding:
        case BoundKind::kFollowing: {
          const bool preceding = start.kind == BoundKind::kPreceding;
          if (units == Units::kRows) {
            const int64_t k = std::min<int64_t>(start.offset.int_value(), n + 1);
            s = preceding ? std::max(ps, i - k) : std::min(pe, i + k);
          } else if (units == Units::kGroups) {
            const int64_t k = std::min<int64_t>(group_offset(start.offset), n + 1);
            const int64_t first_group = group_index_[static_cast<size_t>(ps)];
            const int64_t last_group = group_index_[static_cast<size_t>(pe - 1)];
            const int64_t g = group_index_[u] + (preceding ? -k : k);
            s = g < first_group ? ps : g > last_group ? pe : group_starts_[static_cast<size_t>(g)];
          } else if (null_key) {
            s = peer_start_[u];
          } else {
            s = search(nn_start, nn_end, i, !preceding, true, false);
          }
          break;
        }
        case BoundKind::kUnboundedFollowing: s = pe; break;
      }
      switch (end.kind) {
        case BoundKind::kUnboundedFollowing: e = pe; break;
        case BoundKind::kCurrentRow: e = units == Units::kRows ? i + 1 : peer_end_[u]; break;
        case BoundKind::kPreceding:
        case BoundKind::kFollowing: {
          const bool preceding = end.kind == BoundKind::kPreceding;
          if (units == Units::kRows) {
            const int64_t k = std::min<int64_t>(end.offset.int_value(), n + 1);
            e = preceding ? std::max(ps, i - k + 1) : std::min(pe, i + k + 1);
          } else if (units == Units::kGroups) {
            const int64_t k = std::min<int64_t>(group_offset(end.offset), n + 1);
            const int64_t first_group = group_index_[static_cast<size_t>(ps)];
            const int64_t last_group = group_index_[static_cast<size_t>(pe - 1)];
            const int64_t g = group_index_[u] + (preceding ? -k : k);
            e = g < first_group  ? ps
                : g > last_group ? pe
                                 : group_starts_[static_cast<size_t>(g) + 1];
          } else if (null_key) {
            e = peer_end_[u];
          } else {
            e = search(nn_start, nn_end, i, !preceding, false, true);
          }
          break;
        }
        case BoundKind::kUnboundedPreceding: e = ps; break;
      }
      frame_start_[u] = s;
      frame_end_[u] = std::max(s, e);
    }
    extra_bytes_ = 0;
    return Status::OK();
  }

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

std::string BoundText(const WindowExec::Bound& b) {
  switch (b.kind) {
    case BoundKind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
    case BoundKind::kPreceding: return b.offset.ToString() + " PRECEDING";
    case BoundKind::kCurrentRow: return "CURRENT ROW";
    case BoundKind::kFollowing: return b.offset.ToString() + " FOLLOWING";
    case BoundKind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

}  // namespace

Result<std::shared_ptr<WindowExec>> WindowExec::Make(ExecPlanPtr input,
                                                     std::vector<sql::ExprPtr> functions,
                                                     std::vector<std::string> names) {
  if (!input)
    return Status::Internal("Window without an input");
  if (functions.empty() || functions.size() != names.size())
    return Status::Internal("Window needs one name per function");
  const sql::Expr& first = *functions[0];
  std::vector<columnar::Field> fields = input->schema()->fields();
  std::vector<Bound> starts;
  std::vector<Bound> ends;
  for (size_t i = 0; i < functions.size(); ++i) {
    const sql::Expr& fn = *functions[i];
    if (fn.kind != sql::ExprKind::kWindow)
      return Status::Internal("Window function {} is not a window expression", fn.ToString());
    if (!SameExprs(fn.partition_by, first.partition_by) ||
        !SameSortKeys(fn.order_by, first.order_by))
      return Status::Internal("Window functions of one node must share PARTITION BY / ORDER BY");
    if (fn.distinct)
      return Status::NotImplemented("DISTINCT is not implemented for window functions");
    const bool known = UsesFrame(fn.name) || fn.name == "row_number" || fn.name == "rank" ||
                       fn.name == "dense_rank" || fn.name == "percent_rank" ||
                       fn.name == "cume_dist" || fn.name == "ntile" || fn.name == "lag" ||
                       fn.name == "lead";
    if (!known || fn.name == "string_agg")
      return Status::NotImplemented("window function {} is not supported yet", fn.name);
    // Check the expressions compile (and argument kernels exist) at plan time.
    for (const auto& a : fn.args) {
      SHOAL_RETURN_IF_ERROR(ExprEvaluator::Make(a, *input->schema(), DefaultMemoryPool()).status());
    }
    const Units units = fn.frame.units;
    if (units == Units::kGroups && fn.order_by.empty())
      return Status::InvalidArgument("GROUPS mode requires an ORDER BY clause")
          .WithSqlState("42P20");
    SHOAL_ASSIGN_OR_RETURN(auto s,
                           ResolveBound(fn.frame.start, fn.frame.start_offset, units, true));
    SHOAL_ASSIGN_OR_RETURN(auto e, ResolveBound(fn.frame.end, fn.frame.end_offset, units, false));
    const bool offset_bound = s.kind == BoundKind::kPreceding || s.kind == BoundKind::kFollowing ||
                              e.kind == BoundKind::kPreceding || e.kind == BoundKind::kFollowing;
    if (units == Units::kRange && offset_bound && fn.order_by.size() != 1)
      return Status::InvalidArgument(
                 "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
          .WithSqlState("42P20");
    if (units == Units::kRange && offset_bound) {
      // Refuse key and offset types without in_range support now, not at the first row.
      const DataType& key = fn.order_by[0].expr->type;
      for (const Bound* b : {&s, &e}) {
        if (b->kind != BoundKind::kPreceding && b->kind != BoundKind::kFollowing)
          continue;
        if (key.id() == TypeId::kFloat32 || key.id() == TypeId::kFloat64) {
          const DataType& t = b->offset.type();
          if (!(t.is_integer() || t.id() == TypeId::kDecimal || t.id() == TypeId::kFloat32 ||
                t.id() == TypeId::kFloat64))
            return UnsupportedRange(key, t);
        } else {
          int128_t scale_up = 1;
          SHOAL_RETURN_IF_ERROR(IntOffset(key, b->offset, &scale_up).status());
        }
      }
    }
    starts.push_back(std::move(s));
    ends.push_back(std::move(e));
    fields.emplace_back(names[i], fn.type, fn.nullable);
  }
  auto schema = std::make_shared<columnar::Schema>(std::move(fields));
  return std::shared_ptr<WindowExec>(new WindowExec(std::move(input), std::move(schema),
                                                    std::move(functions), std::move(names),
                                                    std::move(starts), std::move(ends)));
}

Result<ExecPlanPtr> WindowExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 1)
    return Status::Internal("Window takes one child");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), functions_, names_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> WindowExec::Execute(int partition,
                                      const std::shared_ptr<TaskContext>& context) const {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr input, input_->Execute(partition, context));
  return StreamPtr(std::make_unique<WindowStream>(this, partition, context, std::move(input)));
}

std::string WindowExec::Describe(bool) const {
  const sql::Expr& first = *functions_[0];
  std::string out;
  if (!first.partition_by.empty())
    out += "partition_by=[" + ExprListText(first.partition_by) + "], ";
  if (!first.order_by.empty()) {
    out += "order_by=[";
    for (size_t i = 0; i < first.order_by.size(); ++i) {
      const auto& k = first.order_by[i];
      if (i > 0)
        out += ", ";
      out += fmt::format("{} {} NULLS {}", ExprText(*k.expr), k.ascending ? "ASC" : "DESC",
                         k.nulls_first ? "FIRST" : "LAST");
    }
    out += "], ";
  }
  out += "functions=[";
  for (size_t i = 0; i < functions_.size(); ++i) {
    const sql::Expr& fn = *functions_[i];
    if (i > 0)
      out += ", ";
    std::string args;
    for (size_t a = 0; a < fn.args.size(); ++a)
      args += (a > 0 ? ", " : "") + ExprText(*fn.args[a]);
    if (fn.name == "count" && fn.args.empty())
      args = "*";
    out += fmt::format("{}({})", fn.name, args);
    if (UsesFrame(fn.name)) {
      const char* units = fn.frame.units == Units::kRows    ? "ROWS"
                          : fn.frame.units == Units::kRange ? "RANGE"
                                                            : "GROUPS";
      out +=
          fmt::format(" {} BETWEEN {} AND {}", units, BoundText(starts_[i]), BoundText(ends_[i]));
    }
    out += " AS " + names_[i];
  }
  out += "]";
  return out;
}

}  // namespace shoal::exec

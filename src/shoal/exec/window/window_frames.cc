// Window frames: the plan-time resolution of frame bounds (constant offsets, checked once), the
// frame [start, end) of every row for ROWS, RANGE (binary searches over the single order key
// mapped into one numeric domain) and GROUPS, and aggregates over those frames with a segment
// tree of partial states.

#include <algorithm>
#include <cmath>

#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/operators/window_exec_internal.h"
#include "shoal/exec/window/segment_tree.h"

namespace shoal::exec::internal {

namespace {

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

// RANGE offsets: the single order key and the offsets mapped into one numeric domain where the
// key is ascending (DESC keys negated), so bounds are binary searches.
struct RangeDomain {
  bool is_float = false;
  std::vector<int128_t> ints;
  std::vector<double> floats;
};

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

}  // namespace

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

Status WindowStream::ComputeFrames(size_t f, int64_t n) {
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

Result<ArrayPtr> WindowStream::FrameAggregate(const sql::Expr& fn,
                                              const std::vector<ArrayPtr>& args, int64_t n) {
  const std::string& name = fn.name;
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
      auto tree,
      SegmentTreeAggregator::Make(fn, args, include.empty() ? nullptr : include.data(), n, pool()));
  // The tree's states are pool buffers; its query keeps per-row cursors and node lists.
  extra_bytes_ = 32 * n;
  SHOAL_RETURN_IF_ERROR(Reserve());
  auto result = tree->Evaluate(frame_start_.data(), frame_end_.data());
  extra_bytes_ = 0;
  return result;
}

}  // namespace shoal::exec::internal

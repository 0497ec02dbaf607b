// The accumulator of aggregates that need their rows in order (sql/ordered_aggregates.h):
// string_agg(x, s ORDER BY y) and the ordered-set aggregates percentile_cont, percentile_disc and
// mode() WITHIN GROUP (ORDER BY x).
//
// Update() gathers the selected rows' columns (one gathered chunk per batch, no per-row boxing)
// and their group ids. At the end, one sort of all rows by (group id, ORDER BY keys) through the
// memcmp-able sort key encoder puts every group's rows in a contiguous, ordered run; then
//  - an order-sensitive aggregate feeds the whole permutation to an ordinary accumulator of the
//    same function, whose typed loop visits the rows in that order (the sort is stable, so ties
//    keep their input order, as PostgreSQL's sort of a single stream does);
//  - percentile_disc / mode pick one row of each run (equal values found by comparing encoded
//    keys) and gather it; percentile_cont interpolates float8 or interval values as PostgreSQL's
//    float8_lerp / interval_lerp do.
// NULL values of an ordered-set aggregate are dropped on the way in (PostgreSQL ignores them).
// The direct argument (the fraction) is kept once per group: PostgreSQL evaluates it once per
// group, so a literal fraction also applies to groups that saw no rows (a global aggregate over
// an empty input), where an out-of-range fraction is still an error.
//
// There is no mergeable partial state: State()/Merge() refuse, and planners run these aggregates
// in one phase over input partitioned by the group keys. A spilling hash aggregate writes the
// buffered rows out instead (BufferedRows) and feeds them back through Update().
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "shoal/exec/aggregate/accumulator_internal.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec::internal {
namespace {

enum class OrderedKind : uint8_t { kOrderSensitive, kPercentileCont, kPercentileDisc, kMode };

constexpr double kDaysPerMonth = 30;
constexpr double kSecondsPerDay = 86400;
constexpr int64_t kNanosPerMicro = 1000;

// PostgreSQL's TSROUND: rounds to microsecond precision of a value in days or seconds.
double TsRound(double v) {
  return std::rint(v * 1e6) / 1e6;
}

Status IntervalOutOfRange() {
  return Status::OutOfRange("interval out of range").WithSqlState("22008");
}

// PostgreSQL 15's interval_mul(span, factor) on (months, days, microseconds): the fractional
// months cascade into days (30 per month) and the fractional days into seconds.
Result<MonthDayNano> IntervalMul(const MonthDayNano& span, double factor) {
  const double months = span.months * factor;
  const double days = span.days * factor;
  if (std::isnan(months) || months > std::numeric_limits<int32_t>::max() ||
      months < std::numeric_limits<int32_t>::min() || std::isnan(days) ||
      days > std::numeric_limits<int32_t>::max() || days < std::numeric_limits<int32_t>::min())
    return IntervalOutOfRange();
  MonthDayNano out{static_cast<int32_t>(months), static_cast<int32_t>(days), 0};
  double month_remainder_days = TsRound((span.months * factor - out.months) * kDaysPerMonth);
  double sec_remainder = TsRound((span.days * factor - out.days + month_remainder_days -
                                  static_cast<int32_t>(month_remainder_days)) *
                                 kSecondsPerDay);
  if (std::fabs(sec_remainder) >= kSecondsPerDay) {
    const auto whole = static_cast<int32_t>(sec_remainder / kSecondsPerDay);
    out.days += whole;
    sec_remainder -= whole * kSecondsPerDay;
  }
  out.days += static_cast<int32_t>(month_remainder_days);
  // Whole microseconds first (intervals hold microseconds), then the fractional scaling.
  const int64_t span_micros = span.nanoseconds / kNanosPerMicro;
  const double micros = std::rint(static_cast<double>(span_micros) * factor + sec_remainder * 1e6);
  if (std::isnan(micros) || micros >= 9.2e18 || micros <= -9.2e18)
    return IntervalOutOfRange();
  out.nanoseconds = static_cast<int64_t>(micros) * kNanosPerMicro;
  return out;
}

Result<MonthDayNano> IntervalAdd(const MonthDayNano& a, const MonthDayNano& b, int sign) {
  const int64_t months = static_cast<int64_t>(a.months) + sign * static_cast<int64_t>(b.months);
  const int64_t days = static_cast<int64_t>(a.days) + sign * static_cast<int64_t>(b.days);
  int64_t nanos = 0;
  const bool overflow = sign > 0 ? __builtin_add_overflow(a.nanoseconds, b.nanoseconds, &nanos)
                                 : __builtin_sub_overflow(a.nanoseconds, b.nanoseconds, &nanos);
  if (overflow || months > std::numeric_limits<int32_t>::max() ||
      months < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max() ||
      days < std::numeric_limits<int32_t>::min())
    return IntervalOutOfRange();
  return MonthDayNano{static_cast<int32_t>(months), static_cast<int32_t>(days), nanos};
}

// PostgreSQL's interval_lerp: lo + (hi - lo) * pct.
Result<MonthDayNano> IntervalLerp(const MonthDayNano& lo, const MonthDayNano& hi, double pct) {
  SHOAL_ASSIGN_OR_RETURN(MonthDayNano diff, IntervalAdd(hi, lo, -1));
  SHOAL_ASSIGN_OR_RETURN(MonthDayNano mul, IntervalMul(diff, pct));
  return IntervalAdd(lo, mul, 1);
}

class OrderedAccumulator final : public Accumulator {
 public:
  OrderedAccumulator(OrderedKind kind, std::string name, int num_args, DataType result_type,
                     std::vector<SortOrder> orders, AccPtr inner,
                     std::optional<double> constant_fraction)
      : kind_(kind),
        name_(std::move(name)),
        num_args_(num_args),
        result_type_(std::move(result_type)),
        orders_(std::move(orders)),
        inner_(std::move(inner)),
        constant_fraction_(constant_fraction) {}

  void Resize(int64_t n) override {
    num_groups_ = n;
    if (HasFraction()) {
      fraction_.resize(static_cast<size_t>(n), 0);
      fraction_state_.resize(static_cast<size_t>(n), kFractionUnseen);
    }
  }

  // args: the aggregate's arguments, then its ORDER BY keys.
  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    if (args.size() != static_cast<size_t>(num_args_) + orders_.size())
      return Status::Internal("{}: expected {} arguments and sort keys, got {}", name_,
                              num_args_ + orders_.size(), args.size());
    if (HasFraction())
      RecordFractions(*args[0], in);
    // Which columns are kept: all of them for an order-sensitive aggregate, the value (the one
    // key) for an ordered-set one, whose NULL values are dropped here.
    selection_.clear();
    const Array* filter_nulls = kind_ == OrderedKind::kOrderSensitive ? nullptr : args.back().get();
    if (filter_nulls != nullptr) {
      ForEachValid(filter_nulls, in, [&](int64_t r, uint32_t g) {
        selection_.push_back(static_cast<int32_t>(r));
        groups_.push_back(g);
      });
    } else {
      for (int64_t i = 0; i < in.count; ++i) {
        const int32_t r = in.rows ? in.rows[i] : static_cast<int32_t>(i);
        selection_.push_back(r);
        groups_.push_back(in.groups[r]);
      }
    }
    if (selection_.empty())
      return Status::OK();
    const size_t first = kind_ == OrderedKind::kOrderSensitive ? 0 : args.size() - 1;
    if (chunks_.empty())
      chunks_.resize(args.size() - first);
    for (size_t c = first; c < args.size(); ++c) {
      SHOAL_ASSIGN_OR_RETURN(
          ArrayPtr taken, Take(*args[c], selection_.data(), static_cast<int64_t>(selection_.size()),
                               DefaultMemoryPool()));
      buffered_bytes_ += taken->BufferBytes();
      chunks_[c - first].push_back(std::move(taken));
    }
    return Status::OK();
  }

  Status BufferedRows(const std::shared_ptr<MemoryPool>& pool, std::vector<ArrayPtr>* columns,
                      std::vector<uint32_t>* groups) const override {
    columns->clear();
    *groups = groups_;
    if (groups_.empty())
      return Status::OK();
    if (HasFraction()) {
      // Rows carry their group's fraction again, as they came in.
      std::vector<double> fractions(groups_.size());
      std::vector<uint8_t> valid(groups_.size());
      for (size_t i = 0; i < groups_.size(); ++i) {
        fractions[i] = fraction_[groups_[i]];
        valid[i] = fraction_state_[groups_[i]] == kFractionValid;
      }
      SHOAL_ASSIGN_OR_RETURN(
          ArrayPtr f, MakeFixedArray<double>(DataType::Float64(), fractions.data(), valid.data(),
                                             static_cast<int64_t>(groups_.size()), pool));
      columns->push_back(std::move(f));
    }
    for (const auto& chunk : chunks_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(chunk, pool));
      columns->push_back(std::move(all));
    }
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>&, const GroupedRows&) override {
    return Status::Internal("{} with ORDER BY has no partial state to merge", name_);
  }

  Result<std::vector<ArrayPtr>> State(int64_t, int64_t,
                                      const std::shared_ptr<MemoryPool>&) const override {
    return Status::Internal("{} with ORDER BY has no partial state", name_);
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    if (!results_) {
      SHOAL_ASSIGN_OR_RETURN(results_, Finish(pool));
    }
    if (start == 0 && length == results_->length())
      return results_;
    return results_->Slice(start, length);
  }

  int64_t MemoryBytes() const override {
    int64_t bytes = buffered_bytes_ + Bytes(groups_) + Bytes(selection_) + Bytes(fraction_) +
                    Bytes(fraction_state_);
    if (inner_)
      bytes += inner_->MemoryBytes();
    return bytes;
  }

 private:
  static constexpr uint8_t kFractionUnseen = 0;
  static constexpr uint8_t kFractionNull = 1;
  static constexpr uint8_t kFractionValid = 2;

  bool HasFraction() const {
    return kind_ == OrderedKind::kPercentileCont || kind_ == OrderedKind::kPercentileDisc;
  }

  // The fraction of each group, taken from its first row (it is the same for the whole group).
  void RecordFractions(const Array& fractions, const GroupedRows& in) {
    const bool null_type = fractions.type_id() == TypeId::kNull;
    const double* v = null_type ? nullptr : fractions.values<double>();
    for (int64_t i = 0; i < in.count; ++i) {
      const int32_t r = in.rows ? in.rows[i] : static_cast<int32_t>(i);
      const uint32_t g = in.groups[r];
      if (fraction_state_[g] != kFractionUnseen)
        continue;
      if (null_type || !fractions.IsValid(r)) {
        fraction_state_[g] = kFractionNull;
      } else {
        fraction_state_[g] = kFractionValid;
        fraction_[g] = v[r];
      }
    }
  }

  // The fraction group g uses: nullopt for NULL (the result is NULL), an error out of [0, 1].
  Result<std::optional<double>> FractionOf(int64_t g) const {
    double f = 0;
    const uint8_t state = fraction_state_[static_cast<size_t>(g)];
    if (state == kFractionNull)
      return std::optional<double>();
    if (state == kFractionValid) {
      f = fraction_[static_cast<size_t>(g)];
    } else if (constant_fraction_) {
      f = *constant_fraction_;
    } else {
      return std::optional<double>();  // no rows and a fraction only rows could tell
    }
    if (std::isnan(f) || f < 0 || f > 1)
      return Status::OutOfRange("percentile value {:g} is not between 0 and 1", f)
          .WithSqlState("22003");
    return std::optional<double>(f);
  }

  Result<ArrayPtr> Finish(const std::shared_ptr<MemoryPool>& pool) const {
    const auto n = static_cast<int64_t>(groups_.size());
    std::vector<ArrayPtr> columns;
    for (const auto& chunk : chunks_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(chunk, pool));
      columns.push_back(std::move(all));
    }
    // Sort all rows by (group id, ORDER BY keys): every group becomes one ordered run.
    std::vector<int32_t> permutation;
    EncodedRows encoded;
    if (n > 0) {
      auto group_buffer =
          columnar::Buffer::Wrap(reinterpret_cast<const uint8_t*>(groups_.data()),
                                 n * static_cast<int64_t>(sizeof(uint32_t)), nullptr);
      std::vector<ArrayPtr> keys{Array::Make(DataType::UInt32(), n, {nullptr, group_buffer}, 0)};
      keys.insert(keys.end(), columns.end() - static_cast<std::ptrdiff_t>(orders_.size()),
                  columns.end());
      std::vector<SortOrder> orders{SortOrder{}};
      orders.insert(orders.end(), orders_.begin(), orders_.end());
      SHOAL_RETURN_IF_ERROR(encoded.Encode(keys, orders, n));
      encoded.Sort(&permutation);
    }
    if (kind_ == OrderedKind::kOrderSensitive) {
      inner_->Resize(num_groups_);
      if (n > 0) {
        std::vector<ArrayPtr> args(columns.begin(), columns.begin() + num_args_);
        SHOAL_RETURN_IF_ERROR(
            inner_->Update(args, GroupedRows{groups_.data(), permutation.data(), n}));
      }
      return inner_->Finalize(0, num_groups_, pool);
    }
    // Ordered-set aggregates: one run [begin, end) of non-null values per group.
    std::vector<int64_t> begin(static_cast<size_t>(num_groups_), 0);
    std::vector<int64_t> end(static_cast<size_t>(num_groups_), 0);
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t g = groups_[static_cast<size_t>(permutation[static_cast<size_t>(i)])];
      if (i == 0 || groups_[static_cast<size_t>(permutation[static_cast<size_t>(i - 1)])] != g)
        begin[g] = i;
      end[g] = i + 1;
    }
    const ArrayPtr& values = n > 0 ? columns.back() : nullptr;
    if (kind_ == OrderedKind::kPercentileCont)
      return PercentileCont(values, permutation, begin, end, pool);
    // percentile_disc / mode: the row each group picks, gathered (-1: NULL).
    std::vector<int32_t> picks(static_cast<size_t>(num_groups_), -1);
    for (int64_t g = 0; g < num_groups_; ++g) {
      const int64_t b = begin[static_cast<size_t>(g)];
      const int64_t count = end[static_cast<size_t>(g)] - b;
      if (kind_ == OrderedKind::kPercentileDisc) {
        SHOAL_ASSIGN_OR_RETURN(std::optional<double> f, FractionOf(g));
        if (!f || count == 0)
          continue;
        // PostgreSQL: the first value whose position in the ordering is >= fraction * count.
        auto row = static_cast<int64_t>(std::ceil(*f * static_cast<double>(count)));
        row = std::max<int64_t>(row, 1);
        picks[static_cast<size_t>(g)] = permutation[static_cast<size_t>(b + row - 1)];
      } else if (count > 0) {
        // mode: the most frequent value; among equally frequent ones the first in the ordering.
        int64_t best = b;
        int64_t best_count = 0;
        int64_t run = b;
        for (int64_t i = b + 1; i <= b + count; ++i) {
          if (i == b + count ||
              EncodedRows::Compare(encoded, permutation[static_cast<size_t>(i - 1)], encoded,
                                   permutation[static_cast<size_t>(i)]) != 0) {
            if (i - run > best_count) {
              best_count = i - run;
              best = run;
            }
            run = i;
          }
        }
        picks[static_cast<size_t>(g)] = permutation[static_cast<size_t>(best)];
      }
    }
    if (!values) {
      // No row at all: every group is NULL.
      return MakeAllNull(pool);
    }
    return Take(*values, picks.data(), num_groups_, pool, /*allow_null_index=*/true);
  }

  Result<ArrayPtr> MakeAllNull(const std::shared_ptr<MemoryPool>& pool) const {
    std::unique_ptr<columnar::ArrayBuilder> builder = columnar::MakeBuilder(result_type_, pool);
    SHOAL_RETURN_IF_ERROR(builder->AppendNulls(num_groups_));
    return builder->Finish();
  }

  Result<ArrayPtr> PercentileCont(const ArrayPtr& values, const std::vector<int32_t>& permutation,
                                  const std::vector<int64_t>& begin,
                                  const std::vector<int64_t>& end,
                                  const std::shared_ptr<MemoryPool>& pool) const {
    const bool interval = result_type_.id() == TypeId::kInterval;
    std::vector<double> doubles(interval ? 0 : static_cast<size_t>(num_groups_), 0);
    std::vector<MonthDayNano> intervals(interval ? static_cast<size_t>(num_groups_) : 0,
                                        MonthDayNano{0, 0, 0});
    std::vector<uint8_t> valid(static_cast<size_t>(num_groups_), 0);
    for (int64_t g = 0; g < num_groups_; ++g) {
      SHOAL_ASSIGN_OR_RETURN(std::optional<double> f, FractionOf(g));
      const int64_t b = begin[static_cast<size_t>(g)];
      const int64_t count = end[static_cast<size_t>(g)] - b;
      if (!f || count == 0)
        continue;
      // PostgreSQL: interpolate between the values at floor and ceil of fraction * (count - 1).
      const double position = *f * static_cast<double>(count - 1);
      const auto first = static_cast<int64_t>(std::floor(position));
      const auto second = static_cast<int64_t>(std::ceil(position));
      const double proportion = position - static_cast<double>(first);
      const int32_t lo = permutation[static_cast<size_t>(b + first)];
      const int32_t hi = permutation[static_cast<size_t>(b + second)];
      valid[static_cast<size_t>(g)] = 1;
      if (interval) {
        const MonthDayNano* v = values->values<MonthDayNano>();
        if (first == second) {
          intervals[static_cast<size_t>(g)] = v[lo];
        } else {
          SHOAL_ASSIGN_OR_RETURN(intervals[static_cast<size_t>(g)],
                                 IntervalLerp(v[lo], v[hi], proportion));
        }
      } else {
        const double* v = values->values<double>();
        doubles[static_cast<size_t>(g)] =
            first == second ? v[lo] : v[lo] + (v[hi] - v[lo]) * proportion;
      }
    }
    if (interval)
      return MakeFixedArray<MonthDayNano>(result_type_, intervals.data(), valid.data(), num_groups_,
                                          pool);
    return MakeFixedArray<double>(result_type_, doubles.data(), valid.data(), num_groups_, pool);
  }

  OrderedKind kind_;
  std::string name_;
  int num_args_;
  DataType result_type_;
  std::vector<SortOrder> orders_;
  AccPtr inner_;                             // kOrderSensitive: the plain accumulator fed in order
  std::optional<double> constant_fraction_;  // a literal fraction, for groups without rows

  int64_t num_groups_ = 0;
  std::vector<std::vector<ArrayPtr>> chunks_;  // per kept column, one gathered array per batch
  std::vector<uint32_t> groups_;               // the group of each buffered row
  int64_t buffered_bytes_ = 0;
  SelectionVector selection_;
  std::vector<double> fraction_;
  std::vector<uint8_t> fraction_state_;
  mutable ArrayPtr results_;
};

}  // namespace

Result<AccPtr> MakeOrderedAccumulator(const sql::Expr& agg, AccPtr inner) {
  std::vector<SortOrder> orders;
  for (const auto& key : agg.order_by)
    orders.push_back(SortOrder{key.ascending, key.nulls_first});
  OrderedKind kind = OrderedKind::kOrderSensitive;
  if (agg.name == "percentile_cont") {
    kind = OrderedKind::kPercentileCont;
  } else if (agg.name == "percentile_disc") {
    kind = OrderedKind::kPercentileDisc;
  } else if (agg.name == "mode") {
    kind = OrderedKind::kMode;
  } else if (!inner) {
    return Status::Internal("{} with ORDER BY needs its plain accumulator", agg.name);
  }
  std::optional<double> constant;
  if (kind == OrderedKind::kPercentileCont || kind == OrderedKind::kPercentileDisc) {
    if (agg.args.size() != 1 || agg.order_by.size() != 1)
      return Status::Internal("{} takes one fraction and one ORDER BY key", agg.name);
    if (agg.args[0]->type.id() != TypeId::kFloat64 && agg.args[0]->type.id() != TypeId::kNull)
      return Status::Internal("{}: the fraction must be float8, not {}", agg.name,
                              agg.args[0]->type.ToString());
    const sql::Expr& fraction = *agg.args[0];
    if (fraction.kind == sql::ExprKind::kLiteral) {
      if (!fraction.value.is_null() && fraction.type.id() == TypeId::kFloat64)
        constant = fraction.value.float_value();
    }
    if (kind == OrderedKind::kPercentileCont &&
        agg.order_by[0].expr->type.id() != TypeId::kFloat64 &&
        agg.order_by[0].expr->type.id() != TypeId::kInterval)
      return Status::Internal("percentile_cont of {}", agg.order_by[0].expr->type.ToString());
  } else if (kind == OrderedKind::kMode) {
    if (!agg.args.empty() || agg.order_by.size() != 1)
      return Status::Internal("mode takes no argument and one ORDER BY key");
  }
  return AccPtr(new OrderedAccumulator(kind, agg.name, static_cast<int>(agg.args.size()), agg.type,
                                       std::move(orders), std::move(inner), constant));
}

}  // namespace shoal::exec::internal

// The counting and summing accumulators: count, sum over integers (int64 with overflow checks),
// floats and intervals, and the exact int128 sums behind sum(decimal) and avg over integers and
// decimals; avg over floats sums in double.
#include <algorithm>
#include <string>

#include "shoal/exec/aggregate/accumulator_internal.h"

namespace shoal::exec::internal {
namespace {

Status BigintOverflow() {
  return Status::OutOfRange("bigint out of range");
}

Status NumericOverflow() {
  return Status::OutOfRange("numeric field overflow");
}

// Rows ahead whose group entry an update loop prefetches.
constexpr int64_t kPrefetchDistance = 16;

// Whether each of groups [start, start + length) has counted a row (its sum or avg is not NULL).
std::vector<uint8_t> Counted(const std::vector<int64_t>& counts, int64_t start, int64_t length) {
  std::vector<uint8_t> valid(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i)
    valid[static_cast<size_t>(i)] = counts[static_cast<size_t>(start + i)] != 0;
  return valid;
}

// The averages of groups [start, start + length): avg_of(g) for each group that counted a row,
// NULL for the others. Runs once per output batch, so the lambda costs nothing per input row.
template <typename AvgOf>
Result<ArrayPtr> Average(const std::vector<int64_t>& counts, int64_t start, int64_t length,
                         const DataType& type, const std::shared_ptr<MemoryPool>& pool,
                         AvgOf&& avg_of) {
  std::vector<double> avg(static_cast<size_t>(length));
  std::vector<uint8_t> valid(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) {
    const size_t g = static_cast<size_t>(start + i);
    valid[static_cast<size_t>(i)] = counts[g] != 0;
    if (counts[g] != 0)
      avg[static_cast<size_t>(i)] = avg_of(g);
  }
  return MakeFixedArray<double>(type, avg.data(), valid.data(), length, pool);
}

// ---- count ----------------------------------------------------------------------------------

class CountAccumulator final : public ResultIsStateAccumulator {
 public:
  explicit CountAccumulator(bool star) : star_(star) {}

  void Resize(int64_t n) override { counts_.resize(static_cast<size_t>(n), 0); }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    int64_t* c = counts_.data();
    ForEachValid(star_ ? nullptr : args[0].get(), in, [c](int64_t, uint32_t g) { ++c[g]; });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    int64_t* c = counts_.data();
    const int64_t* v = states[0]->values<int64_t>();
    ForEachValid(states[0].get(), in, [c, v](int64_t r, uint32_t g) { c[g] += v[r]; });
    return Status::OK();
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeFixedArray<int64_t>(DataType::Int64(), counts_.data() + start, nullptr, length,
                                   pool);
  }

  int64_t MemoryBytes() const override { return Bytes(counts_); }

 private:
  bool star_;
  std::vector<int64_t> counts_;
};

// ---- sum(integer) -> int64, sum(float) -> float64 ------------------------------------------

// Sum is int64_t (overflow is an error) or double.
template <typename In, typename Sum>
class SumAccumulator final : public GroupValueAccumulator<Sum> {
 public:
  SumAccumulator()
      : GroupValueAccumulator<Sum>(
            std::is_floating_point_v<Sum> ? DataType::Float64() : DataType::Int64(), 0) {}

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    return Add<In>(*args[0], in);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Add<Sum>(*states[0], in);
  }

 private:
  template <typename T>
  Status Add(const Array& a, const GroupedRows& in) {
    const T* v = a.values<T>();
    Sum* sums = this->values_.data();
    uint8_t* seen = this->seen_.data();
    if constexpr (std::is_floating_point_v<Sum>) {
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        sums[g] += static_cast<double>(v[r]);
        seen[g] = 1;
      });
      return Status::OK();
    } else {
      bool overflow = false;
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        int64_t x;
        if constexpr (std::is_same_v<T, uint64_t>) {
          overflow |= v[r] > static_cast<uint64_t>(INT64_MAX);
          x = static_cast<int64_t>(v[r]);
        } else {
          x = static_cast<int64_t>(v[r]);
        }
        overflow |= __builtin_add_overflow(sums[g], x, &sums[g]);
        seen[g] = 1;
      });
      return overflow ? BigintOverflow() : Status::OK();
    }
  }
};

// ---- sum(interval) --------------------------------------------------------------------------

class SumIntervalAccumulator final : public GroupValueAccumulator<MonthDayNano> {
 public:
  SumIntervalAccumulator()
      : GroupValueAccumulator<MonthDayNano>(DataType::Interval(), MonthDayNano{0, 0, 0}) {}

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const MonthDayNano* v = args[0]->values<MonthDayNano>();
    MonthDayNano* s = values_.data();
    uint8_t* seen = seen_.data();
    bool overflow = false;
    ForEachValid(args[0].get(), in, [&](int64_t r, uint32_t g) {
      overflow |= __builtin_add_overflow(s[g].months, v[r].months, &s[g].months);
      overflow |= __builtin_add_overflow(s[g].days, v[r].days, &s[g].days);
      overflow |= __builtin_add_overflow(s[g].nanoseconds, v[r].nanoseconds, &s[g].nanoseconds);
      seen[g] = 1;
    });
    return overflow ? Status::OutOfRange("interval out of range") : Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Update(states, in);
  }
};

// ---- sum(decimal) -> decimal(38, s); avg over integers and decimals --------------------------

// Exact sums in int128 (the unscaled value at the input's scale) and, for avg, counts.
template <typename In, bool kAvg>
class ExactSumAccumulator final : public Accumulator {
 public:
  ExactSumAccumulator(int scale, DataType result) : scale_(scale), result_(std::move(result)) {}

  void Resize(int64_t n) override { groups_.resize(static_cast<size_t>(n), SumCount{0, 0}); }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    return Add<In>(*args[0], nullptr, in);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Add<int128_t>(*states[0], kAvg ? states[1].get() : nullptr, in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<int128_t> sums_of(static_cast<size_t>(length));
    std::vector<int64_t> counts_of(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i) {
      sums_of[static_cast<size_t>(i)] = groups_[static_cast<size_t>(start + i)].sum;
      counts_of[static_cast<size_t>(i)] = groups_[static_cast<size_t>(start + i)].count;
    }
    std::vector<uint8_t> valid = Counted(counts_of, 0, length);
    std::vector<ArrayPtr> out;
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr sums, MakeFixedArray<int128_t>(SumType(), sums_of.data(),
                                                                   valid.data(), length, pool));
    SHOAL_RETURN_IF_ERROR(CheckRange(sums, length));
    out.push_back(std::move(sums));
    if (kAvg) {
      SHOAL_ASSIGN_OR_RETURN(
          ArrayPtr counts,
          MakeFixedArray<int64_t>(DataType::Int64(), counts_of.data(), nullptr, length, pool));
      out.push_back(std::move(counts));
    }
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    if (!kAvg) {
      SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> state, State(start, length, pool));
      return state[0];
    }
    const long double scale = static_cast<long double>(columnar::PowerOfTen(scale_));
    std::vector<int64_t> counts_of(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i)
      counts_of[static_cast<size_t>(i)] = groups_[static_cast<size_t>(start + i)].count;
    return Average(counts_of, 0, length, result_, pool, [&](size_t i) {
      const SumCount& g = groups_[static_cast<size_t>(start) + i];
      return static_cast<double>(static_cast<long double>(g.sum) / scale /
                                 static_cast<long double>(g.count));
    });
  }

  int64_t MemoryBytes() const override { return Bytes(groups_); }

 private:
  DataType SumType() const { return DataType::Decimal(DataType::kMaxDecimalPrecision, scale_); }

  Status CheckRange(const ArrayPtr& sums, int64_t length) const {
    const int128_t max = columnar::MaxUnscaled(DataType::kMaxDecimalPrecision);
    const int128_t* v = sums->values<int128_t>();
    for (int64_t i = 0; i < length; ++i) {
      if (v[i] > max || v[i] < -max)
        return NumericOverflow();
    }
    return Status::OK();
  }

  using u128 = unsigned __int128;  // NOLINT(readability-identifier-naming): as uint64_t
  static constexpr u128 kInt128Max = ~u128{0} >> 1;

  // Whether adding `rows` values of `a` keeps bound_ below 2^127, updating it: then no add of
  // the batch can overflow and the per-row check is not needed. Values of at most 64 bits need
  // no pass (their magnitude is at most 2^64); int128 values (states being merged, wide decimals)
  // are measured once per batch, over every slot (a NULL's value only makes the bound larger).
  template <typename T>
  bool AddFits(const Array& a, int64_t rows) {
    u128 magnitude = 0;
    if constexpr (sizeof(T) <= sizeof(int64_t)) {
      magnitude = u128{1} << 64;
    } else {
      const T* v = a.values<T>();
      for (int64_t i = 0; i < a.length(); ++i) {
        // -(x + 1) + 1: negating the smallest int128 itself would overflow.
        const u128 m = v[i] < 0 ? static_cast<u128>(-(v[i] + 1)) + 1 : static_cast<u128>(v[i]);
        magnitude = std::max(magnitude, m);
      }
    }
    if (rows <= 0 || magnitude == 0)
      return true;
    if (bound_ >= kInt128Max || (kInt128Max - bound_) / magnitude < static_cast<u128>(rows)) {
      bound_ = kInt128Max;  // from now on every batch is checked row by row
      return false;
    }
    bound_ += magnitude * static_cast<u128>(rows);
    return true;
  }

  // `counts` (merging avg states) holds the partial counts; otherwise each value counts once.
  template <typename T>
  Status Add(const Array& a, const Array* counts, const GroupedRows& in) {
    const T* v = a.values<T>();
    SumCount* groups = groups_.data();
    if (AddFits<T>(a, in.count)) {
      if (counts) {
        const int64_t* c = counts->values<int64_t>();
        ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
          groups[g].sum += static_cast<int128_t>(v[r]);
          groups[g].count += c[r];
        });
      } else if (in.rows == nullptr && a.null_count() == 0) {
        // Every row, no NULLs: the common case of a large GROUP BY, where each row's group is a
        // random access; its entry is prefetched a few rows ahead.
        const uint32_t* gid = in.groups;
        for (int64_t r = 0; r < in.count; ++r) {
          if (r + kPrefetchDistance < in.count)
            __builtin_prefetch(&groups[gid[r + kPrefetchDistance]]);
          groups[gid[r]].sum += static_cast<int128_t>(v[r]);
          ++groups[gid[r]].count;
        }
      } else {
        ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
          groups[g].sum += static_cast<int128_t>(v[r]);
          ++groups[g].count;
        });
      }
      return Status::OK();
    }
    bool overflow = false;
    if (counts) {
      const int64_t* c = counts->values<int64_t>();
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        overflow |=
            __builtin_add_overflow(groups[g].sum, static_cast<int128_t>(v[r]), &groups[g].sum);
        groups[g].count += c[r];
      });
    } else {
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        overflow |=
            __builtin_add_overflow(groups[g].sum, static_cast<int128_t>(v[r]), &groups[g].sum);
        ++groups[g].count;
      });
    }
    return overflow ? NumericOverflow() : Status::OK();
  }

  int scale_;
  DataType result_;
  // An upper bound on the magnitude of every group's sum (kInt128Max once unknown): while the
  // next batch cannot take it past 2^127, the batch adds without per-row overflow checks.
  u128 bound_ = 0;
  // A group's sum and count side by side: with many groups each row's update touches one cache
  // line instead of two.
  struct SumCount {
    int128_t sum;
    int64_t count;
  };
  std::vector<SumCount> groups_;
};

// ---- avg(float) -> float64 ------------------------------------------------------------------

template <typename In>
class AvgFloatAccumulator final : public Accumulator {
 public:
  void Resize(int64_t n) override {
    sums_.resize(static_cast<size_t>(n), 0);
    counts_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const In* v = args[0]->values<In>();
    double* s = sums_.data();
    int64_t* c = counts_.data();
    ForEachValid(args[0].get(), in, [&](int64_t r, uint32_t g) {
      s[g] += static_cast<double>(v[r]);
      ++c[g];
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    const double* v = states[0]->values<double>();
    const int64_t* n = states[1]->values<int64_t>();
    double* s = sums_.data();
    int64_t* c = counts_.data();
    ForEachValid(states[0].get(), in, [&](int64_t r, uint32_t g) {
      s[g] += v[r];
      c[g] += n[r];
    });
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<uint8_t> valid = Counted(counts_, start, length);
    std::vector<ArrayPtr> out(2);
    SHOAL_ASSIGN_OR_RETURN(out[0], MakeFixedArray<double>(DataType::Float64(), sums_.data() + start,
                                                          valid.data(), length, pool));
    SHOAL_ASSIGN_OR_RETURN(
        out[1],
        MakeFixedArray<int64_t>(DataType::Int64(), counts_.data() + start, nullptr, length, pool));
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return Average(counts_, start, length, DataType::Float64(), pool,
                   [&](size_t g) { return sums_[g] / static_cast<double>(counts_[g]); });
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(counts_); }

 private:
  std::vector<double> sums_;
  std::vector<int64_t> counts_;
};

Result<AccPtr> MakeExact(const DataType& in, bool avg, const DataType& result) {
  const int scale = in.id() == TypeId::kDecimal ? in.scale() : 0;
  if (in.id() == TypeId::kDecimal) {
    if (in.precision() <= DataType::kMaxDecimal64Precision) {
      if (avg)
        return AccPtr(new ExactSumAccumulator<int64_t, true>(scale, result));
      return AccPtr(new ExactSumAccumulator<int64_t, false>(scale, result));
    }
    if (avg)
      return AccPtr(new ExactSumAccumulator<int128_t, true>(scale, result));
    return AccPtr(new ExactSumAccumulator<int128_t, false>(scale, result));
  }
  return DispatchInteger(in.id(), [&](auto v) -> Result<AccPtr> {
    using T = decltype(v);
    if (avg)
      return AccPtr(new ExactSumAccumulator<T, true>(0, result));
    return AccPtr(new SumAccumulator<T, int64_t>());
  });
}

}  // namespace

AccPtr MakeCountAccumulator(bool star) {
  return AccPtr(new CountAccumulator(star));
}

Result<AccPtr> MakeSumAccumulator(const std::string& name, const DataType& in, bool avg,
                                  const DataType& result) {
  if (in.is_integer() || in.id() == TypeId::kDecimal)
    return MakeExact(in, avg, result);
  if (in.id() == TypeId::kFloat32 || in.id() == TypeId::kFloat64) {
    if (avg) {
      if (in.id() == TypeId::kFloat32)
        return AccPtr(new AvgFloatAccumulator<float>());
      return AccPtr(new AvgFloatAccumulator<double>());
    }
    if (in.id() == TypeId::kFloat32)
      return AccPtr(new SumAccumulator<float, double>());
    return AccPtr(new SumAccumulator<double, double>());
  }
  if (in.id() == TypeId::kInterval && !avg)
    return AccPtr(new SumIntervalAccumulator());
  return Status::NotImplemented("{}({})", name, in.ToString());
}

}  // namespace shoal::exec::internal

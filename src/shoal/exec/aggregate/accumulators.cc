// The accumulators of accumulator.h. Each class keeps its state in vectors indexed by group id;
// argument types are resolved once, when the accumulator is made, into template instances, so the
// loops below run over raw value pointers.
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/array_ops.h"

namespace shoal::exec {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::Field;
using columnar::int128_t;
using columnar::MonthDayNano;
using columnar::TypeId;

// Calls fn(row, group) for every row of `in` where `array` is valid (every row when null).
template <typename Fn>
inline void ForEachValid(const Array* array, const GroupedRows& in, Fn&& fn) {
  const uint32_t* groups = in.groups;
  if (array && array->type_id() == TypeId::kNull)
    return;
  const uint8_t* validity = array && array->null_count() != 0 ? array->validity() : nullptr;
  const int64_t off = array ? array->bit_offset() : 0;
  if (in.rows) {
    if (validity) {
      for (int64_t i = 0; i < in.count; ++i) {
        const int32_t r = in.rows[i];
        if (columnar::bitmap::GetBit(validity, off + r))
          fn(r, groups[r]);
      }
    } else {
      for (int64_t i = 0; i < in.count; ++i) {
        const int32_t r = in.rows[i];
        fn(r, groups[r]);
      }
    }
  } else if (validity) {
    for (int64_t r = 0; r < in.count; ++r) {
      if (columnar::bitmap::GetBit(validity, off + r))
        fn(r, groups[r]);
    }
  } else {
    for (int64_t r = 0; r < in.count; ++r)
      fn(r, groups[r]);
  }
}

// A fixed-width array of `length` values; valid (one byte per value) may be null for all-valid.
template <typename T>
Result<ArrayPtr> MakeFixedArray(const DataType& type, const T* values, const uint8_t* valid,
                                int64_t length, const std::shared_ptr<MemoryPool>& pool) {
  BufferPtr validity;
  int64_t null_count = 0;
  if (valid) {
    for (int64_t i = 0; i < length; ++i)
      null_count += valid[i] == 0;
    if (null_count > 0) {
      SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(length, pool));
      bits::PackBytes(valid, length, validity->mutable_data());
    }
  }
  if constexpr (std::is_same_v<T, bool>) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr bitmap, bits::Allocate(length, pool));
    bits::PackBytes(reinterpret_cast<const uint8_t*>(values), length, bitmap->mutable_data());
    return Array::Make(type, length, {std::move(validity), std::move(bitmap)}, null_count);
  } else {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr buffer, AllocateValues<T>(length, pool));
    if (length > 0)
      std::memcpy(buffer->mutable_data(), values, static_cast<size_t>(length) * sizeof(T));
    return Array::Make(type, length, {std::move(validity), std::move(buffer)}, null_count);
  }
}

Result<ArrayPtr> MakeStringArray(const DataType& type, const std::vector<std::string>& values,
                                 const std::vector<uint8_t>& valid, int64_t start, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  columnar::BinaryBuilder builder(type, pool);
  int64_t bytes = 0;
  for (int64_t i = start; i < start + length; ++i)
    bytes += static_cast<int64_t>(values[static_cast<size_t>(i)].size());
  SHOAL_RETURN_IF_ERROR(builder.Reserve(length));
  SHOAL_RETURN_IF_ERROR(builder.ReserveData(bytes));
  for (int64_t i = start; i < start + length; ++i) {
    if (valid[static_cast<size_t>(i)]) {
      builder.UnsafeAppend(values[static_cast<size_t>(i)]);
    } else {
      SHOAL_RETURN_IF_ERROR(builder.AppendNull());
    }
  }
  return builder.Finish();
}

template <typename V>
int64_t Bytes(const V& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(typename V::value_type));
}

Status BigintOverflow() {
  return Status::OutOfRange("bigint out of range");
}

Status NumericOverflow() {
  return Status::OutOfRange("numeric field overflow");
}

// ---- count ----------------------------------------------------------------------------------

class CountAccumulator final : public Accumulator {
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

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
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

// ---- sum(integer) -> int64 ------------------------------------------------------------------

template <typename In>
class SumIntAccumulator final : public Accumulator {
 public:
  void Resize(int64_t n) override {
    sums_.resize(static_cast<size_t>(n), 0);
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    return Add<In>(*args[0], in);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Add<int64_t>(*states[0], in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeFixedArray<int64_t>(DataType::Int64(), sums_.data() + start, seen_.data() + start,
                                   length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(seen_); }

 private:
  template <typename T>
  Status Add(const Array& a, const GroupedRows& in) {
    const T* v = a.values<T>();
    int64_t* sums = sums_.data();
    uint8_t* seen = seen_.data();
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

  std::vector<int64_t> sums_;
  std::vector<uint8_t> seen_;
};

// ---- sum(float) -> float64 ------------------------------------------------------------------

template <typename In>
class SumFloatAccumulator final : public Accumulator {
 public:
  void Resize(int64_t n) override {
    sums_.resize(static_cast<size_t>(n), 0);
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    Add<In>(*args[0], in);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    Add<double>(*states[0], in);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeFixedArray<double>(DataType::Float64(), sums_.data() + start, seen_.data() + start,
                                  length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(seen_); }

 private:
  template <typename T>
  void Add(const Array& a, const GroupedRows& in) {
    const T* v = a.values<T>();
    double* sums = sums_.data();
    uint8_t* seen = seen_.data();
    ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
      sums[g] += static_cast<double>(v[r]);
      seen[g] = 1;
    });
  }

  std::vector<double> sums_;
  std::vector<uint8_t> seen_;
};

// ---- sum(decimal) -> decimal(38, s); avg over integers and decimals --------------------------

// Exact sums in int128 (the unscaled value at the input's scale) and, for avg, counts.
template <typename In, bool kAvg>
class ExactSumAccumulator final : public Accumulator {
 public:
  ExactSumAccumulator(int scale, DataType result) : scale_(scale), result_(std::move(result)) {}

  void Resize(int64_t n) override {
    sums_.resize(static_cast<size_t>(n), 0);
    counts_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    return Add<In>(*args[0], nullptr, in);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Add<int128_t>(*states[0], kAvg ? states[1].get() : nullptr, in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i)
      valid[static_cast<size_t>(i)] = counts_[static_cast<size_t>(start + i)] != 0;
    std::vector<ArrayPtr> out;
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr sums, MakeFixedArray<int128_t>(SumType(), sums_.data() + start,
                                                                   valid.data(), length, pool));
    SHOAL_RETURN_IF_ERROR(CheckRange(sums, length));
    out.push_back(std::move(sums));
    if (kAvg) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr counts,
                             MakeFixedArray<int64_t>(DataType::Int64(), counts_.data() + start,
                                                     nullptr, length, pool));
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
    std::vector<double> avg(static_cast<size_t>(length));
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    const long double scale = static_cast<long double>(columnar::PowerOfTen(scale_));
    for (int64_t i = 0; i < length; ++i) {
      const size_t g = static_cast<size_t>(start + i);
      valid[static_cast<size_t>(i)] = counts_[g] != 0;
      if (counts_[g] != 0)
        avg[static_cast<size_t>(i)] = static_cast<double>(
            static_cast<long double>(sums_[g]) / scale / static_cast<long double>(counts_[g]));
    }
    return MakeFixedArray<double>(result_, avg.data(), valid.data(), length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(counts_); }

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

  // `counts` (merging avg states) holds the partial counts; otherwise each value counts once.
  template <typename T>
  Status Add(const Array& a, const Array* counts, const GroupedRows& in) {
    const T* v = a.values<T>();
    int128_t* sums = sums_.data();
    int64_t* cnt = counts_.data();
    bool overflow = false;
    if (counts) {
      const int64_t* c = counts->values<int64_t>();
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        overflow |= __builtin_add_overflow(sums[g], static_cast<int128_t>(v[r]), &sums[g]);
        cnt[g] += c[r];
      });
    } else {
      ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
        overflow |= __builtin_add_overflow(sums[g], static_cast<int128_t>(v[r]), &sums[g]);
        ++cnt[g];
      });
    }
    return overflow ? NumericOverflow() : Status::OK();
  }

  int scale_;
  DataType result_;
  std::vector<int128_t> sums_;
  std::vector<int64_t> counts_;
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
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i)
      valid[static_cast<size_t>(i)] = counts_[static_cast<size_t>(start + i)] != 0;
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
    std::vector<double> avg(static_cast<size_t>(length));
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i) {
      const size_t g = static_cast<size_t>(start + i);
      valid[static_cast<size_t>(i)] = counts_[g] != 0;
      if (counts_[g] != 0)
        avg[static_cast<size_t>(i)] = sums_[g] / static_cast<double>(counts_[g]);
    }
    return MakeFixedArray<double>(DataType::Float64(), avg.data(), valid.data(), length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(counts_); }

 private:
  std::vector<double> sums_;
  std::vector<int64_t> counts_;
};

// ---- sum(interval) --------------------------------------------------------------------------

class SumIntervalAccumulator final : public Accumulator {
 public:
  void Resize(int64_t n) override {
    sums_.resize(static_cast<size_t>(n), MonthDayNano{0, 0, 0});
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const MonthDayNano* v = args[0]->values<MonthDayNano>();
    MonthDayNano* s = sums_.data();
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

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeFixedArray<MonthDayNano>(DataType::Interval(), sums_.data() + start,
                                        seen_.data() + start, length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(sums_) + Bytes(seen_); }

 private:
  std::vector<MonthDayNano> sums_;
  std::vector<uint8_t> seen_;
};

// ---- min / max ------------------------------------------------------------------------------

// Ordering of min/max values: NaN above every number (PostgreSQL), intervals by their length with
// 30-day months (PostgreSQL's interval comparison).
template <typename T>
inline bool ValueLess(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(b) ? !std::isnan(a) : a < b;
  } else if constexpr (std::is_same_v<T, MonthDayNano>) {
    auto span = [](const MonthDayNano& v) {
      return (static_cast<int128_t>(v.months) * 30 + v.days) *
                 static_cast<int128_t>(86400000000000) +
             v.nanoseconds;
    };
    return span(a) < span(b);
  } else {
    return a < b;
  }
}

template <typename T, bool kMax>
class MinMaxAccumulator final : public Accumulator {
 public:
  explicit MinMaxAccumulator(DataType type) : type_(std::move(type)) {}

  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n), T{});
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const T* v = args[0]->values<T>();
    T* out = values_.data();
    uint8_t* seen = seen_.data();
    ForEachValid(args[0].get(), in, [&](int64_t r, uint32_t g) {
      const bool better = kMax ? ValueLess(out[g], v[r]) : ValueLess(v[r], out[g]);
      if (!seen[g] || better) {
        out[g] = v[r];
        seen[g] = 1;
      }
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Update(states, in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeFixedArray<T>(type_, values_.data() + start, seen_.data() + start, length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(values_) + Bytes(seen_); }

 private:
  DataType type_;
  std::vector<T> values_;
  std::vector<uint8_t> seen_;
};

// bool_and / bool_or, and min / max of booleans (false < true).
template <bool kAnd>
class BoolAccumulator final : public Accumulator {
 public:
  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n), kAnd);
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const Array& a = *args[0];
    const uint8_t* bits = a.buffer(1) ? a.buffer(1)->data() : nullptr;
    const int64_t off = a.offset();
    uint8_t* v = values_.data();
    uint8_t* seen = seen_.data();
    ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
      const uint8_t b = columnar::bitmap::GetBit(bits, off + r);
      v[g] = kAnd ? (v[g] & b) : (v[g] | b);
      seen[g] = 1;
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Update(states, in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    static_assert(sizeof(bool) == 1);
    return MakeFixedArray<bool>(DataType::Boolean(),
                                reinterpret_cast<const bool*>(values_.data() + start),
                                seen_.data() + start, length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(values_) + Bytes(seen_); }

 private:
  std::vector<uint8_t> values_;
  std::vector<uint8_t> seen_;
};

// min / max of strings and binaries, by bytes (C collation). A group's string is copied only
// when it improves, so the cost per row is one comparison.
template <bool kMax>
class MinMaxStringAccumulator final : public Accumulator {
 public:
  explicit MinMaxStringAccumulator(DataType type) : type_(std::move(type)) {}

  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n));
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const Array& a = *args[0];
    std::string* out = values_.data();
    uint8_t* seen = seen_.data();
    ForEachValid(&a, in, [&](int64_t r, uint32_t g) {
      std::string_view v = a.StringValue(r);
      if (!seen[g] || (kMax ? std::string_view(out[g]) < v : v < std::string_view(out[g]))) {
        out[g].assign(v.data(), v.size());
        seen[g] = 1;
      }
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    return Update(states, in);
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeStringArray(type_, values_, seen_, start, length, pool);
  }

  int64_t MemoryBytes() const override {
    int64_t bytes = Bytes(values_) + Bytes(seen_);
    for (const std::string& s : values_)
      bytes += s.capacity() > 15 ? static_cast<int64_t>(s.capacity()) : 0;
    return bytes;
  }

 private:
  DataType type_;
  std::vector<std::string> values_;
  std::vector<uint8_t> seen_;
};

// ---- variance / standard deviation ----------------------------------------------------------

enum class VarianceKind : uint8_t { kVarSamp, kVarPop, kStddevSamp, kStddevPop };

// Welford's running mean and sum of squared deviations; partial states merge with Chan et al.'s
// pairwise formula, which stays accurate where sum-of-squares would cancel catastrophically.
template <typename In>
class VarianceAccumulator final : public Accumulator {
 public:
  explicit VarianceAccumulator(VarianceKind kind) : kind_(kind) {}

  void Resize(int64_t n) override {
    counts_.resize(static_cast<size_t>(n), 0);
    means_.resize(static_cast<size_t>(n), 0);
    m2_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const In* v = args[0]->values<In>();
    int64_t* c = counts_.data();
    double* mean = means_.data();
    double* m2 = m2_.data();
    ForEachValid(args[0].get(), in, [&](int64_t r, uint32_t g) {
      const double x = static_cast<double>(v[r]);
      ++c[g];
      const double delta = x - mean[g];
      mean[g] += delta / static_cast<double>(c[g]);
      m2[g] += delta * (x - mean[g]);
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    const int64_t* nb = states[0]->values<int64_t>();
    const double* mb = states[1]->values<double>();
    const double* m2b = states[2]->values<double>();
    int64_t* c = counts_.data();
    double* mean = means_.data();
    double* m2 = m2_.data();
    ForEachValid(states[0].get(), in, [&](int64_t r, uint32_t g) {
      if (nb[r] == 0)
        return;
      const double na = static_cast<double>(c[g]);
      const double n_b = static_cast<double>(nb[r]);
      const double n = na + n_b;
      const double delta = mb[r] - mean[g];
      mean[g] += delta * n_b / n;
      m2[g] += m2b[r] + delta * delta * na * n_b / n;
      c[g] += nb[r];
    });
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<ArrayPtr> out(3);
    SHOAL_ASSIGN_OR_RETURN(
        out[0],
        MakeFixedArray<int64_t>(DataType::Int64(), counts_.data() + start, nullptr, length, pool));
    SHOAL_ASSIGN_OR_RETURN(
        out[1],
        MakeFixedArray<double>(DataType::Float64(), means_.data() + start, nullptr, length, pool));
    SHOAL_ASSIGN_OR_RETURN(out[2], MakeFixedArray<double>(DataType::Float64(), m2_.data() + start,
                                                          nullptr, length, pool));
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<double> out(static_cast<size_t>(length));
    std::vector<uint8_t> valid(static_cast<size_t>(length));
    const bool sample = kind_ == VarianceKind::kVarSamp || kind_ == VarianceKind::kStddevSamp;
    const bool root = kind_ == VarianceKind::kStddevSamp || kind_ == VarianceKind::kStddevPop;
    for (int64_t i = 0; i < length; ++i) {
      const size_t g = static_cast<size_t>(start + i);
      const int64_t n = counts_[g];
      if (n == 0 || (sample && n == 1))
        continue;
      double var = std::max(0.0, m2_[g]) / static_cast<double>(sample ? n - 1 : n);
      out[static_cast<size_t>(i)] = root ? std::sqrt(var) : var;
      valid[static_cast<size_t>(i)] = 1;
    }
    return MakeFixedArray<double>(DataType::Float64(), out.data(), valid.data(), length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(counts_) + Bytes(means_) + Bytes(m2_); }

 private:
  VarianceKind kind_;
  std::vector<int64_t> counts_;
  std::vector<double> means_;
  std::vector<double> m2_;
};

// ---- string_agg -----------------------------------------------------------------------------

// string_agg(value, separator): values in input order, each but the first preceded by its own
// row's separator (a NULL separator counts as empty, as in PostgreSQL). The partial state keeps
// the first separator so that merging two partials puts the right one between them.
class StringAggAccumulator final : public Accumulator {
 public:
  explicit StringAggAccumulator(DataType type) : type_(std::move(type)) {}

  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n));
    first_separators_.resize(static_cast<size_t>(n));
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    Add(*args[0], *args[1], in);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const GroupedRows& in) override {
    Add(*states[0], *states[1], in);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const override {
    std::vector<ArrayPtr> out(2);
    SHOAL_ASSIGN_OR_RETURN(out[0], MakeStringArray(type_, values_, seen_, start, length, pool));
    SHOAL_ASSIGN_OR_RETURN(out[1],
                           MakeStringArray(type_, first_separators_, seen_, start, length, pool));
    return out;
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    return MakeStringArray(type_, values_, seen_, start, length, pool);
  }

  int64_t MemoryBytes() const override {
    int64_t bytes = Bytes(values_) + Bytes(first_separators_) + Bytes(seen_);
    for (const std::string& s : values_)
      bytes += static_cast<int64_t>(s.capacity());
    return bytes;
  }

 private:
  void Add(const Array& values, const Array& separators, const GroupedRows& in) {
    std::string* out = values_.data();
    std::string* first = first_separators_.data();
    uint8_t* seen = seen_.data();
    const bool sep_is_null_type = separators.type_id() == TypeId::kNull;
    ForEachValid(&values, in, [&](int64_t r, uint32_t g) {
      std::string_view sep;
      if (!sep_is_null_type && separators.IsValid(r))
        sep = separators.StringValue(r);
      std::string_view v = values.StringValue(r);
      if (!seen[g]) {
        out[g].assign(v.data(), v.size());
        first[g].assign(sep.data(), sep.size());
        seen[g] = 1;
      } else {
        out[g].append(sep.data(), sep.size());
        out[g].append(v.data(), v.size());
      }
    });
  }

  DataType type_;
  std::vector<std::string> values_;
  std::vector<std::string> first_separators_;
  std::vector<uint8_t> seen_;
};

// ---- factory --------------------------------------------------------------------------------

using AccPtr = std::unique_ptr<Accumulator>;

// Calls fn(T{}) with the C type of an integer type id.
template <typename Fn>
Result<AccPtr> DispatchInteger(TypeId id, Fn&& fn) {
  switch (id) {
    case TypeId::kInt8: return fn(int8_t{});
    case TypeId::kInt16: return fn(int16_t{});
    case TypeId::kInt32: return fn(int32_t{});
    case TypeId::kInt64: return fn(int64_t{});
    case TypeId::kUInt8: return fn(uint8_t{});
    case TypeId::kUInt16: return fn(uint16_t{});
    case TypeId::kUInt32: return fn(uint32_t{});
    case TypeId::kUInt64: return fn(uint64_t{});
    default: break;
  }
  return Status::Internal("not an integer type");
}

template <bool kMax>
Result<AccPtr> MakeMinMax(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean: return AccPtr(new BoolAccumulator<!kMax>());
    case TypeId::kInt8: return AccPtr(new MinMaxAccumulator<int8_t, kMax>(t));
    case TypeId::kInt16: return AccPtr(new MinMaxAccumulator<int16_t, kMax>(t));
    case TypeId::kInt32:
    case TypeId::kDate32: return AccPtr(new MinMaxAccumulator<int32_t, kMax>(t));
    case TypeId::kInt64:
    case TypeId::kTimestamp: return AccPtr(new MinMaxAccumulator<int64_t, kMax>(t));
    case TypeId::kUInt8: return AccPtr(new MinMaxAccumulator<uint8_t, kMax>(t));
    case TypeId::kUInt16: return AccPtr(new MinMaxAccumulator<uint16_t, kMax>(t));
    case TypeId::kUInt32: return AccPtr(new MinMaxAccumulator<uint32_t, kMax>(t));
    case TypeId::kUInt64: return AccPtr(new MinMaxAccumulator<uint64_t, kMax>(t));
    case TypeId::kFloat32: return AccPtr(new MinMaxAccumulator<float, kMax>(t));
    case TypeId::kFloat64: return AccPtr(new MinMaxAccumulator<double, kMax>(t));
    case TypeId::kDecimal:
      if (t.precision() <= DataType::kMaxDecimal64Precision)
        return AccPtr(new MinMaxAccumulator<int64_t, kMax>(t));
      return AccPtr(new MinMaxAccumulator<int128_t, kMax>(t));
    case TypeId::kInterval: return AccPtr(new MinMaxAccumulator<MonthDayNano, kMax>(t));
    case TypeId::kUtf8:
    case TypeId::kBinary: return AccPtr(new MinMaxStringAccumulator<kMax>(t));
    default: break;
  }
  return Status::NotImplemented("{}({})", kMax ? "max" : "min", t.ToString());
}

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
    return AccPtr(new SumIntAccumulator<T>());
  });
}

Status CheckArgs(const sql::Expr& agg, size_t n) {
  if (agg.args.size() != n)
    return Status::Internal("{} takes {} argument(s), got {}", agg.name, n, agg.args.size());
  for (const auto& arg : agg.args) {
    if (arg->type.id() == TypeId::kDictionary)
      return Status::Internal("{}: dictionary arguments must be decoded first", agg.name);
  }
  return Status::OK();
}

bool IsFloat(TypeId id) {
  return id == TypeId::kFloat32 || id == TypeId::kFloat64;
}

}  // namespace

Result<std::unique_ptr<Accumulator>> MakeAccumulator(const sql::Expr& agg) {
  const std::string& name = agg.name;
  if (name == "count") {
    if (agg.args.size() > 1)
      return Status::Internal("count takes at most one argument");
    return AccPtr(new CountAccumulator(agg.args.empty()));
  }
  if (name == "sum" || name == "avg") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    const DataType& in = agg.args[0]->type;
    const bool avg = name == "avg";
    if (in.is_integer() || in.id() == TypeId::kDecimal)
      return MakeExact(in, avg, agg.type);
    if (IsFloat(in.id())) {
      if (avg) {
        if (in.id() == TypeId::kFloat32)
          return AccPtr(new AvgFloatAccumulator<float>());
        return AccPtr(new AvgFloatAccumulator<double>());
      }
      if (in.id() == TypeId::kFloat32)
        return AccPtr(new SumFloatAccumulator<float>());
      return AccPtr(new SumFloatAccumulator<double>());
    }
    if (in.id() == TypeId::kInterval && !avg)
      return AccPtr(new SumIntervalAccumulator());
    return Status::NotImplemented("{}({})", name, in.ToString());
  }
  if (name == "min" || name == "max") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    return name == "max" ? MakeMinMax<true>(agg.args[0]->type)
                         : MakeMinMax<false>(agg.args[0]->type);
  }
  if (name == "var_samp" || name == "var_pop" || name == "stddev_samp" || name == "stddev_pop") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    VarianceKind kind = name == "var_samp"      ? VarianceKind::kVarSamp
                        : name == "var_pop"     ? VarianceKind::kVarPop
                        : name == "stddev_samp" ? VarianceKind::kStddevSamp
                                                : VarianceKind::kStddevPop;
    const DataType& in = agg.args[0]->type;
    if (in.id() == TypeId::kFloat64)
      return AccPtr(new VarianceAccumulator<double>(kind));
    if (in.id() == TypeId::kFloat32)
      return AccPtr(new VarianceAccumulator<float>(kind));
    if (in.is_integer())
      return DispatchInteger(in.id(), [&](auto v) -> Result<AccPtr> {
        return AccPtr(new VarianceAccumulator<decltype(v)>(kind));
      });
    return Status::NotImplemented("{}({})", name, in.ToString());
  }
  if (name == "bool_and" || name == "bool_or") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 1));
    if (agg.args[0]->type.id() != TypeId::kBoolean)
      return Status::Internal("{} of {}", name, agg.args[0]->type.ToString());
    if (name == "bool_and")
      return AccPtr(new BoolAccumulator<true>());
    return AccPtr(new BoolAccumulator<false>());
  }
  if (name == "string_agg") {
    SHOAL_RETURN_IF_ERROR(CheckArgs(agg, 2));
    if (!agg.args[0]->type.is_binary_like())
      return Status::Internal("string_agg of {}", agg.args[0]->type.ToString());
    return AccPtr(new StringAggAccumulator(agg.args[0]->type));
  }
  return Status::NotImplemented("aggregate function {}", name);
}

Result<std::vector<Field>> AggregateStateFields(const sql::Expr& agg, const std::string& prefix) {
  const std::string& name = agg.name;
  auto f = [&](const char* part, DataType type, bool nullable = true) {
    return Field(prefix + "[" + part + "]", std::move(type), nullable);
  };
  if (name == "count")
    return std::vector<Field>{f("count", DataType::Int64(), false)};
  if (agg.args.empty())
    return Status::Internal("{} without arguments", name);
  const DataType& in = agg.args[0]->type;
  if (name == "sum" || name == "avg") {
    DataType sum_type;
    if (in.is_integer()) {
      sum_type =
          name == "sum" ? DataType::Int64() : DataType::Decimal(DataType::kMaxDecimalPrecision, 0);
    } else if (in.id() == TypeId::kDecimal) {
      sum_type = DataType::Decimal(DataType::kMaxDecimalPrecision, in.scale());
    } else if (IsFloat(in.id())) {
      sum_type = DataType::Float64();
    } else {
      sum_type = in;
    }
    std::vector<Field> out{f("sum", sum_type)};
    if (name == "avg")
      out.push_back(f("count", DataType::Int64(), false));
    return out;
  }
  if (name == "min" || name == "max")
    return std::vector<Field>{f(name.c_str(), in)};
  if (name == "var_samp" || name == "var_pop" || name == "stddev_samp" || name == "stddev_pop")
    return std::vector<Field>{f("count", DataType::Int64(), false),
                              f("mean", DataType::Float64(), false),
                              f("m2", DataType::Float64(), false)};
  if (name == "bool_and" || name == "bool_or")
    return std::vector<Field>{f(name.c_str(), DataType::Boolean())};
  if (name == "string_agg")
    return std::vector<Field>{f("value", in), f("first_separator", in)};
  return Status::NotImplemented("aggregate function {}", name);
}

}  // namespace shoal::exec

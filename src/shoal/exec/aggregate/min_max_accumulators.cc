// The accumulators that keep the best value seen: min and max of numbers, dates, timestamps,
// decimals, intervals and strings, and bool_and / bool_or (also min / max of booleans). Their
// partial state is the result, and merging partials is folding them in like input rows.
#include <cmath>
#include <string>
#include <string_view>

#include "shoal/exec/aggregate/accumulator_internal.h"

namespace shoal::exec::internal {
namespace {

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
class MinMaxAccumulator final : public GroupValueAccumulator<T> {
 public:
  explicit MinMaxAccumulator(DataType type) : GroupValueAccumulator<T>(std::move(type), T{}) {}

  Status Update(const std::vector<ArrayPtr>& args, const GroupedRows& in) override {
    const T* v = args[0]->values<T>();
    T* out = this->values_.data();
    uint8_t* seen = this->seen_.data();
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
};

// bool_and / bool_or, and min / max of booleans (false < true).
template <bool kAnd>
class BoolAccumulator final : public GroupValueAccumulator<uint8_t> {
 public:
  BoolAccumulator() : GroupValueAccumulator<uint8_t>(DataType::Boolean(), kAnd) {}

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

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    static_assert(sizeof(bool) == 1);
    return MakeFixedArray<bool>(DataType::Boolean(),
                                reinterpret_cast<const bool*>(values_.data() + start),
                                seen_.data() + start, length, pool);
  }
};

// min / max of strings and binaries, by bytes (C collation). A group's string is copied only
// when it improves, so the cost per row is one comparison.
template <bool kMax>
class MinMaxStringAccumulator final : public GroupValueAccumulator<std::string> {
 public:
  explicit MinMaxStringAccumulator(DataType type)
      : GroupValueAccumulator<std::string>(std::move(type), std::string()) {}

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

  int64_t MemoryBytes() const override {
    int64_t bytes = Bytes(values_) + Bytes(seen_);
    for (const std::string& s : values_)
      bytes += s.capacity() > 15 ? static_cast<int64_t>(s.capacity()) : 0;
    return bytes;
  }
};

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

}  // namespace

Result<AccPtr> MakeMinMaxAccumulator(bool max, const DataType& type) {
  return max ? MakeMinMax<true>(type) : MakeMinMax<false>(type);
}

AccPtr MakeBoolAccumulator(bool is_and) {
  if (is_and)
    return AccPtr(new BoolAccumulator<true>());
  return AccPtr(new BoolAccumulator<false>());
}

}  // namespace shoal::exec::internal

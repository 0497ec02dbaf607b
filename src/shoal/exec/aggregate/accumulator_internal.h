// What the accumulator families share: the loop over a batch's valid (row, group) pairs, the
// builders of result columns, and the base of the accumulators whose state is one value per
// group. Each family lives in its own file (sum_accumulators.cc, min_max_accumulators.cc,
// variance_accumulator.cc, string_agg_accumulator.cc); accumulators.cc is the factory that
// picks one for an aggregate call. Private to exec/aggregate.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/decimal.h"
#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/array_ops.h"

namespace shoal::exec::internal {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::int128_t;
using columnar::MonthDayNano;
using columnar::TypeId;
using AccPtr = std::unique_ptr<Accumulator>;

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

/// A string or binary array of values[start, start + length), NULL where valid[i] is 0.
Result<ArrayPtr> MakeStringArray(const DataType& type, const std::vector<std::string>& values,
                                 const std::vector<uint8_t>& valid, int64_t start, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool);

// The bytes a state vector holds (its capacity, not its size).
template <typename V>
int64_t Bytes(const V& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(typename V::value_type));
}

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

/// Base of the accumulators whose partial state is their result, one column (count, sum, min,
/// max, bool_and / bool_or): State() is Finalize().
class ResultIsStateAccumulator : public Accumulator {
 public:
  Result<std::vector<ArrayPtr>> State(int64_t start, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) const final {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Finalize(start, length, pool));
    return std::vector<ArrayPtr>{std::move(a)};
  }
};

/// Base of the accumulators that keep one value of type T per group and whether the group has
/// seen a valid row (sum, min, max, bool_and / bool_or); a group that saw none is NULL. Derived
/// classes fold the rows in with typed loops over values_ and seen_.
template <typename T>
class GroupValueAccumulator : public ResultIsStateAccumulator {
 public:
  void Resize(int64_t n) override {
    values_.resize(static_cast<size_t>(n), empty_);
    seen_.resize(static_cast<size_t>(n), 0);
  }

  Result<ArrayPtr> Finalize(int64_t start, int64_t length,
                            const std::shared_ptr<MemoryPool>& pool) const override {
    if constexpr (std::is_same_v<T, std::string>)
      return MakeStringArray(type_, values_, seen_, start, length, pool);
    else
      return MakeFixedArray<T>(type_, values_.data() + start, seen_.data() + start, length, pool);
  }

  int64_t MemoryBytes() const override { return Bytes(values_) + Bytes(seen_); }

 protected:
  /// `type` is the result's type, `empty` the value a new group starts with.
  GroupValueAccumulator(DataType type, T empty)
      : type_(std::move(type)), empty_(std::move(empty)) {}

  DataType type_;
  T empty_;
  std::vector<T> values_;
  std::vector<uint8_t> seen_;
};

// The families' factories (the argument checks are MakeAccumulator's).
AccPtr MakeCountAccumulator(bool star);
/// sum / avg of `in`, whose SQL result type is `result`.
Result<AccPtr> MakeSumAccumulator(const std::string& name, const DataType& in, bool avg,
                                  const DataType& result);
Result<AccPtr> MakeMinMaxAccumulator(bool max, const DataType& type);
AccPtr MakeBoolAccumulator(bool is_and);
Result<AccPtr> MakeVarianceAccumulator(const std::string& name, const DataType& in);
AccPtr MakeStringAggAccumulator(const DataType& type);
AccPtr MakeArrayAggAccumulator(const DataType& item);
/// An aggregate that needs ordered input (sql::NeedsOrderedInput); `inner` is the plain
/// accumulator of an order-sensitive aggregate (null for ordered-set aggregates).
Result<AccPtr> MakeOrderedAccumulator(const sql::Expr& aggregate, AccPtr inner);

}  // namespace shoal::exec::internal

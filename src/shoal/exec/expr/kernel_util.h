// Building blocks shared by the kernel files: typed accessors over arrays and scalars, the
// element-wise loop drivers (specialised at compile time for array/scalar operands so the inner
// loops vectorize), physical-type dispatch and output-array construction.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/decimal.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/kernel.h"

namespace shoal::exec::kernels {

using columnar::int128_t;
using columnar::MonthDayNano;

// Error flags kernels OR together inside their loops and inspect after them.
inline constexpr uint8_t kOverflowFlag = 1;
inline constexpr uint8_t kDivideByZeroFlag = 2;
inline constexpr uint8_t kInvalidFlag = 4;

/// Calls f(T{}) with the C type of a fixed-width, non-boolean type; `fallback` otherwise.
template <typename R, typename F>
R DispatchFixed(const DataType& type, F&& f, R fallback) {
  switch (type.id()) {
    case TypeId::kInt8: return f(int8_t{});
    case TypeId::kInt16: return f(int16_t{});
    case TypeId::kInt32: return f(int32_t{});
    case TypeId::kInt64: return f(int64_t{});
    case TypeId::kUInt8: return f(uint8_t{});
    case TypeId::kUInt16: return f(uint16_t{});
    case TypeId::kUInt32: return f(uint32_t{});
    case TypeId::kUInt64: return f(uint64_t{});
    case TypeId::kFloat32: return f(float{});
    case TypeId::kFloat64: return f(double{});
    case TypeId::kDate32: return f(int32_t{});
    case TypeId::kTimestamp: return f(int64_t{});
    case TypeId::kDecimal:
      if (type.precision() <= DataType::kMaxDecimal64Precision)
        return f(int64_t{});
      return f(int128_t{});
    default: return fallback;
  }
}

/// Integer and float types (not decimals, dates or timestamps).
inline bool IsNumeric(const DataType& t) {
  return t.is_integer() || t.id() == TypeId::kFloat32 || t.id() == TypeId::kFloat64;
}

inline bool IsFloat(const DataType& t) {
  return t.id() == TypeId::kFloat32 || t.id() == TypeId::kFloat64;
}

template <typename T>
struct ArrayReader {
  const T* values;

  T operator[](int64_t i) const { return values[i]; }
};

template <typename T>
struct ScalarReader {
  T value;

  T operator[](int64_t) const { return value; }
};

struct StringReader {
  const int32_t* offsets;
  const char* data;

  std::string_view operator[](int64_t i) const {
    return {data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
};

struct StringScalarReader {
  std::string_view value;

  std::string_view operator[](int64_t) const { return value; }
};

inline StringReader MakeStringReader(const Array& a) {
  return {a.offsets(), reinterpret_cast<const char*>(a.string_data())};
}

/// Calls f(reader) with an ArrayReader or a ScalarReader of T for the datum.
template <typename T, typename F>
decltype(auto) WithReader(const Datum& d, F&& f) {
  if (d.is_scalar)
    return f(ScalarReader<T>{d.array->values<T>()[0]});
  return f(ArrayReader<T>{d.array->values<T>()});
}

template <typename F>
decltype(auto) WithStringReader(const Datum& d, F&& f) {
  if (d.is_scalar)
    return f(StringScalarReader{d.array->StringValue(0)});
  return f(MakeStringReader(*d.array));
}

/// Output length of an element-wise kernel: 1 when every argument is a scalar.
inline int64_t OutputLength(const std::vector<Datum>& args, int64_t length) {
  for (const Datum& d : args) {
    if (!d.is_scalar)
      return length;
  }
  return 1;
}

inline bool AllScalar(const std::vector<Datum>& args) {
  for (const Datum& d : args) {
    if (!d.is_scalar)
      return false;
  }
  return true;
}

/// A null of `type` for every row (as a scalar).
inline Result<Datum> NullScalar(const DataType& type, KernelContext* ctx) {
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Array::MakeAllNull(type, 1, ctx->pool));
  return Datum::Scalar(std::move(a));
}

inline bool AnyNullScalar(const std::vector<Datum>& args) {
  for (const Datum& d : args) {
    if (d.is_null_scalar())
      return true;
  }
  return false;
}

/// AND of the validity of the non-scalar arguments (scalars are known valid here).
inline Result<BufferPtr> PropagateValidity(const std::vector<Datum>& args, int64_t out_length,
                                           KernelContext* ctx) {
  std::vector<const Array*> arrays;
  for (const Datum& d : args) {
    if (!d.is_scalar || out_length == 1)
      arrays.push_back(d.array.get());
  }
  return bits::AndValidity(arrays, out_length, ctx->pool);
}

inline Datum MakeResult(const DataType& type, int64_t length, BufferPtr validity,
                        std::vector<BufferPtr> rest, bool scalar) {
  std::vector<BufferPtr> buffers;
  buffers.push_back(std::move(validity));
  for (auto& b : rest)
    buffers.push_back(std::move(b));
  return Datum{Array::Make(type, length, std::move(buffers)), scalar};
}

/// Element-wise loop over two readers into `out`; Op(a, b, flags) -> R.
template <typename R, typename RA, typename RB, typename Op>
uint8_t BinaryLoop(RA a, RB b, R* out, int64_t n, Op op) {
  uint8_t flags = 0;
  for (int64_t i = 0; i < n; ++i)
    out[i] = op(a[i], b[i], flags);
  return flags;
}

/// Recomputes flags over valid rows only: values under nulls are arbitrary and may have tripped
/// a flag in the fast loop.
template <typename R, typename RA, typename RB, typename Op>
uint8_t BinaryFlagsOfValid(RA a, RB b, int64_t n, const uint8_t* validity, Op op) {
  uint8_t flags = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (validity == nullptr || columnar::bitmap::GetBit(validity, i)) {
      uint8_t f = 0;
      (void)op(a[i], b[i], f);
      flags |= f;
    }
  }
  return flags;
}

/// out = op(a, b) for fixed-width A, B, R; nulls propagate. Returns the flags of valid rows via
/// `flags_out`.
template <typename A, typename B, typename R, typename Op>
Result<Datum> BinaryFixed(const Datum& a, const Datum& b, int64_t length, const DataType& out_type,
                          KernelContext* ctx, uint8_t* flags_out, Op op) {
  std::vector<Datum> args{a, b};
  if (AnyNullScalar(args))
    return NullScalar(out_type, ctx);
  const int64_t n = OutputLength(args, length);
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(args, n, ctx));
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<R>(n, ctx->pool));
  R* out = values->mutable_data_as<R>();
  uint8_t flags = WithReader<A>(a, [&](auto ra) {
    return WithReader<B>(b, [&](auto rb) { return BinaryLoop<R>(ra, rb, out, n, op); });
  });
  if (flags != 0 && validity) {
    const uint8_t* v = validity->data();
    flags = WithReader<A>(a, [&](auto ra) {
      return WithReader<B>(b, [&](auto rb) { return BinaryFlagsOfValid<R>(ra, rb, n, v, op); });
    });
  }
  *flags_out = flags;
  return MakeResult(out_type, n, std::move(validity), {std::move(values)},
                    n == 1 && AllScalar(args));
}

/// out = op(a) for fixed-width A, R; nulls propagate.
template <typename A, typename R, typename Op>
Result<Datum> UnaryFixed(const Datum& a, int64_t length, const DataType& out_type,
                         KernelContext* ctx, uint8_t* flags_out, Op op) {
  if (a.is_null_scalar())
    return NullScalar(out_type, ctx);
  const int64_t n = a.is_scalar ? 1 : length;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*a.array, ctx->pool));
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<R>(n, ctx->pool));
  R* out = values->mutable_data_as<R>();
  const A* in = a.array->values<A>();
  uint8_t flags = 0;
  for (int64_t i = 0; i < n; ++i)
    out[i] = op(in[i], flags);
  if (flags != 0 && validity) {
    flags = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (columnar::bitmap::GetBit(validity->data(), i)) {
        uint8_t f = 0;
        (void)op(in[i], f);
        flags |= f;
      }
    }
  }
  *flags_out = flags;
  return MakeResult(out_type, n, std::move(validity), {std::move(values)}, a.is_scalar);
}

/// A boolean result from one byte per row.
inline Result<Datum> BoolFromBytes(const std::vector<uint8_t>& bytes, int64_t n, BufferPtr validity,
                                   bool scalar, KernelContext* ctx) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(n, ctx->pool));
  bits::PackBytes(bytes.data(), n, values->mutable_data());
  return MakeResult(DataType::Boolean(), n, std::move(validity), {std::move(values)}, scalar);
}

/// The datum as a full array of `length` rows.
inline Result<ArrayPtr> Materialize(const Datum& d, int64_t length, KernelContext* ctx) {
  if (!d.is_scalar || length == 1)
    return d.array;
  return Broadcast(*d.array, length, ctx->pool);
}

// Casts arguments to the types a kernel computes in; the binder normally inserts these already.
class ArgCasts {
 public:
  Status Init(const std::vector<DataType>& from, const std::vector<DataType>& to) {
    casts_.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] != to[i]) {
        SHOAL_ASSIGN_OR_RETURN(casts_[i], MakeCastKernel(from[i], to[i]));
      }
    }
    return Status::OK();
  }

  Result<std::vector<Datum>> Apply(const std::vector<Datum>& args, int64_t length,
                                   KernelContext* ctx) const {
    std::vector<Datum> out = args;
    for (size_t i = 0; i < casts_.size(); ++i) {
      if (casts_[i]) {
        SHOAL_ASSIGN_OR_RETURN(out[i], casts_[i]->Execute({args[i]}, length, ctx));
      }
    }
    return out;
  }

 private:
  std::vector<KernelPtr> casts_;
};

/// The type both sides of a comparison (or IN, or a CASE / COALESCE branch) are converted to:
/// decimals and integers meet in a decimal wide enough for both, any float makes float64, dates
/// meet timestamps as timestamps, dictionaries compare by value.
Result<DataType> CommonType(const DataType& a, const DataType& b);

}  // namespace shoal::exec::kernels

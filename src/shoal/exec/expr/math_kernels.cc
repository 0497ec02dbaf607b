// Numeric functions: ABS, ROUND / TRUNC / FLOOR / CEIL (integers and decimals exactly, rounding
// half away from zero like PostgreSQL's numeric; floats with the C library, ROUND half to even like
// PostgreSQL's rint), POWER, SQRT, LN, LOG (base 10), EXP with PostgreSQL's domain errors, and
// GREATEST / LEAST (NULL arguments ignored; NULL only when every argument is NULL).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

// Local meanings of the flag bits for the float functions.
constexpr uint8_t kZeroFlag = 8;
constexpr uint8_t kUnderflowFlag = 16;

enum class RoundMode : uint8_t { kRound, kTrunc, kFloor, kCeil };

// Rounds unscaled `v` at `scale` to `digits` fraction digits (negative: left of the point) and
// returns it at `out_scale`; sets kOverflowFlag when the result does not fit 38 digits.
int128_t RoundUnscaled(int128_t v, int scale, int64_t digits, int out_scale, RoundMode mode,
                       uint8_t& flags) {
  int128_t q = v;
  int64_t q_scale = scale;
  if (digits < scale) {
    const int64_t k = scale - digits;
    if (k > 38) {
      // |v| < 10^38 <= 10^k / 2: rounds and truncates to zero.
      q = 0;
      if (mode == RoundMode::kFloor && v < 0)
        q = -1;
      if (mode == RoundMode::kCeil && v > 0)
        q = 1;
    } else {
      const int128_t p = columnar::PowerOfTen(static_cast<int>(k));
      q = v / p;
      const int128_t r = v % p;
      switch (mode) {
        case RoundMode::kRound:
          if (r > 0 && r >= p - r)
            ++q;
          else if (r < 0 && -r >= p + r)
            --q;
          break;
        case RoundMode::kFloor:
          if (r < 0)
            --q;
          break;
        case RoundMode::kCeil:
          if (r > 0)
            ++q;
          break;
        case RoundMode::kTrunc: break;
      }
    }
    q_scale = digits;
  }
  const int64_t e = out_scale - q_scale;
  if (e > 0 && q != 0) {
    if (e > 38) {
      flags |= kOverflowFlag;
      return 0;
    }
    const int128_t p = columnar::PowerOfTen(static_cast<int>(e));
    const int128_t limit = columnar::MaxUnscaled(38) / p;
    if (q > limit || q < -limit) {
      flags |= kOverflowFlag;
      return 0;
    }
    q *= p;
  } else if (e < 0) {
    q = -e > 38 ? 0 : q / columnar::PowerOfTen(static_cast<int>(-e));
  }
  return q;
}

// round(x, n) / trunc(x, n) of a double, as PostgreSQL computes round(x::numeric, n) (it has no
// round(double precision, integer)): x read as its 15-significant-digit decimal (float8 ->
// numeric), rounded half away from zero (or truncated) at n fraction digits, read back as a
// double. Formats into stack buffers: no allocation per row.
double RoundDecimalDigits(double x, int32_t digits, bool truncate) {
  if (!std::isfinite(x) || x == 0)
    return x;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.14e", x);  // [-]d.dddddddddddddde[+-]XX: 15 digits
  const char* p = buf;
  const bool negative = *p == '-';
  if (negative)
    ++p;
  char mantissa[16];
  int count = 0;
  for (; *p != '\0' && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9' && count < 15)
      mantissa[count++] = *p;
  }
  const int exponent = *p == 'e' ? std::atoi(p + 1) : 0;
  // x = 0.m1 m2 ... m15 * 10^(exponent + 1): keep this many leading digits.
  const int64_t keep = int64_t{exponent} + 1 + digits;
  if (keep >= count)
    return std::strtod(buf, nullptr);
  if (keep < 0)
    return 0.0;
  int64_t kept = 0;
  for (int64_t i = 0; i < keep; ++i)
    kept = kept * 10 + (mantissa[i] - '0');
  if (!truncate && mantissa[keep] >= '5')
    ++kept;
  if (kept == 0)
    return 0.0;  // numeric has no negative zero
  char out[48];
  std::snprintf(out, sizeof out, "%s%llde%lld", negative ? "-" : "", static_cast<long long>(kept),
                static_cast<long long>(-int64_t{digits}));
  return std::strtod(out, nullptr);
}

struct FixedPointInfo {
  int in_scale = 0;
  int out_scale = 0;
  int128_t lo = 0;
  int128_t hi = 0;
};

template <typename Out>
Out Narrow(int128_t v, const FixedPointInfo& info, uint8_t& flags) {
  if (v < info.lo || v > info.hi) {
    flags |= kOverflowFlag;
    return Out{};
  }
  return static_cast<Out>(v);
}

Status RoundingOverflowToStatus(uint8_t flags, const DataType& type) {
  if (flags & kOverflowFlag) {
    return Status::OutOfRange("value out of range for type {}", type.ToString())
        .WithSqlState("22003");
  }
  return Status::OK();
}

FixedPointInfo InfoFor(const DataType& in, const DataType& out) {
  FixedPointInfo info;
  info.in_scale = in.id() == TypeId::kDecimal ? in.scale() : 0;
  info.out_scale = out.id() == TypeId::kDecimal ? out.scale() : 0;
  if (out.id() == TypeId::kDecimal) {
    info.hi = columnar::MaxUnscaled(out.precision());
    info.lo = -info.hi;
  } else {
    DispatchFixed<int>(
        out,
        [&](auto t) {
          using T = decltype(t);
          info.lo = static_cast<int128_t>(std::numeric_limits<T>::lowest());
          info.hi = static_cast<int128_t>(std::numeric_limits<T>::max());
          return 0;
        },
        0);
  }
  return info;
}

bool IsFixedPoint(const DataType& t) {
  return t.is_integer() || t.id() == TypeId::kDecimal;
}

// ROUND / TRUNC / FLOOR / CEIL with an optional digits argument.
Result<KernelPtr> MakeRounding(const KernelSignature& sig, RoundMode mode) {
  if (sig.arg_types.empty() || sig.arg_types.size() > 2)
    return Status::InvalidArgument("rounding takes one or two arguments");
  const DataType in = sig.arg_types[0];
  const DataType out = sig.result_type;
  auto casts = std::make_shared<ArgCasts>();
  std::vector<DataType> want{in};
  if (sig.arg_types.size() == 2)
    want.push_back(DataType::Int32());
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, want));
  if (IsFixedPoint(in) && IsFixedPoint(out)) {
    const FixedPointInfo info = InfoFor(in, out);
    return MakeLambdaKernel([casts, in, out, info, mode](const std::vector<Datum>& args,
                                                         int64_t length,
                                                         KernelContext* ctx) -> Result<Datum> {
      SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
      uint8_t flags = 0;
      Result<Datum> r = DispatchFixed<Result<Datum>>(
          in,
          [&](auto in_t) -> Result<Datum> {
            using In = decltype(in_t);
            return DispatchFixed<Result<Datum>>(
                out,
                [&](auto out_t) -> Result<Datum> {
                  using Out = decltype(out_t);
                  if (c.size() == 1) {
                    return UnaryFixed<In, Out>(
                        c[0], length, out, ctx, &flags, [&info, mode](In v, uint8_t& f) {
                          int128_t q = RoundUnscaled(static_cast<int128_t>(v), info.in_scale, 0,
                                                     info.out_scale, mode, f);
                          return Narrow<Out>(q, info, f);
                        });
                  }
                  return BinaryFixed<In, int32_t, Out>(
                      c[0], c[1], length, out, ctx, &flags,
                      [&info, mode](In v, int32_t digits, uint8_t& f) {
                        int128_t q = RoundUnscaled(static_cast<int128_t>(v), info.in_scale, digits,
                                                   info.out_scale, mode, f);
                        return Narrow<Out>(q, info, f);
                      });
                },
                Status::NotImplemented("rounding to {}", out.ToString()));
          },
          Status::NotImplemented("rounding of {}", in.ToString()));
      if (!r.ok())
        return r;
      SHOAL_RETURN_IF_ERROR(RoundingOverflowToStatus(flags, out));
      return r;
    });
  }
  if (!IsFloat(in) || in != out)
    return Status::NotImplemented("rounding of {} to {}", in.ToString(), out.ToString());
  return MakeLambdaKernel([casts, out, mode](const std::vector<Datum>& args, int64_t length,
                                             KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    uint8_t flags = 0;
    auto round1 = [mode](double x) {
      switch (mode) {
        case RoundMode::kRound: return std::nearbyint(x);
        case RoundMode::kTrunc: return std::trunc(x);
        case RoundMode::kFloor: return std::floor(x);
        case RoundMode::kCeil: return std::ceil(x);
      }
      return x;
    };
    auto run = [&](auto zero) -> Result<Datum> {
      using F = decltype(zero);
      if (c.size() == 1) {
        return UnaryFixed<F, F>(c[0], length, out, ctx, &flags,
                                [round1](F x, uint8_t&) { return static_cast<F>(round1(x)); });
      }
      const bool truncate = mode == RoundMode::kTrunc;
      return BinaryFixed<F, int32_t, F>(
          c[0], c[1], length, out, ctx, &flags, [truncate](F x, int32_t digits, uint8_t&) {
            return static_cast<F>(RoundDecimalDigits(x, digits, truncate));
          });
    };
    if (out.id() == TypeId::kFloat32)
      return run(float{});
    return run(double{});
  });
}

Result<KernelPtr> MakeAbs(const KernelSignature& sig) {
  if (sig.arg_types.size() != 1)
    return Status::InvalidArgument("abs takes one argument");
  const DataType out = sig.result_type;
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {out}));
  if (!IsFloat(out) && !IsFixedPoint(out))
    return Status::NotImplemented("abs({})", out.ToString());
  return MakeLambdaKernel([casts, out](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    uint8_t flags = 0;
    Result<Datum> r = DispatchFixed<Result<Datum>>(
        out,
        [&](auto t) -> Result<Datum> {
          using T = decltype(t);
          return UnaryFixed<T, T>(c[0], length, out, ctx, &flags, [](T v, uint8_t& f) -> T {
            if constexpr (std::is_floating_point_v<T>) {
              (void)f;
              return std::fabs(v);
            } else if constexpr (std::is_unsigned_v<T>) {
              (void)f;
              return v;
            } else {
              if (v >= 0)
                return v;
              if (v == std::numeric_limits<T>::min() && !std::is_same_v<T, int128_t>) {
                f |= kOverflowFlag;
                return 0;
              }
              return static_cast<T>(-v);
            }
          });
        },
        Status::NotImplemented("abs({})", out.ToString()));
    if (!r.ok())
      return r;
    SHOAL_RETURN_IF_ERROR(RoundingOverflowToStatus(flags, out));
    return r;
  });
}

enum class FloatFn : uint8_t { kSqrt, kLn, kLog10, kExp };

Result<KernelPtr> MakeFloatFunction(const KernelSignature& sig, FloatFn fn) {
  if (sig.arg_types.size() != 1)
    return Status::InvalidArgument("function takes one argument");
  const DataType f64 = DataType::Float64();
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {f64}));
  return MakeLambdaKernel([casts, fn, f64](const std::vector<Datum>& args, int64_t length,
                                           KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    uint8_t flags = 0;
    SHOAL_ASSIGN_OR_RETURN(
        Datum r, (UnaryFixed<double, double>(
                     c[0], length, f64, ctx, &flags, [fn](double x, uint8_t& f) -> double {
                       switch (fn) {
                         case FloatFn::kSqrt:
                           if (x < 0)
                             f |= kInvalidFlag;
                           return std::sqrt(x);
                         case FloatFn::kLn:
                         case FloatFn::kLog10:
                           if (x == 0)
                             f |= kZeroFlag;
                           else if (x < 0)
                             f |= kInvalidFlag;
                           return fn == FloatFn::kLn ? std::log(x) : std::log10(x);
                         case FloatFn::kExp: {
                           double y = std::exp(x);
                           if (std::isinf(y) && std::isfinite(x))
                             f |= kOverflowFlag;
                           else if (y == 0 && std::isfinite(x))
                             f |= kUnderflowFlag;
                           return y;
                         }
                       }
                       return x;
                     })));
    if (flags & kInvalidFlag) {
      if (fn == FloatFn::kSqrt)
        return Status::InvalidArgument("cannot take square root of a negative number")
            .WithSqlState("2201F");
      return Status::InvalidArgument("cannot take logarithm of a negative number")
          .WithSqlState("2201E");
    }
    if (flags & kZeroFlag)
      return Status::InvalidArgument("cannot take logarithm of zero").WithSqlState("2201E");
    if (flags & kOverflowFlag)
      return Status::OutOfRange("value out of range: overflow").WithSqlState("22003");
    if (flags & kUnderflowFlag)
      return Status::OutOfRange("value out of range: underflow").WithSqlState("22003");
    return r;
  });
}

Result<KernelPtr> MakePower(const KernelSignature& sig) {
  if (sig.arg_types.size() != 2)
    return Status::InvalidArgument("power takes two arguments");
  const DataType f64 = DataType::Float64();
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {f64, f64}));
  return MakeLambdaKernel([casts, f64](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    uint8_t flags = 0;
    SHOAL_ASSIGN_OR_RETURN(
        Datum r, (BinaryFixed<double, double, double>(
                     c[0], c[1], length, f64, ctx, &flags, [](double x, double y, uint8_t& f) {
                       if (x == 0 && y < 0)
                         f |= kZeroFlag;
                       else if (x < 0 && std::isfinite(y) && std::floor(y) != y)
                         f |= kInvalidFlag;
                       double p = std::pow(x, y);
                       if (std::isfinite(x) && std::isfinite(y)) {
                         if (std::isinf(p))
                           f |= kOverflowFlag;
                         else if (p == 0 && x != 0)
                           f |= kUnderflowFlag;
                       }
                       return p;
                     })));
    if (flags & kZeroFlag)
      return Status::InvalidArgument("zero raised to a negative power is undefined")
          .WithSqlState("2201F");
    if (flags & kInvalidFlag)
      return Status::InvalidArgument(
                 "a negative number raised to a non-integer power yields a complex result")
          .WithSqlState("2201F");
    if (flags & kOverflowFlag)
      return Status::OutOfRange("value out of range: overflow").WithSqlState("22003");
    if (flags & kUnderflowFlag)
      return Status::OutOfRange("value out of range: underflow").WithSqlState("22003");
    return r;
  });
}

// ---- GREATEST / LEAST -------------------------------------------------------------------------

template <typename T>
Result<Datum> ExtremeFixed(const std::vector<Datum>& args, int64_t n, bool scalar,
                           const DataType& type, bool greatest, KernelContext* ctx) {
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<T>(n, ctx->pool));
  T* out = values->mutable_data_as<T>();
  std::vector<uint8_t> valid(static_cast<size_t>(n), 0);
  for (const Datum& d : args) {
    const Array& a = *d.array;
    const T* in = a.values<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = d.is_scalar ? 0 : i;
      if (!a.IsValid(k))
        continue;
      const T v = in[k];
      uint8_t& seen = valid[static_cast<size_t>(i)];
      if (!seen || (greatest ? out[i] < v : v < out[i])) {
        out[i] = v;
        seen = 1;
      }
    }
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::Allocate(n, ctx->pool));
  bits::PackBytes(valid.data(), n, validity->mutable_data());
  return MakeResult(type, n, std::move(validity), {std::move(values)}, scalar);
}

Result<Datum> ExtremeString(const std::vector<Datum>& args, int64_t n, bool scalar,
                            const DataType& type, bool greatest, KernelContext* ctx) {
  std::vector<std::string_view> best(static_cast<size_t>(n));
  std::vector<uint8_t> valid(static_cast<size_t>(n), 0);
  for (const Datum& d : args) {
    const Array& a = *d.array;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = d.is_scalar ? 0 : i;
      if (!a.IsValid(k))
        continue;
      std::string_view v = a.StringValue(k);
      const size_t u = static_cast<size_t>(i);
      if (!valid[u] || (greatest ? best[u] < v : v < best[u])) {
        best[u] = v;
        valid[u] = 1;
      }
    }
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, AllocateValues<int32_t>(n + 1, ctx->pool));
  int32_t* o = offsets->mutable_data_as<int32_t>();
  int64_t total = 0;
  o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    total += static_cast<int64_t>(best[static_cast<size_t>(i)].size());
    if (total > INT32_MAX)
      return Status::OutOfRange("string column exceeds 2 GiB in one batch");
    o[i + 1] = static_cast<int32_t>(total);
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr bytes, columnar::Buffer::Allocate(total, ctx->pool));
  for (int64_t i = 0; i < n; ++i) {
    std::string_view v = best[static_cast<size_t>(i)];
    if (!v.empty())
      std::memcpy(bytes->mutable_data() + o[i], v.data(), v.size());
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::Allocate(n, ctx->pool));
  bits::PackBytes(valid.data(), n, validity->mutable_data());
  return MakeResult(type, n, std::move(validity), {std::move(offsets), std::move(bytes)}, scalar);
}

Result<KernelPtr> MakeExtreme(const KernelSignature& sig, bool greatest) {
  const DataType type = sig.result_type;
  if (sig.arg_types.empty())
    return Status::InvalidArgument("greatest/least need at least one argument");
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(
      casts->Init(sig.arg_types, std::vector<DataType>(sig.arg_types.size(), type)));
  const bool is_string = type.id() == TypeId::kUtf8;
  if (!is_string && !DispatchFixed<bool>(
                        type, [](auto) { return true; }, false))
    return Status::NotImplemented("{}({})", greatest ? "greatest" : "least", type.ToString());
  return MakeLambdaKernel([casts, type, greatest, is_string](const std::vector<Datum>& args,
                                                             int64_t length,
                                                             KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    if (is_string)
      return ExtremeString(c, n, scalar, type, greatest, ctx);
    return DispatchFixed<Result<Datum>>(
        type,
        [&](auto t) -> Result<Datum> {
          return ExtremeFixed<decltype(t)>(c, n, scalar, type, greatest, ctx);
        },
        Status::NotImplemented("greatest/least of {}", type.ToString()));
  });
}

}  // namespace

void RegisterMathKernels(KernelRegistry* registry) {
  registry->Register("abs", &MakeAbs);
  registry->Register("round",
                     [](const KernelSignature& s) { return MakeRounding(s, RoundMode::kRound); });
  registry->Register("trunc",
                     [](const KernelSignature& s) { return MakeRounding(s, RoundMode::kTrunc); });
  registry->Register("floor",
                     [](const KernelSignature& s) { return MakeRounding(s, RoundMode::kFloor); });
  registry->Register("ceil",
                     [](const KernelSignature& s) { return MakeRounding(s, RoundMode::kCeil); });
  registry->Register("sqrt",
                     [](const KernelSignature& s) { return MakeFloatFunction(s, FloatFn::kSqrt); });
  registry->Register("ln",
                     [](const KernelSignature& s) { return MakeFloatFunction(s, FloatFn::kLn); });
  registry->Register(
      "log", [](const KernelSignature& s) { return MakeFloatFunction(s, FloatFn::kLog10); });
  registry->Register("exp",
                     [](const KernelSignature& s) { return MakeFloatFunction(s, FloatFn::kExp); });
  registry->Register("power", &MakePower);
  registry->Register("greatest", [](const KernelSignature& s) { return MakeExtreme(s, true); });
  registry->Register("least", [](const KernelSignature& s) { return MakeExtreme(s, false); });
}

}  // namespace shoal::exec

// More of PostgreSQL's numeric functions: trigonometry and the other double precision functions
// (cbrt, degrees, radians, sign, pi, atan2, log with a base), integer gcd / lcm, width_bucket, and
// the integer bitwise operators (&, |, #, ~, <<, >>). Domain errors are PostgreSQL's
// ("input is out of range", 22003).
#include <cmath>
#include <numeric>

#include "shoal/exec/expr/row_kernel.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

enum class Float1 : uint8_t {
  kCbrt,
  kDegrees,
  kRadians,
  kSign,
  kSin,
  kCos,
  kTan,
  kCot,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh
};

Status OutOfRange() {
  return Status::OutOfRange("input is out of range").WithSqlState("22003");
}

Result<KernelPtr> MakeFloat1(const KernelSignature& sig, Float1 fn) {
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
                         case Float1::kCbrt: return std::cbrt(x);
                         case Float1::kDegrees: return x * (180.0 / M_PI);
                         case Float1::kRadians: return x * (M_PI / 180.0);
                         case Float1::kSign: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
                         case Float1::kSin: return std::sin(x);
                         case Float1::kCos: return std::cos(x);
                         case Float1::kTan: return std::tan(x);
                         case Float1::kCot: return 1.0 / std::tan(x);
                         case Float1::kAsin:
                         case Float1::kAcos:
                           if (x < -1 || x > 1)
                             f |= kInvalidFlag;
                           return fn == Float1::kAsin ? std::asin(x) : std::acos(x);
                         case Float1::kAtan: return std::atan(x);
                         case Float1::kSinh: return std::sinh(x);
                         case Float1::kCosh: return std::cosh(x);
                         case Float1::kTanh: return std::tanh(x);
                       }
                       return x;
                     })));
    if (flags & kInvalidFlag)
      return OutOfRange();
    return r;
  });
}

Result<KernelPtr> MakeFloat2(const KernelSignature& sig, bool log_base) {
  const DataType f64 = DataType::Float64();
  return MakeFixedRowKernel<double>(
      sig, {f64, f64}, f64, [log_base](const RowArgs& a, int64_t i, double* out) -> Status {
        const double x = a.Val<double>(0, i);
        const double y = a.Val<double>(1, i);
        if (!log_base) {
          *out = std::atan2(x, y);
          return Status::OK();
        }
        // log(base, value), as PostgreSQL's numeric log: both must be positive, base not 1.
        if (x <= 0 || y <= 0)
          return Status::InvalidArgument("cannot take logarithm of {}",
                                         x == 0 || y == 0 ? "zero" : "a negative number")
              .WithSqlState("2201E");
        if (x == 1)
          return Status::InvalidArgument("division by zero").WithSqlState("22012");
        *out = std::log(y) / std::log(x);
        return Status::OK();
      });
}

Result<KernelPtr> MakePi(const KernelSignature&) {
  return MakeLambdaKernel(
      [](const std::vector<Datum>&, int64_t, KernelContext* ctx) -> Result<Datum> {
        SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<double>(1, ctx->pool));
        values->mutable_data_as<double>()[0] = M_PI;
        return MakeResult(DataType::Float64(), 1, nullptr, {std::move(values)}, true);
      });
}

template <typename T>
Result<KernelPtr> MakeGcdLcmT(const KernelSignature& sig, const DataType& type, bool lcm) {
  return MakeFixedRowKernel<T>(
      sig, {type, type}, type, [lcm](const RowArgs& a, int64_t i, T* out) -> Status {
        const T x = a.template Val<T>(0, i);
        const T y = a.template Val<T>(1, i);
        // |min| does not fit: PostgreSQL refuses the results that would need it.
        if (x == std::numeric_limits<T>::min() || y == std::numeric_limits<T>::min())
          return Status::OutOfRange("{} out of range", sizeof(T) == 8 ? "bigint" : "integer")
              .WithSqlState("22003");
        const T g = std::gcd(x < 0 ? -x : x, y < 0 ? -y : y);
        if (!lcm) {
          *out = g;
          return Status::OK();
        }
        if (x == 0 || y == 0) {
          *out = 0;
          return Status::OK();
        }
        T r = 0;
        if (__builtin_mul_overflow(x / g, y, &r) || r == std::numeric_limits<T>::min())
          return Status::OutOfRange("{} out of range", sizeof(T) == 8 ? "bigint" : "integer")
              .WithSqlState("22003");
        *out = r < 0 ? -r : r;
        return Status::OK();
      });
}

Result<KernelPtr> MakeGcdLcm(const KernelSignature& sig, bool lcm) {
  if (sig.result_type.id() == TypeId::kInt64)
    return MakeGcdLcmT<int64_t>(sig, DataType::Int64(), lcm);
  return MakeGcdLcmT<int32_t>(sig, DataType::Int32(), lcm);
}

// width_bucket(x, low, high, count): the bucket of x among `count` equal buckets of [low, high)
// (0 below, count + 1 at or above high; reversed when low > high), as PostgreSQL computes it.
Result<KernelPtr> MakeWidthBucket(const KernelSignature& sig) {
  const DataType f64 = DataType::Float64();
  return MakeFixedRowKernel<int32_t>(
      sig, {f64, f64, f64, DataType::Int32()}, DataType::Int32(),
      [](const RowArgs& a, int64_t i, int32_t* out) -> Status {
        const double x = a.Val<double>(0, i);
        const double lo = a.Val<double>(1, i);
        const double hi = a.Val<double>(2, i);
        const int32_t count = a.Val<int32_t>(3, i);
        if (count <= 0)
          return Status::InvalidArgument("count must be greater than zero").WithSqlState("2201G");
        if (lo == hi || std::isnan(x) || std::isnan(lo) || std::isnan(hi))
          return Status::InvalidArgument("{}", lo == hi ? "lower bound cannot equal upper bound"
                                                        : "operand, lower bound, and upper bound "
                                                          "cannot be NaN")
              .WithSqlState("2201G");
        if (lo < hi) {
          if (x < lo)
            *out = 0;
          else if (x >= hi)
            *out = count == INT32_MAX ? INT32_MAX : count + 1;
          else
            *out = static_cast<int32_t>(count * ((x - lo) / (hi - lo))) + 1;
        } else {
          if (x > lo)
            *out = 0;
          else if (x <= hi)
            *out = count == INT32_MAX ? INT32_MAX : count + 1;
          else
            *out = static_cast<int32_t>(count * ((lo - x) / (lo - hi))) + 1;
        }
        return Status::OK();
      });
}

enum class BitOp : uint8_t { kAnd, kOr, kXor, kNot, kShiftLeft, kShiftRight };

template <typename T>
Result<KernelPtr> MakeBitOpT(const KernelSignature& sig, const DataType& type, BitOp op) {
  if (op == BitOp::kNot) {
    return MakeFixedRowKernel<T>(sig, {type}, type,
                                 [](const RowArgs& a, int64_t i, T* out) -> Status {
                                   *out = static_cast<T>(~a.template Val<T>(0, i));
                                   return Status::OK();
                                 });
  }
  const bool shift = op == BitOp::kShiftLeft || op == BitOp::kShiftRight;
  return MakeFixedRowKernel<T>(
      sig, {type, shift ? DataType::Int32() : type}, type,
      [op](const RowArgs& a, int64_t i, T* out) -> Status {
        using U = std::make_unsigned_t<T>;
        const T x = a.template Val<T>(0, i);
        switch (op) {
          case BitOp::kAnd: *out = static_cast<T>(x & a.template Val<T>(1, i)); break;
          case BitOp::kOr: *out = static_cast<T>(x | a.template Val<T>(1, i)); break;
          case BitOp::kXor: *out = static_cast<T>(x ^ a.template Val<T>(1, i)); break;
          case BitOp::kShiftLeft:
          case BitOp::kShiftRight: {
            // The count is taken modulo the width, as the C shifts PostgreSQL uses do on x86.
            const int bits = static_cast<int>(sizeof(T) * 8);
            const int n = static_cast<int>(static_cast<uint32_t>(a.Val<int32_t>(1, i)) %
                                           static_cast<uint32_t>(bits));
            *out = op == BitOp::kShiftLeft ? static_cast<T>(static_cast<U>(x) << n)
                                           : static_cast<T>(x >> n);
            break;
          }
          case BitOp::kNot: break;
        }
        return Status::OK();
      });
}

Result<KernelPtr> MakeBitOp(const KernelSignature& sig, BitOp op) {
  switch (sig.result_type.id()) {
    case TypeId::kInt16: return MakeBitOpT<int16_t>(sig, DataType::Int16(), op);
    case TypeId::kInt64: return MakeBitOpT<int64_t>(sig, DataType::Int64(), op);
    default: return MakeBitOpT<int32_t>(sig, DataType::Int32(), op);
  }
}

}  // namespace

void RegisterNumericFunctionKernels(KernelRegistry* registry) {
  const std::pair<const char*, Float1> unary[] = {
      {"cbrt", Float1::kCbrt}, {"degrees", Float1::kDegrees}, {"radians", Float1::kRadians},
      {"sign", Float1::kSign}, {"sin", Float1::kSin},         {"cos", Float1::kCos},
      {"tan", Float1::kTan},   {"cot", Float1::kCot},         {"asin", Float1::kAsin},
      {"acos", Float1::kAcos}, {"atan", Float1::kAtan},       {"sinh", Float1::kSinh},
      {"cosh", Float1::kCosh}, {"tanh", Float1::kTanh}};
  for (const auto& [name, fn] : unary) {
    const Float1 f = fn;
    registry->Register(name, [f](const KernelSignature& s) { return MakeFloat1(s, f); });
  }
  registry->Register("atan2", [](const KernelSignature& s) { return MakeFloat2(s, false); });
  registry->Register("log_base", [](const KernelSignature& s) { return MakeFloat2(s, true); });
  registry->Register("pi", &MakePi);
  registry->Register("gcd", [](const KernelSignature& s) { return MakeGcdLcm(s, false); });
  registry->Register("lcm", [](const KernelSignature& s) { return MakeGcdLcm(s, true); });
  registry->Register("width_bucket", &MakeWidthBucket);
  const std::pair<const char*, BitOp> bit_ops[] = {
      {"&", BitOp::kAnd},      {"|", BitOp::kOr},         {"#", BitOp::kXor},
      {"bitnot", BitOp::kNot}, {"<<", BitOp::kShiftLeft}, {">>", BitOp::kShiftRight}};
  for (const auto& [name, op] : bit_ops) {
    const BitOp o = op;
    registry->Register(name, [o](const KernelSignature& s) { return MakeBitOp(s, o); });
  }
}

}  // namespace shoal::exec

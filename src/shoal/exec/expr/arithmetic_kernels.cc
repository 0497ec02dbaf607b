// Arithmetic kernels: + - * / % and negate over integers (checked), floats, decimals (exact, with
// int128 intermediates, rescaled to the result type the binder chose) and dates.
#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/expr/calendar_arithmetic.h"
#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

enum class ArithOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod };

const char* OpName(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd: return "+";
    case ArithOp::kSub: return "-";
    case ArithOp::kMul: return "*";
    case ArithOp::kDiv: return "/";
    case ArithOp::kMod: return "%";
  }
  return "?";
}

Status FlagsToStatus(uint8_t flags, const DataType& type) {
  if (flags & kDivideByZeroFlag)
    return Status::InvalidArgument("division by zero").WithSqlState("22012");
  if (flags & kOverflowFlag) {
    return Status::OutOfRange("value out of range for type {}", type.ToString())
        .WithSqlState("22003");
  }
  if (flags & kInvalidFlag)
    return Status::InvalidArgument("invalid argument for arithmetic on {}", type.ToString());
  return Status::OK();
}

template <typename T>
T IntOp(ArithOp op, T a, T b, uint8_t& flags) {
  T r{};
  switch (op) {
    case ArithOp::kAdd: flags |= __builtin_add_overflow(a, b, &r) ? kOverflowFlag : 0; return r;
    case ArithOp::kSub: flags |= __builtin_sub_overflow(a, b, &r) ? kOverflowFlag : 0; return r;
    case ArithOp::kMul: flags |= __builtin_mul_overflow(a, b, &r) ? kOverflowFlag : 0; return r;
    case ArithOp::kDiv:
    case ArithOp::kMod:
      if (b == 0) {
        flags |= kDivideByZeroFlag;
        return 0;
      }
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) {
          if (op == ArithOp::kMod)
            return 0;
          flags |= __builtin_sub_overflow(T(0), a, &r) ? kOverflowFlag : 0;
          return r;
        }
      }
      return op == ArithOp::kDiv ? static_cast<T>(a / b) : static_cast<T>(a % b);
  }
  return r;
}

template <typename T, ArithOp kOp>
Result<Datum> IntArith(const Datum& a, const Datum& b, int64_t length, const DataType& type,
                       KernelContext* ctx) {
  uint8_t flags = 0;
  SHOAL_ASSIGN_OR_RETURN(
      Datum out, (BinaryFixed<T, T, T>(a, b, length, type, ctx, &flags, [](T x, T y, uint8_t& f) {
        return IntOp<T>(kOp, x, y, f);
      })));
  SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, type));
  return out;
}

template <typename T, ArithOp kOp>
Result<Datum> FloatArith(const Datum& a, const Datum& b, int64_t length, const DataType& type,
                         KernelContext* ctx) {
  uint8_t flags = 0;
  SHOAL_ASSIGN_OR_RETURN(
      Datum out,
      (BinaryFixed<T, T, T>(a, b, length, type, ctx, &flags, [](T x, T y, uint8_t& f) -> T {
        if constexpr (kOp == ArithOp::kAdd) {
          return x + y;
        } else if constexpr (kOp == ArithOp::kSub) {
          return x - y;
        } else if constexpr (kOp == ArithOp::kMul) {
          return x * y;
        } else if constexpr (kOp == ArithOp::kDiv) {
          f |= y == 0 ? kDivideByZeroFlag : 0;
          return x / y;
        } else {
          f |= y == 0 ? kDivideByZeroFlag : 0;
          return std::fmod(x, y);
        }
      })));
  SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, type));
  return out;
}

template <typename T, typename F>
Result<KernelPtr> MakeBinaryForType(const KernelSignature& sig, F make) {
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {sig.result_type, sig.result_type}));
  DataType type = sig.result_type;
  auto fn = make(T{});
  return MakeLambdaKernel([casts, type, fn](const std::vector<Datum>& args, int64_t length,
                                            KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> cast_args, casts->Apply(args, length, ctx));
    return fn(cast_args[0], cast_args[1], length, type, ctx);
  });
}

// ---- decimals -------------------------------------------------------------------------------

bool MulOverflow128(int128_t a, int128_t b, int128_t* out) {
  constexpr int128_t kLimit = static_cast<int128_t>(1) << 62;
  if (a > -kLimit && a < kLimit && b > -kLimit && b < kLimit) {
    *out = a * b;
    return false;
  }
  using u128 = unsigned __int128;  // NOLINT(readability-identifier-naming): as uint64_t
  u128 ua = a < 0 ? -static_cast<u128>(a) : static_cast<u128>(a);
  u128 ub = b < 0 ? -static_cast<u128>(b) : static_cast<u128>(b);
  const u128 kMax = static_cast<u128>(~static_cast<u128>(0) >> 1);
  if (ua != 0 && ub > kMax / ua)
    return true;
  u128 m = ua * ub;
  *out = ((a < 0) != (b < 0)) ? -static_cast<int128_t>(m) : static_cast<int128_t>(m);
  return false;
}

// n / d rounded half away from zero.
int128_t RoundDiv(int128_t n, int128_t d) {
  int128_t q = n / d;
  int128_t r = n % d;
  int128_t ar = r < 0 ? -r : r;
  int128_t ad = d < 0 ? -d : d;
  if (ar >= ad - ar)
    q += ((n < 0) != (d < 0)) ? -1 : 1;
  return q;
}

struct DecimalPlan {
  ArithOp op{};
  int128_t mul_a = 1, mul_b = 1;        // pre-scaling of the operands
  int128_t post_mul = 1, post_div = 1;  // rescaling of the result
  int128_t max_abs = 0;
};

int ScaleOf(const DataType& t) {
  return t.id() == TypeId::kDecimal ? t.scale() : 0;
}

DecimalPlan PlanDecimal(ArithOp op, const DataType& a, const DataType& b, const DataType& r) {
  DecimalPlan plan;
  plan.op = op;
  plan.max_abs = columnar::MaxUnscaled(r.precision());
  int sa = ScaleOf(a), sb = ScaleOf(b), sr = r.scale();
  int s = 0;
  switch (op) {
    case ArithOp::kAdd:
    case ArithOp::kSub:
    case ArithOp::kMod:
      s = std::max(sa, sb);
      plan.mul_a = columnar::PowerOfTen(s - sa);
      plan.mul_b = columnar::PowerOfTen(s - sb);
      break;
    case ArithOp::kMul: s = sa + sb; break;
    case ArithOp::kDiv: {
      int e = sr + sb - sa;
      if (e >= 0) {
        plan.mul_a = columnar::PowerOfTen(std::min(e, 38));
      } else {
        plan.mul_b = columnar::PowerOfTen(std::min(-e, 38));
      }
      s = sr;
      break;
    }
  }
  if (sr > s)
    plan.post_mul = columnar::PowerOfTen(sr - s);
  if (sr < s)
    plan.post_div = columnar::PowerOfTen(s - sr);
  return plan;
}

inline int128_t DecimalOp(const DecimalPlan& p, int128_t a, int128_t b, uint8_t& flags) {
  bool overflow = false;
  if (p.mul_a != 1)
    overflow |= MulOverflow128(a, p.mul_a, &a);
  if (p.mul_b != 1)
    overflow |= MulOverflow128(b, p.mul_b, &b);
  int128_t r = 0;
  switch (p.op) {
    case ArithOp::kAdd: overflow |= __builtin_add_overflow(a, b, &r); break;
    case ArithOp::kSub: overflow |= __builtin_sub_overflow(a, b, &r); break;
    case ArithOp::kMul: overflow |= MulOverflow128(a, b, &r); break;
    case ArithOp::kDiv:
      if (b == 0) {
        flags |= kDivideByZeroFlag;
        return 0;
      }
      r = RoundDiv(a, b);
      break;
    case ArithOp::kMod:
      if (b == 0) {
        flags |= kDivideByZeroFlag;
        return 0;
      }
      r = a % b;
      break;
  }
  if (p.post_mul != 1)
    overflow |= MulOverflow128(r, p.post_mul, &r);
  if (p.post_div != 1)
    r = RoundDiv(r, p.post_div);
  overflow |= r > p.max_abs || r < -p.max_abs;
  flags |= overflow ? kOverflowFlag : 0;
  return r;
}

// The largest magnitude among the values of `d` (every slot, a NULL's arbitrary value included,
// so that the bound holds for every row a loop computes), saturated at 2^64 - 1.
template <typename T>
uint64_t MaxMagnitude(const Datum& d, int64_t n) {
  const T* v = d.array->values<T>();
  const int64_t m = d.is_scalar ? 1 : n;
  uint64_t max = 0;
  if constexpr (std::is_same_v<T, int64_t>) {
    for (int64_t i = 0; i < m; ++i) {
      const uint64_t x = static_cast<uint64_t>(v[i]);
      max = std::max(max, v[i] < 0 ? 0 - x : x);  // |INT64_MIN| is 2^63, exact in uint64
    }
  } else {
    using u128 = unsigned __int128;  // NOLINT(readability-identifier-naming): as uint64_t
    for (int64_t i = 0; i < m; ++i) {
      // -(x + 1) + 1: negating INT128_MIN itself would overflow.
      const u128 x = v[i] < 0 ? static_cast<u128>(-(v[i] + 1)) + 1 : static_cast<u128>(v[i]);
      max = std::max(max, static_cast<uint64_t>(std::min(x, static_cast<u128>(UINT64_MAX))));
    }
  }
  return max;
}

// The int64 form of a decimal + - * whose operands' actual magnitudes in this batch bound every
// result below both 2^63 and the result type's maximum: then no row can overflow or leave the
// type's range, and the loop is one 64-bit operation per row with no checks. The bound costs
// one pass over each operand per batch.
template <typename A, typename B>
bool FitsInt64Decimal(const DecimalPlan& p, const Datum& a, const Datum& b, int64_t n) {
  if (p.post_mul != 1 || p.post_div != 1)
    return false;
  if (p.op != ArithOp::kAdd && p.op != ArithOp::kSub && p.op != ArithOp::kMul)
    return false;
  constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(INT64_MAX);
  const unsigned __int128 max_a = MaxMagnitude<A>(a, n);
  const unsigned __int128 max_b = MaxMagnitude<B>(b, n);
  // Operands at most 2^63 - 1 in magnitude after scaling keep every product below 2^127.
  const unsigned __int128 mul_a = static_cast<unsigned __int128>(p.mul_a);
  const unsigned __int128 mul_b = static_cast<unsigned __int128>(p.mul_b);
  if (max_a > kLimit || max_b > kLimit || mul_a > kLimit || mul_b > kLimit)
    return false;
  const unsigned __int128 scaled_a = max_a * mul_a;
  const unsigned __int128 scaled_b = max_b * mul_b;
  if (scaled_a > kLimit || scaled_b > kLimit)
    return false;
  const unsigned __int128 bound = p.op == ArithOp::kMul ? scaled_a * scaled_b : scaled_a + scaled_b;
  return bound <= kLimit && bound <= static_cast<unsigned __int128>(p.max_abs);
}

template <typename A, typename B, typename R>
void Int64DecimalLoop(const DecimalPlan& p, const Datum& a, const Datum& b, int64_t n, R* out) {
  const int64_t ma = static_cast<int64_t>(p.mul_a);
  const int64_t mb = static_cast<int64_t>(p.mul_b);
  auto run = [&](auto op) {
    WithReader<A>(a, [&](auto ra) {
      WithReader<B>(b, [&](auto rb) {
        for (int64_t i = 0; i < n; ++i)
          out[i] = static_cast<R>(
              op(static_cast<int64_t>(ra[i]) * ma, static_cast<int64_t>(rb[i]) * mb));
      });
    });
  };
  switch (p.op) {
    case ArithOp::kAdd: run(std::plus<int64_t>()); break;
    case ArithOp::kSub: run(std::minus<int64_t>()); break;
    default: run(std::multiplies<int64_t>()); break;
  }
}

template <typename A, typename B, typename R>
Result<KernelPtr> MakeDecimalKernel(DecimalPlan plan, DataType type) {
  return MakeLambdaKernel([plan, type](const std::vector<Datum>& args, int64_t length,
                                       KernelContext* ctx) -> Result<Datum> {
    const int64_t n = OutputLength(args, length);
    if (!AnyNullScalar(args) && FitsInt64Decimal<A, B>(plan, args[0], args[1], n)) {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(args, n, ctx));
      SHOAL_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues<R>(n, ctx->pool));
      Int64DecimalLoop<A, B, R>(plan, args[0], args[1], n, values->mutable_data_as<R>());
      return MakeResult(type, n, std::move(validity), {std::move(values)},
                        n == 1 && AllScalar(args));
    }
    uint8_t flags = 0;
    SHOAL_ASSIGN_OR_RETURN(
        Datum out, (BinaryFixed<A, B, R>(
                       args[0], args[1], length, type, ctx, &flags, [&plan](A x, B y, uint8_t& f) {
                         return static_cast<R>(DecimalOp(plan, static_cast<int128_t>(x),
                                                         static_cast<int128_t>(y), f));
                       })));
    SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, type));
    return out;
  });
}

bool IsDecimalOperand(const DataType& t) {
  return t.id() == TypeId::kDecimal || t.is_integer();
}

Result<KernelPtr> MakeDecimalArith(ArithOp op, const KernelSignature& sig) {
  const DataType& ta = sig.arg_types[0];
  const DataType& tb = sig.arg_types[1];
  if (!IsDecimalOperand(ta) || !IsDecimalOperand(tb) || ta.id() == TypeId::kUInt64 ||
      tb.id() == TypeId::kUInt64) {
    return Status::NotImplemented("decimal arithmetic on {}", TypeListText(sig.arg_types));
  }
  DecimalPlan plan = PlanDecimal(op, ta, tb, sig.result_type);
  // Integer operands are widened to int64 first, so only the two decimal storage widths need
  // instantiating per operand.
  auto casts = std::make_shared<ArgCasts>();
  auto widen = [](const DataType& t) { return t.is_integer() ? DataType::Int64() : t; };
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {widen(ta), widen(tb)}));
  const bool wide_a =
      ta.id() == TypeId::kDecimal && ta.precision() > DataType::kMaxDecimal64Precision;
  const bool wide_b =
      tb.id() == TypeId::kDecimal && tb.precision() > DataType::kMaxDecimal64Precision;
  const bool wide_r = sig.result_type.precision() > DataType::kMaxDecimal64Precision;
  Result<KernelPtr> kernel = Status::Internal("unset");
  if (wide_r) {
    if (wide_a) {
      kernel = wide_b ? MakeDecimalKernel<int128_t, int128_t, int128_t>(plan, sig.result_type)
                      : MakeDecimalKernel<int128_t, int64_t, int128_t>(plan, sig.result_type);
    } else {
      kernel = wide_b ? MakeDecimalKernel<int64_t, int128_t, int128_t>(plan, sig.result_type)
                      : MakeDecimalKernel<int64_t, int64_t, int128_t>(plan, sig.result_type);
    }
  } else {
    if (wide_a) {
      kernel = wide_b ? MakeDecimalKernel<int128_t, int128_t, int64_t>(plan, sig.result_type)
                      : MakeDecimalKernel<int128_t, int64_t, int64_t>(plan, sig.result_type);
    } else {
      kernel = wide_b ? MakeDecimalKernel<int64_t, int128_t, int64_t>(plan, sig.result_type)
                      : MakeDecimalKernel<int64_t, int64_t, int64_t>(plan, sig.result_type);
    }
  }
  if (!kernel.ok())
    return kernel;
  std::shared_ptr<Kernel> inner = std::move(kernel).MoveValueUnsafe();
  return MakeLambdaKernel([casts, inner](const std::vector<Datum>& args, int64_t length,
                                         KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    return inner->Execute(c, length, ctx);
  });
}

// ---- dates ----------------------------------------------------------------------------------

Result<KernelPtr> MakeDateArith(ArithOp op, const KernelSignature& sig) {
  const DataType& ta = sig.arg_types[0];
  const DataType& tb = sig.arg_types[1];
  const DataType result = sig.result_type;
  // date - date: days between.
  if (op == ArithOp::kSub && ta.id() == TypeId::kDate32 && tb.id() == TypeId::kDate32) {
    return MakeLambdaKernel([result](const std::vector<Datum>& args, int64_t length,
                                     KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      SHOAL_ASSIGN_OR_RETURN(
          Datum days, (BinaryFixed<int32_t, int32_t, int64_t>(
                          args[0], args[1], length, DataType::Int64(), ctx, &flags,
                          [](int32_t x, int32_t y, uint8_t&) { return int64_t{x} - int64_t{y}; })));
      if (result.id() == TypeId::kInt64)
        return days;
      SHOAL_ASSIGN_OR_RETURN(KernelPtr cast, MakeCastKernel(DataType::Int64(), result));
      return cast->Execute({days}, length, ctx);
    });
  }
  // date +/- integer days, integer + date.
  bool date_first = ta.id() == TypeId::kDate32;
  const DataType& other = date_first ? tb : ta;
  if (other.is_integer() && (op == ArithOp::kAdd || (op == ArithOp::kSub && date_first))) {
    std::shared_ptr<Kernel> to_int32;
    if (other.id() != TypeId::kInt32) {
      SHOAL_ASSIGN_OR_RETURN(KernelPtr k, MakeCastKernel(other, DataType::Int32()));
      to_int32 = std::move(k);
    }
    return MakeLambdaKernel([op, date_first, to_int32](const std::vector<Datum>& args,
                                                       int64_t length,
                                                       KernelContext* ctx) -> Result<Datum> {
      const Datum& date = args[date_first ? 0 : 1];
      Datum days = args[date_first ? 1 : 0];
      if (to_int32) {
        SHOAL_ASSIGN_OR_RETURN(days, to_int32->Execute({days}, length, ctx));
      }
      uint8_t flags = 0;
      SHOAL_ASSIGN_OR_RETURN(
          Datum out, (BinaryFixed<int32_t, int32_t, int32_t>(
                         date, days, length, DataType::Date32(), ctx, &flags,
                         [op](int32_t d, int32_t n, uint8_t& f) {
                           return IntOp<int32_t>(
                               op == ArithOp::kAdd ? ArithOp::kAdd : ArithOp::kSub, d, n, f);
                         })));
      SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, DataType::Date32()));
      return out;
    });
  }
  // date +/- interval, interval + date.
  if (other.id() == TypeId::kInterval &&
      (op == ArithOp::kAdd || (op == ArithOp::kSub && date_first))) {
    const int sign = op == ArithOp::kSub ? -1 : 1;
    if (result.id() != TypeId::kDate32 && result.id() != TypeId::kTimestamp)
      return Status::NotImplemented("date +/- interval producing {}", result.ToString());
    int64_t per_second = 1;
    switch (result.unit()) {
      case columnar::TimeUnit::kSecond: per_second = 1; break;
      case columnar::TimeUnit::kMilli: per_second = 1000; break;
      case columnar::TimeUnit::kMicro: per_second = 1000000; break;
      case columnar::TimeUnit::kNano: per_second = 1000000000; break;
    }
    return MakeLambdaKernel([sign, date_first, result, per_second](
                                const std::vector<Datum>& args, int64_t length,
                                KernelContext* ctx) -> Result<Datum> {
      const Datum& date = args[date_first ? 0 : 1];
      const Datum& interval = args[date_first ? 1 : 0];
      uint8_t flags = 0;
      Result<Datum> out = Status::Internal("unset");
      if (result.id() == TypeId::kDate32) {
        out = BinaryFixed<int32_t, MonthDayNano, int32_t>(
            date, interval, length, result, ctx, &flags,
            [sign](int32_t d, MonthDayNano iv, uint8_t& f) {
              int32_t r = AddMonthsToDate(d, sign * iv.months);
              int64_t days =
                  int64_t{r} + sign * int64_t{iv.days} + sign * (iv.nanoseconds / 86400000000000LL);
              f |= (days > INT32_MAX || days < INT32_MIN) ? kOverflowFlag : 0;
              return static_cast<int32_t>(days);
            });
      } else {
        out = BinaryFixed<int32_t, MonthDayNano, int64_t>(
            date, interval, length, result, ctx, &flags,
            [sign, per_second](int32_t d, MonthDayNano iv, uint8_t&) {
              int64_t days =
                  int64_t{AddMonthsToDate(d, sign * iv.months)} + sign * int64_t{iv.days};
              return days * 86400 * per_second +
                     sign * (iv.nanoseconds / (1000000000 / per_second));
            });
      }
      if (!out.ok())
        return out;
      SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, result));
      return out;
    });
  }
  return Status::NotImplemented("{} on {}", "date arithmetic", TypeListText(sig.arg_types));
}

// ---- timestamps and intervals (PostgreSQL's timestamp_pl_interval, timestamp_mi,
// interval_pl / _mi, interval_mul / _div) ----------------------------------------------------

/// t + sign * iv (calendar_arithmetic.h), the overflow noted in `f`.
int64_t AddInterval(int64_t t, MonthDayNano iv, int sign, int64_t per_second, uint8_t& f) {
  int64_t r = 0;
  if (!AddIntervalToTimestamp(t, iv, sign, per_second, &r))
    f |= kOverflowFlag;
  return r;
}

/// interval * factor (or / factor), carrying fractional months into days (30 a month) and
/// fractional days into the time, rounded to microseconds as PostgreSQL does.
MonthDayNano ScaleInterval(MonthDayNano v, double factor, bool divide, uint8_t& f) {
  if (divide && factor == 0) {
    f |= kDivideByZeroFlag;
    return {};
  }
  auto apply = [&](double x) { return divide ? x / factor : x * factor; };
  auto ts_round = [](double x) { return std::rint(x * 1e6) / 1e6; };
  double months = apply(v.months);
  double days = apply(v.days);
  if (std::isnan(months) || months > INT32_MAX || months < INT32_MIN || std::isnan(days) ||
      days > INT32_MAX || days < INT32_MIN) {
    f |= kOverflowFlag;
    return {};
  }
  MonthDayNano r{static_cast<int32_t>(months), static_cast<int32_t>(days), 0};
  double month_remainder_days = ts_round((months - r.months) * 30);
  double sec_remainder = ts_round(
      (days - r.days + month_remainder_days - static_cast<int>(month_remainder_days)) * 86400);
  if (std::fabs(sec_remainder) >= 86400) {
    r.days += static_cast<int32_t>(sec_remainder / 86400);
    sec_remainder -= static_cast<int>(sec_remainder / 86400) * 86400.0;
  }
  r.days += static_cast<int32_t>(month_remainder_days);
  const int64_t whole_micros = v.nanoseconds / 1000;  // intervals hold whole microseconds
  double micros = std::rint(apply(static_cast<double>(whole_micros)) + sec_remainder * 1e6);
  if (std::isnan(micros) || std::fabs(micros) >= 9.2e15) {
    f |= kOverflowFlag;
    return {};
  }
  r.nanoseconds = static_cast<int64_t>(micros) * 1000;
  return r;
}

Status IntervalFlagsToStatus(uint8_t flags, const char* what) {
  if (flags & kDivideByZeroFlag)
    return Status::InvalidArgument("division by zero").WithSqlState("22012");
  if (flags & kOverflowFlag)
    return Status::OutOfRange("{} out of range", what).WithSqlState("22008");
  return Status::OK();
}

Result<KernelPtr> MakeTemporalArith(ArithOp op, const KernelSignature& sig) {
  const DataType ta = sig.arg_types[0];
  const DataType tb = sig.arg_types[1];
  const DataType result = sig.result_type;
  const bool add = op == ArithOp::kAdd;
  // timestamp +/- interval, interval + timestamp.
  if (result.id() == TypeId::kTimestamp && (add || op == ArithOp::kSub) &&
      (ta.id() == TypeId::kInterval) != (tb.id() == TypeId::kInterval)) {
    const bool ts_first = ta.id() == TypeId::kTimestamp;
    if ((ts_first ? ta : tb) != result)
      return Status::Internal("timestamp arithmetic on {}", TypeListText(sig.arg_types));
    const int sign = add ? 1 : -1;
    const int64_t per_second = UnitsPerSecond(result);
    return MakeLambdaKernel(
        [ts_first, sign, per_second, result](const std::vector<Datum>& args, int64_t length,
                                             KernelContext* ctx) -> Result<Datum> {
          uint8_t flags = 0;
          SHOAL_ASSIGN_OR_RETURN(
              Datum out, (BinaryFixed<int64_t, MonthDayNano, int64_t>(
                             args[ts_first ? 0 : 1], args[ts_first ? 1 : 0], length, result, ctx,
                             &flags, [sign, per_second](int64_t t, MonthDayNano iv, uint8_t& f) {
                               return AddInterval(t, iv, sign, per_second, f);
                             })));
          SHOAL_RETURN_IF_ERROR(IntervalFlagsToStatus(flags, "timestamp"));
          return out;
        });
  }
  // timestamp - timestamp: the difference as days and time (justify_hours).
  if (op == ArithOp::kSub && ta.id() == TypeId::kTimestamp && tb == ta &&
      result.id() == TypeId::kInterval) {
    const int64_t per_second = UnitsPerSecond(ta);
    return MakeLambdaKernel([per_second, result](const std::vector<Datum>& args, int64_t length,
                                                 KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      SHOAL_ASSIGN_OR_RETURN(Datum out,
                             (BinaryFixed<int64_t, int64_t, MonthDayNano>(
                                 args[0], args[1], length, result, ctx, &flags,
                                 [per_second](int64_t x, int64_t y, uint8_t& f) -> MonthDayNano {
                                   int64_t d = 0;
                                   if (__builtin_sub_overflow(x, y, &d)) {
                                     f |= kOverflowFlag;
                                     return {};
                                   }
                                   const int64_t per_day = 86400 * per_second;
                                   int64_t days = d / per_day;  // toward zero, as justify_hours
                                   int64_t rem = d % per_day;
                                   int64_t nanos = per_second >= 1000000000
                                                       ? rem / (per_second / 1000000000)
                                                       : rem * (1000000000 / per_second);
                                   return {0, static_cast<int32_t>(days), nanos};
                                 })));
      SHOAL_RETURN_IF_ERROR(IntervalFlagsToStatus(flags, "interval"));
      return out;
    });
  }
  // interval +/- interval.
  if ((add || op == ArithOp::kSub) && ta.id() == TypeId::kInterval &&
      tb.id() == TypeId::kInterval) {
    const int sign = add ? 1 : -1;
    return MakeLambdaKernel([sign, result](const std::vector<Datum>& args, int64_t length,
                                           KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      SHOAL_ASSIGN_OR_RETURN(
          Datum out, (BinaryFixed<MonthDayNano, MonthDayNano, MonthDayNano>(
                         args[0], args[1], length, result, ctx, &flags,
                         [sign](MonthDayNano x, MonthDayNano y, uint8_t& f) {
                           MonthDayNano r{};
                           bool o = __builtin_add_overflow(x.months, sign * y.months, &r.months);
                           o = __builtin_add_overflow(x.days, sign * y.days, &r.days) || o;
                           o = __builtin_add_overflow(x.nanoseconds, sign * y.nanoseconds,
                                                      &r.nanoseconds) ||
                               o;
                           f |= o ? kOverflowFlag : 0;
                           return r;
                         })));
      SHOAL_RETURN_IF_ERROR(IntervalFlagsToStatus(flags, "interval"));
      return out;
    });
  }
  // interval * number, number * interval, interval / number (the number as double).
  if ((op == ArithOp::kMul || op == ArithOp::kDiv) && result.id() == TypeId::kInterval) {
    const bool iv_first = ta.id() == TypeId::kInterval;
    const bool divide = op == ArithOp::kDiv;
    if ((iv_first ? tb : ta).id() != TypeId::kFloat64 || (divide && !iv_first))
      return Status::Internal("interval arithmetic on {}", TypeListText(sig.arg_types));
    return MakeLambdaKernel([iv_first, divide, result](const std::vector<Datum>& args,
                                                       int64_t length,
                                                       KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      SHOAL_ASSIGN_OR_RETURN(
          Datum out, (BinaryFixed<MonthDayNano, double, MonthDayNano>(
                         args[iv_first ? 0 : 1], args[iv_first ? 1 : 0], length, result, ctx,
                         &flags, [divide](MonthDayNano v, double x, uint8_t& f) {
                           return ScaleInterval(v, x, divide, f);
                         })));
      SHOAL_RETURN_IF_ERROR(IntervalFlagsToStatus(flags, "interval"));
      return out;
    });
  }
  return Status::NotImplemented("operator {} on {}", OpName(op), TypeListText(sig.arg_types));
}

template <ArithOp kOp>
Result<KernelPtr> MakeArith(const KernelSignature& sig) {
  if (sig.arg_types.size() != 2)
    return Status::Internal("arithmetic needs two arguments");
  const DataType& ta = sig.arg_types[0];
  const DataType& tb = sig.arg_types[1];
  const DataType& r = sig.result_type;
  if (ta.id() == TypeId::kNull || tb.id() == TypeId::kNull) {
    return MakeLambdaKernel(
        [r](const std::vector<Datum>&, int64_t, KernelContext* ctx) -> Result<Datum> {
          return NullScalar(r, ctx);
        });
  }
  if (ta.id() == TypeId::kDate32 || tb.id() == TypeId::kDate32)
    return MakeDateArith(kOp, sig);
  if (ta.id() == TypeId::kTimestamp || tb.id() == TypeId::kTimestamp ||
      ta.id() == TypeId::kInterval || tb.id() == TypeId::kInterval)
    return MakeTemporalArith(kOp, sig);
  if (r.id() == TypeId::kDecimal)
    return MakeDecimalArith(kOp, sig);
  Result<KernelPtr> unsupported =
      Status::NotImplemented("operator {} on {}", OpName(kOp), TypeListText(sig.arg_types));
  if (r.is_integer()) {
    return DispatchFixed(
        r,
        [&](auto t) -> Result<KernelPtr> {
          using T = decltype(t);
          if constexpr (std::is_integral_v<T>) {
            return MakeBinaryForType<T>(sig, [](T) { return &IntArith<T, kOp>; });
          } else {
            return Status::Internal("unreachable");
          }
        },
        std::move(unsupported));
  }
  if (IsFloat(r)) {
    if (r.id() == TypeId::kFloat32)
      return MakeBinaryForType<float>(sig, [](float) { return &FloatArith<float, kOp>; });
    return MakeBinaryForType<double>(sig, [](double) { return &FloatArith<double, kOp>; });
  }
  return unsupported;
}

Result<KernelPtr> MakeNegate(const KernelSignature& sig) {
  const DataType type = sig.result_type;
  if (type.id() == TypeId::kInterval) {
    return MakeLambdaKernel([type](const std::vector<Datum>& args, int64_t length,
                                   KernelContext* ctx) -> Result<Datum> {
      uint8_t flags = 0;
      return UnaryFixed<MonthDayNano, MonthDayNano>(
          args[0], length, type, ctx, &flags, [](MonthDayNano v, uint8_t&) {
            return MonthDayNano{-v.months, -v.days, -v.nanoseconds};
          });
    });
  }
  std::shared_ptr<Kernel> cast;
  if (sig.arg_types[0] != type && sig.arg_types[0].id() != TypeId::kNull) {
    SHOAL_ASSIGN_OR_RETURN(KernelPtr k, MakeCastKernel(sig.arg_types[0], type));
    cast = std::move(k);
  }
  return DispatchFixed(
      type,
      [&](auto t) -> Result<KernelPtr> {
        using T = decltype(t);
        return MakeLambdaKernel([type, cast](const std::vector<Datum>& args, int64_t length,
                                             KernelContext* ctx) -> Result<Datum> {
          Datum in = args[0];
          if (in.array->type_id() == TypeId::kNull)
            return NullScalar(type, ctx);
          if (cast) {
            SHOAL_ASSIGN_OR_RETURN(in, cast->Execute({in}, length, ctx));
          }
          uint8_t flags = 0;
          SHOAL_ASSIGN_OR_RETURN(
              Datum out, (UnaryFixed<T, T>(in, length, type, ctx, &flags, [](T v, uint8_t& f) -> T {
                if constexpr (std::is_integral_v<T> || std::is_same_v<T, int128_t>) {
                  T r{};
                  f |= __builtin_sub_overflow(T(0), v, &r) ? kOverflowFlag : 0;
                  return r;
                } else {
                  return -v;
                }
              })));
          SHOAL_RETURN_IF_ERROR(FlagsToStatus(flags, type));
          return out;
        });
      },
      Result<KernelPtr>(Status::NotImplemented("negate on {}", type.ToString())));
}

}  // namespace

void RegisterArithmeticKernels(KernelRegistry* registry) {
  registry->Register("+", &MakeArith<ArithOp::kAdd>);
  registry->Register("-", &MakeArith<ArithOp::kSub>);
  registry->Register("*", &MakeArith<ArithOp::kMul>);
  registry->Register("/", &MakeArith<ArithOp::kDiv>);
  registry->Register("%", &MakeArith<ArithOp::kMod>);
  registry->Register("mod", &MakeArith<ArithOp::kMod>);
  registry->Register("negate", &MakeNegate);
}

}  // namespace shoal::exec

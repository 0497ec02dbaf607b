// Comparison kernels: = <> < <= > >= and IS [NOT] DISTINCT FROM over every comparable type.
// Operands of different types are first converted to their common type (CommonType), so one typed
// loop per physical type serves all combinations; floats order NaN above everything and equal to
// itself, as PostgreSQL does.
#include <cmath>

#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {

namespace kernels {

namespace {

int IntegerDigits(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt8:
    case TypeId::kUInt8: return 3;
    case TypeId::kInt16:
    case TypeId::kUInt16: return 5;
    case TypeId::kInt32:
    case TypeId::kUInt32: return 10;
    case TypeId::kInt64: return 19;
    case TypeId::kUInt64: return 20;
    case TypeId::kDecimal: return t.precision() - t.scale();
    default: return 0;
  }
}

}  // namespace

Result<DataType> CommonType(const DataType& a, const DataType& b) {
  if (a == b)
    return a;
  if (a.id() == TypeId::kDictionary)
    return CommonType(a.value_type(), b);
  if (b.id() == TypeId::kDictionary)
    return CommonType(a, b.value_type());
  if (a.id() == TypeId::kNull)
    return b;
  if (b.id() == TypeId::kNull)
    return a;
  if ((a.id() == TypeId::kDecimal && (b.is_integer() || b.id() == TypeId::kDecimal)) ||
      (b.id() == TypeId::kDecimal && a.is_integer())) {
    int scale = std::max(a.id() == TypeId::kDecimal ? a.scale() : 0,
                         b.id() == TypeId::kDecimal ? b.scale() : 0);
    int digits = std::max(IntegerDigits(a), IntegerDigits(b));
    return DataType::Decimal(std::min(DataType::kMaxDecimalPrecision, digits + scale), scale);
  }
  if ((IsNumeric(a) || a.id() == TypeId::kDecimal) &&
      (IsNumeric(b) || b.id() == TypeId::kDecimal)) {
    if (IsFloat(a) || IsFloat(b))
      return DataType::Float64();
    if (a.id() == TypeId::kUInt64 || b.id() == TypeId::kUInt64)
      return DataType::Decimal(20, 0);
    return DataType::Int64();
  }
  if (a.id() == TypeId::kDate32 && b.id() == TypeId::kTimestamp)
    return b;
  if (b.id() == TypeId::kDate32 && a.id() == TypeId::kTimestamp)
    return a;
  if (a.id() == TypeId::kTimestamp && b.id() == TypeId::kTimestamp)
    return DataType::Timestamp(std::max(a.unit(), b.unit()), a.timezone());
  if (a.is_binary_like() && b.is_binary_like())
    return DataType::Binary();
  // Text literals compared with dates / numbers: the text is parsed (PostgreSQL's unknown-typed
  // literal rule, for plans built without the binder's coercion).
  if (a.id() == TypeId::kUtf8 && b.id() != TypeId::kBinary)
    return b;
  if (b.id() == TypeId::kUtf8 && a.id() != TypeId::kBinary)
    return a;
  return Status::TypeError("cannot compare {} with {}", a.ToString(), b.ToString());
}

}  // namespace kernels

namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T>
inline int FloatCmp(T a, T b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn)
    return an == bn ? 0 : (an ? 1 : -1);
  return (a > b) - (a < b);
}

template <CmpOp kOp, typename T>
inline bool Compare(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    int c = FloatCmp(a, b);
    switch (kOp) {
      case CmpOp::kEq: return c == 0;
      case CmpOp::kNe: return c != 0;
      case CmpOp::kLt: return c < 0;
      case CmpOp::kLe: return c <= 0;
      case CmpOp::kGt: return c > 0;
      case CmpOp::kGe: return c >= 0;
    }
  } else {
    switch (kOp) {
      case CmpOp::kEq: return a == b;
      case CmpOp::kNe: return a != b;
      case CmpOp::kLt: return a < b;
      case CmpOp::kLe: return a <= b;
      case CmpOp::kGt: return a > b;
      case CmpOp::kGe: return a >= b;
    }
  }
  return false;
}

template <CmpOp kOp, typename RA, typename RB>
void CompareLoop(RA a, RB b, uint8_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = Compare<kOp>(a[i], b[i]);
}

// Compares two datums of one physical type. `distinct`: IS [NOT] DISTINCT FROM semantics (never
// NULL; two NULLs are not distinct).
template <CmpOp kOp, typename WithReaderFn>
Result<Datum> CompareDatums(const Datum& a, const Datum& b, int64_t length, bool distinct,
                            KernelContext* ctx, std::vector<uint8_t>* scratch, WithReaderFn with) {
  std::vector<Datum> args{a, b};
  const bool scalar = AllScalar(args);
  const int64_t n = scalar ? 1 : length;
  if (!distinct && AnyNullScalar(args))
    return NullScalar(DataType::Boolean(), ctx);
  scratch->resize(static_cast<size_t>(n));
  uint8_t* out = scratch->data();
  with(a, [&](auto ra) { with(b, [&](auto rb) { CompareLoop<kOp>(ra, rb, out, n); }); });
  if (!distinct) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, PropagateValidity(args, n, ctx));
    return BoolFromBytes(*scratch, n, std::move(validity), scalar, ctx);
  }
  // IS DISTINCT FROM (kNe) / IS NOT DISTINCT FROM (kEq): nulls decide where present.
  for (int64_t i = 0; i < n; ++i) {
    bool an = a.array->IsNull(a.is_scalar ? 0 : i);
    bool bn = b.array->IsNull(b.is_scalar ? 0 : i);
    if (an || bn) {
      bool same = an && bn;
      out[i] = kOp == CmpOp::kEq ? same : !same;
    }
  }
  return BoolFromBytes(*scratch, n, nullptr, scalar, ctx);
}

template <CmpOp kOp>
Result<KernelPtr> MakeCompare(const KernelSignature& sig, bool distinct) {
  if (sig.arg_types.size() != 2)
    return Status::Internal("comparison needs two arguments");
  SHOAL_ASSIGN_OR_RETURN(DataType common, CommonType(sig.arg_types[0], sig.arg_types[1]));
  if (common.id() == TypeId::kDictionary)
    common = common.value_type();
  if ((common.id() == TypeId::kList || common.id() == TypeId::kLargeList) &&
      sig.arg_types[0] == sig.arg_types[1]) {
    switch (kOp) {
      case CmpOp::kEq:
      case CmpOp::kNe: return MakeArrayEqualityKernel(kOp == CmpOp::kNe, distinct);
      case CmpOp::kLt: return MakeArrayOrderingKernel("<");
      case CmpOp::kLe: return MakeArrayOrderingKernel("<=");
      case CmpOp::kGt: return MakeArrayOrderingKernel(">");
      case CmpOp::kGe: return MakeArrayOrderingKernel(">=");
    }
  }
  DataType physical = common;
  if (common.id() == TypeId::kBoolean)
    physical = DataType::Int8();
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init(sig.arg_types, {physical, physical}));
  auto scratch = std::make_shared<std::vector<uint8_t>>();
  if (physical.id() == TypeId::kNull) {
    return MakeLambdaKernel(
        [distinct](const std::vector<Datum>&, int64_t, KernelContext* ctx) -> Result<Datum> {
          if (!distinct)
            return NullScalar(DataType::Boolean(), ctx);
          SHOAL_ASSIGN_OR_RETURN(
              ArrayPtr a, columnar::Scalar::Boolean(kOp == CmpOp::kEq).MakeArray(1, ctx->pool));
          return Datum::Scalar(std::move(a));
        });
  }
  if (physical.is_binary_like()) {
    return MakeLambdaKernel([casts, scratch, distinct](const std::vector<Datum>& args,
                                                       int64_t length,
                                                       KernelContext* ctx) -> Result<Datum> {
      SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
      return CompareDatums<kOp>(c[0], c[1], length, distinct, ctx, scratch.get(),
                                [](const Datum& d, auto&& f) { WithStringReader(d, f); });
    });
  }
  Result<KernelPtr> unsupported =
      Status::NotImplemented("comparison of {}", TypeListText(sig.arg_types));
  return DispatchFixed(
      physical,
      [&](auto t) -> Result<KernelPtr> {
        using T = decltype(t);
        return MakeLambdaKernel([casts, scratch, distinct](const std::vector<Datum>& args,
                                                           int64_t length,
                                                           KernelContext* ctx) -> Result<Datum> {
          SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
          return CompareDatums<kOp>(c[0], c[1], length, distinct, ctx, scratch.get(),
                                    [](const Datum& d, auto&& f) { WithReader<T>(d, f); });
        });
      },
      std::move(unsupported));
}

}  // namespace

void RegisterComparisonKernels(KernelRegistry* registry) {
  registry->Register("=",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kEq>(s, false); });
  registry->Register("<>",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kNe>(s, false); });
  registry->Register("!=",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kNe>(s, false); });
  registry->Register("<",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kLt>(s, false); });
  registry->Register("<=",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kLe>(s, false); });
  registry->Register(">",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kGt>(s, false); });
  registry->Register(">=",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kGe>(s, false); });
  registry->Register("is_distinct_from",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kNe>(s, true); });
  registry->Register("is_not_distinct_from",
                     [](const KernelSignature& s) { return MakeCompare<CmpOp::kEq>(s, true); });
}

}  // namespace shoal::exec

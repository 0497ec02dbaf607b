// Logical and null-handling kernels: AND / OR / NOT with SQL's three-valued logic computed a byte
// of rows at a time over the value and validity bitmaps, IS [NOT] NULL / TRUE / FALSE, IN lists
// (a hash set of the literal list, built once), COALESCE and NULLIF.
#include <unordered_set>

#include "shoal/exec/expr/kernel_util.h"

namespace shoal::exec {
namespace {

using namespace kernels;  // NOLINT(google-build-using-namespace)
namespace bitmap = columnar::bitmap;

// Value and validity bits of a boolean array at offset 0 (validity all ones when it has none).
struct BoolBits {
  std::vector<uint8_t> values;
  std::vector<uint8_t> valid;
};

BoolBits ReadBits(const Array& a, int64_t n) {
  BoolBits b;
  const size_t bytes = static_cast<size_t>(bitmap::BytesForBits(n));
  b.values.resize(bytes);
  b.valid.assign(bytes, 0xFF);
  if (a.type_id() == TypeId::kNull) {
    std::fill(b.valid.begin(), b.valid.end(), 0);
    return b;
  }
  bits::Extract(a.buffer(1)->data(), a.offset(), n, b.values.data());
  if (a.null_count() > 0 && a.validity() != nullptr)
    bits::Extract(a.validity(), a.bit_offset(), n, b.valid.data());
  return b;
}

enum class LogicOp : uint8_t { kAnd, kOr };

Result<Datum> Logic(LogicOp op, const std::vector<Datum>& args, int64_t length,
                    KernelContext* ctx) {
  const bool scalar = AllScalar(args);
  const int64_t n = scalar ? 1 : length;
  const size_t bytes = static_cast<size_t>(bitmap::BytesForBits(n));
  std::vector<uint8_t> value(bytes), valid(bytes);
  for (size_t k = 0; k < args.size(); ++k) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Materialize(args[k], n, ctx));
    BoolBits b = ReadBits(*a, n);
    if (k == 0) {
      value = std::move(b.values);
      valid = std::move(b.valid);
      continue;
    }
    for (size_t j = 0; j < bytes; ++j) {
      const unsigned av = value[j], an = valid[j], bv = b.values[j], bn = b.valid[j];
      if (op == LogicOp::kAnd) {
        // false wins over NULL; the result is known where both are known or either is false.
        valid[j] = static_cast<uint8_t>((an & bn) | (an & ~av) | (bn & ~bv));
        value[j] = static_cast<uint8_t>((av | ~an) & (bv | ~bn));
      } else {
        valid[j] = static_cast<uint8_t>((an & bn) | (an & av) | (bn & bv));
        value[j] = static_cast<uint8_t>((av & an) | (bv & bn));
      }
    }
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values_buf, bits::Allocate(n, ctx->pool));
  std::memcpy(values_buf->mutable_data(), value.data(), bytes);
  int64_t nulls = n - bitmap::CountSetBits(valid.data(), 0, n);
  BufferPtr validity;
  if (nulls > 0) {
    SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
    std::memcpy(validity->mutable_data(), valid.data(), bytes);
  }
  return Datum{
      Array::Make(DataType::Boolean(), n, {std::move(validity), std::move(values_buf)}, nulls),
      scalar};
}

enum class TestOp : uint8_t {
  kNot,
  kIsNull,
  kIsNotNull,
  kIsTrue,
  kIsFalse,
  kIsNotTrue,
  kIsNotFalse
};

Result<Datum> BoolTest(TestOp op, const Datum& arg, int64_t length, KernelContext* ctx) {
  const int64_t n = arg.is_scalar ? 1 : length;
  const size_t bytes = static_cast<size_t>(bitmap::BytesForBits(n));
  const Array& a = *arg.array;
  std::vector<uint8_t> valid(bytes, 0xFF);
  if (a.type_id() == TypeId::kNull) {
    std::fill(valid.begin(), valid.end(), 0);
  } else if (a.null_count() > 0 && a.validity() != nullptr) {
    bits::Extract(a.validity(), a.bit_offset(), n, valid.data());
  }
  std::vector<uint8_t> value(bytes, 0);
  if (op != TestOp::kIsNull && op != TestOp::kIsNotNull && a.type_id() == TypeId::kBoolean)
    bits::Extract(a.buffer(1)->data(), a.offset(), n, value.data());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr out, bits::Allocate(n, ctx->pool));
  uint8_t* o = out->mutable_data();
  for (size_t j = 0; j < bytes; ++j) {
    const unsigned v = value[j], ok = valid[j];
    unsigned r = 0;
    switch (op) {
      case TestOp::kNot: r = ~v; break;
      case TestOp::kIsNull: r = ~ok; break;
      case TestOp::kIsNotNull: r = ok; break;
      case TestOp::kIsTrue: r = v & ok; break;
      case TestOp::kIsFalse: r = ~v & ok; break;
      case TestOp::kIsNotTrue: r = ~(v & ok); break;
      case TestOp::kIsNotFalse: r = ~(~v & ok); break;
    }
    o[j] = static_cast<uint8_t>(r);
  }
  BufferPtr validity;
  if (op == TestOp::kNot) {
    SHOAL_ASSIGN_OR_RETURN(validity, bits::CopyValidity(a, ctx->pool));
  }
  return Datum{Array::Make(DataType::Boolean(), n, {std::move(validity), std::move(out)}),
               arg.is_scalar};
}

KernelPtr MakeTestKernel(TestOp op) {
  return MakeLambdaKernel([op](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) {
    return BoolTest(op, args[0], length, ctx);
  });
}

// ---- IN ---------------------------------------------------------------------------------------

struct Int128Hash {
  size_t operator()(int128_t v) const {
    uint64_t lo = static_cast<uint64_t>(v), hi = static_cast<uint64_t>(v >> 64);
    return std::hash<uint64_t>()(lo ^ (hi * 0x9E3779B97F4A7C15ULL));
  }
};

template <typename T>
using ValueSet =
    std::conditional_t<std::is_same_v<T, int128_t>, std::unordered_set<int128_t, Int128Hash>,
                       std::unordered_set<T>>;

// x IN (literal list): true when found, else NULL when the list holds a NULL, else false.
Result<KernelPtr> MakeInKernel(const KernelSignature& sig) {
  if (sig.expr == nullptr || sig.arg_types.size() < 2)
    return Status::Internal("IN kernel needs the call node");
  DataType common = sig.arg_types[0];
  for (size_t i = 1; i < sig.arg_types.size(); ++i) {
    SHOAL_ASSIGN_OR_RETURN(common, CommonType(common, sig.arg_types[i]));
  }
  if (common.id() == TypeId::kDictionary)
    common = common.value_type();
  if (common.id() == TypeId::kBoolean)
    common = DataType::Int8();
  // The list as one array of the common type.
  KernelContext build_ctx{DefaultMemoryPool()};
  std::vector<ArrayPtr> items;
  bool list_has_null = false;
  for (size_t i = 1; i < sig.expr->args.size(); ++i) {
    const sql::Expr& item = *sig.expr->args[i];
    if (item.kind != sql::ExprKind::kLiteral)
      return Status::Internal("IN kernel over a non-literal list");
    if (item.value.is_null()) {
      list_has_null = true;
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr one, item.value.MakeArray(1, build_ctx.pool));
    SHOAL_ASSIGN_OR_RETURN(KernelPtr cast, MakeCastKernel(one->type(), common));
    SHOAL_ASSIGN_OR_RETURN(Datum converted, cast->Execute({Datum::Scalar(one)}, 1, &build_ctx));
    items.push_back(converted.array);
  }
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(casts->Init({sig.arg_types[0]}, {common}));
  auto finish = [list_has_null](std::vector<uint8_t>& found, const Datum& x, int64_t n,
                                KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::CopyValidity(*x.array, ctx->pool));
    if (list_has_null) {
      // Not found and a NULL in the list: unknown.
      if (!validity) {
        SHOAL_ASSIGN_OR_RETURN(validity, bits::Allocate(n, ctx->pool));
        std::memset(validity->mutable_data(), 0xFF, static_cast<size_t>(bitmap::BytesForBits(n)));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (!found[static_cast<size_t>(i)])
          bitmap::ClearBit(validity->mutable_data(), i);
      }
    }
    return BoolFromBytes(found, n, std::move(validity), x.is_scalar, ctx);
  };
  if (common.is_binary_like()) {
    auto storage = std::make_shared<std::vector<std::string>>();
    for (const ArrayPtr& a : items)
      storage->emplace_back(a->StringValue(0));
    auto set =
        std::make_shared<std::unordered_set<std::string_view>>(storage->begin(), storage->end());
    return MakeLambdaKernel([casts, storage, set, finish](const std::vector<Datum>& args,
                                                          int64_t length,
                                                          KernelContext* ctx) -> Result<Datum> {
      SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply({args[0]}, length, ctx));
      const Datum& x = c[0];
      const int64_t n = x.is_scalar ? 1 : length;
      std::vector<uint8_t> found(static_cast<size_t>(n));
      StringReader r = MakeStringReader(*x.array);
      for (int64_t i = 0; i < n; ++i)
        found[static_cast<size_t>(i)] = set->count(r[i]) > 0;
      return finish(found, x, n, ctx);
    });
  }
  Result<KernelPtr> unsupported = Status::NotImplemented("IN over {}", common.ToString());
  return DispatchFixed(
      common,
      [&](auto t) -> Result<KernelPtr> {
        using T = decltype(t);
        auto set = std::make_shared<ValueSet<T>>();
        std::vector<T> list;
        for (const ArrayPtr& a : items) {
          set->insert(a->values<T>()[0]);
          list.push_back(a->values<T>()[0]);
        }
        // Short lists are faster to scan than to hash.
        const bool linear = list.size() <= 8;
        return MakeLambdaKernel(
            [casts, set, list, linear, finish](const std::vector<Datum>& args, int64_t length,
                                               KernelContext* ctx) -> Result<Datum> {
              SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply({args[0]}, length, ctx));
              const Datum& x = c[0];
              const int64_t n = x.is_scalar ? 1 : length;
              std::vector<uint8_t> found(static_cast<size_t>(n));
              const T* v = x.array->values<T>();
              if (linear) {
                for (int64_t i = 0; i < n; ++i) {
                  uint8_t f = 0;
                  for (const T& item : list)
                    f |= v[i] == item;
                  found[static_cast<size_t>(i)] = f;
                }
              } else {
                for (int64_t i = 0; i < n; ++i)
                  found[static_cast<size_t>(i)] = set->count(v[i]) > 0;
              }
              return finish(found, x, n, ctx);
            });
      },
      std::move(unsupported));
}

// ---- COALESCE / NULLIF ------------------------------------------------------------------------

Result<KernelPtr> MakeCoalesce(const KernelSignature& sig) {
  const DataType type = sig.result_type;
  auto casts = std::make_shared<ArgCasts>();
  SHOAL_RETURN_IF_ERROR(
      casts->Init(sig.arg_types, std::vector<DataType>(sig.arg_types.size(), type)));
  return MakeLambdaKernel([casts, type](const std::vector<Datum>& args, int64_t length,
                                        KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(std::vector<Datum> c, casts->Apply(args, length, ctx));
    // The first argument without nulls ends the search for every row.
    const bool scalar = AllScalar(c);
    const int64_t n = scalar ? 1 : length;
    std::vector<ArrayPtr> parts;
    std::vector<int32_t> pick(static_cast<size_t>(n), -1);
    int64_t unresolved = n;
    for (size_t k = 0; k < c.size() && unresolved > 0; ++k) {
      if (c[k].is_null_scalar())
        continue;
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, Materialize(c[k], n, ctx));
      const int32_t base = static_cast<int32_t>(parts.size()) * static_cast<int32_t>(n);
      for (int64_t i = 0; i < n; ++i) {
        int32_t& p = pick[static_cast<size_t>(i)];
        if (p < 0 && a->IsValid(i)) {
          p = base + static_cast<int32_t>(i);
          --unresolved;
        }
      }
      parts.push_back(std::move(a));
    }
    if (parts.empty())
      return NullScalar(type, ctx);
    if (parts.size() == 1 && unresolved == parts[0]->null_count())
      return Datum{parts[0], scalar};
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr all, Concatenate(parts, ctx->pool));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out, Take(*all, pick.data(), n, ctx->pool, true));
    return Datum{std::move(out), scalar};
  });
}

Result<KernelPtr> MakeNullIf(const KernelSignature& sig) {
  const DataType type = sig.result_type;
  SHOAL_ASSIGN_OR_RETURN(KernelPtr eq_kernel, KernelRegistry::Global().Make("=", sig));
  std::shared_ptr<Kernel> eq = std::move(eq_kernel);
  SHOAL_ASSIGN_OR_RETURN(KernelPtr cast_kernel, MakeCastKernel(sig.arg_types[0], type));
  std::shared_ptr<Kernel> cast = std::move(cast_kernel);
  return MakeLambdaKernel([eq, cast, type](const std::vector<Datum>& args, int64_t length,
                                           KernelContext* ctx) -> Result<Datum> {
    SHOAL_ASSIGN_OR_RETURN(Datum equal, eq->Execute(args, length, ctx));
    SHOAL_ASSIGN_OR_RETURN(Datum value, cast->Execute({args[0]}, length, ctx));
    const bool scalar = value.is_scalar && equal.is_scalar;
    const int64_t n = scalar ? 1 : length;
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr v, Materialize(value, n, ctx));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr e, Materialize(equal, n, ctx));
    std::vector<int32_t> pick(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      pick[static_cast<size_t>(i)] =
          (e->IsValid(i) && e->BoolValue(i)) ? -1 : static_cast<int32_t>(i);
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr out, Take(*v, pick.data(), n, ctx->pool, true));
    return Datum{std::move(out), scalar};
  });
}

// scalar_subquery_check(count, value): `value`, unless a count exceeds 1, which is the error a
// scalar subquery returning several rows (per outer row, when correlated) raises. The optimizer
// computes count(*) beside the value only where it cannot prove the subquery yields one row.
Result<KernelPtr> MakeScalarSubqueryCheck(const KernelSignature& sig) {
  if (sig.arg_types.size() != 2 || sig.arg_types[0].id() != TypeId::kInt64)
    return Status::Internal("scalar_subquery_check takes (int64 count, value)");
  return MakeLambdaKernel(
      [](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) -> Result<Datum> {
        const int64_t n = args[0].is_scalar ? 1 : length;
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr count, Materialize(args[0], n, ctx));
        for (int64_t i = 0; i < n; ++i) {
          if (count->IsValid(i) && count->Value<int64_t>(i) > 1) {
            return Status::InvalidArgument(
                       "more than one row returned by a subquery used as an expression")
                .WithSqlState("21000");
          }
        }
        if (args[1].is_scalar && !args[0].is_scalar) {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr value, Materialize(args[1], length, ctx));
          return Datum::Array(std::move(value));
        }
        return args[1];
      });
}

}  // namespace

void RegisterLogicalKernels(KernelRegistry* registry) {
  registry->Register("and", [](const KernelSignature&) -> Result<KernelPtr> {
    return MakeLambdaKernel([](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) {
      return Logic(LogicOp::kAnd, args, length, ctx);
    });
  });
  registry->Register("or", [](const KernelSignature&) -> Result<KernelPtr> {
    return MakeLambdaKernel([](const std::vector<Datum>& args, int64_t length, KernelContext* ctx) {
      return Logic(LogicOp::kOr, args, length, ctx);
    });
  });
  auto test = [registry](const char* name, TestOp op) {
    registry->Register(
        name, [op](const KernelSignature&) -> Result<KernelPtr> { return MakeTestKernel(op); });
  };
  test("not", TestOp::kNot);
  test("is_null", TestOp::kIsNull);
  test("is_not_null", TestOp::kIsNotNull);
  test("is_true", TestOp::kIsTrue);
  test("is_false", TestOp::kIsFalse);
  test("is_not_true", TestOp::kIsNotTrue);
  test("is_not_false", TestOp::kIsNotFalse);
  registry->Register("in", &MakeInKernel);
  registry->Register("coalesce", &MakeCoalesce);
  registry->Register("nullif", &MakeNullIf);
  registry->Register("scalar_subquery_check", &MakeScalarSubqueryCheck);
}

}  // namespace shoal::exec

// Kernels: the vectorized implementations of scalar functions and operators, and the registry that
// picks one for a call's argument types.
//
// The evaluator asks the registry for a kernel once per call node when it compiles an expression
// (once per stream); the factory looks at the argument and result types (and at literal arguments,
// such as a LIKE pattern or an IN list) and returns a kernel specialised for them, so no type
// dispatch happens per batch beyond one virtual call, and none per row. A kernel processes whole
// arrays; errors such as overflow are detected per batch and reported as one Status.
//
// Adding a function: write a factory in one of the *_kernels.cc files and register it under the
// function's canonical name (sql/expr.h lists them) in that file's Register* function.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

/// A value flowing through an evaluator: an array with one element per row, or a scalar (an
/// array of length 1) standing for every row. Constants stay scalars until something needs them
/// materialised, so `x + 1` never builds an array of ones.
struct Datum {
  columnar::ArrayPtr array;
  bool is_scalar = false;

  static Datum Array(columnar::ArrayPtr a) { return {std::move(a), false}; }

  static Datum Scalar(columnar::ArrayPtr a) { return {std::move(a), true}; }

  const columnar::DataType& type() const { return array->type(); }

  bool is_null_scalar() const { return is_scalar && array->IsNull(0); }
};

struct KernelContext {
  std::shared_ptr<MemoryPool> pool;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// `args` each have `length` rows or are scalars; the result has `length` rows or is a scalar
  /// (only when every argument is one).
  virtual Result<Datum> Execute(const std::vector<Datum>& args, int64_t length,
                                KernelContext* ctx) = 0;
};

using KernelPtr = std::unique_ptr<Kernel>;

/// What a factory may look at to specialise a kernel.
struct KernelSignature {
  std::vector<columnar::DataType> arg_types;
  columnar::DataType result_type;
  /// The call (or cast) node; for literal arguments and flags such as try_cast. May be null.
  const sql::Expr* expr = nullptr;
};

using KernelFactory = std::function<Result<KernelPtr>(const KernelSignature&)>;

class KernelRegistry {
 public:
  /// The registry with every built-in kernel.
  static const KernelRegistry& Global();

  void Register(const std::string& name, KernelFactory factory);
  /// A kernel for `name` over the signature's types, or NotImplemented naming them.
  Result<KernelPtr> Make(const std::string& name, const KernelSignature& signature) const;

  bool Contains(const std::string& name) const { return factories_.count(name) > 0; }

 private:
  std::map<std::string, KernelFactory> factories_;
};

/// A kernel from a callable `Result<Datum>(const std::vector<Datum>&, int64_t, KernelContext*)`.
template <typename F>
KernelPtr MakeLambdaKernel(F fn) {
  class LambdaKernel final : public Kernel {
   public:
    explicit LambdaKernel(F f) : fn_(std::move(f)) {}

    Result<Datum> Execute(const std::vector<Datum>& args, int64_t length,
                          KernelContext* ctx) override {
      return fn_(args, length, ctx);
    }

   private:
    F fn_;
  };

  return std::make_unique<LambdaKernel>(std::move(fn));
}

/// A cast kernel from `from` to `to` (try_cast: NULL instead of an error).
Result<KernelPtr> MakeCastKernel(const columnar::DataType& from, const columnar::DataType& to,
                                 bool try_cast = false);

/// =, <> and IS [NOT] DISTINCT FROM between arrays of one type (array_kernels.cc).
Result<KernelPtr> MakeArrayEqualityKernel(bool negate, bool distinct);
/// <, <=, > and >= between arrays of one type, as PostgreSQL's array_cmp (array_kernels.cc):
/// `op` is "<", "<=", ">" or ">=".
Result<KernelPtr> MakeArrayOrderingKernel(const std::string& op);

/// "int32, utf8" for error messages.
std::string TypeListText(const std::vector<columnar::DataType>& types);

// Registration hooks, one per kernel family (kernel_registry.cc calls them).
void RegisterArithmeticKernels(KernelRegistry* registry);
void RegisterComparisonKernels(KernelRegistry* registry);
void RegisterLogicalKernels(KernelRegistry* registry);
void RegisterCastKernels(KernelRegistry* registry);
void RegisterStringKernels(KernelRegistry* registry);
void RegisterMathKernels(KernelRegistry* registry);
void RegisterDateKernels(KernelRegistry* registry);
void RegisterTextFunctionKernels(KernelRegistry* registry);
void RegisterNumericFunctionKernels(KernelRegistry* registry);
void RegisterDatetimeFunctionKernels(KernelRegistry* registry);
void RegisterArrayKernels(KernelRegistry* registry);

}  // namespace shoal::exec

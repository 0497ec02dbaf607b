#include "shoal/common/check.h"
#include "shoal/exec/expr/kernel.h"

namespace shoal::exec {

const KernelRegistry& KernelRegistry::Global() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterArithmeticKernels(r);
    RegisterComparisonKernels(r);
    RegisterLogicalKernels(r);
    RegisterCastKernels(r);
    RegisterStringKernels(r);
    RegisterMathKernels(r);
    RegisterDateKernels(r);
    RegisterTextFunctionKernels(r);
    RegisterNumericFunctionKernels(r);
    RegisterDatetimeFunctionKernels(r);
    RegisterArrayKernels(r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(const std::string& name, KernelFactory factory) {
  const bool added = factories_.emplace(name, std::move(factory)).second;
  SHOAL_CHECK(added, "kernel {} is registered twice", name);
}

Result<KernelPtr> KernelRegistry::Make(const std::string& name,
                                       const KernelSignature& signature) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return Status::NotImplemented("function {}({}) is not supported by the executor yet", name,
                                  TypeListText(signature.arg_types));
  }
  return it->second(signature);
}

std::string TypeListText(const std::vector<columnar::DataType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += types[i].ToString();
  }
  return out;
}

}  // namespace shoal::exec

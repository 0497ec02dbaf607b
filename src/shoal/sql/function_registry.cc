#include "shoal/sql/function_registry.h"

#include <algorithm>

#include "shoal/common/check.h"
#include "shoal/common/edit_distance.h"
#include "shoal/sql/function_registry_internal.h"

namespace shoal::sql {

FunctionRegistry& FunctionRegistry::Global() {
  // Built once, never destroyed (functions may be resolved while the process exits).
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
  static FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    internal::RegisterBuiltins(*r);
    return r;
  }();
  return *registry;
}

void FunctionRegistry::Register(FunctionDefinition definition) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(definition.name, definition.kind);
  // Two definitions of one name would silently drop the first (binary regex ~ and prefix ~ did).
  const bool added = functions_.emplace(key, std::move(definition)).second;
  SHOAL_CHECK(added, "function {} is registered twice", key.first);
}

const FunctionDefinition* FunctionRegistry::Find(std::string_view name) const {
  for (FunctionKind kind :
       {FunctionKind::kScalar, FunctionKind::kAggregate, FunctionKind::kWindow}) {
    if (const auto* def = Find(name, kind))
      return def;
  }
  return nullptr;
}

const FunctionDefinition* FunctionRegistry::Find(std::string_view name, FunctionKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = functions_.find(std::make_pair(std::string(name), kind));
  return it == functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [key, def] : functions_) {
    if (names.empty() || names.back() != key.first)
      names.push_back(key.first);
  }
  return names;
}

Result<FunctionResolution> FunctionRegistry::Resolve(std::string_view name, FunctionKind kind,
                                                     const std::vector<DataType>& arg_types) const {
  std::string args_text;
  for (size_t i = 0; i < arg_types.size(); ++i) {
    if (i > 0)
      args_text += ", ";
    args_text += SqlTypeName(arg_types[i]);
  }
  const FunctionDefinition* def = Find(name, kind);
  if (def == nullptr) {
    Status status =
        Status::NotFound("function {}({}) does not exist", name, args_text).WithSqlState("42883");
    std::string close = ClosestMatch(name, Names());
    if (!close.empty())
      return std::move(status).WithHint(fmt::format("Perhaps you meant \"{}\".", close));
    return status;
  }
  // Copy the rule out so a concurrent Register cannot invalidate it while it runs.
  TypeRule rule;
  std::string signature;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    rule = def->rule;
    signature = def->signature;
  }
  auto resolution = rule(arg_types);
  if (!resolution) {
    bool is_operator = !name.empty() && !std::isalpha(static_cast<unsigned char>(name[0]));
    Status status =
        is_operator && arg_types.size() == 2
            ? Status::TypeError("operator does not exist: {} {} {}", SqlTypeName(arg_types[0]),
                                name, SqlTypeName(arg_types[1]))
            : Status::TypeError("function {}({}) does not exist", name, args_text);
    return std::move(status).WithSqlState("42883").WithHint(fmt::format(
        "No function matches the given name and argument types; accepted: {}.", signature));
  }
  return *resolution;
}

}  // namespace shoal::sql

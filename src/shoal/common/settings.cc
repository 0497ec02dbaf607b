#include "shoal/common/settings.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "shoal/common/edit_distance.h"
#include "shoal/common/text.h"

namespace shoal {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* TypeName(SettingType type) {
  switch (type) {
    case SettingType::kBool: return "boolean";
    case SettingType::kInt: return "integer";
    case SettingType::kBytes: return "byte size";
    case SettingType::kString: return "string";
    case SettingType::kEnum: return "enum";
  }
  return "?";
}

}  // namespace

Result<int64_t> ParseByteSize(std::string_view text) {
  std::string_view s = Trim(text);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
    ++i;
  std::string number(s.substr(0, i));
  std::string unit = Lower(Trim(s.substr(i)));
  if (number.empty()) {
    return Status::InvalidArgument(
        "invalid byte size \"{}\": expected a number with an optional unit "
        "(B, kB, MB, GB, TB)",
        text);
  }
  double value = 0;
  try {
    value = std::stod(number);
  } catch (...) {
    return Status::InvalidArgument("invalid byte size \"{}\"", text);
  }
  double mult = 1;
  if (unit.empty() || unit == "b") {
    mult = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    mult = 1024.0;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    mult = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    mult = 1024.0 * 1024 * 1024;
  } else if (unit == "t" || unit == "tb" || unit == "tib") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return Status::InvalidArgument(
        "invalid byte size \"{}\": unknown unit \"{}\" (use B, kB, MB, GB, TB)", text, unit);
  }
  double bytes = value * mult;
  if (!(bytes < 9.2e18))
    return Status::OutOfRange("byte size \"{}\" is too large", text);
  return static_cast<int64_t>(std::llround(bytes));
}

SettingsRegistry& SettingsRegistry::Global() {
  static SettingsRegistry registry;
  return registry;
}

Result<std::string> SettingsRegistry::Normalize(const SettingDefinition& def,
                                                std::string_view text) {
  std::string_view v = Trim(text);
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("invalid value \"{}\" for setting \"{}\" ({}): {}", text,
                                   def.name, TypeName(def.type), why);
  };
  switch (def.type) {
    case SettingType::kBool: {
      std::string l = Lower(v);
      if (l == "true" || l == "on" || l == "1" || l == "yes" || l == "t")
        return std::string("true");
      if (l == "false" || l == "off" || l == "0" || l == "no" || l == "f")
        return std::string("false");
      return bad("expected true/false, on/off");
    }
    case SettingType::kInt:
    case SettingType::kBytes: {
      int64_t n = 0;
      if (def.type == SettingType::kBytes) {
        SHOAL_ASSIGN_OR_RETURN(n, ParseByteSize(v));
      } else {
        auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || ptr != v.data() + v.size())
          return bad("expected an integer");
      }
      if (n < def.min || n > def.max) {
        return bad(fmt::format("must be between {} and {}", def.min, def.max));
      }
      return std::to_string(n);
    }
    case SettingType::kString: return std::string(v);
    case SettingType::kEnum: {
      std::string l = Lower(v);
      for (const auto& c : def.choices) {
        if (Lower(c) == l)
          return c;
      }
      std::string all;
      for (const auto& c : def.choices)
        all += (all.empty() ? "" : ", ") + c;
      return bad("expected one of " + all);
    }
  }
  return bad("unknown type");
}

Status SettingsRegistry::Register(SettingDefinition definition) {
  definition.name = Lower(definition.name);
  if (definition.name.empty())
    return Status::InvalidArgument("a setting declaration has no name");
  if (definition.description.empty())
    return Status::InvalidArgument("setting \"{}\" is declared without a help text",
                                   definition.name);
  if (definition.owner.empty())
    return Status::InvalidArgument("setting \"{}\" is declared without an owner", definition.name);
  auto normal = Normalize(definition, definition.default_value);
  if (!normal.ok())
    return std::move(normal).status().WithContext(
        fmt::format("the default of setting \"{}\"", definition.name));
  definition.default_value = std::move(*normal);
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = definitions_.find(definition.name);
  if (it != definitions_.end()) {
    return Status::AlreadyExists("setting \"{}\" is declared twice (by {} and by {})",
                                 definition.name, it->second.owner, definition.owner);
  }
  definitions_.emplace(definition.name, std::move(definition));
  return Status::OK();
}

Status SettingsRegistry::RegisterAll(std::span<const SettingDefinition> definitions) {
  for (const SettingDefinition& definition : definitions)
    SHOAL_RETURN_IF_ERROR(Register(definition));
  return Status::OK();
}

Result<const SettingDefinition*> SettingsRegistry::Find(std::string_view name) const {
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto it = definitions_.find(name); it != definitions_.end())
      return &it->second;  // the name as the code spells it: no copy, no case folding
  }
  std::string key = Lower(Trim(name));
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = definitions_.find(key);
  if (it != definitions_.end())
    return &it->second;
  std::vector<std::string> names;
  for (const auto& [n, d] : definitions_)
    names.push_back(n);
  Status st =
      Status::NotFound("unrecognized configuration parameter \"{}\"", key).WithSqlState("42704");
  std::string guess = ClosestMatch(key, names);
  if (!guess.empty())
    st = std::move(st).WithHint(fmt::format("did you mean \"{}\"?", guess));
  return st;
}

std::vector<const SettingDefinition*> SettingsRegistry::All() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<const SettingDefinition*> out;
  for (const auto& [n, d] : definitions_)
    out.push_back(&d);
  return out;
}

Status Settings::Set(std::string_view name, std::string_view value) {
  SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def, registry_->Find(name));
  SHOAL_ASSIGN_OR_RETURN(std::string normal, SettingsRegistry::Normalize(*def, value));
  if (normal == def->default_value) {
    values_.erase(def->name);
  } else {
    values_[def->name] = std::move(normal);
  }
  return Status::OK();
}

Status Settings::Reset(std::string_view name) {
  SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def, registry_->Find(name));
  values_.erase(def->name);
  return Status::OK();
}

Result<std::string> Settings::Get(std::string_view name) const {
  SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def, registry_->Find(name));
  auto it = values_.find(def->name);
  return it != values_.end() ? it->second : def->default_value;
}

const std::string& Settings::ValueOf(std::string_view name) const {
  auto def = registry_->Find(name);
  SHOAL_CHECK(def.ok(), "reading unregistered setting: {}", def.status().ToString());
  auto it = values_.find((*def)->name);
  return it != values_.end() ? it->second : (*def)->default_value;
}

bool Settings::GetBool(std::string_view name) const {
  return ValueOf(name) == "true";
}

int64_t Settings::GetInt(std::string_view name) const {
  const std::string& v = ValueOf(name);
  int64_t out = 0;
  // Normalized when set: always a whole number in range.
  [[maybe_unused]] auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), out);
  SHOAL_CHECK(error == std::errc(), "setting {} is not an integer: {}", name, v);
  return out;
}

std::string Settings::GetString(std::string_view name) const {
  return ValueOf(name);
}

std::vector<SettingEntry> Settings::All() const {
  std::vector<SettingEntry> out;
  for (const SettingDefinition* def : registry_->All()) {
    auto it = values_.find(def->name);
    out.push_back(
        {def->name, it != values_.end() ? it->second : def->default_value, def->description});
  }
  return out;
}

}  // namespace shoal

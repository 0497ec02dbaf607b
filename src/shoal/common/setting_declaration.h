// Builders for the constant tables in which each layer declares its settings (settings.h): one
// call per setting, by type, with everything a declaration must say, so that a table reads as a
// list and no field can be forgotten:
//
//   DeclareInt("batch_size", 8192, 1, 1 << 24, "exec", "Rows per record batch ...")
//
// engine/settings_catalog.h registers every table once, at start-up.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shoal/common/settings.h"

namespace shoal {

inline SettingDefinition DeclareSetting(std::string name, SettingType type,
                                        std::string default_value, std::string owner,
                                        std::string help) {
  SettingDefinition d;
  d.name = std::move(name);
  d.type = type;
  d.default_value = std::move(default_value);
  d.owner = std::move(owner);
  d.description = std::move(help);
  return d;
}

inline SettingDefinition DeclareBool(std::string name, bool default_value, std::string owner,
                                     std::string help) {
  return DeclareSetting(std::move(name), SettingType::kBool, default_value ? "true" : "false",
                        std::move(owner), std::move(help));
}

/// An integer in [min, max].
inline SettingDefinition DeclareInt(std::string name, int64_t default_value, int64_t min,
                                    int64_t max, std::string owner, std::string help) {
  SettingDefinition d =
      DeclareSetting(std::move(name), SettingType::kInt, std::to_string(default_value),
                     std::move(owner), std::move(help));
  d.min = min;
  d.max = max;
  return d;
}

/// A byte size in [min, max] (SET accepts units: '64MB').
inline SettingDefinition DeclareBytes(std::string name, int64_t default_value, int64_t min,
                                      int64_t max, std::string owner, std::string help) {
  SettingDefinition d =
      DeclareSetting(std::move(name), SettingType::kBytes, std::to_string(default_value),
                     std::move(owner), std::move(help));
  d.min = min;
  d.max = max;
  return d;
}

inline SettingDefinition DeclareString(std::string name, std::string default_value,
                                       std::string owner, std::string help) {
  return DeclareSetting(std::move(name), SettingType::kString, std::move(default_value),
                        std::move(owner), std::move(help));
}

/// One of `choices` (matched case-insensitively, stored as written here).
inline SettingDefinition DeclareEnum(std::string name, std::string default_value,
                                     std::vector<std::string> choices, std::string owner,
                                     std::string help) {
  SettingDefinition d = DeclareSetting(std::move(name), SettingType::kEnum,
                                       std::move(default_value), std::move(owner), std::move(help));
  d.choices = std::move(choices);
  return d;
}

}  // namespace shoal

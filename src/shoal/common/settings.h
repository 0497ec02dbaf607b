// Settings: typed, validated configuration values, per session, with process-wide definitions.
//
// Every setting is declared once, by the layer that reads it, in a constant table of
// SettingDefinitions (name, type, default, range or allowed values, help text, owner), e.g.
// exec/exec_settings.h. One start-up step (engine/settings_catalog.h, called by `shoal`'s main and
// by the test mains) registers every table in the SettingsRegistry before anything runs; an error
// there (a name declared twice, a default outside its range, a missing help text) is a bug and
// stops the process. A Settings object holds one session's values and is what `SET name = value`,
// `SHOW name`, `SHOW ALL` and `RESET name` operate on. Values are validated and normalised when
// set (so "1GB" becomes 1073741824 for a byte-size setting), so readers never see a malformed
// value. Settings travel inside encoded plans to workers as name/value text pairs.
//
// Thread safety: the registry is safe to read concurrently once start-up registration is done
// (registration takes a lock); a Settings object belongs to one session and is copied, not shared,
// when a query starts.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"

namespace shoal {

enum class SettingType : uint8_t { kBool, kInt, kBytes, kString, kEnum };

/// The declaration of one setting. Fields are in the order tables write them with designated
/// initializers.
struct SettingDefinition {
  std::string name;  // lower_case, as written in SET
  SettingType type = SettingType::kString;
  std::string default_value;  // text, validated at registration
  std::string description;    // the help text SHOW ALL prints; required
  int64_t min = INT64_MIN;    // kInt / kBytes
  int64_t max = INT64_MAX;
  std::vector<std::string> choices;  // kEnum
  std::string owner;  // the layer (or part of one) that reads it: "exec", "distributed/shuffle"
};

/// One row of SHOW ALL: a setting, its current value and its help text.
struct SettingEntry {
  std::string name;
  std::string value;
  std::string description;
};

class SettingsRegistry {
 public:
  /// The process-wide registry.
  static SettingsRegistry& Global();

  /// Adds a definition: InvalidArgument for a malformed one (no name, no help text, no owner, a
  /// default its own rules refuse), AlreadyExists for a name already registered (every setting
  /// is declared once).
  Status Register(SettingDefinition definition);
  /// Registers every definition of a layer's table, stopping at the first error.
  Status RegisterAll(std::span<const SettingDefinition> definitions);
  /// The definition of `name` (case-insensitive), or NotFound with a "did you mean" hint.
  Result<const SettingDefinition*> Find(std::string_view name) const;
  std::vector<const SettingDefinition*> All() const;

  /// Checks `text` against the definition and returns its normal form.
  static Result<std::string> Normalize(const SettingDefinition& definition, std::string_view text);

 private:
  // Registration happens at start-up; reads come from every statement of every session, so
  // they share the lock, and a name already in normal form is looked up without a copy.
  mutable std::shared_mutex mutex_;
  std::map<std::string, SettingDefinition, std::less<>> definitions_;
};

class Settings {
 public:
  explicit Settings(const SettingsRegistry* registry = &SettingsRegistry::Global())
      : registry_(registry) {}

  Status Set(std::string_view name, std::string_view value);
  Status Reset(std::string_view name);
  /// Normalised text of the current value (the default when never set).
  Result<std::string> Get(std::string_view name) const;

  /// Typed getters for code that reads a setting it registered; a wrong name or type is a bug.
  bool GetBool(std::string_view name) const;
  int64_t GetInt(std::string_view name) const;
  std::string GetString(std::string_view name) const;

  /// Every registered setting with its current value and help text, sorted by name (SHOW ALL).
  std::vector<SettingEntry> All() const;

  /// Only values that differ from the defaults (what must travel to workers).
  const std::map<std::string, std::string>& overrides() const { return values_; }

 private:
  // The current value's text, the default's when never set; a wrong name is a bug.
  const std::string& ValueOf(std::string_view name) const;

  const SettingsRegistry* registry_;
  std::map<std::string, std::string> values_;
};

/// "64MB", "1.5GiB", "1024", "10 kB" → bytes (binary multiples: kB = KiB = 1024).
Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace shoal

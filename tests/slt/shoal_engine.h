// ShoalSltEngine: the SQL logic test engine over Shoal's single-node QueryRunner. One engine (one
// session, one catalog) per .slt file; configurations differ only in session settings, so the same
// files exercise operators with tiny batches (batch boundaries everywhere) and with the default.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/engine/query_runner.h"
#include "tests/slt/engine.h"

namespace shoal::slt {

class ShoalSltEngine final : public SltEngine {
 public:
  /// `settings`: (name, value) pairs applied to the session before the file runs.
  static Result<std::unique_ptr<SltEngine>> Make(
      std::string config_name, std::vector<std::pair<std::string, std::string>> settings);

  Result<QueryResult> Execute(std::string_view sql) override;
  bool HasFeature(std::string_view feature) const override;
  std::string ConfigName() const override { return config_name_; }
  bool MatchesCondition(std::string_view label) const override;

 private:
  explicit ShoalSltEngine(std::string config_name) : config_name_(std::move(config_name)) {}

  std::string config_name_;
  engine::QueryRunner runner_;
};

/// Registers the configurations "default" (first, so the default), "batch1" and "batch2"
/// (batch_size 1 and 2), and "threads4" (4 partitions).
void RegisterShoalSltEngines();

}  // namespace shoal::slt

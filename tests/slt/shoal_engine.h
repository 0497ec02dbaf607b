// ShoalSltEngine: the SQL logic test engine over Shoal's QueryRunner. One engine (one session, one
// catalog) per .slt file. Configurations differ in session settings (tiny batches put batch
// boundaries everywhere) and in where the queries run: on this node, or — through an SltRunMode
// (distributed_modes.h) — on workers or through the file shuffle, so the same files check that
// the distributed engine gives the single-node answers.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/engine/query_runner.h"
#include "tests/slt/engine.h"

namespace shoal::slt {

/// What a run mode attached to one file's runner (its in-process workers, its shuffle
/// directory); lives as long as the file's engine and is destroyed after its runner.
class SltAttachment {
 public:
  virtual ~SltAttachment() = default;

  /// Runs one statement through `runner` (the file shuffle gives each its own directory).
  virtual Result<engine::QueryResult> Run(engine::QueryRunner& runner, std::string_view sql) {
    return runner.RunOne(sql);
  }
};

/// How a configuration runs a file's statements when not on this node alone.
class SltRunMode {
 public:
  virtual ~SltRunMode() = default;

  /// Makes `runner` (a file's fresh session) run its queries this way.
  virtual Result<std::unique_ptr<SltAttachment>> Attach(engine::QueryRunner& runner) = 0;
};

using SltRunModePtr = std::shared_ptr<SltRunMode>;

class ShoalSltEngine final : public SltEngine {
 public:
  using SessionSettings = std::vector<std::pair<std::string, std::string>>;

  /// `settings`: (name, value) pairs applied to the session before the file runs. `mode`: null
  /// runs on this node; otherwise the engine is "distributed" (a condition label and a feature)
  /// instead of "local".
  static Result<std::unique_ptr<SltEngine>> Make(std::string config_name, SessionSettings settings,
                                                 SltRunModePtr mode = nullptr);

  Result<QueryResult> Execute(std::string_view sql) override;
  bool HasFeature(std::string_view feature) const override;
  std::string ConfigName() const override { return config_name_; }
  bool MatchesCondition(std::string_view label) const override;

  engine::QueryRunner& runner() { return *runner_; }

 private:
  ShoalSltEngine(std::string config_name, SltRunModePtr mode)
      : config_name_(std::move(config_name)), mode_(std::move(mode)) {}

  // Whether this engine answers to `label` as a feature or condition.
  bool Is(std::string_view label) const;

  std::string config_name_;
  SltRunModePtr mode_;
  std::unique_ptr<SltAttachment> attached_;  // declared before runner_: outlives it
  std::unique_ptr<engine::QueryRunner> runner_ = std::make_unique<engine::QueryRunner>();
};

/// Registers the configurations "default" (first, so the default), "batch1" and "batch2"
/// (batch_size 1 and 2), "threads4" (4 partitions), and the distributed ones of
/// distributed_modes.h: "inproc3", "grpc2" and "shuffle".
void RegisterShoalSltEngines();

}  // namespace shoal::slt

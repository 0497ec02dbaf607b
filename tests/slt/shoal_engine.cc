#include "tests/slt/shoal_engine.h"

#include "tests/slt/distributed_modes.h"
#include "tests/slt/engine_registry.h"

namespace shoal::slt {

Result<std::unique_ptr<SltEngine>> ShoalSltEngine::Make(std::string config_name,
                                                        SessionSettings settings,
                                                        SltRunModePtr mode) {
  std::unique_ptr<ShoalSltEngine> engine(new ShoalSltEngine(std::move(config_name), mode));
  if (mode) {
    // Before the settings: attaching registers the settings of the mode (shuffle_*, dist_*).
    SHOAL_ASSIGN_OR_RETURN(engine->attached_, mode->Attach(*engine->runner_));
  }
  for (const auto& [name, value] : settings) {
    SHOAL_RETURN_IF_ERROR(engine->runner_->session().settings().Set(name, value));
  }
  return std::unique_ptr<SltEngine>(std::move(engine));
}

Result<QueryResult> ShoalSltEngine::Execute(std::string_view sql) {
  Result<engine::QueryResult> ran =
      attached_ ? attached_->Run(*runner_, sql) : runner_->RunOne(sql);
  SHOAL_ASSIGN_OR_RETURN(auto result, std::move(ran));
  QueryResult out;
  out.schema = std::move(result.schema);
  out.batches = std::move(result.batches);
  return out;
}

bool ShoalSltEngine::Is(std::string_view label) const {
  return label == "shoal" || label == (mode_ ? "distributed" : "local");
}

bool ShoalSltEngine::HasFeature(std::string_view feature) const {
  return Is(feature);
}

bool ShoalSltEngine::MatchesCondition(std::string_view label) const {
  return label == config_name_ || Is(label);
}

void RegisterShoalSltEngines() {
  auto add = [](std::string name, ShoalSltEngine::SessionSettings settings,
                SltRunModePtr mode = nullptr) {
    RegisterSltEngine(
        name, [name, settings, mode]() { return ShoalSltEngine::Make(name, settings, mode); });
  };
  add("default", {});
  add("batch1", {{"batch_size", "1"}});
  add("batch2", {{"batch_size", "2"}});
  add("threads4", {{"threads", "4"}});
  add("inproc3", WorkerSettings(), MakeInProcessMode(3));
  add("grpc2", WorkerSettings(), MakeWorkerProcessesMode(2, SHOAL_BINARY));
  add("shuffle", ShuffleSettings(), MakeFileShuffleMode(SHOAL_BINARY));
}

}  // namespace shoal::slt

#include "tests/slt/shoal_engine.h"

#include "tests/slt/engine_registry.h"

namespace shoal::slt {

Result<std::unique_ptr<SltEngine>> ShoalSltEngine::Make(
    std::string config_name, std::vector<std::pair<std::string, std::string>> settings) {
  std::unique_ptr<ShoalSltEngine> engine(new ShoalSltEngine(std::move(config_name)));
  for (const auto& [name, value] : settings) {
    SHOAL_RETURN_IF_ERROR(engine->runner_.session().settings().Set(name, value));
  }
  return std::unique_ptr<SltEngine>(std::move(engine));
}

Result<QueryResult> ShoalSltEngine::Execute(std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(auto result, runner_.RunOne(sql));
  QueryResult out;
  out.schema = std::move(result.schema);
  out.batches = std::move(result.batches);
  return out;
}

bool ShoalSltEngine::HasFeature(std::string_view feature) const {
  return feature == "shoal" || feature == "local";
}

bool ShoalSltEngine::MatchesCondition(std::string_view label) const {
  return label == config_name_ || label == "shoal" || label == "local";
}

void RegisterShoalSltEngines() {
  using Settings = std::vector<std::pair<std::string, std::string>>;
  auto add = [](std::string name, Settings settings) {
    RegisterSltEngine(name, [name, settings]() { return ShoalSltEngine::Make(name, settings); });
  };
  add("default", {});
  add("batch1", {{"batch_size", "1"}});
  add("batch2", {{"batch_size", "2"}});
  add("threads4", {{"threads", "4"}});
}

}  // namespace shoal::slt

#include "tests/slt/engine_registry.h"

#include <utility>

namespace shoal::slt {
namespace {

struct Entry {
  std::string name;
  SltEngineFactory factory;
};

std::vector<Entry>& Registry() {
  static std::vector<Entry> registry;
  return registry;
}

}  // namespace

void RegisterSltEngine(std::string name, SltEngineFactory factory) {
  for (Entry& e : Registry()) {
    if (e.name == name) {
      e.factory = std::move(factory);
      return;
    }
  }
  Registry().push_back({std::move(name), std::move(factory)});
}

const SltEngineFactory* FindSltEngine(std::string_view name) {
  for (const Entry& e : Registry()) {
    if (e.name == name)
      return &e.factory;
  }
  return nullptr;
}

std::vector<std::string> RegisteredSltEngines() {
  std::vector<std::string> names;
  for (const Entry& e : Registry())
    names.push_back(e.name);
  return names;
}

void ClearSltEngines() {
  Registry().clear();
}

}  // namespace shoal::slt

// Entry point of the shoal_slt executable. Registers the settings catalog first, as `shoal`'s main
// does; engines are registered here (RegisterSltEngine) by the layers that provide them; the first
// registered (Shoal's "default" configuration) is the default.
#include <cstdio>

#include "shoal/engine/settings_catalog.h"
#include "tests/slt/shoal_engine.h"
#include "tests/slt/slt_main.h"

int main(int argc, char** argv) {
  if (shoal::Status st = shoal::engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "settings: %s\n", st.ToString().c_str());
    return 1;
  }
  shoal::slt::RegisterShoalSltEngines();
  return shoal::slt::SltMain(argc, argv);
}

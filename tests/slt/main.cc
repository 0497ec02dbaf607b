// Entry point of the shoal_slt executable. Engines are registered here (RegisterSltEngine) by the
// layers that provide them; the first registered (Shoal's "default" configuration) is the default.
#include "tests/slt/shoal_engine.h"
#include "tests/slt/slt_main.h"

int main(int argc, char** argv) {
  shoal::slt::RegisterShoalSltEngines();
  return shoal::slt::SltMain(argc, argv);
}

// Entry point of the shoal_slt executable. Registers the settings catalog first, as `shoal`'s main
// does; engines are registered here (RegisterSltEngine) by the layers that provide them; the first
// registered (Shoal's "default" configuration) is the default. Whatever the distributed
// configurations start outside the process is undone at exit, also on a stop signal
// (exit_cleanup.h).
#include <cstdio>

#include "shoal/common/process_allocator.h"
#include "shoal/engine/settings_catalog.h"
#include "tests/slt/exit_cleanup.h"
#include "tests/slt/shoal_engine.h"
#include "tests/slt/slt_main.h"

int main(int argc, char** argv) {
  shoal::slt::InstallSignalCleanup();  // first: before any thread exists
  shoal::TuneProcessAllocator();       // as shoal's main does
  if (shoal::Status st = shoal::engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "settings: %s\n", st.ToString().c_str());
    return 1;
  }
  shoal::slt::RegisterShoalSltEngines();
  const int status = shoal::slt::SltMain(argc, argv);
  shoal::slt::RunExitCleanups();
  return status;
}

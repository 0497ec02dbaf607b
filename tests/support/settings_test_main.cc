// The main of every test suite above the sql layer: registers the settings catalog first, as
// `shoal`'s main does (engine/settings_catalog.h), so tests see the process a real binary is. A
// catalog that fails to register stops the suite with the error, before any test runs.
#include <cstdio>

#include <gtest/gtest.h>

#include "shoal/common/process_allocator.h"
#include "shoal/engine/settings_catalog.h"

int main(int argc, char** argv) {
  shoal::TuneProcessAllocator();  // as shoal's main does
  ::testing::InitGoogleTest(&argc, argv);
  if (shoal::Status st = shoal::engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "settings: %s\n", st.ToString().c_str());
    return 1;
  }
  return RUN_ALL_TESTS();
}

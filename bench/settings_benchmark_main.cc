// The main of the benchmarks that run exec code and above: registers the settings catalog first,
// as `shoal`'s main does (engine/settings_catalog.h), then runs the benchmarks.
#include <cstdio>

#include <benchmark/benchmark.h>

#include "shoal/common/process_allocator.h"
#include "shoal/engine/settings_catalog.h"

int main(int argc, char** argv) {
  shoal::TuneProcessAllocator();  // as shoal's main does: benchmarks measure the same process
  if (shoal::Status st = shoal::engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "settings: %s\n", st.ToString().c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

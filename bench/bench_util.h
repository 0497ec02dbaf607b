// Shared by the exec micro-benchmarks: plans built with tests/support/plan_builders.h (the exec
// tests build theirs the same way) and run once per benchmark iteration.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "tests/support/plan_builders.h"

namespace shoal::exec::bench {

/// Runs partition 0 of `plan` once per iteration on a fresh single-threaded context limited to
/// `memory_limit` bytes (0: unlimited), dropping the batches. Reports `rows` items per iteration
/// and, with `report_spill`, the MiB the last run spilled (counter "spilled_MiB").
inline void RunPlan(benchmark::State& state, const ExecPlanPtr& plan, int64_t rows,
                    int64_t memory_limit = 0, bool report_spill = false) {
  int64_t spilled = 0;
  for (auto _ : state) {
    TaskContext::Options options;
    (void)options.settings.Set("memory_limit", std::to_string(memory_limit));
    options.threads = std::make_shared<ThreadPool>(1);
    auto context = std::make_shared<TaskContext>(std::move(options));
    Result<int64_t> out = testutil::DrainPartition(plan, 0, context);
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(*out);
    spilled = context->metrics().Sum(plan.get()).spilled_bytes;
  }
  state.SetItemsProcessed(state.iterations() * rows);
  if (report_spill)
    state.counters["spilled_MiB"] = static_cast<double>(spilled) / (1 << 20);
}

}  // namespace shoal::exec::bench

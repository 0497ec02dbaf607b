// Micro-benchmarks of filter and projection (the per-batch kernels every query runs) and of sort
// and hash aggregation when a memory limit forces them to spill, over 4M in-memory rows. The
// spilling cases run the same plan as an unlimited twin, so the cost of going to disk (LZ4 Arrow
// IPC spill files in $TMPDIR) reads directly off the two lines. Run from a Release build:
//   build/release/bench/shoal_exec_filter_project_spill_benchmark --benchmark_min_time=0.01
#include <random>

#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

constexpr int64_t kRows = 4'000'000;
constexpr int64_t kBatch = 8192;

// (k int64 in [0, 1M), v int64, d date32, s utf8 of 8..16 chars), 4M rows.
std::shared_ptr<io::MemoryTable> Table() {
  static std::shared_ptr<io::MemoryTable> table = [] {
    std::vector<Field> fields = {{"k", DataType::Int64()},
                                 {"v", DataType::Int64()},
                                 {"d", DataType::Date32()},
                                 {"s", DataType::Utf8()}};
    auto schema = std::make_shared<const columnar::Schema>(fields);
    std::mt19937_64 rng(7);
    std::vector<columnar::RecordBatchPtr> batches;
    for (int64_t start = 0; start < kRows; start += kBatch) {
      const int64_t n = std::min(kBatch, kRows - start);
      columnar::Int64Builder k(DataType::Int64(), DefaultMemoryPool());
      columnar::Int64Builder v(DataType::Int64(), DefaultMemoryPool());
      columnar::FixedWidthBuilder<int32_t> d(DataType::Date32(), DefaultMemoryPool());
      columnar::BinaryBuilder s(DataType::Utf8(), DefaultMemoryPool());
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        (void)k.Append(static_cast<int64_t>(r % 1'000'000));
        (void)v.Append(static_cast<int64_t>((r >> 20) % 100'000));
        (void)d.Append(static_cast<int32_t>(8000 + (r >> 40) % 2500));
        char buf[24];
        const int len = snprintf(buf, sizeof buf, "s%0*llu", static_cast<int>(7 + (r >> 60) % 9),
                                 static_cast<unsigned long long>((r >> 24) % 100'000'000));
        (void)s.Append(std::string_view(buf, static_cast<size_t>(len)));
      }
      batches.push_back(columnar::RecordBatch::Make(
          schema, n, {*k.Finish(), *v.Finish(), *d.Finish(), *s.Finish()}));
    }
    return *io::MemoryTable::Make(schema, std::move(batches));
  }();
  return table;
}

ExecPlanPtr Scan() {
  return *ScanOf(Table(), 1);
}

// Runs `plan` once per iteration with `memory_limit` bytes (0: unlimited); reports spilled bytes.
void RunPlan(benchmark::State& state, const ExecPlanPtr& plan, int64_t memory_limit = 0) {
  bench::RunPlan(state, plan, kRows, memory_limit, /*report_spill=*/true);
}

void BM_FilterInt64(benchmark::State& state) {
  // v < 10000: about 10% of the rows pass.
  auto plan = *FilterExec::Make(
      Scan(),
      Call("<", {Col(1, DataType::Int64()), Lit(Scalar::Int64(10000))}, DataType::Boolean()));
  RunPlan(state, plan);
}

void BM_FilterDateRange(benchmark::State& state) {
  // TPC-H's shape: d >= lo AND d < hi, about 15% of the rows.
  auto date = [](int32_t days) { return Lit(Scalar::Date32(days)); };
  auto plan = *FilterExec::Make(
      Scan(), Call("and",
                   {Call(">=", {Col(2, DataType::Date32()), date(9000)}, DataType::Boolean()),
                    Call("<", {Col(2, DataType::Date32()), date(9365)}, DataType::Boolean())},
                   DataType::Boolean()));
  RunPlan(state, plan);
}

void BM_ProjectArithmetic(benchmark::State& state) {
  // v * 3 + k and k - v: two int64 kernels each.
  auto v = Col(1, DataType::Int64());
  auto k = Col(0, DataType::Int64());
  auto plan = *ProjectionExec::Make(
      Scan(),
      {Call("+", {Call("*", {v, Lit(Scalar::Int64(3))}, DataType::Int64()), k}, DataType::Int64()),
       Call("-", {k, v}, DataType::Int64())},
      {"a", "b"});
  RunPlan(state, plan);
}

void BM_ProjectColumns(benchmark::State& state) {
  // Column references only: should cost nothing but the batch bookkeeping.
  auto plan = *ProjectionExec::Make(Scan(), {Col(3, DataType::Utf8()), Col(0, DataType::Int64())},
                                    {"s", "k"});
  RunPlan(state, plan);
}

ExecPlanPtr SortPlan() {
  return *SortExec::Make(Scan(), {sql::SortKey{Col(3, DataType::Utf8()), true, false},
                                  sql::SortKey{Col(0, DataType::Int64()), true, false}});
}

ExecPlanPtr AggregatePlan() {
  return *HashAggregateExec::Make(Scan(), {Col(0, DataType::Int64())},
                                  {Agg("count", {}, DataType::Int64()),
                                   Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64()),
                                   Agg("max", {Col(3, DataType::Utf8())}, DataType::Utf8())},
                                  AggregateMode::kSingle);
}

void BM_SortInMemory(benchmark::State& state) {
  RunPlan(state, SortPlan());
}

void BM_SortSpilling64MiB(benchmark::State& state) {
  RunPlan(state, SortPlan(), int64_t{64} << 20);
}

void BM_AggregateInMemory(benchmark::State& state) {
  RunPlan(state, AggregatePlan());
}

void BM_AggregateSpilling32MiB(benchmark::State& state) {
  RunPlan(state, AggregatePlan(), int64_t{32} << 20);
}

BENCHMARK(BM_FilterInt64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FilterDateRange)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ProjectArithmetic)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ProjectColumns)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortInMemory)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortSpilling64MiB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateInMemory)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateSpilling32MiB)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::exec

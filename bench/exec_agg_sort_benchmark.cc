// Micro-benchmarks of hash aggregation and sorting over 10M in-memory rows: aggregation by a
// low-cardinality key (16 groups) and a high-cardinality key (~2M groups), sorts of int64 and of
// short strings, and a top-k. Run from a Release build:
//   build/release/bench/shoal_exec_agg_sort_benchmark --benchmark_min_time=0.01
#include <random>

#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

constexpr int64_t kRows = 10'000'000;
constexpr int64_t kBatch = 8192;

// (low int64 in [0, 16), high int64 in [0, 2M), value int64, s utf8 of 8..16 chars), 10M rows.
std::shared_ptr<io::MemoryTable> Table() {
  static std::shared_ptr<io::MemoryTable> table = [] {
    std::vector<Field> fields = {{"low", DataType::Int64()},
                                 {"high", DataType::Int64()},
                                 {"v", DataType::Int64()},
                                 {"s", DataType::Utf8()}};
    auto schema = std::make_shared<const columnar::Schema>(fields);
    std::mt19937_64 rng(42);
    std::vector<columnar::RecordBatchPtr> batches;
    for (int64_t start = 0; start < kRows; start += kBatch) {
      const int64_t n = std::min(kBatch, kRows - start);
      columnar::Int64Builder low(DataType::Int64(), DefaultMemoryPool());
      columnar::Int64Builder high(DataType::Int64(), DefaultMemoryPool());
      columnar::Int64Builder v(DataType::Int64(), DefaultMemoryPool());
      columnar::BinaryBuilder s(DataType::Utf8(), DefaultMemoryPool());
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        (void)low.Append(static_cast<int64_t>(r % 16));
        (void)high.Append(static_cast<int64_t>((r >> 8) % 2'000'000));
        (void)v.Append(static_cast<int64_t>(r >> 40));
        char buf[24];
        const int len = snprintf(buf, sizeof buf, "k%0*llu", static_cast<int>(7 + (r >> 60) % 9),
                                 static_cast<unsigned long long>((r >> 20) % 100'000'000));
        (void)s.Append(std::string_view(buf, static_cast<size_t>(len)));
      }
      batches.push_back(columnar::RecordBatch::Make(
          schema, n, {*low.Finish(), *high.Finish(), *v.Finish(), *s.Finish()}));
    }
    return *io::MemoryTable::Make(schema, std::move(batches));
  }();
  return table;
}

ExecPlanPtr Scan(std::vector<int> projection) {
  return *ScanOf(Table(), 1, std::move(projection));
}

void RunPlan(benchmark::State& state, const ExecPlanPtr& plan) {
  bench::RunPlan(state, plan, kRows);
}

void BM_AggregateLowCardinality(benchmark::State& state) {
  auto plan = *HashAggregateExec::Make(Scan({0, 2}), {Col(0, DataType::Int64())},
                                       {Agg("count", {}, DataType::Int64()),
                                        Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64()),
                                        Agg("max", {Col(1, DataType::Int64())}, DataType::Int64())},
                                       AggregateMode::kSingle);
  RunPlan(state, plan);
}

void BM_AggregateHighCardinality(benchmark::State& state) {
  auto plan = *HashAggregateExec::Make(Scan({1, 2}), {Col(0, DataType::Int64())},
                                       {Agg("count", {}, DataType::Int64()),
                                        Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64()),
                                        Agg("max", {Col(1, DataType::Int64())}, DataType::Int64())},
                                       AggregateMode::kSingle);
  RunPlan(state, plan);
}

void BM_AggregateStringKey(benchmark::State& state) {
  auto plan =
      *HashAggregateExec::Make(Scan({0, 3}), {Col(1, DataType::Utf8())},
                               {Agg("count", {}, DataType::Int64())}, AggregateMode::kSingle);
  RunPlan(state, plan);
}

void BM_SortInt64(benchmark::State& state) {
  auto plan = *SortExec::Make(Scan({2}), {sql::SortKey{Col(0, DataType::Int64()), true, false}});
  RunPlan(state, plan);
}

void BM_SortStrings(benchmark::State& state) {
  auto plan = *SortExec::Make(Scan({3}), {sql::SortKey{Col(0, DataType::Utf8()), true, false}});
  RunPlan(state, plan);
}

void BM_TopK100Int64(benchmark::State& state) {
  auto plan =
      *SortExec::Make(Scan({2}), {sql::SortKey{Col(0, DataType::Int64()), false, false}}, 100);
  RunPlan(state, plan);
}

BENCHMARK(BM_AggregateLowCardinality)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateHighCardinality)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateStringKey)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortInt64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortStrings)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TopK100Int64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::exec

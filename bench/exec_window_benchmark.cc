// Micro-benchmarks of window functions over 1M in-memory rows, in the shape of TPC-DS's ranking
// and moving-average queries: row_number() per partition (1000 partitions), a running sum (the
// default frame), and a sliding ROWS BETWEEN 6 PRECEDING AND CURRENT ROW sum. Run from a Release
// build:
//   build/release/bench/shoal_exec_window_benchmark --benchmark_min_time=0.01
#include <random>

#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/window_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

constexpr int64_t kRows = 1'000'000;
constexpr int64_t kBatch = 8192;

// (p int64 in [0, 1000), o int64 unique, v int64), 1M rows.
std::shared_ptr<io::MemoryTable> Table() {
  static std::shared_ptr<io::MemoryTable> table = [] {
    std::vector<Field> fields = {
        {"p", DataType::Int64()}, {"o", DataType::Int64()}, {"v", DataType::Int64()}};
    auto schema = std::make_shared<const columnar::Schema>(fields);
    std::mt19937_64 rng(42);
    std::vector<columnar::RecordBatchPtr> batches;
    for (int64_t start = 0; start < kRows; start += kBatch) {
      const int64_t n = std::min(kBatch, kRows - start);
      columnar::Int64Builder p(DataType::Int64(), DefaultMemoryPool());
      columnar::Int64Builder o(DataType::Int64(), DefaultMemoryPool());
      columnar::Int64Builder v(DataType::Int64(), DefaultMemoryPool());
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        (void)p.Append(static_cast<int64_t>(r % 1000));
        (void)o.Append(start + i);
        (void)v.Append(static_cast<int64_t>(r >> 44));
      }
      batches.push_back(
          columnar::RecordBatch::Make(schema, n, {*p.Finish(), *o.Finish(), *v.Finish()}));
    }
    return *io::MemoryTable::Make(schema, std::move(batches));
  }();
  return table;
}

ExecPlanPtr Scan() {
  return *ScanOf(Table(), 1);
}

// `name` over `args` OVER (PARTITION BY p ORDER BY o `frame`), an int64.
sql::ExprPtr PartitionWindow(std::string name, std::vector<sql::ExprPtr> args,
                             sql::WindowFrame frame) {
  return Window(std::move(name), std::move(args), DataType::Int64(), {Col(0, DataType::Int64())},
                {sql::SortKey{Col(1, DataType::Int64()), true, false}}, std::move(frame));
}

void RunPlan(benchmark::State& state, const ExecPlanPtr& plan) {
  bench::RunPlan(state, plan, kRows);
}

void BM_RowNumber(benchmark::State& state) {
  auto plan = *WindowExec::Make(Scan(), {PartitionWindow("row_number", {}, {})}, {"rn"});
  RunPlan(state, plan);
}

void BM_RunningSum(benchmark::State& state) {
  auto plan = *WindowExec::Make(Scan(), {PartitionWindow("sum", {Col(2, DataType::Int64())}, {})},
                                {"running"});
  RunPlan(state, plan);
}

void BM_SlidingSum7Rows(benchmark::State& state) {
  sql::WindowFrame frame;
  frame.units = sql::WindowFrame::Units::kRows;
  frame.start = sql::WindowFrame::BoundKind::kPreceding;
  frame.start_offset = Lit(Scalar::Int64(6));
  frame.end = sql::WindowFrame::BoundKind::kCurrentRow;
  auto plan = *WindowExec::Make(
      Scan(), {PartitionWindow("sum", {Col(2, DataType::Int64())}, frame)}, {"moving"});
  RunPlan(state, plan);
}

BENCHMARK(BM_RowNumber)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RunningSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SlidingSum7Rows)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::exec

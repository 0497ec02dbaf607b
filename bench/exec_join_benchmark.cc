// Hash join micro-benchmark: a 1M-row build side joined with a 10M-row probe side on int64 keys
// (inner join, about half the probe rows match one build row). Measures the whole operator:
// building the shared table, probing, and gathering the output columns; output batches are
// dropped as they arrive. Run from a Release build:
//   build-release/bench/shoal_exec_join_benchmark --benchmark_repetitions=5
#include <algorithm>
#include <future>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"
#include "tests/support/plan_builders.h"

namespace shoal::exec {
namespace {

using columnar::DataType;
using columnar::Field;

constexpr int64_t kBatch = 8192;

// Two int64 columns: a key and a payload. Keys are a shuffled permutation of 0..rows-1 when
// `unique`, otherwise uniform in [0, key_range).
std::shared_ptr<io::MemoryTable> MakeTable(int64_t rows, bool unique, int64_t key_range,
                                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> keys(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i)
    keys[static_cast<size_t>(i)] =
        unique ? i : static_cast<int64_t>(rng() % static_cast<uint64_t>(key_range));
  if (unique)
    std::shuffle(keys.begin(), keys.end(), rng);
  auto schema = std::make_shared<const columnar::Schema>(
      std::vector<Field>{{"k", DataType::Int64()}, {"v", DataType::Int64()}});
  std::vector<columnar::RecordBatchPtr> batches;
  for (int64_t start = 0; start < rows; start += kBatch) {
    const int64_t n = std::min(kBatch, rows - start);
    columnar::Int64Builder kb(DataType::Int64(), DefaultMemoryPool());
    columnar::Int64Builder vb(DataType::Int64(), DefaultMemoryPool());
    (void)kb.AppendValues(keys.data() + start, n);
    (void)vb.Reserve(n);
    for (int64_t i = 0; i < n; ++i)
      vb.UnsafeAppend(start + i);
    batches.push_back(columnar::RecordBatch::Make(schema, n, {*kb.Finish(), *vb.Finish()}));
  }
  return *io::MemoryTable::Make(schema, std::move(batches));
}

ExecPlanPtr Scan(const std::shared_ptr<io::MemoryTable>& table, int partitions) {
  return *testutil::ScanOf(table, partitions);
}

sql::ExprPtr KeyRef() {
  return sql::MakeColumnRef(0, "k", DataType::Int64(), true);
}

void BM_HashJoinInner(benchmark::State& state) {
  const int64_t build_rows = state.range(0);
  const int64_t probe_rows = state.range(1);
  const int partitions = static_cast<int>(state.range(2));
  static auto build = MakeTable(build_rows, true, 0, 1);
  static auto probe = MakeTable(probe_rows, false, 2 * build_rows, 2);
  auto join =
      *HashJoinExec::Make(Scan(probe, partitions), Scan(build, 1), {KeyRef()}, {KeyRef()},
                          sql::JoinType::kInner, nullptr, HashJoinExec::Mode::kCollectBuild);
  auto threads = std::make_shared<ThreadPool>(partitions);
  int64_t out_rows = 0;
  for (auto _ : state) {
    TaskContext::Options options;
    options.threads = threads;
    auto context = std::make_shared<TaskContext>(std::move(options));
    std::vector<std::future<int64_t>> futures;
    for (int p = 0; p < partitions; ++p) {
      futures.push_back(threads->Submit([&join, &context, p]() -> int64_t {
        auto stream = join->Execute(p, context).value();
        int64_t rows = 0;
        for (;;) {
          auto batch = *stream->Next();
          if (!batch)
            break;
          rows += batch->num_rows();
        }
        return rows;
      }));
    }
    out_rows = 0;
    for (auto& f : futures)
      out_rows += f.get();
  }
  state.counters["output_rows"] = static_cast<double>(out_rows);
  state.counters["probe_rows/s"] =
      benchmark::Counter(static_cast<double>(probe_rows) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

BENCHMARK(BM_HashJoinInner)
    ->Args({1 << 20, 10 << 20, 1})
    ->Args({1 << 20, 10 << 20, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::exec

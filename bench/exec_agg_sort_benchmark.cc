// Micro-benchmarks of hash aggregation and sorting over 10M in-memory rows: aggregation by a
// low-cardinality key (16 groups) and a high-cardinality key (~2M groups), sorts of int64 and of
// short strings, and a top-k. Over 4M rows shaped like TPC-H's lineitem: TPC-H Q1's aggregation
// (two one-character flags, decimal sums of decimal products) and its decimal projection alone.
// Run from a Release build:
//   build/release/bench/shoal_exec_agg_sort_benchmark --benchmark_min_time=0.01
#include <random>

#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/projection_exec.h"
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

constexpr int64_t kLineRows = 4'000'000;

// (returnflag utf8 of A/N/R, linestatus utf8 of F/O, quantity, extendedprice, discount and tax
// decimal(15, 2)), 4M rows with TPC-H's value ranges.
std::shared_ptr<io::MemoryTable> LineitemTable() {
  static std::shared_ptr<io::MemoryTable> table = [] {
    const DataType dec = DataType::Decimal(15, 2);
    std::vector<Field> fields = {{"returnflag", DataType::Utf8()},
                                 {"linestatus", DataType::Utf8()},
                                 {"quantity", dec},
                                 {"extendedprice", dec},
                                 {"discount", dec},
                                 {"tax", dec}};
    auto schema = std::make_shared<const columnar::Schema>(fields);
    std::mt19937_64 rng(7);
    std::vector<columnar::RecordBatchPtr> batches;
    for (int64_t start = 0; start < kLineRows; start += kBatch) {
      const int64_t n = std::min(kBatch, kLineRows - start);
      columnar::BinaryBuilder rf(DataType::Utf8(), DefaultMemoryPool());
      columnar::BinaryBuilder ls(DataType::Utf8(), DefaultMemoryPool());
      columnar::Decimal64Builder qty(dec, DefaultMemoryPool());
      columnar::Decimal64Builder price(dec, DefaultMemoryPool());
      columnar::Decimal64Builder disc(dec, DefaultMemoryPool());
      columnar::Decimal64Builder tax(dec, DefaultMemoryPool());
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        (void)rf.Append(std::string_view(&"ANR"[r % 3], 1));
        (void)ls.Append(std::string_view(&"FO"[(r >> 4) % 2], 1));
        const auto q = static_cast<int64_t>(1 + (r >> 8) % 50);
        (void)qty.Append(q * 100);
        (void)price.Append(q * static_cast<int64_t>(90'000 + (r >> 16) % 1'000'000) / 10);
        (void)disc.Append(static_cast<int64_t>((r >> 40) % 11));
        (void)tax.Append(static_cast<int64_t>((r >> 48) % 9));
      }
      batches.push_back(
          columnar::RecordBatch::Make(schema, n,
                                      {*rf.Finish(), *ls.Finish(), *qty.Finish(), *price.Finish(),
                                       *disc.Finish(), *tax.Finish()}));
    }
    return *io::MemoryTable::Make(schema, std::move(batches));
  }();
  return table;
}

// extendedprice * (1 - discount) and that * (1 + tax), typed as the binder types TPC-H Q1's.
sql::ExprPtr DiscPrice() {
  const DataType dec = DataType::Decimal(15, 2);
  auto one = Lit(columnar::Scalar::Decimal(1, 10, 0));
  auto minus = Call("-", {one, Col(4, dec)}, DataType::Decimal(15, 2));
  return Call("*", {Col(3, dec), minus}, DataType::Decimal(30, 4));
}

sql::ExprPtr Charge() {
  const DataType dec = DataType::Decimal(15, 2);
  auto one = Lit(columnar::Scalar::Decimal(1, 10, 0));
  auto plus = Call("+", {one, Col(5, dec)}, DataType::Decimal(15, 2));
  return Call("*", {DiscPrice(), plus}, DataType::Decimal(38, 6));
}

// TPC-H Q1 without its filter: GROUP BY returnflag, linestatus with sums, averages and a count.
void BM_AggregateQ1(benchmark::State& state) {
  const DataType dec = DataType::Decimal(15, 2);
  const DataType sum = DataType::Decimal(38, 2);
  auto scan = *ScanOf(LineitemTable(), 1, {0, 1, 2, 3, 4, 5});
  auto plan = *HashAggregateExec::Make(
      scan, {Col(0, DataType::Utf8()), Col(1, DataType::Utf8())},
      {Agg("sum", {Col(2, dec)}, sum), Agg("sum", {Col(3, dec)}, sum),
       Agg("sum", {DiscPrice()}, DataType::Decimal(38, 4)),
       Agg("sum", {Charge()}, DataType::Decimal(38, 6)),
       Agg("avg", {Col(2, dec)}, DataType::Float64()),
       Agg("avg", {Col(4, dec)}, DataType::Float64()), Agg("count", {}, DataType::Int64())},
      AggregateMode::kSingle);
  bench::RunPlan(state, plan, kLineRows);
}

// Q1's decimal arithmetic alone: the charge of every row.
void BM_DecimalChargeProjection(benchmark::State& state) {
  auto scan = *ScanOf(LineitemTable(), 1, {0, 1, 2, 3, 4, 5});
  auto plan = *ProjectionExec::Make(scan, {Charge()}, {"charge"});
  bench::RunPlan(state, plan, kLineRows);
}

BENCHMARK(BM_AggregateLowCardinality)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateHighCardinality)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateStringKey)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortInt64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SortStrings)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TopK100Int64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AggregateQ1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DecimalChargeProjection)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::exec

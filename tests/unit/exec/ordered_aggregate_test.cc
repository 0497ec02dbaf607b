// Aggregates over ordered input inside HashAggregateExec (exec/aggregate/ordered_accumulator.cc):
// string_agg(... ORDER BY ...), percentile_cont, percentile_disc and mode WITHIN GROUP, against a
// reference computed row by row over random data, at several batch sizes and over hash-partitioned
// input; their errors, the one-phase rule and the refusal to spill.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

sql::ExprPtr Ordered(std::string name, std::vector<sql::ExprPtr> args, DataType type,
                     std::vector<sql::SortKey> order, bool distinct = false) {
  auto agg = std::const_pointer_cast<sql::Expr>(
      Agg(std::move(name), std::move(args), std::move(type), distinct));
  agg->order_by = std::move(order);
  return agg;
}

struct Row {
  std::optional<int32_t> k;
  int64_t id = 0;
  std::optional<int64_t> v;
  std::optional<std::string> s;
};

struct Expected {
  std::optional<std::string> agg;
  std::optional<int64_t> disc, mode;
  std::optional<double> cont;
};

class OrderedAggregateTest : public ::testing::TestWithParam<int64_t> {};

// Columns: k int32 (group, some NULL), id int64 (unique), v int64 (few values, some NULL), s text.
std::vector<Row> RandomRows(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    Row r;
    if (rng() % 10 != 0)
      r.k = static_cast<int32_t>(rng() % 7);
    r.id = i;
    if (rng() % 6 != 0)
      r.v = static_cast<int64_t>(rng() % 9) - 3;
    if (rng() % 8 != 0)
      r.s = std::string(1, static_cast<char>('a' + rng() % 5));
    rows.push_back(r);
  }
  return rows;
}

std::map<std::optional<int32_t>, Expected> Reference(const std::vector<Row>& rows, double frac) {
  std::map<std::optional<int32_t>, std::vector<Row>> groups;
  for (const Row& r : rows)
    groups[r.k].push_back(r);
  std::map<std::optional<int32_t>, Expected> out;
  for (auto& [k, g] : groups) {
    Expected e;
    // string_agg(s, ',' ORDER BY v DESC NULLS LAST, id)
    std::vector<Row> sorted = g;
    std::sort(sorted.begin(), sorted.end(), [](const Row& a, const Row& b) {
      if (a.v.has_value() != b.v.has_value())
        return a.v.has_value();
      if (a.v && *a.v != *b.v)
        return *a.v > *b.v;
      return a.id < b.id;
    });
    for (const Row& r : sorted) {
      if (!r.s)
        continue;
      e.agg = e.agg ? *e.agg + "," + *r.s : *r.s;
    }
    std::vector<int64_t> values;
    for (const Row& r : g) {
      if (r.v)
        values.push_back(*r.v);
    }
    std::sort(values.begin(), values.end());
    if (!values.empty()) {
      const auto n = static_cast<double>(values.size());
      const auto row = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(frac * n)));
      e.disc = values[static_cast<size_t>(row - 1)];
      const double pos = frac * (n - 1);
      const auto lo = static_cast<size_t>(std::floor(pos));
      const auto hi = static_cast<size_t>(std::ceil(pos));
      e.cont = static_cast<double>(values[lo]) +
               static_cast<double>(values[hi] - values[lo]) * (pos - std::floor(pos));
      std::map<int64_t, int> counts;
      for (int64_t v : values)
        ++counts[v];
      int best = 0;
      for (const auto& [v, c] : counts) {  // ascending: the first of the most frequent wins
        if (c > best) {
          best = c;
          e.mode = v;
        }
      }
    }
    out[k] = e;
  }
  return out;
}

std::shared_ptr<io::MemoryTable> Table(const std::vector<Row>& rows, int per_batch) {
  std::vector<TextRow> text;
  for (const Row& r : rows) {
    text.push_back({r.k ? std::to_string(*r.k) : "NULL", std::to_string(r.id),
                    r.v ? std::to_string(*r.v) : "NULL", r.s ? *r.s : "NULL"});
  }
  return MakeTable({{"k", DataType::Int32()},
                    {"id", DataType::Int64()},
                    {"v", DataType::Int64()},
                    {"s", DataType::Utf8()}},
                   text, per_batch);
}

std::vector<sql::ExprPtr> Aggregates(double frac) {
  auto v = Col(2, DataType::Int64());
  return {
      Ordered("string_agg", {Col(3, DataType::Utf8()), Lit(Scalar::Utf8(","))}, DataType::Utf8(),
              {{v, false, false}, {Col(1, DataType::Int64()), true, false}}),
      Ordered("percentile_disc", {Lit(Scalar::Float64(frac))}, DataType::Int64(),
              {{v, true, false}}),
      Ordered("mode", {}, DataType::Int64(), {{v, true, false}}),
      Ordered("percentile_cont", {Lit(Scalar::Float64(frac))}, DataType::Float64(),
              {{Cast(v, DataType::Float64()), true, false}}),
  };
}

void Check(const std::vector<RecordBatchPtr>& batches,
           const std::map<std::optional<int32_t>, Expected>& expected) {
  size_t groups = 0;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      ++groups;
      std::optional<int32_t> k;
      if (b->column(0)->IsValid(r))
        k = b->column(0)->Value<int32_t>(r);
      auto it = expected.find(k);
      ASSERT_NE(it, expected.end());
      const Expected& e = it->second;
      const std::string where = "group " + (k ? std::to_string(*k) : std::string("NULL"));
      ASSERT_EQ(b->column(1)->IsValid(r), e.agg.has_value()) << where;
      if (e.agg) {
        EXPECT_EQ(std::string(b->column(1)->StringValue(r)), *e.agg) << where;
      }
      ASSERT_EQ(b->column(2)->IsValid(r), e.disc.has_value()) << where;
      if (e.disc) {
        EXPECT_EQ(b->column(2)->Value<int64_t>(r), *e.disc) << where;
      }
      ASSERT_EQ(b->column(3)->IsValid(r), e.mode.has_value()) << where;
      if (e.mode) {
        EXPECT_EQ(b->column(3)->Value<int64_t>(r), *e.mode) << where;
      }
      ASSERT_EQ(b->column(4)->IsValid(r), e.cont.has_value()) << where;
      if (e.cont) {
        EXPECT_NEAR(b->column(4)->Value<double>(r), *e.cont, 1e-9) << where;
      }
    }
  }
  EXPECT_EQ(groups, expected.size());
}

TEST_P(OrderedAggregateTest, MatchesRowByRowReference) {
  const auto rows = RandomRows(3000, 7);
  for (double frac : {0.0, 0.37, 0.5, 1.0}) {
    SCOPED_TRACE(frac);
    auto table = Table(rows, 97);
    ASSERT_OK_AND_ASSIGN(auto agg,
                         HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int32())},
                                                 Aggregates(frac), AggregateMode::kSingle));
    ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(agg, MakeContext(GetParam())));
    Check(batches, Reference(rows, frac));
  }
}

TEST_P(OrderedAggregateTest, OnePhaseOverHashPartitionedInput) {
  const auto rows = RandomRows(2000, 11);
  auto table = Table(rows, 50);
  ASSERT_OK_AND_ASSIGN(
      auto repartition,
      RepartitionExec::Make(Scan(table, 3), Partitioning::Hash({Col(0, DataType::Int32())}, 4)));
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(repartition, {Col(0, DataType::Int32())},
                                                         Aggregates(0.25), AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(agg, MakeContext(GetParam())));
  Check(batches, Reference(rows, 0.25));
}

TEST_P(OrderedAggregateTest, GlobalAggregateOfNoRows) {
  auto table = Table({}, 10);
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(Scan(table, 1), {}, Aggregates(0.5),
                                                         AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(agg, MakeContext(GetParam())));
  EXPECT_EQ(Rows(batches), (Strings{"NULL|NULL|NULL|NULL"}));
}

// PostgreSQL checks a literal fraction even for a group without rows.
TEST_P(OrderedAggregateTest, FractionOutOfRangeIsAnError) {
  for (bool empty : {false, true}) {
    auto table = Table(empty ? std::vector<Row>{} : RandomRows(10, 3), 4);
    auto v = Col(2, DataType::Int64());
    ASSERT_OK_AND_ASSIGN(
        auto agg, HashAggregateExec::Make(Scan(table, 1), {},
                                          {Ordered("percentile_disc", {Lit(Scalar::Float64(1.5))},
                                                   DataType::Int64(), {{v, true, false}})},
                                          AggregateMode::kSingle));
    auto result = CollectAll(agg, MakeContext(GetParam()));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().sqlstate(), "22003") << result.status().ToString();
    EXPECT_NE(result.status().message().find("percentile value 1.5 is not between 0 and 1"),
              std::string::npos)
        << result.status().ToString();
  }
}

TEST_P(OrderedAggregateTest, IntervalPercentileContInterpolatesAsPostgres) {
  // PostgreSQL 15: percentile_cont(0.9) WITHIN GROUP (ORDER BY d DESC) over 1 day,
  // 3 days 12:00:00 and 1 mon is 2 days -12:00:00 (interval_lerp with interval_mul's cascade).
  const int64_t hour = 3600LL * 1000000000LL;
  std::vector<columnar::MonthDayNano> values{{0, 1, 0}, {0, 3, 12 * hour}, {1, 0, 0}};
  columnar::FixedWidthBuilder<columnar::MonthDayNano> builder(DataType::Interval(),
                                                              DefaultMemoryPool());
  for (const auto& v : values)
    ASSERT_OK(builder.Append(v));
  ASSERT_OK_AND_ASSIGN(auto column, builder.Finish());
  auto batch = RecordBatch::Make(
      std::make_shared<const columnar::Schema>(std::vector<Field>{{"d", DataType::Interval()}}), 3,
      {column});
  auto table = MakeTable({{"d", DataType::Interval()}}, {batch});
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(
                    Scan(table, 1), {},
                    {Ordered("percentile_cont", {Lit(Scalar::Float64(0.9))}, DataType::Interval(),
                             {{Col(0, DataType::Interval()), false, true}})},
                    AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(agg, MakeContext(GetParam())));
  ASSERT_EQ(batches.size(), 1u);
  const auto got = batches[0]->column(0)->Value<columnar::MonthDayNano>(0);
  EXPECT_EQ(got, (columnar::MonthDayNano{0, 2, -12 * hour}));
}

TEST(OrderedAggregatePlanTest, RefusesPartialAndFinalModes) {
  auto table = Table(RandomRows(10, 1), 4);
  for (AggregateMode mode : {AggregateMode::kPartial, AggregateMode::kFinal}) {
    EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                       HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int32())},
                                               Aggregates(0.5), mode));
  }
}

// Ordered aggregates have no partial state: a spilling hash aggregate writes their buffered rows
// to files of their own per hash partition, beside the other aggregates' states, and feeds them
// back when it aggregates the partition; the answers are those of an unlimited run.
TEST(OrderedAggregatePlanTest, SpillsBufferedRowsUnderAMemoryLimit) {
  auto rows = RandomRows(30000, 5);
  for (Row& r : rows)
    r.k = static_cast<int32_t>(r.id % 701);
  auto table = Table(rows, 1000);
  std::vector<sql::ExprPtr> aggregates = Aggregates(0.3);
  aggregates.push_back(Agg("count", {}, DataType::Int64()));
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int32())}, aggregates,
                                        AggregateMode::kSingle));
  auto context = MakeContext(8192, 1, MemoryPool::MakeRoot("query", 1024 * 1024));
  {
    ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(agg, context));
    EXPECT_GT(context->metrics().Sum(agg.get()).spilled_bytes, 0);
    std::vector<RecordBatchPtr> without_count;
    int64_t total = 0;
    for (const auto& b : batches) {
      for (int64_t r = 0; r < b->num_rows(); ++r)
        total += b->column(5)->Value<int64_t>(r);
      std::vector<ArrayPtr> columns(b->columns().begin(), b->columns().begin() + 5);
      std::vector<Field> fields(b->schema()->fields().begin(), b->schema()->fields().begin() + 5);
      without_count.push_back(RecordBatch::Make(
          std::make_shared<const columnar::Schema>(std::move(fields)), b->num_rows(), columns));
    }
    EXPECT_EQ(total, 30000);
    Check(without_count, Reference(rows, 0.3));
  }
  EXPECT_EQ(context->memory_pool()->bytes_used(), 0);
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, OrderedAggregateTest, ::testing::Values(1, 3, 8192));

}  // namespace
}  // namespace shoal::exec

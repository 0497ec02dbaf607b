#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/row_key/grouper.h"
#include "shoal/io/memory_table.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using columnar::int128_t;

class AggregateTest : public ::testing::TestWithParam<int64_t> {
 protected:
  Result<std::vector<RecordBatchPtr>> Run(const ExecPlanPtr& plan) {
    context_ = MakeContext(GetParam());
    return CollectAll(plan, context_);
  }

  Strings RunRows(const ExecPlanPtr& plan) {
    auto result = Run(plan);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? Sorted(Rows(*result)) : Strings{};
  }

  std::shared_ptr<TaskContext> context_;
};

// ---- random data against a reference computed row by row -------------------------------------

struct RefRow {
  std::optional<int32_t> k;
  std::optional<std::string> s;
  std::optional<int64_t> v;
  std::optional<int64_t> cents;
  std::optional<double> f;
  std::optional<bool> b;
};

struct RefGroup {
  int64_t count_star = 0, count_v = 0;
  std::optional<int64_t> sum_v, min_v, max_v, sum_v_filtered;
  std::optional<int128_t> sum_d;
  std::optional<std::string> min_s, max_s;
  std::vector<double> fs;
  std::optional<bool> all_b, any_b;
  std::set<int64_t> distinct_v;
};

std::vector<Field> RandomFields() {
  return {{"k", DataType::Int32()},        {"s", DataType::Utf8()},    {"v", DataType::Int64()},
          {"d", DataType::Decimal(12, 2)}, {"f", DataType::Float64()}, {"b", DataType::Boolean()}};
}

std::vector<RefRow> RandomRows(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  const char* strings[] = {"a", "bb", "", "ccc", "a\xc3\xa9"};
  std::vector<RefRow> rows;
  for (int i = 0; i < n; ++i) {
    RefRow r;
    if (!chance(10))
      r.k = static_cast<int32_t>(rng() % 6) - 2;
    if (!chance(10))
      r.s = strings[rng() % 5];
    if (!chance(15))
      r.v = static_cast<int64_t>(rng() % 2001) - 1000;
    if (!chance(15))
      r.cents = static_cast<int64_t>(rng() % 200001) - 100000;
    if (!chance(15))
      r.f = (static_cast<double>(rng() % 801) - 400) / 4;
    if (!chance(15))
      r.b = rng() % 4 != 0;
    rows.push_back(r);
  }
  return rows;
}

std::vector<shoal::testing::TextRow> ToText(const std::vector<RefRow>& rows) {
  std::vector<shoal::testing::TextRow> out;
  for (const RefRow& r : rows) {
    auto cents = [](int64_t c) {
      return fmt::format("{}{}.{:02d}", c < 0 ? "-" : "", std::abs(c) / 100, std::abs(c) % 100);
    };
    out.push_back({r.k ? std::to_string(*r.k) : "NULL", r.s ? *r.s : "NULL",
                   r.v ? std::to_string(*r.v) : "NULL", r.cents ? cents(*r.cents) : "NULL",
                   r.f ? fmt::format("{}", *r.f) : "NULL",
                   r.b ? (*r.b ? "true" : "false") : "NULL"});
  }
  return out;
}

std::string GroupKey(const RefRow& r) {
  return (r.k ? std::to_string(*r.k) : "NULL") + "|" + (r.s ? *r.s : "NULL");
}

std::map<std::string, RefGroup> Reference(const std::vector<RefRow>& rows) {
  std::map<std::string, RefGroup> groups;
  for (const RefRow& r : rows) {
    RefGroup& g = groups[GroupKey(r)];
    ++g.count_star;
    if (r.v) {
      ++g.count_v;
      g.sum_v = g.sum_v.value_or(0) + *r.v;
      g.min_v = std::min(g.min_v.value_or(*r.v), *r.v);
      g.max_v = std::max(g.max_v.value_or(*r.v), *r.v);
      g.distinct_v.insert(*r.v);
      if (r.b && *r.b)
        g.sum_v_filtered = g.sum_v_filtered.value_or(0) + *r.v;
    }
    if (r.cents)
      g.sum_d = g.sum_d.value_or(0) + *r.cents;
    if (r.s) {
      g.min_s = std::min(g.min_s.value_or(*r.s), *r.s);
      g.max_s = std::max(g.max_s.value_or(*r.s), *r.s);
    }
    if (r.f)
      g.fs.push_back(*r.f);
    if (r.b) {
      g.all_b = g.all_b.value_or(true) && *r.b;
      g.any_b = g.any_b.value_or(false) || *r.b;
    }
  }
  return groups;
}

// The aggregates of the random test, over RandomFields() positions.
std::vector<sql::ExprPtr> RandomAggregates(bool with_distinct) {
  auto v = Col(2, DataType::Int64());
  auto d = Col(3, DataType::Decimal(12, 2));
  auto s = Col(1, DataType::Utf8());
  auto f = Col(4, DataType::Float64());
  auto b = Col(5, DataType::Boolean());
  std::vector<sql::ExprPtr> aggs = {
      Agg("count", {}, DataType::Int64()),
      Agg("count", {v}, DataType::Int64()),
      Agg("sum", {v}, DataType::Int64()),
      Agg("min", {v}, DataType::Int64()),
      Agg("max", {v}, DataType::Int64()),
      Agg("avg", {v}, DataType::Float64()),
      Agg("sum", {d}, DataType::Decimal(38, 2)),
      Agg("min", {s}, DataType::Utf8()),
      Agg("max", {s}, DataType::Utf8()),
      Agg("var_pop", {f}, DataType::Float64()),
      Agg("stddev_samp", {f}, DataType::Float64()),
      Agg("bool_and", {b}, DataType::Boolean()),
      Agg("bool_or", {b}, DataType::Boolean()),
      Agg("sum", {v}, DataType::Int64(), false, b),
  };
  if (with_distinct)
    aggs.push_back(Agg("count", {v}, DataType::Int64(), true));
  return aggs;
}

void ExpectNear(const Scalar& got, std::optional<double> want, const std::string& what) {
  if (!want) {
    EXPECT_TRUE(got.is_null()) << what << ": " << got.ToString();
    return;
  }
  ASSERT_FALSE(got.is_null()) << what;
  EXPECT_NEAR(got.float_value(), *want, 1e-9 * std::max(1.0, std::abs(*want))) << what;
}

void CheckAgainstReference(const std::vector<RecordBatchPtr>& batches,
                           const std::map<std::string, RefGroup>& reference, bool with_distinct) {
  std::set<std::string> seen;
  for (const RecordBatchPtr& batch : batches) {
    auto keys0 = shoal::testing::ArrayToStrings(*batch->column(0));
    auto keys1 = shoal::testing::ArrayToStrings(*batch->column(1));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      const std::string key = keys0[static_cast<size_t>(r)] + "|" + keys1[static_cast<size_t>(r)];
      EXPECT_TRUE(seen.insert(key).second) << "group " << key << " appears twice";
      auto it = reference.find(key);
      ASSERT_NE(it, reference.end()) << "unexpected group " << key;
      const RefGroup& g = it->second;
      auto at = [&](int c) { return Scalar::FromArray(*batch->column(c), r); };
      auto int_or_null = [&](int c, std::optional<int64_t> want, const char* what) {
        Scalar got = at(c);
        if (!want) {
          EXPECT_TRUE(got.is_null()) << key << " " << what;
        } else {
          ASSERT_FALSE(got.is_null()) << key << " " << what;
          EXPECT_EQ(got.int_value(), *want) << key << " " << what;
        }
      };
      int_or_null(2, g.count_star, "count(*)");
      int_or_null(3, g.count_v, "count(v)");
      int_or_null(4, g.sum_v, "sum(v)");
      int_or_null(5, g.min_v, "min(v)");
      int_or_null(6, g.max_v, "max(v)");
      ExpectNear(at(7),
                 g.count_v ? std::optional<double>(static_cast<double>(*g.sum_v) / g.count_v)
                           : std::nullopt,
                 key + " avg(v)");
      Scalar sum_d = at(8);
      EXPECT_EQ(sum_d.is_null(), !g.sum_d.has_value()) << key;
      if (g.sum_d && !sum_d.is_null()) {
        EXPECT_TRUE(sum_d.decimal_value() == *g.sum_d) << key << " sum(d)";
      }
      EXPECT_EQ(at(9).is_null() ? std::optional<std::string>() : at(9).string_value(), g.min_s);
      EXPECT_EQ(at(10).is_null() ? std::optional<std::string>() : at(10).string_value(), g.max_s);
      std::optional<double> var_pop, stddev_samp;
      if (!g.fs.empty()) {
        double mean = 0;
        for (double x : g.fs)
          mean += x;
        mean /= static_cast<double>(g.fs.size());
        double ss = 0;
        for (double x : g.fs)
          ss += (x - mean) * (x - mean);
        var_pop = ss / static_cast<double>(g.fs.size());
        if (g.fs.size() > 1)
          stddev_samp = std::sqrt(ss / static_cast<double>(g.fs.size() - 1));
      }
      ExpectNear(at(11), var_pop, key + " var_pop");
      ExpectNear(at(12), stddev_samp, key + " stddev_samp");
      EXPECT_EQ(at(13).is_null() ? std::optional<bool>() : at(13).bool_value(), g.all_b) << key;
      EXPECT_EQ(at(14).is_null() ? std::optional<bool>() : at(14).bool_value(), g.any_b) << key;
      int_or_null(15, g.sum_v_filtered, "sum(v) filter");
      if (with_distinct)
        int_or_null(16, static_cast<int64_t>(g.distinct_v.size()), "count(distinct v)");
    }
  }
  EXPECT_EQ(seen.size(), reference.size());
}

// One int64 column `k` holding 0..n-1: every row a group of its own.
std::shared_ptr<io::MemoryTable> DistinctKeys(int n) {
  std::vector<shoal::testing::TextRow> rows;
  for (int i = 0; i < n; ++i)
    rows.push_back({std::to_string(i)});
  return MakeTable({{"k", DataType::Int64()}}, rows, 4096);
}

TEST_P(AggregateTest, RandomGroupsMatchReference) {
  auto rows = RandomRows(1500, 7);
  auto table = MakeTable(RandomFields(), ToText(rows), 97);
  std::vector<sql::ExprPtr> keys = {Col(0, DataType::Int32()), Col(1, DataType::Utf8())};
  ASSERT_OK_AND_ASSIGN(auto agg,
                       HashAggregateExec::Make(Scan(table, 1), keys, RandomAggregates(true),
                                               AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, Run(agg));
  CheckAgainstReference(batches, Reference(rows), true);
  for (const auto& b : batches)
    EXPECT_LE(b->num_rows(), GetParam());
}

TEST_P(AggregateTest, PartialThenFinalMatchesReference) {
  auto rows = RandomRows(1500, 11);
  auto table = MakeTable(RandomFields(), ToText(rows), 61);
  std::vector<sql::ExprPtr> keys = {Col(0, DataType::Int32()), Col(1, DataType::Utf8())};
  auto aggs = RandomAggregates(false);
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(Scan(table, 4), keys, aggs, AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(auto partial_schema, HashAggregateExec::PartialSchema(keys, aggs));
  EXPECT_EQ(*partial->schema(), *partial_schema);
  // Partial states cross a hash exchange on the keys, as in a distributed plan.
  ASSERT_OK_AND_ASSIGN(
      auto exchange,
      RepartitionExec::Make(
          partial, Partitioning::Hash({Col(0, DataType::Int32()), Col(1, DataType::Utf8())}, 3)));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(exchange, keys, aggs, AggregateMode::kFinal));
  ASSERT_OK_AND_ASSIGN(auto batches, Run(final_agg));
  CheckAgainstReference(batches, Reference(rows), false);
}

// A grouped partial with a tiny table: flushed whenever full (a key leaves in several state rows,
// which the final merges), and then, with the pass-through threshold at zero, rows passed through
// as single-row states (FILTER, avg, variance and decimal sums included).
TEST_P(AggregateTest, PartialFlushesAndPassesRowsThroughAndTheFinalMergesThem) {
  auto rows = RandomRows(3000, 13);
  auto table = MakeTable(RandomFields(), ToText(rows), 61);
  std::vector<sql::ExprPtr> keys = {Col(0, DataType::Int32()), Col(1, DataType::Utf8())};
  auto aggs = RandomAggregates(false);
  for (bool pass_through : {false, true}) {
    SCOPED_TRACE(pass_through ? "pass-through" : "flushes only");
    ASSERT_OK_AND_ASSIGN(
        auto partial, HashAggregateExec::Make(Scan(table, 2), keys, aggs, AggregateMode::kPartial));
    PartialAggregationLimits limits;
    limits.table_groups = 8;
    limits.pass_through_min_rows = pass_through ? 16 : int64_t{1} << 40;
    limits.pass_through_groups_per_row = 0;
    partial->set_partial_limits(limits);
    ASSERT_OK_AND_ASSIGN(
        auto exchange,
        RepartitionExec::Make(
            partial, Partitioning::Hash({Col(0, DataType::Int32()), Col(1, DataType::Utf8())}, 3)));
    ASSERT_OK_AND_ASSIGN(auto final_agg,
                         HashAggregateExec::Make(exchange, keys, aggs, AggregateMode::kFinal));
    ASSERT_OK_AND_ASSIGN(auto batches, Run(final_agg));
    CheckAgainstReference(batches, Reference(rows), false);
    const auto totals = context_->metrics().Sum(partial.get());
    EXPECT_GT(totals.extra.count("flushes") ? totals.extra.at("flushes") : 0, 0);
    const int64_t passed =
        totals.extra.count("rows_passed_through") ? totals.extra.at("rows_passed_through") : 0;
    if (pass_through) {
      EXPECT_GT(passed, 0);
    } else {
      EXPECT_EQ(passed, 0);
    }
    EXPECT_GT(totals.output_rows, static_cast<int64_t>(Reference(rows).size()));
    batches.clear();  // the results hold pool memory
    EXPECT_EQ(context_->memory_pool()->bytes_used(), 0);
  }
}

// A grouped partial refused memory emits its table and goes on (it never spills).
TEST_P(AggregateTest, PartialRefusedMemoryFlushesInsteadOfFailing) {
  auto table = DistinctKeys(20000);
  ASSERT_OK_AND_ASSIGN(
      auto partial,
      HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int64())},
                              {Agg("count", {}, DataType::Int64())}, AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(auto total,
                       HashAggregateExec::Make(partial, {}, {Agg("count", {}, DataType::Int64())},
                                               AggregateMode::kSingle));
  auto context = MakeContext(GetParam(), 1, MemoryPool::MakeRoot("query", 256 * 1024));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(total, context));
  EXPECT_EQ(Rows(batches), Strings{"20000"});
  const auto totals = context->metrics().Sum(partial.get());
  EXPECT_GT(totals.extra.count("flushes") ? totals.extra.at("flushes") : 0, 0);
  EXPECT_EQ(totals.spill_count, 0);
}

TEST_P(AggregateTest, GlobalAggregateOnEmptyInputYieldsOneRow) {
  auto table = MakeTable(RandomFields(), {}, 10);
  auto aggs = RandomAggregates(true);
  ASSERT_OK_AND_ASSIGN(auto single,
                       HashAggregateExec::Make(Scan(table, 1), {}, aggs, AggregateMode::kSingle));
  const std::string expected = "0|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|0";
  EXPECT_EQ(RunRows(single), Strings{expected});
  aggs.pop_back();  // no DISTINCT in two phases
  ASSERT_OK_AND_ASSIGN(auto partial,
                       HashAggregateExec::Make(Scan(table, 1), {}, aggs, AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(CoalescePartitionsExec::Make(partial), {}, aggs,
                                               AggregateMode::kFinal));
  EXPECT_EQ(RunRows(final_agg), Strings{expected.substr(0, expected.size() - 2)});
}

TEST_P(AggregateTest, GroupedAggregateOnEmptyInputYieldsNoRows) {
  auto table = MakeTable(RandomFields(), {}, 10);
  ASSERT_OK_AND_ASSIGN(
      auto agg,
      HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int32())},
                              {Agg("count", {}, DataType::Int64())}, AggregateMode::kSingle));
  EXPECT_EQ(RunRows(agg), Strings{});
}

TEST_P(AggregateTest, NullKeysGroupTogetherAndFloatKeysFoldZeroAndNaN) {
  std::vector<Field> fields = {{"k", DataType::Float64()}, {"s", DataType::Utf8()}};
  auto table = MakeTable(fields,
                         {{"NULL", "a"},
                          {"0", "b"},
                          {"-0", "c"},
                          {"NaN", "d"},
                          {"NULL", "e"},
                          {"NaN", "f"},
                          {"1.5", "g"}},
                         3);
  ASSERT_OK_AND_ASSIGN(
      auto agg,
      HashAggregateExec::Make(
          Scan(table, 1), {Col(0, DataType::Float64())},
          {Agg("count", {}, DataType::Int64()),
           Agg("string_agg", {Col(1, DataType::Utf8()), Lit(Scalar::Utf8("-"))}, DataType::Utf8())},
          AggregateMode::kSingle));
  EXPECT_EQ(RunRows(agg), (Strings{"0|2|b-c", "1.5|1|g", "NULL|2|a-e", "NaN|2|d-f"}));
}

TEST_P(AggregateTest, KeysOfManyTypes) {
  std::vector<Field> fields = {{"d", DataType::Date32()},
                               {"m", DataType::Decimal(30, 3)},
                               {"b", DataType::Boolean()},
                               {"u", DataType::UInt8()},
                               {"x", DataType::Int64()}};
  auto table = MakeTable(fields,
                         {{"2024-01-01", "1.5", "t", "200", "1"},
                          {"2024-01-01", "1.500", "t", "200", "2"},
                          {"2024-01-02", "1.5", "t", "200", "4"},
                          {"2024-01-01", "-1.5", "NULL", "200", "8"},
                          {"NULL", "NULL", "NULL", "NULL", "16"},
                          {"NULL", "NULL", "NULL", "NULL", "32"},
                          {"2024-01-01", "-1.5", "NULL", "200", "64"}},
                         2);
  std::vector<sql::ExprPtr> keys;
  for (int i = 0; i < 4; ++i)
    keys.push_back(Col(i, fields[static_cast<size_t>(i)].type));
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(
                                     Scan(table, 1), keys,
                                     {Agg("sum", {Col(4, DataType::Int64())}, DataType::Int64())},
                                     AggregateMode::kSingle));
  EXPECT_EQ(RunRows(agg), (Strings{"2024-01-01|-1.500|NULL|200|72", "2024-01-01|1.500|t|200|3",
                                   "2024-01-02|1.500|t|200|4", "NULL|NULL|NULL|NULL|48"}));
}

TEST_P(AggregateTest, MinMaxOfFloatsOrderNaNLast) {
  std::vector<Field> fields = {{"g", DataType::Int32()}, {"f", DataType::Float64()}};
  auto table = MakeTable(
      fields, {{"1", "NaN"}, {"1", "-Infinity"}, {"1", "3"}, {"2", "NaN"}, {"2", "NULL"}}, 2);
  auto f = Col(1, DataType::Float64());
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(
                    Scan(table, 1), {Col(0, DataType::Int32())},
                    {Agg("min", {f}, DataType::Float64()), Agg("max", {f}, DataType::Float64())},
                    AggregateMode::kSingle));
  EXPECT_EQ(RunRows(agg), (Strings{"1|-Infinity|NaN", "2|NaN|NaN"}));
}

TEST_P(AggregateTest, StringAggKeepsInputOrderAcrossPhases) {
  std::vector<Field> fields = {
      {"g", DataType::Int32()}, {"s", DataType::Utf8()}, {"sep", DataType::Utf8()}};
  auto table = MakeTable(fields,
                         {{"1", "a", ","},
                          {"1", "NULL", ";"},
                          {"1", "b", "+"},
                          {"2", "x", "NULL"},
                          {"1", "c", "/"},
                          {"2", "y", "NULL"}},
                         2);
  std::vector<sql::ExprPtr> aggs = {
      Agg("string_agg", {Col(1, DataType::Utf8()), Col(2, DataType::Utf8())}, DataType::Utf8())};
  std::vector<sql::ExprPtr> keys = {Col(0, DataType::Int32())};
  ASSERT_OK_AND_ASSIGN(auto single,
                       HashAggregateExec::Make(Scan(table, 1), keys, aggs, AggregateMode::kSingle));
  EXPECT_EQ(RunRows(single), (Strings{"1|a+b/c", "2|xy"}));
  // One partition keeps the order of the partials, so the two-phase result is the same.
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(Scan(table, 1), keys, aggs, AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(partial, keys, aggs, AggregateMode::kFinal));
  EXPECT_EQ(RunRows(final_agg), (Strings{"1|a+b/c", "2|xy"}));
}

TEST_P(AggregateTest, AvgOfDecimalsAndIntegersIsExactUntilTheDivision) {
  std::vector<Field> fields = {{"d", DataType::Decimal(20, 2)}, {"i", DataType::Int64()}};
  auto table = MakeTable(fields,
                         {{"99999999999999999.99", "9223372036854775807"},
                          {"99999999999999999.99", "9223372036854775807"},
                          {"-99999999999999999.98", "-9223372036854775807"}},
                         1);
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(
                    Scan(table, 1), {},
                    {Agg("sum", {Col(0, DataType::Decimal(20, 2))}, DataType::Decimal(38, 2)),
                     Agg("avg", {Col(1, DataType::Int64())}, DataType::Float64())},
                    AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, Run(agg));
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(Rows(batches)[0].substr(0, 21), "100000000000000000.00");
  EXPECT_NEAR(Scalar::FromArray(*batches[0]->column(1), 0).float_value(), 9223372036854775807.0 / 3,
              1e3);
}

TEST_P(AggregateTest, SumOverflowIsAnError) {
  std::vector<Field> fields = {{"i", DataType::Int64()}};
  auto table = MakeTable(fields, {{"9223372036854775807"}, {"1"}}, 1);
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(
                                     Scan(table, 1), {},
                                     {Agg("sum", {Col(0, DataType::Int64())}, DataType::Int64())},
                                     AggregateMode::kSingle));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, Run(agg));
}

// sum(decimal) adds without per-row checks while a bound on every group's sum stays below 2^127
// (values of at most 64 bits never pass it in practice; int128 values are measured per batch),
// and row by row otherwise: sums near the limits stay exact or fail with numeric overflow.
TEST_P(AggregateTest, DecimalSumsNearTheLimitsAreExactOrOverflow) {
  const DataType d18 = DataType::Decimal(18, 0);
  const DataType d38 = DataType::Decimal(38, 0);
  auto sum_of = [&](const std::vector<Field>& fields,
                    const std::vector<shoal::testing::TextRow>& rows, const DataType& type) {
    auto table = MakeTable(fields, rows, 2);
    return *HashAggregateExec::Make(
        Scan(table, 1), {Col(0, DataType::Int32())},
        {Agg("sum", {Col(1, type)}, d38), Agg("avg", {Col(1, type)}, DataType::Float64())},
        AggregateMode::kSingle);
  };
  // 64-bit values at their extremes add up exactly in int128.
  std::vector<shoal::testing::TextRow> rows;
  for (int i = 0; i < 100; ++i)
    rows.push_back({std::to_string(i % 2), i % 2 ? "999999999999999999" : "-999999999999999999"});
  EXPECT_EQ(RunRows(sum_of({{"g", DataType::Int32()}, {"v", d18}}, rows, d18)),
            (Strings{"0|-49999999999999999950|-1e+18", "1|49999999999999999950|1e+18"}));
  // int128 values: small ones add without checks, then values near 10^38 overflow int128's
  // range in the same group (the checked path catches it) ...
  const std::vector<Field> wide = {{"g", DataType::Int32()}, {"v", d38}};
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Run(sum_of(wide,
                                {{"1", "5"},
                                 {"1", "99999999999999999999999999999999999999"},
                                 {"1", "99999999999999999999999999999999999999"}},
                                d38)));
  // ... or stay inside int128 but leave 38 digits (checked when the sum is emitted) ...
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Run(sum_of(wide,
                                {{"1", "60000000000000000000000000000000000000"},
                                 {"1", "60000000000000000000000000000000000000"}},
                                d38)));
  // ... and near-limit values that cancel out are exact.
  EXPECT_EQ(
      RunRows(sum_of(wide,
                     {{"1", "99999999999999999999999999999999999999"},
                      {"1", "-99999999999999999999999999999999999999"},
                      {"1", "99999999999999999999999999999999999999"},
                      {"2", "-1"}},
                     d38)),
      (Strings{"1|99999999999999999999999999999999999999|3.3333333333333333e+37", "2|-1|-1"}));
}

TEST_P(AggregateTest, DistinctWithFilterCountsOnlyPassingRows) {
  std::vector<Field> fields = {
      {"g", DataType::Int32()}, {"v", DataType::Int32()}, {"ok", DataType::Boolean()}};
  // Value 5 of group 1 is first seen in a filtered-out row; it must still count once later.
  auto table = MakeTable(fields,
                         {{"1", "5", "f"},
                          {"1", "5", "t"},
                          {"1", "5", "t"},
                          {"1", "NULL", "t"},
                          {"1", "6", "t"},
                          {"2", "5", "t"},
                          {"2", "7", "f"}},
                         2);
  auto v = Col(1, DataType::Int32());
  ASSERT_OK_AND_ASSIGN(auto agg,
                       HashAggregateExec::Make(
                           Scan(table, 1), {Col(0, DataType::Int32())},
                           {Agg("count", {v}, DataType::Int64(), true, Col(2, DataType::Boolean())),
                            Agg("sum", {v}, DataType::Int64(), true)},
                           AggregateMode::kSingle));
  EXPECT_EQ(RunRows(agg), (Strings{"1|2|11", "2|1|12"}));
}

TEST_P(AggregateTest, HighCardinalityKeysAndMemoryReturnsToZero) {
  std::vector<shoal::testing::TextRow> rows;
  for (int i = 0; i < 5000; ++i)
    rows.push_back({std::to_string((i * 7919) % 3001), "s" + std::to_string(i % 3001)});
  auto table = MakeTable({{"k", DataType::Int64()}, {"s", DataType::Utf8()}}, rows, 512);
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(
                                     Scan(table, 2), {Col(1, DataType::Utf8())},
                                     {Agg("count", {}, DataType::Int64()),
                                      Agg("max", {Col(0, DataType::Int64())}, DataType::Int64())},
                                     AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(
      auto final_agg,
      HashAggregateExec::Make(CoalescePartitionsExec::Make(agg), {Col(1, DataType::Utf8())},
                              {Agg("count", {}, DataType::Int64()),
                               Agg("max", {Col(0, DataType::Int64())}, DataType::Int64())},
                              AggregateMode::kFinal));
  {
    ASSERT_OK_AND_ASSIGN(auto batches, Run(final_agg));
    int64_t groups = 0, total = 0;
    for (const auto& b : batches) {
      groups += b->num_rows();
      for (int64_t r = 0; r < b->num_rows(); ++r)
        total += b->column(1)->Value<int64_t>(r);
    }
    EXPECT_EQ(groups, 3001);
    EXPECT_EQ(total, 5000);
    EXPECT_GT(context_->metrics().Sum(final_agg.get()).peak_memory_bytes, 0);
  }
  EXPECT_EQ(context_->memory_pool()->bytes_used(), 0);
}

TEST_P(AggregateTest, RefusedReservationIsOutOfMemory) {
  auto table = DistinctKeys(20000);
  ASSERT_OK_AND_ASSIGN(
      auto agg,
      HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int64())},
                              {Agg("count", {}, DataType::Int64())}, AggregateMode::kSingle));
  auto context = MakeContext(GetParam(), 1, MemoryPool::MakeRoot("query", 64 * 1024));
  EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, CollectAll(agg, context));
  EXPECT_EQ(context->memory_pool()->bytes_used(), 0);
}

TEST(HashAggregatePlanTest, RejectsDistinctOutsideSingleModeAndBadFinalInput) {
  auto table = MakeTable({{"k", DataType::Int64()}}, {{"1"}}, 1);
  auto count_distinct = Agg("count", {Col(0, DataType::Int64())}, DataType::Int64(), true);
  EXPECT_STATUS_CODE(
      StatusCode::kNotImplemented,
      HashAggregateExec::Make(Scan(table, 1), {}, {count_distinct}, AggregateMode::kPartial));
  EXPECT_STATUS_CODE(
      StatusCode::kInternal,
      HashAggregateExec::Make(Scan(table, 1), {},
                              {Agg("avg", {Col(0, DataType::Int64())}, DataType::Float64())},
                              AggregateMode::kFinal));
  EXPECT_STATUS_CODE(
      StatusCode::kNotImplemented,
      HashAggregateExec::Make(Scan(table, 1), {},
                              {Agg("median", {Col(0, DataType::Int64())}, DataType::Float64())},
                              AggregateMode::kSingle));
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, AggregateTest, ::testing::Values(1, 2, 8192));

// Only empty strings stored: the key bytes are an empty buffer (no data pointer), and comparing
// a new empty key with a stored one must not hand that null pointer to memcmp (UBSan catches
// it in the sanitizer build).
TEST(GrouperTest, EmptyStringKeysOnlyFormOneGroup) {
  ASSERT_OK_AND_ASSIGN(auto grouper, Grouper::Make({DataType::Utf8()}));
  columnar::BinaryBuilder builder(DataType::Utf8(), DefaultMemoryPool());
  for (int i = 0; i < 3; ++i)
    ASSERT_OK(builder.Append(""));
  ASSERT_OK_AND_ASSIGN(columnar::ArrayPtr keys, builder.Finish());
  std::vector<uint32_t> ids;
  ASSERT_OK(grouper->Consume({keys}, 3, &ids));
  ASSERT_OK(grouper->Consume({keys}, 3, &ids));
  EXPECT_EQ(grouper->num_groups(), 1);
  EXPECT_EQ(ids, std::vector<uint32_t>(3, 0));
}

// Group ids of `batches` (each one text array per key type) from a map of first appearances: what
// any grouper must assign, whichever path (small-domain codes or hashing) a batch takes.
std::vector<std::vector<uint32_t>> ReferenceIds(
    const std::vector<std::vector<std::vector<std::string>>>& batches) {
  std::map<std::vector<std::string>, uint32_t> ids;
  std::vector<std::vector<uint32_t>> out;
  for (const auto& columns : batches) {
    std::vector<uint32_t> batch_ids;
    for (size_t r = 0; r < columns[0].size(); ++r) {
      std::vector<std::string> key;
      for (const auto& column : columns)
        key.push_back(column[r]);
      auto it = ids.emplace(key, static_cast<uint32_t>(ids.size())).first;
      batch_ids.push_back(it->second);
    }
    out.push_back(std::move(batch_ids));
  }
  return out;
}

void CheckGrouperAgainstReference(
    const std::vector<DataType>& types,
    const std::vector<std::vector<std::vector<std::string>>>& batches) {
  ASSERT_OK_AND_ASSIGN(auto grouper, Grouper::Make(types));
  const auto expected = ReferenceIds(batches);
  for (size_t b = 0; b < batches.size(); ++b) {
    std::vector<columnar::ArrayPtr> keys;
    for (size_t c = 0; c < types.size(); ++c)
      keys.push_back(shoal::testing::MakeArray(types[c], batches[b][c]));
    std::vector<uint32_t> ids;
    ASSERT_OK(grouper->Consume(keys, static_cast<int64_t>(batches[b][0].size()), &ids));
    ASSERT_EQ(ids, expected[b]) << "batch " << b;
  }
  // The stored keys come back in group id order.
  ASSERT_OK_AND_ASSIGN(auto out, grouper->GetKeys(0, grouper->num_groups(), DefaultMemoryPool()));
  std::map<uint32_t, std::vector<std::string>> by_id;
  for (size_t b = 0; b < batches.size(); ++b) {
    for (size_t r = 0; r < expected[b].size(); ++r) {
      std::vector<std::string> key;
      for (const auto& column : batches[b])
        key.push_back(column[r]);
      by_id.emplace(expected[b][r], key);
    }
  }
  ASSERT_EQ(static_cast<size_t>(grouper->num_groups()), by_id.size());
  for (size_t c = 0; c < types.size(); ++c) {
    std::vector<std::string> column;
    for (const auto& [id, key] : by_id)
      column.push_back(key[c]);
    EXPECT_ARRAYS_EQUAL(out[c], shoal::testing::MakeArray(types[c], column));
  }
}

// Batches of few distinct keys take the small-domain path (codes, no hashing per row), batches of
// many take the hashed one; mixed, they must agree on every id. Covers NULLs, negative and
// extreme integers, booleans, strings of 0 to 8 bytes (and longer ones, which force hashing),
// strings equal but for their length, and a NULL-only column.
TEST(GrouperTest, SmallDomainBatchesAgreeWithHashedBatches) {
  std::mt19937 rng(5);
  const std::vector<DataType> types = {DataType::Int32(), DataType::Utf8(), DataType::Boolean(),
                                       DataType::Int64(), DataType::Null()};
  const std::vector<std::string> short_strings = {"",   "A",        "N",       "R",   "AB",
                                                  "ab", "12345678", "1234567", "NULL"};
  std::vector<std::vector<std::vector<std::string>>> batches;
  for (int b = 0; b < 24; ++b) {
    // Every fourth batch has too many values for a code table; the others few.
    const bool wide = b % 4 == 3;
    const int rows = 64 + static_cast<int>(rng() % 600);
    std::vector<std::vector<std::string>> columns(types.size());
    for (int r = 0; r < rows; ++r) {
      const uint32_t x = rng();
      columns[0].push_back(x % 13 == 0 ? "NULL"
                                       : std::to_string(wide ? static_cast<int32_t>(x)
                                                             : static_cast<int32_t>(x % 5) - 2));
      columns[1].push_back(wide && x % 3 == 0
                               ? "a string longer than eight bytes " + std::to_string(x % 50)
                               : short_strings[(x >> 8) % short_strings.size()]);
      columns[2].push_back((x >> 12) % 3 == 0 ? "NULL" : ((x >> 14) % 2 ? "t" : "f"));
      // int64 at both ends of its range: the batch range wraps, so those batches hash.
      const int64_t big = (x >> 16) % 2 ? INT64_MAX - static_cast<int64_t>((x >> 17) % 3)
                                        : INT64_MIN + static_cast<int64_t>((x >> 17) % 3);
      columns[3].push_back(b % 2 ? std::to_string(big)
                                 : std::to_string(static_cast<int64_t>((x >> 20) % 4) - 1));
      columns[4].push_back("NULL");
    }
    batches.push_back(std::move(columns));
  }
  CheckGrouperAgainstReference(types, batches);
}

TEST(GrouperTest, SmallDomainOfOneColumnKeysOfEachType) {
  std::mt19937 rng(9);
  const std::vector<DataType> types = {
      DataType::Int8(),   DataType::UInt8(),        DataType::Int16(),
      DataType::UInt16(), DataType::UInt32(),       DataType::UInt64(),
      DataType::Date32(), DataType::Decimal(12, 2), DataType::Binary()};
  const std::vector<std::vector<std::string>> values = {
      {"-128", "127", "0", "NULL"},
      {"0", "255", "7"},
      {"-32768", "-32767", "5"},
      {"65535", "65534", "NULL"},
      {"4294967295", "4294967294", "0"},
      {"18446744073709551615", "18446744073709551614", "NULL"},
      {"2024-01-01", "1970-01-01", "1969-12-31"},
      {"-0.01", "0.01", "0.00", "NULL"},
      {"", "x", "xy", "NULL", "a", "\\x6100", "\\x610000"}};
  for (size_t t = 0; t < types.size(); ++t) {
    std::vector<std::vector<std::vector<std::string>>> batches;
    for (int b = 0; b < 4; ++b) {
      std::vector<std::string> column;
      for (int r = 0; r < 100; ++r)
        column.push_back(values[t][rng() % values[t].size()]);
      batches.push_back({column});
    }
    SCOPED_TRACE(types[t].ToString());
    CheckGrouperAgainstReference({types[t]}, batches);
  }
}

// A slice of a larger array: codes read values and validity from the slice's offset.
TEST(GrouperTest, SmallDomainReadsSlicedKeys) {
  std::vector<std::string> ints, strings;
  for (int r = 0; r < 300; ++r) {
    ints.push_back(r % 7 == 0 ? "NULL" : std::to_string(r % 3));
    strings.push_back(r % 5 == 0 ? "NULL" : std::string(1, static_cast<char>('a' + r % 4)));
  }
  auto ints_array = shoal::testing::MakeArray(DataType::Int32(), ints);
  auto strings_array = shoal::testing::MakeArray(DataType::Utf8(), strings);
  ASSERT_OK_AND_ASSIGN(auto grouper, Grouper::Make({DataType::Int32(), DataType::Utf8()}));
  std::vector<uint32_t> ids;
  ASSERT_OK(
      grouper->Consume({ints_array->Slice(100, 150), strings_array->Slice(100, 150)}, 150, &ids));
  const auto expected =
      ReferenceIds({{std::vector<std::string>(ints.begin() + 100, ints.begin() + 250),
                     std::vector<std::string>(strings.begin() + 100, strings.begin() + 250)}});
  EXPECT_EQ(ids, expected[0]);
}

}  // namespace
}  // namespace shoal::exec

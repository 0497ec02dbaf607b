// SegmentTreeAggregator against references on random data: every aggregate over random frames
// (empty, single-row, whole-input and sliding ones) must equal the same accumulator fed the
// frame's rows directly, and count / min / max must also equal values computed by hand.
#include "shoal/exec/window/segment_tree.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/sql/function_registry.h"
#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::exec {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;

sql::ExprPtr MakeAggregateExpr(const std::string& name, const std::vector<DataType>& types) {
  auto resolution =
      sql::FunctionRegistry::Global().Resolve(name, sql::FunctionKind::kAggregate, types);
  EXPECT_TRUE(resolution.ok()) << name;
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kAggregate;
  e->name = name;
  e->type = resolution->result_type;
  for (const auto& t : resolution->arg_types) {
    auto arg = std::make_shared<sql::Expr>();
    arg->kind = sql::ExprKind::kColumnRef;
    arg->type = t;
    e->args.push_back(arg);
  }
  return e;
}

// The aggregate of each frame computed by feeding its rows to a fresh accumulator group.
std::vector<std::string> Reference(const sql::Expr& agg, const std::vector<ArrayPtr>& args,
                                   const std::vector<int64_t>& starts,
                                   const std::vector<int64_t>& ends, int64_t n) {
  auto acc = MakeAccumulator(agg);
  EXPECT_TRUE(acc.ok());
  (*acc)->Resize(n);
  std::vector<uint32_t> groups(static_cast<size_t>(n));
  std::vector<int32_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    rows.clear();
    for (int64_t r = starts[static_cast<size_t>(i)]; r < ends[static_cast<size_t>(i)]; ++r) {
      rows.push_back(static_cast<int32_t>(r));
      groups[static_cast<size_t>(r)] = static_cast<uint32_t>(i);
    }
    GroupedRows grouped;
    grouped.groups = groups.data();
    grouped.rows = rows.data();
    grouped.count = static_cast<int64_t>(rows.size());
    EXPECT_OK((*acc)->Update(args, grouped));
  }
  auto out = (*acc)->Finalize(0, n, DefaultMemoryPool());
  EXPECT_TRUE(out.ok());
  return shoal::testing::ArrayToStrings(**out);
}

struct RandomData {
  std::vector<std::string> ints;    // int64 text, "NULL" for nulls
  std::vector<std::string> floats;  // float64 text
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
};

RandomData MakeData(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  RandomData d;
  for (int64_t i = 0; i < n; ++i) {
    const bool null = rng() % 7 == 0;
    d.ints.push_back(null ? "NULL" : std::to_string(static_cast<int64_t>(rng() % 2001) - 1000));
    d.floats.push_back(null ? "NULL" : std::to_string(static_cast<double>(rng() % 1000) / 8.0));
  }
  // Frames: a mix of sliding, running, whole-input, empty and single-row ones.
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = 0;
    int64_t e = n;
    switch (rng() % 5) {
      case 0:
        s = std::max<int64_t>(0, i - static_cast<int64_t>(rng() % 9));
        e = std::min<int64_t>(n, i + 1 + static_cast<int64_t>(rng() % 9));
        break;
      case 1:
        s = 0;
        e = i + 1;
        break;
      case 2:
        s = static_cast<int64_t>(rng() % static_cast<uint32_t>(n));
        e = static_cast<int64_t>(rng() % static_cast<uint32_t>(n + 1));
        break;
      case 3:
        s = i;
        e = i;
        break;
      default:
        s = i;
        e = i + 1;
        break;
    }
    d.starts.push_back(s);
    d.ends.push_back(std::max(s, e));
  }
  return d;
}

class SegmentTreeAggregatorTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(SegmentTreeAggregatorTest, MatchesAccumulatorFedEachFrame) {
  const int64_t n = GetParam();
  RandomData d = MakeData(n, 20240601u + static_cast<uint32_t>(n));
  ArrayPtr ints = shoal::testing::MakeArray(DataType::Int64(), d.ints);
  ArrayPtr floats = shoal::testing::MakeArray(DataType::Float64(), d.floats);
  struct Case {
    std::string name;
    ArrayPtr arg;
  };
  const std::vector<Case> cases = {
      {"count", ints},     {"sum", ints},           {"avg", ints},   {"min", ints},
      {"max", ints},       {"sum", floats},         {"avg", floats}, {"var_samp", floats},
      {"var_pop", floats}, {"stddev_samp", floats}, {"max", floats},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + "(" + c.arg->type().ToString() + ")");
    auto agg = MakeAggregateExpr(c.name, {c.arg->type()});
    std::vector<ArrayPtr> args = {c.arg};
    ASSERT_OK_AND_ASSIGN(auto tree,
                         SegmentTreeAggregator::Make(*agg, args, nullptr, n, DefaultMemoryPool()));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, tree->Evaluate(d.starts.data(), d.ends.data()));
    const auto expected = Reference(*agg, args, d.starts, d.ends, n);
    const auto actual = shoal::testing::ArrayToStrings(*got);
    ASSERT_EQ(actual.size(), expected.size());
    for (int64_t i = 0; i < n; ++i) {
      if (c.arg->type().id() == columnar::TypeId::kFloat64 && expected[i] != "NULL" &&
          actual[i] != "NULL") {
        // Merging partial states adds in another order than one pass over the frame.
        EXPECT_NEAR(std::stod(actual[i]), std::stod(expected[i]),
                    1e-9 * std::max(1.0, std::abs(std::stod(expected[i]))))
            << "row " << i;
      } else {
        EXPECT_EQ(actual[i], expected[i])
            << "row " << i << " frame [" << d.starts[i] << ", " << d.ends[i] << ")";
      }
    }
  }
}

TEST_P(SegmentTreeAggregatorTest, CountMinMaxMatchHandComputedValues) {
  const int64_t n = GetParam();
  RandomData d = MakeData(n, 7u + static_cast<uint32_t>(n));
  ArrayPtr ints = shoal::testing::MakeArray(DataType::Int64(), d.ints);
  for (const std::string name : {"count", "min", "max"}) {
    SCOPED_TRACE(name);
    auto agg = MakeAggregateExpr(name, {DataType::Int64()});
    ASSERT_OK_AND_ASSIGN(
        auto tree, SegmentTreeAggregator::Make(*agg, {ints}, nullptr, n, DefaultMemoryPool()));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, tree->Evaluate(d.starts.data(), d.ends.data()));
    const auto actual = shoal::testing::ArrayToStrings(*got);
    for (int64_t i = 0; i < n; ++i) {
      int64_t count = 0;
      std::optional<int64_t> best;
      for (int64_t r = d.starts[i]; r < d.ends[i]; ++r) {
        if (d.ints[r] == "NULL")
          continue;
        const int64_t v = std::stoll(d.ints[r]);
        ++count;
        if (!best || (name == "min" ? v < *best : v > *best))
          best = v;
      }
      const std::string expected = name == "count" ? std::to_string(count)
                                   : best          ? std::to_string(*best)
                                                   : "NULL";
      EXPECT_EQ(actual[i], expected) << "row " << i;
    }
  }
}

TEST(SegmentTreeAggregatorFilterTest, SkipsExcludedRows) {
  ArrayPtr ints = shoal::testing::MakeArray(DataType::Int64(), {"1", "2", "3", "4", "5"});
  auto agg = MakeAggregateExpr("sum", {DataType::Int64()});
  const std::vector<uint8_t> include = {1, 0, 1, 0, 1};
  ASSERT_OK_AND_ASSIGN(
      auto tree, SegmentTreeAggregator::Make(*agg, {ints}, include.data(), 5, DefaultMemoryPool()));
  const std::vector<int64_t> starts = {0, 1, 1, 0, 4};
  const std::vector<int64_t> ends = {5, 2, 4, 0, 5};
  ASSERT_OK_AND_ASSIGN(ArrayPtr got, tree->Evaluate(starts.data(), ends.data()));
  EXPECT_EQ(shoal::testing::ArrayToStrings(*got),
            (std::vector<std::string>{"9", "NULL", "3", "NULL", "5"}));
}

INSTANTIATE_TEST_SUITE_P(Sizes, SegmentTreeAggregatorTest,
                         ::testing::Values(int64_t{1}, int64_t{2}, int64_t{3}, int64_t{17},
                                           int64_t{64}, int64_t{333}));

}  // namespace
}  // namespace shoal::exec

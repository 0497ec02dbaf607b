#include "shoal/exec/join/runtime_filter.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/operators/scan_runtime_filters.h"
#include "tests/support/batch_builder.h"
#include "tests/support/plan_test_util.h"

namespace shoal::exec {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;
using testing::MakeArray;

std::vector<std::string> Ints(int64_t from, int64_t to) {
  std::vector<std::string> out;
  for (int64_t v = from; v <= to; ++v)
    out.push_back(std::to_string(v));
  return out;
}

std::vector<int32_t> Selected(const RuntimeFilter& filter, const ArrayPtr& probe) {
  std::vector<uint64_t> hashes;
  std::vector<int32_t> out;
  EXPECT_OK(filter.Select(probe, &hashes, &out));
  return out;
}

// Integer keys over a narrow range are a bitmap of the range: exact, probed without hashing.
TEST(RuntimeFilterTest, NarrowIntegerRangeIsABitmap) {
  ArrayPtr build = MakeArray(DataType::Int64(), {"9", "1", "5", "NULL", "5"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kBitmap);
  EXPECT_EQ(filter->num_keys(), 3);
  ASSERT_TRUE(filter->min() && filter->max());
  EXPECT_EQ(filter->min()->ToString(), "1");
  EXPECT_EQ(filter->max()->ToString(), "9");
  // NULL never passes, even though the build side had a NULL key.
  std::vector<std::string> probe = Ints(0, 10);
  probe.push_back("NULL");
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Int64(), probe)),
            (std::vector<int32_t>{1, 5, 9}));
}

// Few integer keys over a wide range are an exact set of their hashes.
TEST(RuntimeFilterTest, FewKeysOverAWideRangeAreAnExactSet) {
  ArrayPtr build =
      MakeArray(DataType::Int64(), {"-4611686018427387904", "7", "4611686018427387904"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_EQ(filter->num_keys(), 3);
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Int64(), {"7", "8", "4611686018427387904", "NULL",
                                                            "-4611686018427387903"})),
            (std::vector<int32_t>{0, 2}));
}

TEST(RuntimeFilterTest, StringKeysHaveNoRangeButAnExactSet) {
  ArrayPtr build = MakeArray(DataType::Utf8(), {"MED BOX", "SM CASE"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kExact);
  EXPECT_FALSE(filter->min().has_value());
  EXPECT_EQ(
      Selected(*filter, MakeArray(DataType::Utf8(), {"SM CASE", "LG BOX", "NULL", "MED BOX"})),
      (std::vector<int32_t>{0, 3}));
}

TEST(RuntimeFilterTest, DictionaryProbeIsReadByValue) {
  ArrayPtr build = MakeArray(DataType::Utf8(), {"a", "c"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  ArrayPtr probe = MakeArray(DataType::Dictionary(columnar::TypeId::kInt32, DataType::Utf8()),
                             {"a", "b", "c", "b", "NULL"});
  EXPECT_EQ(Selected(*filter, probe), (std::vector<int32_t>{0, 2}));
}

TEST(RuntimeFilterTest, NoKeyMeansNothingPasses) {
  ArrayPtr build = MakeArray(DataType::Int32(), {"NULL", "NULL"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->kind(), RuntimeFilter::Kind::kEmpty);
  EXPECT_TRUE(Selected(*filter, MakeArray(DataType::Int32(), {"1", "NULL"})).empty());
}

TEST(RuntimeFilterTest, RangeDropsRowsOutsideItWhateverTheSet) {
  ArrayPtr build = MakeArray(DataType::Date32(), {"2024-01-10", "2024-01-20"});
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  EXPECT_EQ(filter->min()->ToString(), "2024-01-10");
  EXPECT_EQ(Selected(*filter, MakeArray(DataType::Date32(),
                                        {"2024-01-09", "2024-01-10", "2024-01-15", "2024-01-20"})),
            (std::vector<int32_t>{1, 3}));
}

// A large build side is a Bloom filter: every build key passes (no false negatives), and few
// others do (16 bits a key: well under 1%; the bound below leaves room for the hash's spread).
TEST(RuntimeFilterTest, BloomFilterHasNoFalseNegativesAndFewFalsePositives) {
  std::mt19937_64 random(42);
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i)
    keys.push_back(std::to_string(static_cast<int64_t>(random() >> 2) * 2));  // even numbers
  ArrayPtr build = MakeArray(DataType::Int64(), keys);
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  ASSERT_EQ(filter->kind(), RuntimeFilter::Kind::kBloom);
  EXPECT_EQ(filter->num_keys(), 20000);
  // 16 bits a key, rounded up to whole 32-byte blocks only.
  EXPECT_LE(filter->size_bytes(), 20000 * 16 / 8 + 32);
  EXPECT_EQ(Selected(*filter, build).size(), keys.size());
  std::vector<std::string> others;
  for (int i = 0; i < 100000; ++i)
    others.push_back(std::to_string(static_cast<int64_t>(random() >> 2) * 2 + 1));  // odd
  const size_t passed = Selected(*filter, MakeArray(DataType::Int64(), others)).size();
  EXPECT_LT(passed, others.size() / 100) << passed << " false positives of " << others.size();
}

// A filter that removes nothing is switched off after its sample; its counters say so.
TEST(ScanRuntimeFiltersTest, SwitchesOffAFilterThatRemovesLittle) {
  auto context = testutil::MakeContext();
  ArrayPtr build = MakeArray(DataType::Int64(), Ints(0, 9999));
  ASSERT_OK_AND_ASSIGN(auto filter, RuntimeFilter::Build(build, DefaultMemoryPool()));
  context->runtime_filters().Publish(7, filter);
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{7, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  std::vector<std::string> values = Ints(0, 9999);
  values.push_back("-1");  // one row of 10,001 removed
  ArrayPtr column = MakeArray(DataType::Int64(), values);
  int64_t kept_rows = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(filters.columns().size(), i < 7 ? 1U : 0U) << "batch " << i;
    if (filters.columns().empty())
      break;
    std::vector<int32_t> selection;
    ASSERT_OK_AND_ASSIGN(int64_t kept, filters.Select({column}, column->length(), &selection));
    kept_rows += kept;
  }
  EXPECT_EQ(kept_rows, 7 * 10000);
  EXPECT_EQ(metrics.extra["rf7_switched_off"], 1);
  EXPECT_EQ(metrics.extra["rf7_rows_removed"], 7);
}

// Before its filter arrives a scan keeps every row; afterwards it filters.
TEST(ScanRuntimeFiltersTest, AppliesAFilterFromWhenItArrives) {
  auto context = testutil::MakeContext();
  io::ScanRequest request;
  request.projection = {1, 0};
  request.runtime_filters = {{3, 0}};
  OperatorMetrics metrics;
  ScanRuntimeFilters filters(request, context.get(), &metrics, DefaultMemoryPool());
  auto batch = testing::MakeBatch({{"v", DataType::Utf8()}, {"k", DataType::Int32()}},
                                  {{"a", "1"}, {"b", "2"}, {"c", "NULL"}});
  ASSERT_OK_AND_ASSIGN(auto before, filters.Apply(batch));
  EXPECT_EQ(before->num_rows(), 3);
  ASSERT_OK_AND_ASSIGN(
      auto filter, RuntimeFilter::Build(MakeArray(DataType::Int32(), {"2"}), DefaultMemoryPool()));
  context->runtime_filters().Publish(3, filter);
  ASSERT_OK_AND_ASSIGN(auto after, filters.Apply(batch));
  ASSERT_EQ(after->num_rows(), 1);
  EXPECT_EQ(after->column(0)->StringValue(0), "b");
  // Row-group pruning by the range: [2, 2] against a block's statistics.
  std::vector<io::ColumnPredicate> asked;
  EXPECT_TRUE(filters.BlockRuledOut([&](const io::ColumnPredicate& p) {
    asked.push_back(p);
    return p.op == io::PredicateOp::kGe;  // the block's values are all below 2
  }));
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked[0].column, 0);
  EXPECT_EQ(metrics.extra["rf3_row_groups_pruned"], 1);
}

}  // namespace
}  // namespace shoal::exec

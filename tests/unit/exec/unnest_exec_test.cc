// UnnestExec: constant arrays and arrays per input row, zipped with NULL padding, WITH
// ORDINALITY, arrays longer than a batch, across batch sizes and partitions, against a naive
// reference; and array_agg's accumulator through a hash aggregation (NULL elements kept, no rows
// NULL).
#include "shoal/exec/operators/unnest_exec.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

const DataType kIntArray = DataType::List(DataType::Int32());
const DataType kTextArray = DataType::List(DataType::Utf8());

std::shared_ptr<UnnestExec> Unnest(ExecPlanPtr input, std::vector<sql::ExprPtr> arrays,
                                   bool ordinality = false) {
  std::vector<std::string> names;
  for (size_t i = 0; i < arrays.size(); ++i)
    names.push_back("u" + std::to_string(i));
  if (ordinality)
    names.push_back("ordinality");
  auto node = UnnestExec::Make(std::move(input), std::move(arrays), ordinality, std::move(names));
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  return node.ok() ? *node : nullptr;
}

sql::ExprPtr ArrayText(const std::string& text, const DataType& type = kIntArray) {
  return Cast(Lit(Scalar::Utf8(text)), type);
}

class UnnestExecTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(UnnestExecTest, ConstantArraysZipWithPadding) {
  auto node = Unnest(nullptr, {ArrayText("{1,2,NULL}"), ArrayText("{x,y,z,w}", kTextArray)},
                     /*ordinality=*/true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext(GetParam())));
  EXPECT_EQ(Rows(batches), (Strings{"1|x|1", "2|y|2", "NULL|z|3", "NULL|w|4"}));
  for (const auto& b : batches)
    EXPECT_LE(b->num_rows(), GetParam());
}

TEST_P(UnnestExecTest, PerInputRowAcrossPartitions) {
  // One array per row, some NULL or empty (no rows), one longer than the smaller batch sizes.
  std::string long_array = "{";
  for (int i = 0; i < 20; ++i)
    long_array += (i ? "," : "") + std::to_string(i);
  long_array += "}";
  std::vector<TextRow> rows = {{"{1,2}", "a"},    {"NULL", "b"},   {"{}", "c"},
                               {long_array, "d"}, {"{NULL}", "e"}, {"{7}", "f"}};
  auto table = MakeTable({{"a", DataType::Utf8()}, {"s", DataType::Utf8()}}, rows, 2);
  auto node = Unnest(Scan(table, 3), {Cast(Col(0, DataType::Utf8()), kIntArray)}, true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext(GetParam())));
  Strings expected = {"1|1|{1,2}|a", "2|2|{1,2}|a", "NULL|1|{NULL}|e", "7|1|{7}|f"};
  for (int i = 0; i < 20; ++i)
    expected.push_back(std::to_string(i) + "|" + std::to_string(i + 1) + "|" + long_array + "|d");
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(expected));
  EXPECT_EQ(node->num_partitions(), 3);
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, UnnestExecTest, ::testing::Values(1, 3, 8192));

TEST(UnnestExecMakeTest, RefusesWhatIsNotAnArray) {
  EXPECT_FALSE(UnnestExec::Make(nullptr, {Lit(Scalar::Int32(1))}, false, {"u"}).ok());
  EXPECT_FALSE(UnnestExec::Make(nullptr, {}, false, {}).ok());
  EXPECT_FALSE(UnnestExec::Make(nullptr, {ArrayText("{1}")}, true, {"u"}).ok());
  auto node = Unnest(nullptr, {ArrayText("{1}")});
  EXPECT_EQ(node->Describe(false).rfind("unnest(", 0), 0u);
}

TEST(ArrayAggTest, KeepsNullsAndIsNullForNoRows) {
  std::vector<TextRow> rows = {{"1", "a"}, {"2", "NULL"}, {"1", "NULL"}, {"1", "c"}, {"2", "b"}};
  auto table = MakeTable({{"g", DataType::Int32()}, {"x", DataType::Utf8()}}, rows, 2);
  auto agg = Agg("array_agg", {Col(1, DataType::Utf8())}, kTextArray);
  ASSERT_OK_AND_ASSIGN(auto node,
                       HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int32())}, {agg},
                                               AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext(2)));
  EXPECT_EQ(Sorted(Rows(batches)), (Strings{"1|{a,NULL,c}", "2|{NULL,b}"}));
  // Two phases: partial arrays merged (the order across partitions is not fixed).
  ASSERT_OK_AND_ASSIGN(auto partial,
                       HashAggregateExec::Make(Scan(table, 3), {Col(0, DataType::Int32())}, {agg},
                                               AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(
      auto coalesced,
      RepartitionExec::Make(partial, Partitioning::Hash({Col(0, DataType::Int32())}, 2)));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(coalesced, {Col(0, DataType::Int32())}, {agg},
                                               AggregateMode::kFinal));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(final_agg, MakeContext(2)));
  Strings merged = Rows(batches);
  ASSERT_EQ(merged.size(), 2u);
  for (auto& r : merged) {
    // Compare the elements as a multiset: sort the characters of the array text.
    std::sort(r.begin(), r.end());
  }
  Strings want = {"1|{a,NULL,c}", "2|{NULL,b}"};
  for (auto& r : want)
    std::sort(r.begin(), r.end());
  EXPECT_EQ(Sorted(merged), Sorted(want));
  // No group keys and no rows: one row, NULL.
  auto empty = MakeTable({{"g", DataType::Int32()}, {"x", DataType::Utf8()}}, {}, 2);
  ASSERT_OK_AND_ASSIGN(auto none,
                       HashAggregateExec::Make(Scan(empty, 1), {}, {agg}, AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(none, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"NULL"}));
}

}  // namespace
}  // namespace shoal::exec

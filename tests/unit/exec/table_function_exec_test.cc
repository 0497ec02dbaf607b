// TableFunctionExec: generate_series with constant arguments and per input row, across batch
// sizes and partitions, against a naive reference; PostgreSQL's edge rules (NULL arguments, zero
// step, the end of the type's range, month arithmetic on timestamps) and refused signatures.
#include "shoal/exec/operators/table_function_exec.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

sql::ExprPtr I32(int32_t v) {
  return Lit(Scalar::Int32(v));
}

std::shared_ptr<TableFunctionExec> Series(ExecPlanPtr input, std::vector<sql::ExprPtr> args,
                                          bool ordinality = false) {
  std::vector<std::string> names = {"g"};
  if (ordinality)
    names.push_back("ordinality");
  auto node = TableFunctionExec::Make(std::move(input), "generate_series", std::move(args),
                                      ordinality, std::move(names));
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  return node.ok() ? *node : nullptr;
}

class TableFunctionTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(TableFunctionTest, ConstantSeriesStreamsInBatches) {
  const int64_t batch_size = GetParam();
  auto node = Series(nullptr, {I32(-5), I32(2000), I32(3)}, /*ordinality=*/true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext(batch_size)));
  Strings expected;
  int64_t ordinal = 0;
  for (int32_t v = -5; v <= 2000; v += 3)
    expected.push_back(std::to_string(v) + "|" + std::to_string(++ordinal));
  for (const auto& b : batches)
    EXPECT_LE(b->num_rows(), batch_size);
  EXPECT_EQ(Rows(batches), expected);
}

TEST_P(TableFunctionTest, PerInputRowAcrossPartitions) {
  const int64_t batch_size = GetParam();
  // generate_series(k, 3) per row: NULL and k > 3 give no rows; the row's columns follow.
  std::vector<TextRow> rows = {{"1", "a"},  {"NULL", "b"}, {"3", "c"}, {"7", "d"},
                               {"-2", "e"}, {"2", "f"},    {"0", "g"}};
  auto table = MakeTable({{"k", DataType::Int32()}, {"s", DataType::Utf8()}}, rows, 2);
  auto node = Series(Scan(table, 3), {Col(0, DataType::Int32()), I32(3)});
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext(batch_size)));
  Strings expected;
  for (const auto& r : rows) {
    if (r[0] == "NULL")
      continue;
    for (int v = std::stoi(r[0]); v <= 3; ++v)
      expected.push_back(std::to_string(v) + "|" + r[0] + "|" + r[1]);
  }
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(expected));
  EXPECT_EQ(node->num_partitions(), 3);
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, TableFunctionTest, ::testing::Values(1, 3, 8192));

TEST(TableFunctionExecTest, EndsWhereTheTypeEnds) {
  // 2147483645, 2147483647 and then the next step would overflow int4: the series ends.
  auto node = Series(nullptr, {I32(2147483645), I32(2147483647), I32(2)});
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"2147483645", "2147483647"}));
  auto down = Series(nullptr, {Lit(Scalar::Int64(INT64_MIN + 1)), Lit(Scalar::Int64(INT64_MIN)),
                               Lit(Scalar::Int64(-1))});
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(down, MakeContext()));
  EXPECT_EQ(Rows(batches).size(), 2u);
}

TEST(TableFunctionExecTest, NullArgumentsAndZeroStep) {
  auto null_stop = Series(nullptr, {I32(1), Lit(Scalar(DataType::Int32()))});
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(null_stop, MakeContext()));
  EXPECT_TRUE(Rows(batches).empty());
  auto zero = Series(nullptr, {I32(1), I32(5), I32(0)});
  auto result = CollectAll(zero, MakeContext());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "22023") << result.status().ToString();
}

TEST(TableFunctionExecTest, TimestampsAddTheIntervalOneStepAtATime) {
  // As PostgreSQL: Jan 31 + 1 month is Feb 29 (2024), then Mar 29: each step adds to the last.
  const int64_t jan31 = int64_t{19753} * 86400 * 1000000;  // 2024-01-31
  const int64_t may1 = int64_t{19844} * 86400 * 1000000;   // 2024-05-01
  auto node = Series(nullptr, {Lit(Scalar::Timestamp(jan31)), Lit(Scalar::Timestamp(may1)),
                               Lit(Scalar::Interval({1, 0, 0}))});
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(node, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"2024-01-31 00:00:00", "2024-02-29 00:00:00",
                                    "2024-03-29 00:00:00", "2024-04-29 00:00:00"}));
  auto zero = Series(nullptr, {Lit(Scalar::Timestamp(jan31)), Lit(Scalar::Timestamp(may1)),
                               Lit(Scalar::Interval({1, -30, 0}))});
  EXPECT_FALSE(CollectAll(zero, MakeContext()).ok());
}

TEST(TableFunctionExecTest, RefusesOtherSignatures) {
  EXPECT_FALSE(TableFunctionExec::Make(nullptr, "generate_series",
                                       {Lit(Scalar::Utf8("a")), Lit(Scalar::Utf8("b"))}, false,
                                       {"g"})
                   .ok());
  EXPECT_FALSE(TableFunctionExec::Make(nullptr, "generate_series", {I32(1)}, false, {"g"}).ok());
  EXPECT_FALSE(TableFunctionExec::Make(nullptr, "generate_series", {I32(1), Lit(Scalar::Int64(2))},
                                       false, {"g"})
                   .ok());
  EXPECT_FALSE(TableFunctionExec::Make(nullptr, "unnest", {I32(1), I32(2)}, false, {"g"}).ok());
  EXPECT_FALSE(
      TableFunctionExec::Make(nullptr, "generate_series", {I32(1), I32(2)}, true, {"g"}).ok());
}

}  // namespace
}  // namespace shoal::exec

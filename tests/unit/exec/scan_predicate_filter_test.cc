// A WHERE folded into a scan (exec/operators/scan_filter_expr.h, scan_predicate_filter.h): which
// conjuncts the scan may take, and the row filter that evaluates them over a batch of just their
// columns — NULL drops a row, a batch kept whole is reported as such, the counters EXPLAIN ANALYZE
// shows.
#include "shoal/exec/operators/scan_predicate_filter.h"

#include <gtest/gtest.h>

#include "shoal/exec/operators/scan_filter_expr.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using columnar::Field;

const DataType kBool = DataType::Boolean();

TEST(ScanFilterExprTest, OnlyConjunctsThatCannotFailGoIntoTheScan) {
  auto a = Col(0, DataType::Int32());
  auto s = Col(1, DataType::Utf8());
  auto greater = Call(">", {a, Lit(Scalar::Int32(1))}, kBool);
  auto divided =
      Call(">", {Call("/", {Lit(Scalar::Int32(10)), a}, DataType::Int32()), Lit(Scalar::Int32(2))},
           kBool);
  auto like = Call("like", {s, Lit(Scalar::Utf8("x%"))}, kBool);
  auto cast = Call(">", {Cast(s, DataType::Int32()), Lit(Scalar::Int32(0))}, kBool);
  auto constant = Lit(Scalar::Boolean(true));
  ScanFilterSplit split = SplitScanFilter(
      Call("and", {greater, divided, Call("and", {like, cast}, kBool), constant}, kBool));
  ASSERT_NE(split.pushed, nullptr);
  ASSERT_NE(split.kept, nullptr);
  // In the WHERE's order: the scan's conjuncts, and the rest above.
  EXPECT_EQ(split.pushed->ToString(), "(c0 > 1) AND (c1 LIKE 'x%')");
  EXPECT_EQ(split.kept->args.size(), 3U) << split.kept->ToString();
  // One that can fail alone: nothing for the scan; one that cannot: no Filter left.
  EXPECT_EQ(SplitScanFilter(divided).pushed, nullptr);
  EXPECT_EQ(SplitScanFilter(greater).kept, nullptr);
  EXPECT_EQ(SplitScanFilter(Call("or", {greater, like}, kBool)).kept, nullptr);
}

TEST(ScanPredicateFilterTest, EvaluatesOverItsOwnColumnsAndDropsNulls) {
  // The scan produces (a, s, c); the predicate reads c and a.
  auto schema = std::make_shared<const columnar::Schema>(std::vector<Field>{
      {"a", DataType::Int32()}, {"s", DataType::Utf8()}, {"c", DataType::Int32()}});
  auto predicate = Call("and",
                        {Call(">", {Col(2, DataType::Int32()), Lit(Scalar::Int32(1))}, kBool),
                         Call("is_not_null", {Col(0, DataType::Int32())}, kBool)},
                        kBool);
  OperatorMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto filter, ScanPredicateFilter::Make(*schema, predicate, nullptr, &metrics,
                                                              DefaultMemoryPool()));
  EXPECT_EQ(filter->columns(), (std::vector<int>{0, 2}));
  auto batch = MakeBatch(
      {{"a", DataType::Int32()}, {"s", DataType::Utf8()}, {"c", DataType::Int32()}},
      {{"1", "x", "5"}, {"NULL", "y", "5"}, {"3", "z", "NULL"}, {"4", "w", "0"}, {"5", "v", "2"}});
  std::vector<int32_t> selection;
  ASSERT_OK_AND_ASSIGN(int64_t kept,
                       filter->Select({batch->column(0), batch->column(2)}, 5, &selection));
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(selection, (std::vector<int32_t>{0, 4}));
  ASSERT_OK_AND_ASSIGN(auto applied, filter->Apply(batch));
  EXPECT_EQ(Rows({applied}), (Strings{"1|x|5", "5|v|2"}));
  // Every row kept: -1, and Apply hands the batch back as it is.
  auto all =
      MakeBatch({{"a", DataType::Int32()}, {"s", DataType::Utf8()}, {"c", DataType::Int32()}},
                {{"1", "x", "5"}, {"2", "y", "6"}});
  ASSERT_OK_AND_ASSIGN(kept, filter->Select({all->column(0), all->column(2)}, 2, &selection));
  EXPECT_EQ(kept, -1);
  ASSERT_OK_AND_ASSIGN(auto same, filter->Apply(all));
  EXPECT_EQ(same.get(), all.get());
  EXPECT_EQ(metrics.extra["filter_rows_in"], 5 + 5 + 2 + 2);
  EXPECT_EQ(metrics.extra["filter_rows_out"], 2 + 2 + 2 + 2);
}

}  // namespace
}  // namespace shoal::exec

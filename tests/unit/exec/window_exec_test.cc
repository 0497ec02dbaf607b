// WindowExec run directly: partitions split across input batches (batch size 1 included), ties,
// and a sliding ROWS sum checked against a sum computed by hand.
#include "shoal/exec/operators/window_exec.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

// One partition over `rows`, `per_batch` to a batch: window partitions split across batches.
ExecPlanPtr ScanRows(const std::vector<Field>& fields, const std::vector<TextRow>& rows,
                     size_t per_batch) {
  return Scan(MakeTable(fields, rows, static_cast<int>(per_batch)), 1);
}

TEST(WindowExecTest, RanksWithTiesAndNullsAcrossBatchSizes) {
  const std::vector<Field> fields = {{"g", DataType::Utf8()}, {"v", DataType::Int32()}};
  const std::vector<TextRow> rows = {{"a", "2"},    {"b", "1"},    {"a", "1"},   {"a", "2"},
                                     {"b", "NULL"}, {"NULL", "5"}, {"a", "NULL"}};
  const auto g = Col(0, DataType::Utf8());
  const auto v = Col(1, DataType::Int32());
  const std::vector<sql::SortKey> order = {{v, true, false}};
  for (size_t per_batch : {size_t{1}, size_t{2}, size_t{7}}) {
    for (int64_t batch_size : {int64_t{1}, int64_t{3}, int64_t{8192}}) {
      SCOPED_TRACE(std::to_string(per_batch) + " rows per input batch, batch size " +
                   std::to_string(batch_size));
      auto scan = ScanRows(fields, rows, per_batch);
      ASSERT_OK_AND_ASSIGN(
          auto window, WindowExec::Make(scan,
                                        {Window("rank", {}, DataType::Int64(), {g}, order),
                                         Window("row_number", {}, DataType::Int64(), {g}, order),
                                         Window("count", {}, DataType::Int64(), {g}, order)},
                                        {"rank", "row_number", "count"}));
      ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(window, MakeContext(batch_size)));
      Strings got = Rows(batches);
      std::sort(got.begin(), got.end());
      // Partition a: 1, 2, 2, NULL (NULLS LAST); the default frame counts peers.
      EXPECT_EQ(got, (Strings{"NULL|5|1|1|1", "a|1|1|1|1", "a|2|2|2|3", "a|2|2|3|3", "a|NULL|4|4|4",
                              "b|1|1|1|1", "b|NULL|2|2|2"}));
    }
  }
}

TEST(WindowExecTest, SlidingRowsSumMatchesHandComputedSums) {
  const std::vector<Field> fields = {
      {"p", DataType::Int32()}, {"o", DataType::Int32()}, {"v", DataType::Int64()}};
  std::mt19937 rng(42);
  std::vector<TextRow> rows;
  std::map<int, std::map<int, int64_t>> by_partition;  // p -> o -> v (o unique per p)
  for (int i = 0; i < 300; ++i) {
    const int p = static_cast<int>(rng() % 4);
    const int o = i;
    const int64_t v = static_cast<int64_t>(rng() % 100);
    rows.push_back({std::to_string(p), std::to_string(o), std::to_string(v)});
    by_partition[p][o] = v;
  }
  sql::WindowFrame frame;
  frame.units = sql::WindowFrame::Units::kRows;
  frame.start = sql::WindowFrame::BoundKind::kPreceding;
  frame.start_offset = Lit(Scalar::Int64(3));
  frame.end = sql::WindowFrame::BoundKind::kFollowing;
  frame.end_offset = Lit(Scalar::Int64(2));
  const auto p = Col(0, DataType::Int32());
  const auto o = Col(1, DataType::Int32());
  const auto v = Col(2, DataType::Int64());
  auto sum = Window("sum", {v}, DataType::Int64(), {p}, {{o, true, false}}, frame);
  auto scan = ScanRows(fields, rows, 17);
  ASSERT_OK_AND_ASSIGN(auto window, WindowExec::Make(scan, {sum}, {"s"}));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(window, MakeContext(5)));
  std::map<std::string, std::string> got;
  for (const auto& row : Rows(batches)) {
    const size_t last = row.rfind('|');
    got[row.substr(0, last)] = row.substr(last + 1);
  }
  ASSERT_EQ(got.size(), rows.size());
  for (const auto& [part, values] : by_partition) {
    std::vector<std::pair<int, int64_t>> ordered(values.begin(), values.end());
    for (size_t i = 0; i < ordered.size(); ++i) {
      int64_t expected = 0;
      for (size_t j = i >= 3 ? i - 3 : 0; j <= std::min(ordered.size() - 1, i + 2); ++j)
        expected += ordered[j].second;
      const std::string key = std::to_string(part) + "|" + std::to_string(ordered[i].first) + "|" +
                              std::to_string(ordered[i].second);
      EXPECT_EQ(got[key], std::to_string(expected)) << key;
    }
  }
}

TEST(WindowExecTest, RefusesNegativeAndNullOffsets) {
  const std::vector<Field> fields = {{"v", DataType::Int32()}};
  auto scan = ScanRows(fields, {{"1"}}, 1);
  sql::WindowFrame frame;
  frame.units = sql::WindowFrame::Units::kRows;
  frame.start = sql::WindowFrame::BoundKind::kPreceding;
  frame.start_offset = Lit(Scalar::Int64(-1));
  auto fn = Window("count", {}, DataType::Int64(), {}, {}, frame);
  auto result = WindowExec::Make(scan, {fn}, {"c"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "22013");
  frame.start_offset = Lit(Scalar(DataType::Int64()));
  fn = Window("count", {}, DataType::Int64(), {}, {}, frame);
  result = WindowExec::Make(scan, {fn}, {"c"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "22004");
}

}  // namespace
}  // namespace shoal::exec

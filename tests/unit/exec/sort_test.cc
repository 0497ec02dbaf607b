#include <algorithm>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "shoal/io/memory_table.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

// Column c of a row printed by Rows().
std::string Cell(const std::string& row, int c) {
  size_t start = 0;
  for (int i = 0; i < c; ++i)
    start = row.find('|', start) + 1;
  return row.substr(start, row.find('|', start) - start);
}

sql::SortKey Key(sql::ExprPtr expr, bool ascending, bool nulls_first) {
  return sql::SortKey{std::move(expr), ascending, nulls_first};
}

class SortTest : public ::testing::TestWithParam<int64_t> {
 protected:
  Strings RunRows(const ExecPlanPtr& plan) {
    context_ = MakeContext(GetParam());
    auto result = CollectAll(plan, context_);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok())
      return {};
    for (const auto& b : *result)
      EXPECT_LE(b->num_rows(), GetParam());
    return Rows(*result);
  }

  std::shared_ptr<TaskContext> context_;
};

// Random rows (id, k int32 with NULLs, s utf8 with NULLs) and the reference order of ORDER BY
// k ASC NULLS LAST, s DESC NULLS FIRST by a stable sort over the ids.
struct RandomData {
  std::vector<Field> fields = {
      {"id", DataType::Int64()}, {"k", DataType::Int32()}, {"s", DataType::Utf8()}};
  std::vector<TextRow> rows;
  std::vector<std::optional<int32_t>> k;
  std::vector<std::optional<std::string>> s;

  explicit RandomData(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    const char* strings[] = {"", "a", "a\xc3\xa9", "ab", "b", "ba", "zz"};
    for (int i = 0; i < n; ++i) {
      std::optional<int32_t> kv;
      if (rng() % 8 != 0)
        kv = static_cast<int32_t>(rng() % 21) - 10;
      std::optional<std::string> sv;
      if (rng() % 6 != 0)
        sv = strings[rng() % 7];
      k.push_back(kv);
      s.push_back(sv);
      rows.push_back({std::to_string(i), kv ? std::to_string(*kv) : "NULL", sv ? *sv : "NULL"});
    }
  }

  Strings Expected(int64_t fetch = -1) const {
    std::vector<size_t> order(rows.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (k[a] != k[b]) {
        if (!k[a] || !k[b])
          return k[b] == std::nullopt;  // NULLS LAST
        return *k[a] < *k[b];
      }
      if (s[a] != s[b]) {
        if (!s[a] || !s[b])
          return s[a] == std::nullopt;  // NULLS FIRST
        return *s[a] > *s[b];
      }
      return false;
    });
    Strings out;
    for (size_t i : order) {
      if (fetch >= 0 && static_cast<int64_t>(out.size()) == fetch)
        break;
      const TextRow& r = rows[i];
      out.push_back(r[0] + "|" + r[1] + "|" + r[2]);
    }
    return out;
  }

  std::vector<sql::SortKey> Keys() const {
    return {Key(Col(1, DataType::Int32()), true, false),
            Key(Col(2, DataType::Utf8()), false, true)};
  }
};

TEST_P(SortTest, RandomMultiKeySortIsStableAndMatchesReference) {
  RandomData data(1200, 3);
  auto table = MakeTable(data.fields, data.rows, 101);
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, 1), data.Keys()));
  EXPECT_EQ(RunRows(sort), data.Expected());
  EXPECT_EQ(context_->memory_pool()->bytes_used(), 0);
}

TEST_P(SortTest, TopKMatchesPrefixOfFullSort) {
  RandomData data(1000, 5);
  auto table = MakeTable(data.fields, data.rows, 77);
  for (int64_t fetch : {0, 1, 7, 150, 999, 1000, 5000}) {
    ASSERT_OK_AND_ASSIGN(auto top, SortExec::Make(Scan(table, 1), data.Keys(), fetch));
    EXPECT_EQ(RunRows(top), data.Expected(fetch)) << "fetch " << fetch;
  }
}

TEST_P(SortTest, MergeOfSortedPartitionsIsTotallyOrdered) {
  RandomData data(900, 9);
  auto table = MakeTable(data.fields, data.rows, 50);
  // The id as a last key makes the order total, whatever rows each partition got.
  auto keys = data.Keys();
  keys.push_back(Key(Col(0, DataType::Int64()), true, false));
  auto scan = Scan(table, 4);
  ASSERT_GT(scan->num_partitions(), 1);
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(scan, keys));
  ASSERT_OK_AND_ASSIGN(auto merge, SortPreservingMergeExec::Make(sort, keys));
  EXPECT_EQ(RunRows(merge), data.Expected());
  ASSERT_OK_AND_ASSIGN(auto merge_fetch, SortPreservingMergeExec::Make(sort, keys, 33));
  EXPECT_EQ(RunRows(merge_fetch), data.Expected(33));
  // Top-k per partition, then the merge's fetch: ORDER BY ... LIMIT across partitions.
  ASSERT_OK_AND_ASSIGN(auto top, SortExec::Make(scan, keys, 33));
  ASSERT_OK_AND_ASSIGN(auto merge_top, SortPreservingMergeExec::Make(top, keys, 33));
  EXPECT_EQ(RunRows(merge_top), data.Expected(33));
}

TEST_P(SortTest, FloatsOrderNaNAboveInfinityAndZerosAsEqual) {
  std::vector<Field> fields = {{"f", DataType::Float64()}, {"i", DataType::Int32()}};
  auto table = MakeTable(fields,
                         {{"1", "0"},
                          {"NaN", "1"},
                          {"-Infinity", "2"},
                          {"Infinity", "3"},
                          {"NULL", "4"},
                          {"0", "5"},
                          {"-0", "6"},
                          {"-2.5", "7"},
                          {"NaN", "8"}},
                         4);
  auto f = Col(0, DataType::Float64());
  ASSERT_OK_AND_ASSIGN(auto asc, SortExec::Make(Scan(table, 1), {Key(f, true, false)}));
  EXPECT_EQ(RunRows(asc), (Strings{"-Infinity|2", "-2.5|7", "0|5", "-0|6", "1|0", "Infinity|3",
                                   "NaN|1", "NaN|8", "NULL|4"}));
  ASSERT_OK_AND_ASSIGN(auto desc, SortExec::Make(Scan(table, 1), {Key(f, false, true)}));
  EXPECT_EQ(RunRows(desc), (Strings{"NULL|4", "NaN|1", "NaN|8", "Infinity|3", "1|0", "0|5", "-0|6",
                                    "-2.5|7", "-Infinity|2"}));
}

TEST_P(SortTest, EveryKeyTypeAscendingAndDescending) {
  std::vector<Field> fields = {{"i8", DataType::Int8()},        {"u64", DataType::UInt64()},
                               {"d", DataType::Decimal(10, 2)}, {"w", DataType::Decimal(30, 2)},
                               {"dt", DataType::Date32()},      {"ts", DataType::Timestamp()},
                               {"b", DataType::Boolean()},      {"bin", DataType::Binary()}};
  // Column j of row i holds the i-th smallest value of that column's type (row 3 is NULL).
  std::vector<TextRow> rows = {
      {"-128", "0", "-99999999.99", "-1e0", "1999-12-31", "1970-01-01 00:00:00", "f", "\\x00"},
      {"-1", "9223372036854775808", "-0.01", "-0.01", "2000-01-01", "2024-05-05 10:00:00", "t",
       "\\x0000"},
      {"127", "18446744073709551615", "12.34", "123456789012345678901234.56", "2100-01-01",
       "2024-05-05 10:00:01", "t", "\\x01"},
      {"NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"},
  };
  rows[0][3] = "-99999999999999999999999999.99";
  // Shuffle the rows so that sorting has work to do: inputs in order 2, 3, 0, 1.
  auto table = MakeTable(fields, {rows[2], rows[3], rows[0], rows[1]}, 3);
  for (int c = 0; c < static_cast<int>(fields.size()); ++c) {
    // Boolean has only two values: rows 1 and 2 tie and keep input order (2 before 1).
    const bool tie = fields[static_cast<size_t>(c)].type.id() == TypeId::kBoolean;
    auto col = Col(c, fields[static_cast<size_t>(c)].type);
    ASSERT_OK_AND_ASSIGN(auto asc, SortExec::Make(Scan(table, 1), {Key(col, true, false)}));
    Strings got = RunRows(asc);
    ASSERT_EQ(got.size(), 4u);
    std::vector<int> want = tie ? std::vector<int>{0, 2, 1, 3} : std::vector<int>{0, 1, 2, 3};
    for (int i = 0; i < 4; ++i) {
      const TextRow& r = rows[static_cast<size_t>(want[static_cast<size_t>(i)])];
      EXPECT_EQ(Cell(got[static_cast<size_t>(i)], c),
                shoal::testing::ArrayToStrings(*MakeBatch(fields, {r})->column(c))[0])
          << fields[static_cast<size_t>(c)].name << " asc, row " << i;
    }
    ASSERT_OK_AND_ASSIGN(auto desc, SortExec::Make(Scan(table, 1), {Key(col, false, false)}));
    got = RunRows(desc);
    want = tie ? std::vector<int>{2, 1, 0, 3} : std::vector<int>{2, 1, 0, 3};
    for (int i = 0; i < 4; ++i) {
      const TextRow& r = rows[static_cast<size_t>(want[static_cast<size_t>(i)])];
      EXPECT_EQ(Cell(got[static_cast<size_t>(i)], c),
                shoal::testing::ArrayToStrings(*MakeBatch(fields, {r})->column(c))[0])
          << fields[static_cast<size_t>(c)].name << " desc, row " << i;
    }
  }
}

TEST_P(SortTest, EmptyInputYieldsNothing) {
  auto table = MakeTable({{"a", DataType::Int32()}}, {}, 1);
  ASSERT_OK_AND_ASSIGN(
      auto sort, SortExec::Make(Scan(table, 1), {Key(Col(0, DataType::Int32()), true, false)}));
  EXPECT_EQ(RunRows(sort), Strings{});
  ASSERT_OK_AND_ASSIGN(
      auto top, SortExec::Make(Scan(table, 1), {Key(Col(0, DataType::Int32()), true, false)}, 5));
  EXPECT_EQ(RunRows(top), Strings{});
}

TEST(SortKeyEncoderTest, StringsWithZeroBytesAndPrefixesOrderLikeBytes) {
  std::vector<std::string> values = {
      "a", std::string("a\0", 2), std::string("a\0b", 3), "a\x01", "", "ab",
      "b", std::string("\0", 1)};
  columnar::BinaryBuilder builder(DataType::Binary(), DefaultMemoryPool());
  for (const auto& v : values)
    ASSERT_OK(builder.Append(v));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  for (bool ascending : {true, false}) {
    EncodedRows rows;
    ASSERT_OK(rows.Encode({array}, {SortOrder{ascending, false}}, array->length()));
    std::vector<int32_t> perm;
    rows.Sort(&perm);
    std::vector<std::string> got;
    for (int32_t i : perm)
      got.push_back(values[static_cast<size_t>(i)]);
    std::vector<std::string> want = values;
    std::sort(want.begin(), want.end());
    if (!ascending)
      std::reverse(want.begin(), want.end());
    EXPECT_EQ(got, want) << (ascending ? "asc" : "desc");
  }
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, SortTest, ::testing::Values(1, 2, 8192));

}  // namespace
}  // namespace shoal::exec

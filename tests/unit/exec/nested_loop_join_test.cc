#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using sql::JoinType;

struct Row {
  std::optional<int64_t> k;
  std::optional<std::string> s;
};

std::vector<Field> RowFields() {
  return {{"k", DataType::Int64()}, {"s", DataType::Utf8()}};
}

std::string RowText(const Row& r) {
  return (r.k ? std::to_string(*r.k) : "NULL") + "|" + (r.s ? *r.s : "NULL");
}

std::vector<Row> RandomRows(std::mt19937_64* rng, int n) {
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    Row r;
    if ((*rng)() % 10 != 0)
      r.k = static_cast<int64_t>((*rng)() % 20);
    if ((*rng)() % 10 != 0)
      r.s = "s" + std::to_string((*rng)() % 4);
    rows.push_back(r);
  }
  return rows;
}

ExecPlanPtr ScanRows(const std::vector<Row>& rows, int per_batch, int partitions) {
  std::vector<TextRow> text;
  for (const Row& r : rows)
    text.push_back({r.k ? std::to_string(*r.k) : "NULL", r.s ? *r.s : "NULL"});
  return Scan(MakeTable(RowFields(), text, per_batch), partitions);
}

using Predicate = std::function<bool(const Row&, const Row&)>;

Strings Reference(JoinType type, const std::vector<Row>& left, const std::vector<Row>& right,
                  const Predicate& pred) {
  Strings out;
  const bool pairs = type == JoinType::kInner || type == JoinType::kLeft ||
                     type == JoinType::kRight || type == JoinType::kFull;
  std::vector<bool> right_matched(right.size(), false);
  for (const Row& l : left) {
    bool matched = false;
    for (size_t j = 0; j < right.size(); ++j) {
      const Row& r = right[j];
      if (!pred(l, r))
        continue;
      matched = true;
      right_matched[j] = true;
      if (pairs)
        out.push_back(RowText(l) + "|" + RowText(r));
    }
    if ((type == JoinType::kLeft || type == JoinType::kFull) && !matched)
      out.push_back(RowText(l) + "|NULL|NULL");
    if ((type == JoinType::kSemi && matched) || (type == JoinType::kAnti && !matched))
      out.push_back(RowText(l));
    if (type == JoinType::kMark)
      out.push_back(RowText(l) + (matched ? "|t" : "|f"));
  }
  for (size_t j = 0; j < right.size(); ++j) {
    if ((type == JoinType::kRight || type == JoinType::kFull) && !right_matched[j])
      out.push_back("NULL|NULL|" + RowText(right[j]));
  }
  return Sorted(out);
}

struct Condition {
  std::string name;
  sql::ExprPtr expr;
  Predicate pred;
};

std::vector<Condition> Conditions() {
  auto lk = Col(0, DataType::Int64());
  auto ls = Col(1, DataType::Utf8());
  auto rk = Col(2, DataType::Int64());
  auto rs = Col(3, DataType::Utf8());
  return {
      {"cross", nullptr, [](const Row&, const Row&) { return true; }},
      {"less", Call("<", {lk, rk}, DataType::Boolean()),
       [](const Row& l, const Row& r) { return l.k && r.k && *l.k < *r.k; }},
      // (l.s = r.s) OR (l.k > r.k + 10): three-valued OR, TRUE if either side is TRUE.
      {"or",
       Call("or",
            {Call("=", {ls, rs}, DataType::Boolean()),
             Call(">", {lk, Call("+", {rk, Lit(Scalar::Int64(10))}, DataType::Int64())},
                  DataType::Boolean())},
            DataType::Boolean()),
       [](const Row& l, const Row& r) {
         return (l.s && r.s && *l.s == *r.s) || (l.k && r.k && *l.k > *r.k + 10);
       }},
  };
}

class NestedLoopJoinTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(NestedLoopJoinTest, MatchesTheNaiveReference) {
  const int64_t batch_size = GetParam();
  std::mt19937_64 rng(17);
  const std::pair<int, int> sizes[] = {{30, 20}, {0, 10}, {15, 0}, {50, 90}};
  int checked = 0;
  for (const auto& [nl, nr] : sizes) {
    auto left_rows = RandomRows(&rng, nl);
    auto right_rows = RandomRows(&rng, nr);
    auto left = ScanRows(left_rows, 7, 3);
    auto right = ScanRows(right_rows, 11, 2);
    for (const Condition& c : Conditions()) {
      // RIGHT and FULL: the unmatched build rows come once, from the last of 3 probe partitions.
      for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull,
                            JoinType::kSemi, JoinType::kAnti, JoinType::kMark}) {
        SCOPED_TRACE(fmt::format("{} {} {}x{}", sql::JoinTypeName(type), c.name, nl, nr));
        ASSERT_OK_AND_ASSIGN(auto join, NestedLoopJoinExec::Make(left, right, type, c.expr));
        ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, MakeContext(batch_size)));
        for (const auto& b : batches) {
          EXPECT_LE(b->num_rows(), batch_size);
          EXPECT_GT(b->num_rows(), 0);
          EXPECT_EQ(*b->schema(), *join->schema());
        }
        Strings expected = Reference(type, left_rows, right_rows, c.pred);
        EXPECT_EQ(Sorted(Rows(batches)), expected);
        checked += static_cast<int>(expected.size());
      }
    }
  }
  EXPECT_GT(checked, 5000);
}

INSTANTIATE_TEST_SUITE_P(BatchSizes, NestedLoopJoinTest, ::testing::Values(1, 2, 8192));

TEST(NestedLoopJoinExecTest, UnsupportedTypesAndBadConditions) {
  std::mt19937_64 rng(1);
  auto left = ScanRows(RandomRows(&rng, 3), 3, 1);
  auto right = ScanRows(RandomRows(&rng, 3), 3, 1);
  for (JoinType type : {JoinType::kNullAwareAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                       NestedLoopJoinExec::Make(left, right, type, nullptr));
  }
  EXPECT_STATUS_CODE(StatusCode::kTypeError, NestedLoopJoinExec::Make(left, right, JoinType::kInner,
                                                                      Col(0, DataType::Int64())));
}

TEST(NestedLoopJoinExecTest, MemoryReturnsToZeroAndCancellation) {
  std::mt19937_64 rng(2);
  auto left = ScanRows(RandomRows(&rng, 200), 10, 2);
  auto right = ScanRows(RandomRows(&rng, 100), 10, 2);
  auto query_pool = MemoryPool::MakeRoot("test query");
  {
    ASSERT_OK_AND_ASSIGN(auto join,
                         NestedLoopJoinExec::Make(left, right, JoinType::kInner, nullptr));
    auto context = MakeContext(64, 2, query_pool);
    {
      ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(join, context));
      int64_t rows = 0;
      for (const auto& b : batches)
        rows += b->num_rows();
      EXPECT_EQ(rows, 200 * 100);
    }
    EXPECT_EQ(query_pool->bytes_used(), 0);
    ASSERT_OK_AND_ASSIGN(StreamPtr stream, join->Execute(0, context));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stream->Next());
    ASSERT_NE(first, nullptr);
    context->Cancel();
    EXPECT_STATUS_CODE(StatusCode::kCancelled, stream->Next());
    first.reset();
    stream.reset();
  }
  EXPECT_EQ(query_pool->bytes_used(), 0);
}

}  // namespace
}  // namespace shoal::exec

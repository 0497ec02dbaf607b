// RecursiveCteExec and WorkingTableScanExec: rounds until one is empty, UNION's duplicate removal
// across rounds and within a batch, joins with tables in the recursive term, the memory limit and
// cancellation of an endless recursion, and plans that are rebuilt or run more than once.
#include "shoal/exec/operators/recursive_cte_exec.h"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/working_table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

constexpr int64_t kId = 7;

const std::vector<Field>& NFields() {
  static const std::vector<Field> fields = {{"n", DataType::Int64()}};
  return fields;
}

ExecPlanPtr Working() {
  return WorkingTableScanExec::Make(std::make_shared<columnar::Schema>(NFields()), kId);
}

sql::ExprPtr N() {
  return Col(0, DataType::Int64());
}

sql::ExprPtr Int(int64_t v) {
  return Lit(Scalar::Int64(v));
}

ExecPlanPtr Project(ExecPlanPtr input, sql::ExprPtr e) {
  auto p = ProjectionExec::Make(std::move(input), {std::move(e)}, {"n"});
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return *p;
}

ExecPlanPtr Where(ExecPlanPtr input, sql::ExprPtr predicate) {
  auto f = FilterExec::Make(std::move(input), std::move(predicate));
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return *f;
}

// The rows of `start` and then n + 1 of each row of the previous round (while n < `below` when
// `below` > 0).
ExecPlanPtr Counter(const std::vector<TextRow>& start, int64_t below, bool all) {
  ExecPlanPtr step = Working();
  if (below > 0)
    step = Where(step, Call("<", {N(), Int(below)}, DataType::Boolean()));
  step = Project(step, Call("+", {N(), Int(1)}, DataType::Int64()));
  auto cte = RecursiveCteExec::Make(Scan(MakeTable(NFields(), start, 1), 1), step, all, kId);
  EXPECT_TRUE(cte.ok()) << cte.status().ToString();
  return *cte;
}

TEST(RecursiveCteExecTest, RunsRoundsUntilOneIsEmpty) {
  auto cte = Counter({{"1"}}, 5, /*all=*/true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(cte, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"1", "2", "3", "4", "5"}));
}

TEST(RecursiveCteExecTest, UnionAllKeepsDuplicates) {
  auto cte = Counter({{"1"}, {"1"}}, 3, /*all=*/true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(cte, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"1", "1", "2", "2", "3", "3"}));
}

TEST(RecursiveCteExecTest, UnionDropsRowsSeenInThisOrAnEarlierRound) {
  // (n % 3) + 1 cycles 1 -> 2 -> 3 -> 1: UNION stops when a round brings nothing new.
  ExecPlanPtr step =
      Project(Working(),
              Call("+", {Call("%", {N(), Int(3)}, DataType::Int64()), Int(1)}, DataType::Int64()));
  ASSERT_OK_AND_ASSIGN(
      auto cte,
      RecursiveCteExec::Make(Scan(MakeTable(NFields(), {{"1"}, {"1"}, {"NULL"}, {"NULL"}}, 4), 1),
                             step, /*all=*/false, kId));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(cte, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"1", "NULL", "2", "3"}));
}

TEST(RecursiveCteExecTest, JoinsTheWorkingTableWithATable) {
  // Nodes reachable from 1 over edges with a cycle 1 -> 2 -> 3 -> 1.
  const std::vector<Field> edge_fields = {{"src", DataType::Int64()}, {"dst", DataType::Int64()}};
  auto edges =
      MakeTable(edge_fields, {{"1", "2"}, {"2", "3"}, {"3", "1"}, {"3", "4"}, {"6", "7"}}, 2);
  ASSERT_OK_AND_ASSIGN(
      auto join,
      HashJoinExec::Make(Working(), Scan(edges, 1), {N()}, {Col(0, DataType::Int64())},
                         sql::JoinType::kInner, nullptr, HashJoinExec::Mode::kCollectBuild));
  ExecPlanPtr step = Project(join, Col(2, DataType::Int64()));
  ASSERT_OK_AND_ASSIGN(auto cte, RecursiveCteExec::Make(Scan(MakeTable(NFields(), {{"1"}}, 1), 1),
                                                        step, /*all=*/false, kId));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(cte, MakeContext()));
  EXPECT_EQ(Sorted(Rows(batches)), (Strings{"1", "2", "3", "4"}));
}

TEST(RecursiveCteExecTest, ALimitAboveStopsAnEndlessRecursion) {
  ASSERT_OK_AND_ASSIGN(auto limit, LimitExec::Make(Counter({{"1"}}, 0, /*all=*/true), 0, 4, true));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(limit, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"1", "2", "3", "4"}));
}

TEST(RecursiveCteExecTest, AnEndlessUnionFailsAtTheMemoryLimit) {
  // Every round brings a new row, so UNION's set of rows grows without end.
  auto cte = Counter({{"1"}}, 0, /*all=*/false);
  auto pool = MemoryPool::MakeRoot("query", 1 << 20);
  auto result = CollectAll(cte, MakeContext(8192, 2, pool));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kOutOfMemory) << result.status().ToString();
  EXPECT_EQ(result.status().sqlstate(), "53200");
}

TEST(RecursiveCteExecTest, TheRowsItHoldsCountAgainstTheMemoryLimit) {
  // UNION ALL keeps no set of rows, but each round holds the previous one: doubling rounds
  // (every row twice, from a join with two rows) reach the limit.
  const std::vector<Field> two = {{"x", DataType::Int64()}};
  ASSERT_OK_AND_ASSIGN(
      auto join,
      HashJoinExec::Make(Working(), Scan(MakeTable(two, {{"0"}, {"0"}}, 2), 1),
                         {Call("*", {N(), Int(0)}, DataType::Int64())}, {Col(0, DataType::Int64())},
                         sql::JoinType::kInner, nullptr, HashJoinExec::Mode::kCollectBuild));
  ExecPlanPtr step = Project(join, Call("+", {N(), Int(1)}, DataType::Int64()));
  ASSERT_OK_AND_ASSIGN(auto cte, RecursiveCteExec::Make(Scan(MakeTable(NFields(), {{"1"}}, 1), 1),
                                                        step, /*all=*/true, kId));
  auto pool = MemoryPool::MakeRoot("query", 4 << 20);
  auto result = CollectAll(cte, MakeContext(8192, 2, pool));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "53200") << result.status().ToString();
}

TEST(RecursiveCteExecTest, MaxRecursionRoundsStopsAnEndlessRecursion) {
  auto limited = [] {
    TaskContext::Options options;
    options.settings = MakeContext()->settings();
    EXPECT_OK(options.settings.Set("max_recursion_rounds", "10"));
    return std::make_shared<TaskContext>(std::move(options));
  };
  auto cte = Counter({{"1"}}, 0, /*all=*/true);
  auto result = CollectAll(cte, limited());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "54000") << result.status().ToString();
  // 1..10 runs the recursive term ten times, the last finding nothing: within the limit.
  auto ten = Counter({{"1"}}, 10, /*all=*/true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(ten, limited()));
  EXPECT_EQ(Rows(batches).size(), 10u);
}

TEST(RecursiveCteExecTest, CancellationStopsAnEndlessRecursion) {
  auto cte = Counter({{"1"}}, 0, /*all=*/true);
  auto context = MakeContext();
  ASSERT_OK_AND_ASSIGN(auto stream, cte->Execute(0, context));
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
    ASSERT_NE(batch, nullptr);
  }
  context->Cancel();
  auto next = stream->Next();
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().sqlstate(), "57014");
}

TEST(RecursiveCteExecTest, RunsInSeveralExecutionsAndAfterBeingRebuilt) {
  auto cte = Counter({{"1"}}, 3, /*all=*/true);
  // Two streams of two executions at once, each with its own working table.
  auto a = MakeContext();
  auto b = MakeContext();
  ASSERT_OK_AND_ASSIGN(auto sa, cte->Execute(0, a));
  ASSERT_OK_AND_ASSIGN(auto sb, cte->Execute(0, b));
  Strings rows_a;
  Strings rows_b;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(auto x, sa->Next());
    ASSERT_OK_AND_ASSIGN(auto y, sb->Next());
    if (x)
      rows_a.push_back(Rows({x})[0]);
    if (y)
      rows_b.push_back(Rows({y})[0]);
    if (!x && !y)
      break;
  }
  EXPECT_EQ(rows_a, (Strings{"1", "2", "3"}));
  EXPECT_EQ(rows_b, rows_a);
  // WithNewChildren (what the distributed planners and the plan codec do) binds the new node's
  // working table to the scans of its recursive term.
  ASSERT_OK_AND_ASSIGN(auto rebuilt, cte->WithNewChildren(cte->children()));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(rebuilt, MakeContext()));
  EXPECT_EQ(Rows(batches), (Strings{"1", "2", "3"}));
  const auto& node = rebuilt->As<RecursiveCteExec>();
  const auto* scan = node.recursive()->children()[0]->children()[0]->TryAs<WorkingTableScanExec>();
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->table(), node.working_table());
  EXPECT_TRUE(rebuilt->distribution().keeps_subtree_whole);
}

TEST(RecursiveCteExecTest, AWorkingTableScanOutsideItsCteIsAnError) {
  EXPECT_STATUS_CODE(StatusCode::kInternal, Working()->Execute(0, MakeContext()));
}

TEST(RecursiveCteExecTest, RefusesTermsOfDifferentTypes) {
  const std::vector<Field> text = {{"n", DataType::Utf8()}};
  EXPECT_STATUS_CODE(StatusCode::kInternal,
                     RecursiveCteExec::Make(Scan(MakeTable(text, {{"x"}}, 1), 1), Working(),
                                            /*all=*/true, kId));
}

}  // namespace
}  // namespace shoal::exec

// ShareCommonSubplans and SharedResultExec: an aggregation computed alike in two places of a plan,
// or a subplan the optimizer chose, runs once per execution and both places read its rows;
// subplans that differ anywhere, or that are neither, keep their own copies.
#include "shoal/exec/shared_subplans.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/common/thread_start.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/recursive_cte_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/shared_result_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

// (k int64, v int64): k = i % 7, v = i, for i in [0, 2000).
std::shared_ptr<io::MemoryTable> KeyValueTable() {
  std::vector<TextRow> rows;
  for (int i = 0; i < 2000; ++i)
    rows.push_back({std::to_string(i % 7), std::to_string(i)});
  return MakeTable({{"k", DataType::Int64()}, {"v", DataType::Int64()}}, rows, 300);
}

// SELECT k, sum(v) FROM t WHERE v >= min_v GROUP BY k, planned anew on each call.
ExecPlanPtr SumByKey(const std::shared_ptr<io::MemoryTable>& table, int64_t min_v) {
  auto filter = FilterExec::Make(
      Scan(table, 1),
      Call(">=", {Col(1, DataType::Int64()), Lit(Scalar::Int64(min_v))}, DataType::Boolean()));
  EXPECT_TRUE(filter.ok());
  auto agg = HashAggregateExec::Make(*filter, {Col(0, DataType::Int64())},
                                     {Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64())},
                                     AggregateMode::kSingle);
  EXPECT_TRUE(agg.ok());
  return *agg;
}

// SELECT k, count(*) FROM t WHERE predicate GROUP BY k, planned anew on each call.
ExecPlanPtr CountByKeyWhere(const std::shared_ptr<io::MemoryTable>& table,
                            const sql::ExprPtr& predicate) {
  auto filter = FilterExec::Make(Scan(table, 1), predicate);
  EXPECT_TRUE(filter.ok());
  auto agg = HashAggregateExec::Make(*filter, {Col(0, DataType::Int64())},
                                     {Agg("count", {}, DataType::Int64())}, AggregateMode::kSingle);
  EXPECT_TRUE(agg.ok());
  return *agg;
}

ExecPlanPtr UnionOf(std::vector<ExecPlanPtr> inputs) {
  auto u = UnionExec::Make(std::move(inputs));
  EXPECT_TRUE(u.ok());
  return *u;
}

// Distinct SharedResultExec nodes (one may have several parents).
int CountSharedNodes(const ExecPlanPtr& node, std::set<const ExecutionPlan*>* seen = nullptr) {
  std::set<const ExecutionPlan*> storage;
  if (seen == nullptr)
    seen = &storage;
  int n = node->Is<SharedResultExec>() && seen->insert(node.get()).second ? 1 : 0;
  for (const auto& child : node->children())
    n += CountSharedNodes(child, seen);
  return n;
}

TEST(SharedSubplansTest, AlikeAggregationsRunOnceAndBothReferencesReadThem) {
  auto table = KeyValueTable();
  ExecPlanPtr plan = UnionOf({SumByKey(table, 100), SumByKey(table, 100)});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr shared, ShareCommonSubplans(plan));
  ASSERT_EQ(shared->children().size(), 2u);
  ASSERT_TRUE(shared->children()[0]->Is<SharedResultExec>());
  EXPECT_EQ(shared->children()[0], shared->children()[1]);
  EXPECT_EQ(shared->children()[0]->As<SharedResultExec>().references(), 2);

  auto plain_context = MakeContext(128);
  ASSERT_OK_AND_ASSIGN(auto plain, CollectAll(plan, plain_context));
  auto context = MakeContext(128);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(shared, context));
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(Rows(plain)));
  EXPECT_EQ(Rows(batches).size(), 14u);
  // The scan under the shared node ran once: 2000 rows, not 4000.
  const ExecutionPlan* scan =
      shared->children()[0]->children()[0]->children()[0]->children()[0].get();
  ASSERT_TRUE(scan->Is<TableScanExec>());
  EXPECT_EQ(context->metrics().Sum(scan).output_rows, 2000);
  // Each reference's copy in the unshared plan read the table once.
  EXPECT_EQ(plain_context->metrics()
                .Sum(plan->children()[0]->children()[0]->children()[0].get())
                .output_rows,
            2000);

  // The node keeps no state between executions: a second run gives the same rows.
  ASSERT_OK_AND_ASSIGN(auto again, CollectAll(shared, MakeContext(128)));
  EXPECT_EQ(Sorted(Rows(again)), Sorted(Rows(plain)));
}

TEST(SharedSubplansTest, SubplansThatDifferAnywhereAreNotShared) {
  auto table = KeyValueTable();
  ExecPlanPtr plan = UnionOf({SumByKey(table, 100), SumByKey(table, 101)});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr out, ShareCommonSubplans(plan));
  EXPECT_EQ(out, plan);
  // The same filter over another table with the same rows is another subplan too.
  ExecPlanPtr other = UnionOf({SumByKey(table, 100), SumByKey(KeyValueTable(), 100)});
  ASSERT_OK_AND_ASSIGN(out, ShareCommonSubplans(other));
  EXPECT_EQ(CountSharedNodes(out), 0);
}

// Aggregations that differ only in an aggregate's FILTER, a TRY_CAST or the quotes inside a
// string are not alike: the plan's text, which the fingerprint compares, states each.
TEST(SharedSubplansTest, AggregationsThatDifferOnlyInAFilterOrACastAreNotShared) {
  auto table = KeyValueTable();
  const auto sum_where = [&](const sql::ExprPtr& filter) {
    auto sum =
        std::make_shared<sql::Expr>(*Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64()));
    sum->filter = filter;
    auto agg = HashAggregateExec::Make(Scan(table, 1), {Col(0, DataType::Int64())}, {sum},
                                       AggregateMode::kSingle);
    EXPECT_TRUE(agg.ok());
    return ExecPlanPtr(*agg);
  };
  const auto v_is = [](int64_t v) {
    return Call("=", {Col(1, DataType::Int64()), Lit(Scalar::Int64(v))}, DataType::Boolean());
  };
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr filtered,
                       ShareCommonSubplans(UnionOf({sum_where(v_is(1)), sum_where(v_is(2))})));
  EXPECT_EQ(CountSharedNodes(filtered), 0) << FormatExecutionPlan(*filtered);
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr same,
                       ShareCommonSubplans(UnionOf({sum_where(v_is(1)), sum_where(v_is(1))})));
  EXPECT_EQ(CountSharedNodes(same), 1);

  // count(*) WHERE CAST(v AS text) IN (literals...)
  const auto text_of = [&](bool try_cast, const std::vector<std::string>& literals) {
    std::vector<sql::ExprPtr> args = {
        sql::MakeCast(Col(1, DataType::Int64()), DataType::Utf8(), try_cast)};
    for (const std::string& literal : literals)
      args.push_back(Lit(Scalar::Utf8(literal)));
    return CountByKeyWhere(table, Call("in", args, DataType::Boolean()));
  };
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr casts,
                       ShareCommonSubplans(UnionOf({text_of(false, {"1"}), text_of(true, {"1"})})));
  EXPECT_EQ(CountSharedNodes(casts), 0) << FormatExecutionPlan(*casts);
  // IN ('1', '2') against IN ('1'', ''2'): one literal holding the quotes and comma of two.
  ASSERT_OK_AND_ASSIGN(
      ExecPlanPtr quotes,
      ShareCommonSubplans(UnionOf({text_of(false, {"1", "2"}), text_of(false, {"1', '2"})})));
  EXPECT_EQ(CountSharedNodes(quotes), 0) << FormatExecutionPlan(*quotes);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(quotes, MakeContext(128)));
  EXPECT_EQ(Sorted(Rows(batches)), Sorted({"1|1", "2|1"}))
      << "v = 1 and 2 once each (k = 1, 2); the other IN matches no row";
}

// A recursive CTE runs its terms again every round, and the distributed planners cut no stage
// inside it: alike aggregations inside its terms keep their own copies.
TEST(SharedSubplansTest, NothingIsSharedInsideARecursiveCte) {
  auto table = KeyValueTable();
  auto term = [&] {
    return ExecPlanPtr(
        CoalescePartitionsExec::Make(UnionOf({SumByKey(table, 100), SumByKey(table, 100)})));
  };
  ASSERT_OK_AND_ASSIGN(auto cte, RecursiveCteExec::Make(term(), term(), false, 1));
  const ExecPlanPtr plan = cte;
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr out, ShareCommonSubplans(plan));
  EXPECT_EQ(out, plan);
  EXPECT_EQ(CountSharedNodes(out), 0);
  // UNION without ALL: the second round adds nothing new, so the rows are the 7 sums.
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(out, MakeContext(128)));
  EXPECT_EQ(Rows(batches).size(), 7u);
}

TEST(SharedSubplansTest, OnlyAggregationsAreKept) {
  auto table = KeyValueTable();
  // Two alike scans: keeping their rows would hold the whole table; they are read twice.
  ExecPlanPtr scans = UnionOf({Scan(table, 1), Scan(table, 1)});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr out, ShareCommonSubplans(scans));
  EXPECT_EQ(CountSharedNodes(out), 0);
}

// SELECT k, v FROM t WHERE v >= min_v, over `partitions` partitions, planned anew on each call.
ExecPlanPtr FilteredRows(const std::shared_ptr<io::MemoryTable>& table, int64_t min_v,
                         int partitions) {
  auto filter = FilterExec::Make(
      Scan(table, partitions),
      Call(">=", {Col(1, DataType::Int64()), Lit(Scalar::Int64(min_v))}, DataType::Boolean()));
  EXPECT_TRUE(filter.ok());
  return *filter;
}

// A subplan of any kind is shared when the planner passes it as chosen (the optimizer marked it:
// sql/optimizer/subplan_sharing.cc); across processes, where a shared subplan is one task, its
// rows are hashed into as many partitions as it had, so what it computes keeps its tasks.
TEST(SharedSubplansTest, AChosenSubplanIsSharedAndSpreadWhenItsTasksRunElsewhere) {
  auto table = KeyValueTable();
  const ExecPlanPtr a = FilteredRows(table, 1500, 3);
  const ExecPlanPtr b = FilteredRows(table, 1500, 3);
  const ExecPlanPtr plan = UnionOf({a, b});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr alone, ShareCommonSubplans(plan));
  EXPECT_EQ(CountSharedNodes(alone), 0) << "a filtered scan is not an aggregation";

  const std::set<const ExecutionPlan*> chosen = {a.get(), b.get()};
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr shared, ShareCommonSubplans(plan, chosen));
  ASSERT_TRUE(shared->children()[0]->Is<SharedResultExec>());
  EXPECT_EQ(shared->children()[0], shared->children()[1]);
  EXPECT_TRUE(shared->children()[0]->children()[0]->Is<FilterExec>());

  ASSERT_OK_AND_ASSIGN(ExecPlanPtr spread, ShareCommonSubplans(plan, chosen, true));
  ASSERT_TRUE(spread->children()[0]->Is<SharedResultExec>());
  const ExecPlanPtr below = spread->children()[0]->children()[0];
  ASSERT_TRUE(below->Is<RepartitionExec>()) << FormatExecutionPlan(*spread);
  EXPECT_EQ(below->output_partitioning().kind, PartitioningKind::kHash);
  EXPECT_EQ(below->num_partitions(), 3);

  ASSERT_OK_AND_ASSIGN(auto plain, CollectAll(plan, MakeContext(128)));
  ASSERT_EQ(Rows(plain).size(), 1000u);
  for (const ExecPlanPtr& out : {shared, spread}) {
    ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(out, MakeContext(128)));
    EXPECT_EQ(Sorted(Rows(batches)), Sorted(Rows(plain)));
  }
}

TEST(SharedSubplansTest, ThreeReferencesAndANestedRepeatShareOneNodeEach) {
  auto table = KeyValueTable();
  // sum-by-key of the shared sum-by-key, twice, over the repeated inner aggregation: the outer
  // aggregation is shared by two references, and the inner one is read by the outer (once) and
  // by a third place directly.
  const auto outer = [&] {
    auto agg = HashAggregateExec::Make(SumByKey(table, 0), {},
                                       {Agg("sum", {Col(1, DataType::Int64())}, DataType::Int64())},
                                       AggregateMode::kSingle);
    EXPECT_TRUE(agg.ok());
    return ExecPlanPtr(*agg);
  };
  auto inner_total = HashAggregateExec::Make(
      SumByKey(table, 0), {}, {Agg("count", {}, DataType::Int64())}, AggregateMode::kSingle);
  ASSERT_TRUE(inner_total.ok());
  ExecPlanPtr plan = UnionOf({outer(), outer(), *inner_total});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr out, ShareCommonSubplans(plan));
  EXPECT_EQ(CountSharedNodes(out), 2);
  ASSERT_TRUE(out->children()[0]->Is<SharedResultExec>());
  EXPECT_EQ(out->children()[0]->As<SharedResultExec>().references(), 2);
  const ExecPlanPtr inner = out->children()[2]->children()[0];
  ASSERT_TRUE(inner->Is<SharedResultExec>());
  EXPECT_EQ(inner->As<SharedResultExec>().references(), 2);
  EXPECT_EQ(out->children()[0]->children()[0]->children()[0], inner);

  ASSERT_OK_AND_ASSIGN(auto expected, CollectAll(plan, MakeContext(128)));
  ASSERT_OK_AND_ASSIGN(auto actual, CollectAll(out, MakeContext(128)));
  EXPECT_EQ(Sorted(Rows(actual)), Sorted(Rows(expected)));
  EXPECT_EQ(Sorted(Rows(actual)), (Strings{"1999000", "1999000", "7"}));
}

TEST(SharedSubplansTest, AFailedRunFailsEveryReference) {
  auto table = KeyValueTable();
  // sum(v) / (k - 3) fails on k = 3 in the shared aggregation's projection-free filter.
  const auto failing = [&] {
    return CountByKeyWhere(table,
                           Call(">",
                                {Call("/",
                                      {Col(1, DataType::Int64()),
                                       Call("-", {Col(0, DataType::Int64()), Lit(Scalar::Int64(3))},
                                            DataType::Int64())},
                                      DataType::Int64()),
                                 Lit(Scalar::Int64(0))},
                                DataType::Boolean()));
  };
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr out, ShareCommonSubplans(UnionOf({failing(), failing()})));
  ASSERT_EQ(CountSharedNodes(out), 1);
  auto result = CollectAll(out, MakeContext(128));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().ToString().find("division by zero"), std::string::npos)
      << result.status().ToString();
}

// A loaded machine at its process limit refuses threads (EAGAIN): the shared run fails with a
// status naming the reader that could not start, every reference reads it, and the readers
// started are joined. ScopedThreadStartFailure stands in for the OS (RLIMIT_NPROC does not bind
// root).
TEST(SharedSubplansTest, AThreadTheOSRefusesFailsEveryReference) {
  auto shared = SharedResultExec::Make(Scan(KeyValueTable(), 3), /*references=*/1);
  auto context = MakeContext(128);
  const int threads_before = shoal::testing::ProcessThreadCount();
  {
    shoal::testing::ScopedThreadStartFailure refuse(1);  // the reader of the third partition
    auto result = CollectAll(shared, context);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kOutOfMemory) << result.status().ToString();
    EXPECT_NE(result.status().message().find(
                  "cannot start a thread for a SharedResult reader (partition 2 of 3): "),
              std::string::npos)
        << result.status().ToString();
    EXPECT_EQ(refuse.failures(), 1);
  }
  EXPECT_TRUE(shoal::testing::WaitFor(
      [&] { return shoal::testing::ProcessThreadCount() == threads_before; },
      "the reader started to be joined"));
}

// A rewrite that keeps a shared node under some of its parents and puts a copy of its subplan
// under the others (the file shuffle's cut) leaves the node fewer readers than it counts; its
// batches would then wait for opens that never come, until the execution ends.
TEST(SharedSubplansTest, RecountingGivesEachSharedNodeTheReadersLeft) {
  auto table = KeyValueTable();
  ExecPlanPtr plan = UnionOf({SumByKey(table, 100), SumByKey(table, 100), SumByKey(table, 100)});
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr shared, ShareCommonSubplans(plan));
  ASSERT_EQ(shared->children()[0]->As<SharedResultExec>().references(), 3);
  const ExecPlanPtr child = shared->children()[0]->children()[0];

  // Two readers left: one node, counting two.
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr two,
                       shared->WithNewChildren(
                           {shared->children()[0], shared->children()[1], SumByKey(table, 100)}));
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr recounted, RecountSharedReferences(two));
  ASSERT_TRUE(recounted->children()[0]->Is<SharedResultExec>());
  EXPECT_EQ(recounted->children()[0], recounted->children()[1]);
  EXPECT_EQ(recounted->children()[0]->As<SharedResultExec>().references(), 2);
  EXPECT_EQ(CountSharedNodes(recounted), 1);
  auto expected_context = MakeContext(128);
  ASSERT_OK_AND_ASSIGN(auto expected, CollectAll(plan, expected_context));
  auto context = MakeContext(128);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(recounted, context));
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(Rows(expected)));

  // One reader left: no shared node, the subplan in its place.
  ASSERT_OK_AND_ASSIGN(
      ExecPlanPtr one,
      shared->WithNewChildren({shared->children()[0], SumByKey(table, 100), SumByKey(table, 100)}));
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr alone, RecountSharedReferences(one));
  EXPECT_EQ(CountSharedNodes(alone), 0);
  EXPECT_EQ(alone->children()[0], child);

  // A true count is left as it is.
  ASSERT_OK_AND_ASSIGN(ExecPlanPtr same, RecountSharedReferences(shared));
  EXPECT_EQ(same, shared);
}

}  // namespace
}  // namespace shoal::exec

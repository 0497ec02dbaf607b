// Node kinds (PlanKind, Is/TryAs/As) and the distribution properties each operator declares
// (DistributionTraits, WithRowLimit), which the distributed planners ask instead of casting.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/nested_loop_join_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using shoal::testing::MakeBatch;

ExecPlanPtr Scan(int partitions) {
  auto batch = MakeBatch({{"k", DataType::Int64()}}, {{"1"}, {"2"}, {"3"}});
  auto table = io::MemoryTable::Make(batch->schema(), {batch});
  EXPECT_TRUE(table.ok());
  io::ScanRequest request;
  request.projection = {0};
  auto scan = TableScanExec::Make(*table, "t", request, partitions);
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  return *scan;
}

sql::ExprPtr K() {
  return Col(0, DataType::Int64());
}

ExecPlanPtr Join(sql::JoinType type, HashJoinExec::Mode mode) {
  auto join = HashJoinExec::Make(Scan(2), Scan(2), {K()}, {K()}, type, nullptr, mode);
  EXPECT_TRUE(join.ok()) << join.status().ToString();
  return *join;
}

ExecPlanPtr Aggregate(ExecPlanPtr input, std::vector<sql::ExprPtr> group_by, AggregateMode mode) {
  auto count = std::make_shared<sql::Expr>();
  count->kind = sql::ExprKind::kAggregate;
  count->name = "count";
  count->type = DataType::Int64();
  auto agg = HashAggregateExec::Make(std::move(input), std::move(group_by), {count}, mode);
  EXPECT_TRUE(agg.ok()) << agg.status().ToString();
  return *agg;
}

std::vector<sql::SortKey> Keys() {
  return {sql::SortKey{K(), true, false}};
}

TEST(PlanKindTest, EveryKindHasItsOwnName) {
  std::set<std::string> names;
  for (int k = 0; k <= static_cast<int>(PlanKind::kLast); ++k) {
    const std::string name(PlanKindName(static_cast<PlanKind>(k)));
    EXPECT_NE(name, "?") << k;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
}

TEST(PlanKindTest, NodesSayWhatTheyAre) {
  ExecPlanPtr scan = Scan(2);
  ASSERT_OK_AND_ASSIGN(auto filter, FilterExec::Make(scan, Lit(Scalar::Boolean(true))));
  EXPECT_EQ(scan->kind(), PlanKind::kTableScan);
  EXPECT_EQ(filter->kind(), PlanKind::kFilter);
  EXPECT_TRUE(filter->Is<FilterExec>());
  EXPECT_FALSE(filter->Is<TableScanExec>());
  EXPECT_EQ(filter->TryAs<FilterExec>(), filter.get());
  EXPECT_EQ(filter->TryAs<HashJoinExec>(), nullptr);
  EXPECT_EQ(&scan->As<TableScanExec>(), scan.get());
  EXPECT_EQ(PlanAs<TableScanExec>(scan).get(), scan.get());
  EXPECT_EQ(PlanAs<FilterExec>(scan), nullptr);
  EXPECT_EQ(CoalescePartitionsExec::Make(scan)->kind(), PlanKind::kCoalescePartitions);
  EXPECT_EQ(Join(sql::JoinType::kInner, HashJoinExec::Mode::kCollectBuild)->kind(),
            PlanKind::kHashJoin);
}

TEST(PlanKindDeathTest, AsOnAWrongKindDiesNamingBothKinds) {
  ExecPlanPtr scan = Scan(1);
  EXPECT_DEATH((void)scan->As<HashJoinExec>(), "TableScanExec.*used as a HashJoinExec");
}

TEST(DistributionTraitsTest, RowWiseOperatorsRunPerPartition) {
  ExecPlanPtr scan = Scan(2);
  EXPECT_TRUE(scan->distribution().partition_wise);
  EXPECT_TRUE(scan->distribution().reads_outside_plan);
  ASSERT_OK_AND_ASSIGN(auto filter, FilterExec::Make(scan, Lit(Scalar::Boolean(true))));
  EXPECT_TRUE(filter->distribution().partition_wise);
  EXPECT_FALSE(filter->distribution().reads_outside_plan);
  EXPECT_EQ(filter->distribution().boundary, StageBoundary::kNone);
  ASSERT_OK_AND_ASSIGN(auto projection, ProjectionExec::Make(scan, {K()}, {"k"}));
  EXPECT_TRUE(projection->distribution().partition_wise);
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(scan, Keys()));
  EXPECT_TRUE(sort->distribution().partition_wise);
  ASSERT_OK_AND_ASSIGN(auto values, ValuesExec::Make(scan->schema(), {}));
  EXPECT_FALSE(values->distribution().partition_wise);
  EXPECT_FALSE(values->distribution().reads_outside_plan);
  ASSERT_OK_AND_ASSIGN(auto all, UnionExec::Make({scan, Scan(1)}));
  EXPECT_TRUE(all->distribution().partition_wise);
  EXPECT_TRUE(all->distribution().splits_inputs_across_tasks);
  EXPECT_FALSE(filter->distribution().splits_inputs_across_tasks);
}

TEST(DistributionTraitsTest, BoundariesNameTheirExchange) {
  ExecPlanPtr scan = Scan(2);
  ASSERT_OK_AND_ASSIGN(auto repartition, RepartitionExec::Make(scan, Partitioning::Hash({K()}, 3)));
  EXPECT_EQ(repartition->distribution().boundary, StageBoundary::kShuffle);
  EXPECT_FALSE(repartition->distribution().partition_wise);
  EXPECT_EQ(CoalescePartitionsExec::Make(scan)->distribution().boundary, StageBoundary::kCoalesce);
  ASSERT_OK_AND_ASSIGN(auto merge, SortPreservingMergeExec::Make(scan, Keys()));
  EXPECT_EQ(merge->distribution().boundary, StageBoundary::kCoalesce);
  EXPECT_EQ(Join(sql::JoinType::kInner, HashJoinExec::Mode::kCollectBuild)->distribution().boundary,
            StageBoundary::kBroadcastBuild);
  EXPECT_EQ(Join(sql::JoinType::kInner, HashJoinExec::Mode::kPartitioned)->distribution().boundary,
            StageBoundary::kNone);
  ASSERT_OK_AND_ASSIGN(auto nested,
                       NestedLoopJoinExec::Make(scan, Scan(1), sql::JoinType::kInner, nullptr));
  EXPECT_EQ(nested->distribution().boundary, StageBoundary::kBroadcastBuild);
  EXPECT_TRUE(nested->distribution().partition_wise);
  // It makes no right or full joins, the kinds that would emit unmatched build rows.
  ASSERT_OK_AND_ASSIGN(auto left,
                       NestedLoopJoinExec::Make(scan, Scan(1), sql::JoinType::kLeft, nullptr));
  EXPECT_TRUE(left->distribution().partition_wise);
}

TEST(DistributionTraitsTest, JoinsEmittingUnmatchedBuildRowsNeedTheirWholeBuildSide) {
  using Mode = HashJoinExec::Mode;
  EXPECT_TRUE(Join(sql::JoinType::kInner, Mode::kCollectBuild)->distribution().partition_wise);
  EXPECT_TRUE(Join(sql::JoinType::kLeft, Mode::kCollectBuild)->distribution().partition_wise);
  EXPECT_FALSE(Join(sql::JoinType::kRight, Mode::kCollectBuild)->distribution().partition_wise);
  EXPECT_FALSE(Join(sql::JoinType::kFull, Mode::kCollectBuild)->distribution().partition_wise);
  EXPECT_TRUE(Join(sql::JoinType::kFull, Mode::kPartitioned)->distribution().partition_wise);
}

TEST(DistributionTraitsTest, AggregatesArePartitionWiseWhenPartialOrOverHashedInput) {
  ExecPlanPtr scan = Scan(2);
  EXPECT_TRUE(Aggregate(scan, {K()}, AggregateMode::kPartial)->distribution().partition_wise);
  EXPECT_FALSE(Aggregate(scan, {K()}, AggregateMode::kSingle)->distribution().partition_wise);
  ASSERT_OK_AND_ASSIGN(auto hashed, RepartitionExec::Make(scan, Partitioning::Hash({K()}, 2)));
  EXPECT_TRUE(Aggregate(hashed, {K()}, AggregateMode::kSingle)->distribution().partition_wise);
  EXPECT_FALSE(Aggregate(scan, {K()}, AggregateMode::kSingle)->distribution().at_most_one_row);
  EXPECT_TRUE(Aggregate(scan, {}, AggregateMode::kSingle)->distribution().at_most_one_row);
}

TEST(DistributionTraitsTest, LimitsAndTheRowLimitsTheyAbsorb) {
  ExecPlanPtr scan = Scan(2);
  ASSERT_OK_AND_ASSIGN(auto global, LimitExec::Make(scan, 2, 5, true));
  EXPECT_EQ(global->distribution().row_limit, 7);
  EXPECT_FALSE(global->distribution().partition_wise);
  ASSERT_OK_AND_ASSIGN(auto unbounded, LimitExec::Make(scan, 2, -1, true));
  EXPECT_EQ(unbounded->distribution().row_limit, -1);
  ASSERT_OK_AND_ASSIGN(auto local, LimitExec::Make(scan, 0, 5, false));
  EXPECT_EQ(local->distribution().row_limit, -1);
  EXPECT_TRUE(local->distribution().partition_wise);

  // A tighter local limit stays; a looser one or a global one cannot absorb the limit.
  ASSERT_OK_AND_ASSIGN(auto same, local->WithRowLimit(7));
  EXPECT_EQ(same.get(), local.get());
  ASSERT_OK_AND_ASSIGN(auto none, local->WithRowLimit(3));
  EXPECT_EQ(none, nullptr);
  ASSERT_OK_AND_ASSIGN(none, global->WithRowLimit(10));
  EXPECT_EQ(none, nullptr);
  ASSERT_OK_AND_ASSIGN(none, scan->WithRowLimit(10));
  EXPECT_EQ(none, nullptr);

  // A sort becomes a top-k; a top-k already as tight stays.
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(scan, Keys()));
  ASSERT_OK_AND_ASSIGN(auto top, sort->WithRowLimit(4));
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->As<SortExec>().fetch(), 4);
  ASSERT_OK_AND_ASSIGN(auto kept, top->WithRowLimit(9));
  EXPECT_EQ(kept.get(), top.get());
}

}  // namespace
}  // namespace shoal::exec

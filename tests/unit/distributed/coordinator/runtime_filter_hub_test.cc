// Runtime join filters across stages (runtime_filter_hub.h), over the in-process transport and
// over gRPC on loopback: a partitioned join (both inputs shuffled) and a broadcast join whose
// probe scan is below a shuffle (TPC-H Q17's shape) get their filter from the coordinator into
// the probe scan's stage; the scan removes rows there, EXPLAIN ANALYZE says where the filter was
// built and applied, and the answers equal those without filters.
#include "shoal/distributed/coordinator/runtime_filter_hub.h"

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/scalar.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_builders.h"

namespace shoal::distributed {
namespace {

std::string PlanText(const engine::QueryResult& result) {
  std::string text;
  for (const auto& batch : result.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r)
      text += columnar::Scalar::FromArray(*batch->column(0), r).ToString() + "\n";
  }
  return text;
}

// The largest value of "rf<N>_<counter>=V" in the text (any filter id), or -1.
int64_t MaxCounter(const std::string& text, const std::string& counter) {
  int64_t best = -1;
  const std::regex re("rf[0-9]+_" + counter + "=([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    best = std::max<int64_t>(best, std::stoll((*it)[1].str()));
  return best;
}

// The coordinator's end of a task's channel, recording the filters sent to it.
class FilterRecorder final : public CoordinatorStream {
 public:
  Status SendPlan(const SetPlanRequest&) override { return Status::OK(); }
  Status SendWorkUnitBatch(const WorkUnitBatch&) override { return Status::OK(); }
  Status SendWorkUnitEos() override { return Status::OK(); }
  void CancelSends() override {}
  Status SendHeartbeat() override { return Status::OK(); }
  Result<TaskMetrics> Finish() override { return TaskMetrics{}; }
  Status SendRuntimeFilter(int id,
                           const std::shared_ptr<const exec::RuntimeFilter>& filter) override {
    received.emplace_back(id, filter);
    return Status::OK();
  }

  std::vector<std::pair<int, std::shared_ptr<const exec::RuntimeFilter>>> received;
};

std::shared_ptr<const exec::RuntimeFilter> FilterOf(const std::vector<std::string>& keys) {
  auto filter = exec::RuntimeFilter::Build(testing::MakeArray(columnar::DataType::Int32(), keys),
                                           DefaultMemoryPool(), /*mergeable=*/true);
  EXPECT_OK(filter.status());
  return filter.ok() ? *filter : nullptr;
}

// Stage 1 scans with filter 1, which a partitioned join of stage 2 (2 tasks) builds: the hub
// forwards nothing until both tasks reported (a filter that never completes is never sent, and
// the scans run without it), then the union to every task of stage 1, also one sent later.
TEST(RuntimeFilterHubTest, MergesAPartitionedJoinsTaskReportsAndForwardsTheUnion) {
  using exec::testutil::Col;
  const columnar::DataType int32 = columnar::DataType::Int32();
  ASSERT_OK_AND_ASSIGN(auto table, exec::testutil::TableOf({{"k", int32}}, {}));
  io::ScanRequest request;
  request.projection = {0};
  request.runtime_filters = {{1, 0}};
  ASSERT_OK_AND_ASSIGN(auto scan, exec::TableScanExec::Make(table, "t", request, 1));
  ASSERT_OK_AND_ASSIGN(auto build_scan, exec::testutil::ScanOf(table, 1));
  ASSERT_OK_AND_ASSIGN(
      auto join, exec::HashJoinExec::Make(build_scan, build_scan, {Col(0, int32)}, {Col(0, int32)},
                                          sql::JoinType::kInner, nullptr,
                                          exec::HashJoinExec::Mode::kPartitioned));
  ASSERT_OK_AND_ASSIGN(join, join->WithRuntimeFilters({{1, 0, "t.k"}}));

  auto hub = std::make_shared<RuntimeFilterHub>(nullptr, nullptr);
  hub->AddStage(1, 2, *scan);
  EXPECT_EQ(hub->ImportsOf(1), std::vector<int>{1});  // its join comes later
  hub->AddStage(2, 2, *join);
  EXPECT_EQ(hub->ExportsOf(2), std::vector<int>{1});
  EXPECT_TRUE(hub->ExportsOf(1).empty());
  FilterRecorder first;
  FilterRecorder second;
  hub->AddStream(1, &first);
  hub->AddStream(1, &second);

  hub->SinkFor(2, 0)(1, FilterOf({"1", "2"}), false);
  hub->SinkFor(2, 0)(1, FilterOf({"5"}), false);  // the same task again: ignored
  EXPECT_TRUE(first.received.empty());
  ASSERT_EQ(hub->Notes()[1].size(), 1U);
  EXPECT_NE(hub->Notes()[1][0].find("by 1 of 2 tasks (merged), applied in stage 1: never complete"),
            std::string::npos)
      << hub->Notes()[1][0];

  hub->SinkFor(2, 1)(1, FilterOf({"900"}), false);
  ASSERT_EQ(first.received.size(), 1U);
  ASSERT_EQ(second.received.size(), 1U);
  const auto& merged = first.received[0].second;
  EXPECT_EQ(first.received[0].first, 1);
  std::vector<uint64_t> hashes;
  std::vector<int32_t> rows;
  ASSERT_OK(merged->Select(testing::MakeArray(int32, {"1", "2", "3", "5", "900"}), &hashes, &rows));
  EXPECT_EQ(rows, (std::vector<int32_t>{0, 1, 4}));
  EXPECT_NE(hub->Notes()[1][0].find("by 2 of 2 tasks (merged), applied in stage 1: bitmap"),
            std::string::npos)
      << hub->Notes()[1][0];

  FilterRecorder late;
  hub->AddStream(1, &late);
  EXPECT_EQ(late.received.size(), 1U);
  hub->Close();
  hub->SinkFor(2, 1)(1, FilterOf({"7"}), false);  // after Close: dropped
  EXPECT_EQ(first.received.size(), 1U);
}

constexpr const char* kPartitionedJoin =
    "SELECT count(*), sum(l_quantity) FROM lineitem JOIN part ON l_partkey = p_partkey "
    "WHERE p_brand = 'Brand#23'";

// Expects `query` to carry a runtime filter across stages, removing rows in the remote scan, with
// the same answer as without filters.
void ExpectRemoteFilter(engine::QueryRunner& runner, const std::string& query) {
  ASSERT_OK(runner.RunOne("SET runtime_filters = off").status());
  ASSERT_OK_AND_ASSIGN(auto off, runner.RunOne(query));
  ASSERT_OK(runner.RunOne("SET runtime_filters = on").status());
  ASSERT_OK_AND_ASSIGN(auto on, runner.RunOne(query));
  EXPECT_EQ(distributed_testing::SortedText(on), distributed_testing::SortedText(off));
  ASSERT_OK_AND_ASSIGN(auto analyzed, runner.RunOne("EXPLAIN ANALYZE " + query));
  const std::string text = PlanText(analyzed);
  EXPECT_TRUE(std::regex_search(
      text, std::regex("runtime filter rf[0-9]+: built in stage [0-9]+ [^\\n]*, applied in "
                       "stage [0-9]+: (bitmap|exact|bloom|empty)")))
      << text;
  EXPECT_GT(MaxCounter(text, "rows_removed"), 0) << text;
}

class InProcessRuntimeFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    ASSERT_OK_AND_ASSIGN(
        cluster_,
        distributed_testing::MakeInProcessCluster(
            {"w1", "w2", "w3"}, distributed_testing::TestWorker(runner_.session().catalog())));
    ASSERT_OK(distributed_testing::InstallCoordinator(
                  runner_, distributed_testing::CoordinatorFor({"w1", "w2", "w3"}, cluster_))
                  .status());
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
    ASSERT_OK(runner_.RunOne("SET runtime_filter_wait = 5000").status());
  }

  engine::QueryRunner runner_;
  std::shared_ptr<InProcessCluster> cluster_;
};

TEST_F(InProcessRuntimeFilterTest, PartitionedJoinMergesTheTasksFiltersForTheProbeScan) {
  ASSERT_OK(runner_.RunOne("SET join_collect_build_rows = 0").status());
  ExpectRemoteFilter(runner_, kPartitionedJoin);
  EXPECT_EQ(distributed_testing::TasksHeld(*cluster_), 0);
}

TEST_F(InProcessRuntimeFilterTest, BroadcastJoinSendsItsFilterBelowTheShuffle) {
  ExpectRemoteFilter(runner_, distributed_testing::TpchQuery(17));
  EXPECT_EQ(distributed_testing::TasksHeld(*cluster_), 0);
}

// Without a wait the scan may start before the filter arrives: same answers.
TEST_F(InProcessRuntimeFilterTest, AnswersDoNotDependOnWhenTheFilterArrives) {
  ASSERT_OK(runner_.RunOne("SET join_collect_build_rows = 0").status());
  ASSERT_OK(runner_.RunOne("SET runtime_filters = off").status());
  ASSERT_OK_AND_ASSIGN(auto off, runner_.RunOne(kPartitionedJoin));
  ASSERT_OK(runner_.RunOne("SET runtime_filters = on").status());
  ASSERT_OK(runner_.RunOne("SET runtime_filter_wait = 0").status());
  ASSERT_OK_AND_ASSIGN(auto late, runner_.RunOne(kPartitionedJoin));
  EXPECT_EQ(distributed_testing::SortedText(late), distributed_testing::SortedText(off));
}

class GrpcRuntimeFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    ASSERT_OK(workers_.Start(2, distributed_testing::TestWorker(runner_.session().catalog())));
    ASSERT_OK(
        distributed_testing::InstallCoordinator(
            runner_, distributed_testing::CoordinatorFor(workers_.addresses, workers_.channels))
            .status());
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
    ASSERT_OK(runner_.RunOne("SET runtime_filter_wait = 5000").status());
  }

  engine::QueryRunner runner_;
  distributed_testing::GrpcTestCluster workers_;
};

TEST_F(GrpcRuntimeFilterTest, PartitionedJoinFilterTravelsOverTheWire) {
  ASSERT_OK(runner_.RunOne("SET join_collect_build_rows = 0").status());
  ExpectRemoteFilter(runner_, kPartitionedJoin);
  EXPECT_EQ(workers_.TasksHeld(), 0);
}

}  // namespace
}  // namespace shoal::distributed

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
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

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

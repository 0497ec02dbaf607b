// The distributed planner, the coordinator and the worker logic over the in-process transport:
// TPC-H answers equal the single-node ones with several workers and tasks, plans are cut into
// stages as documented, errors name worker, stage and task, and workers forget their tasks.
#include "shoal/distributed/planner/distributed_planner.h"

#include <chrono>

#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

class DistributedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(single_, 4));
    ASSERT_OK(distributed_testing::LoadTpch(distributed_, 4));
    // In-process workers share the coordinator's in-memory tables.
    ASSERT_OK_AND_ASSIGN(
        cluster_,
        distributed_testing::MakeInProcessCluster(
            {"w1", "w2", "w3"}, distributed_testing::TestWorker(distributed_.session().catalog())));
    ASSERT_OK_AND_ASSIGN(coordinator_, distributed_testing::InstallCoordinator(
                                           distributed_, distributed_testing::CoordinatorFor(
                                                             {"w1", "w2", "w3"}, cluster_)));
    ASSERT_OK(coordinator_->CheckWorkers());
    // Small tasks, so that leaf stages use every worker at SF 0.01.
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  int TasksHeld() const { return distributed_testing::TasksHeld(*cluster_); }

  engine::QueryRunner single_;
  engine::QueryRunner distributed_;
  std::shared_ptr<InProcessCluster> cluster_;
  std::shared_ptr<Coordinator> coordinator_;
};

TEST_F(DistributedTest, EveryTpchQueryGivesTheSingleNodeAnswer) {
  for (int q : distributed_testing::TpchQueriesToCheck()) {
    SCOPED_TRACE("q" + std::to_string(q));
    distributed_testing::ExpectSameRows(single_, distributed_, distributed_testing::TpchQuery(q));
    EXPECT_EQ(TasksHeld(), 0) << "workers still hold tasks after the query ended";
  }
}

TEST_F(DistributedTest, ExplainShowsStagesTasksAndBoundaries) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       distributed_.RunOne("EXPLAIN " + distributed_testing::TpchQuery(3)));
  const std::string text = distributed_testing::SortedText(result);
  EXPECT_NE(text.find("NetworkShuffle"), std::string::npos) << text;
  EXPECT_NE(text.find("NetworkCoalesce"), std::string::npos) << text;
  EXPECT_NE(text.find("tasks=3"), std::string::npos) << text;
  EXPECT_NE(text.find("stage="), std::string::npos) << text;
  // EXPLAIN plans but contacts no worker.
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(DistributedTest, SmallBuildSidesAreBroadcast) {
  // nation is tiny: the planner collects it as a shared build side, which becomes a broadcast.
  ASSERT_OK_AND_ASSIGN(auto result,
                       distributed_.RunOne("EXPLAIN SELECT count(*) FROM supplier, nation "
                                           "WHERE s_nationkey = n_nationkey AND n_name <> 'X'"));
  const std::string text = distributed_testing::SortedText(result);
  EXPECT_NE(text.find("NetworkBroadcast"), std::string::npos) << text;
  distributed_testing::ExpectSameRows(
      single_, distributed_,
      "SELECT count(*) FROM supplier, nation WHERE s_nationkey = n_nationkey AND n_name <> 'X'");
}

TEST_F(DistributedTest, RightAndFullJoinsGiveTheSingleNodeAnswer) {
  for (const char* sql :
       {"SELECT count(*), count(n_name) FROM nation RIGHT JOIN region ON n_regionkey = "
        "r_regionkey AND n_name < 'C'",
        "SELECT count(*), count(n_name), count(r_name) FROM nation FULL JOIN region ON "
        "n_regionkey = r_regionkey AND n_name < 'C'",
        "SELECT count(*) FROM customer RIGHT JOIN nation ON c_nationkey = n_nationkey AND "
        "c_acctbal > 9000"}) {
    SCOPED_TRACE(sql);
    distributed_testing::ExpectSameRows(single_, distributed_, sql);
  }
}

TEST_F(DistributedTest, WindowsAndGroupingSetsGiveTheSingleNodeAnswer) {
  for (const char* sql :
       {"SELECT o_custkey, o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY "
        "o_totalprice DESC, o_orderkey) FROM orders",
        "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM lineitem GROUP BY "
        "ROLLUP (l_returnflag, l_linestatus)"}) {
    SCOPED_TRACE(sql);
    distributed_testing::ExpectSameRows(single_, distributed_, sql);
  }
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(DistributedTest, AWorkerErrorNamesTheWorkerStageAndTask) {
  auto result = distributed_.RunOne(
      "SELECT count(*) FROM lineitem WHERE l_linenumber / (l_linenumber - l_linenumber) > 0");
  ASSERT_FALSE(result.ok());
  const std::string message = result.status().UserMessage();
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
  EXPECT_NE(message.find("on worker w"), std::string::npos) << message;
  EXPECT_NE(message.find("stage "), std::string::npos) << message;
  EXPECT_EQ(TasksHeld(), 0);
}

// Regression: one unreachable worker stopped the whole session from starting. Now it is skipped
// (quarantined) and the queries run on the others; it is used again once it answers, and a query
// never places a task on a worker known dead.
TEST_F(DistributedTest, AnUnreachableWorkerIsSkippedAndUsedAgainWhenItAnswers) {
  CoordinatorOptions options = distributed_testing::CoordinatorFor({"w1", "w9"}, cluster_);
  options.quarantine = std::chrono::milliseconds(20);  // checked again soon
  ASSERT_OK_AND_ASSIGN(auto coordinator,
                       distributed_testing::InstallCoordinator(distributed_, std::move(options)));
  ASSERT_OK(coordinator->CheckWorkers());
  EXPECT_TRUE(coordinator->health()->IsQuarantined("w9"));
  const std::string sql = distributed_testing::TpchQuery(1);
  distributed_testing::ExpectSameRows(single_, distributed_, sql);
  EXPECT_EQ(TasksHeld(), 0);

  // w9 comes up: the next query uses it.
  ASSERT_OK(cluster_->AddWorker([&] {
    WorkerServiceOptions w = distributed_testing::TestWorker(distributed_.session().catalog());
    w.address = "w9";
    return w;
  }()));
  ASSERT_TRUE(shoal::testing::WaitFor([&] { return !coordinator->health()->IsQuarantined("w9"); },
                                      "w9 to pass a health check"));
  distributed_testing::ExpectSameRows(single_, distributed_, sql);
  EXPECT_FALSE(cluster_->worker("w9")->ExecuteHeadersSeen().empty()) << "no task ran on w9";

  // w9 dies: the next query runs on w1 alone, without an error.
  cluster_->RemoveWorker("w9");
  distributed_testing::ExpectSameRows(single_, distributed_, sql);
  EXPECT_EQ(TasksHeld(), 0);

  // No worker answers: a clear error naming it, at start and at the query.
  ASSERT_OK_AND_ASSIGN(
      auto dead, Coordinator::Make(distributed_testing::CoordinatorFor({"w9"}, cluster_, "")));
  Status checked = dead->CheckWorkers();
  EXPECT_EQ(checked.code(), StatusCode::kUnavailable);
  EXPECT_NE(checked.UserMessage().find("w9"), std::string::npos) << checked.ToString();
  distributed_.SetExecutionMode(engine::ExecutionMode::OnWorkers(dead));
  auto result = distributed_.RunOne(sql);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().UserMessage().find("w9"), std::string::npos)
      << result.status().ToString();
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(DistributedTest, AVersionMismatchIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(distributed_testing::CoordinatorFor(
                                             {"w1"}, cluster_, "other")));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, coordinator->CheckWorkers());
}

TEST_F(DistributedTest, OneWorkerAndOneTaskPerStageAlsoWork) {
  ASSERT_OK(distributed_.RunOne("SET dist_max_tasks = 1").status());
  for (int q : {1, 5, 13, 18, 21}) {
    SCOPED_TRACE("q" + std::to_string(q));
    distributed_testing::ExpectSameRows(single_, distributed_, distributed_testing::TpchQuery(q));
  }
}

}  // namespace
}  // namespace shoal::distributed

// The distributed planner, the coordinator and the worker logic over the in-process transport:
// TPC-H answers equal the single-node ones with several workers and tasks, plans are cut into
// stages as documented, errors name worker, stage and task, and workers forget their tasks.
#include "shoal/dist/distributed_planner.h"

#include <gtest/gtest.h>

#include "shoal/dist/coordinator.h"
#include "shoal/dist/in_process_channel.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/exec/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/dist/dist_test_util.h"

namespace shoal::dist {
namespace {

class DistributedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    for (auto* runner : {&single_, &distributed_}) {
      ASSERT_OK(exec::RegisterTpchTables(scale, runner->session().catalog().get()));
      ASSERT_OK(runner->RunOne("SET threads = 4").status());
    }
    cluster_ = InProcessCluster::Make();
    for (const char* name : {"w1", "w2", "w3"}) {
      WorkerServiceOptions options;
      options.address = name;
      options.version = "test";
      options.threads = 2;
      // In-process workers share the coordinator's in-memory tables.
      options.catalog = distributed_.session().catalog();
      ASSERT_OK(cluster_->AddWorker(std::move(options)));
    }
    CoordinatorOptions options;
    options.workers = {"w1", "w2", "w3"};
    options.channels = cluster_;
    options.version = "test";
    ASSERT_OK_AND_ASSIGN(coordinator_, Coordinator::Make(std::move(options)));
    ASSERT_OK(coordinator_->CheckWorkers());
    distributed_.SetPlanTransform(coordinator_->AsPlanTransform());
    // Small tasks, so that leaf stages use every worker at SF 0.01.
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  int TasksHeld() const {
    int n = 0;
    for (const auto& address : cluster_->addresses())
      n += cluster_->worker(address)->num_tasks();
    return n;
  }

  exec::QueryRunner single_;
  exec::QueryRunner distributed_;
  std::shared_ptr<InProcessCluster> cluster_;
  std::shared_ptr<Coordinator> coordinator_;
};

TEST_F(DistributedTest, EveryTpchQueryGivesTheSingleNodeAnswer) {
  for (int q = 1; q <= 22; ++q) {
    SCOPED_TRACE("q" + std::to_string(q));
    const std::string sql = dist_testing::TpchQuery(q);
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
    EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
    EXPECT_EQ(TasksHeld(), 0) << "workers still hold tasks after the query ended";
  }
}

TEST_F(DistributedTest, ExplainShowsStagesTasksAndBoundaries) {
  ASSERT_OK_AND_ASSIGN(auto result, distributed_.RunOne("EXPLAIN " + dist_testing::TpchQuery(3)));
  std::string text;
  for (const auto& line : dist_testing::SortedRows(result))
    text += line + "\n";
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
  std::string text;
  for (const auto& line : dist_testing::SortedRows(result))
    text += line + "\n";
  EXPECT_NE(text.find("NetworkBroadcast"), std::string::npos) << text;
  ASSERT_OK_AND_ASSIGN(auto expected,
                       single_.RunOne("SELECT count(*) FROM supplier, nation WHERE s_nationkey = "
                                      "n_nationkey AND n_name <> 'X'"));
  ASSERT_OK_AND_ASSIGN(auto actual,
                       distributed_.RunOne("SELECT count(*) FROM supplier, nation WHERE "
                                           "s_nationkey = n_nationkey AND n_name <> 'X'"));
  EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
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
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
    EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
  }
}

TEST_F(DistributedTest, WindowsAndGroupingSetsGiveTheSingleNodeAnswer) {
  for (const char* sql :
       {"SELECT o_custkey, o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY "
        "o_totalprice DESC, o_orderkey) FROM orders",
        "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM lineitem GROUP BY "
        "ROLLUP (l_returnflag, l_linestatus)"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
    EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
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

TEST_F(DistributedTest, AnUnreachableWorkerIsReportedByName) {
  CoordinatorOptions options;
  options.workers = {"w1", "w9"};
  options.channels = cluster_;
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(options)));
  Status checked = coordinator->CheckWorkers();
  EXPECT_EQ(checked.code(), StatusCode::kUnavailable);
  EXPECT_NE(checked.UserMessage().find("w9"), std::string::npos) << checked.ToString();
  distributed_.SetPlanTransform(coordinator->AsPlanTransform());
  auto result = distributed_.RunOne(dist_testing::TpchQuery(1));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().UserMessage().find("w9"), std::string::npos)
      << result.status().ToString();
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(DistributedTest, AVersionMismatchIsRefused) {
  CoordinatorOptions options;
  options.workers = {"w1"};
  options.channels = cluster_;
  options.version = "other";
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(options)));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, coordinator->CheckWorkers());
}

TEST_F(DistributedTest, OneWorkerAndOneTaskPerStageAlsoWork) {
  ASSERT_OK(distributed_.RunOne("SET dist_max_tasks = 1").status());
  for (int q : {1, 5, 13, 18, 21}) {
    SCOPED_TRACE("q" + std::to_string(q));
    const std::string sql = dist_testing::TpchQuery(q);
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
    EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
  }
}

}  // namespace
}  // namespace shoal::dist

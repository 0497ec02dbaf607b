// Worker-side limits on what a coordinator's settings ask for (issue 15 item 4): a query's
// memory_limit bounds its tasks' memory on each worker, so a big aggregate spills there; tasks
// spill into the worker's own directory whatever spill_dir the client set; a worker caps the
// tasks one query may hold; and a task plan may not name a shuffle directory to write into.
#include <string>

#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

using shoal::testing::WaitFor;

// Many groups: the aggregate's hash table is several MB, well past a 6MB memory_limit.
constexpr const char* kBigAggregate =
    "SELECT l_orderkey, l_partkey, l_suppkey, count(*) AS n, sum(l_quantity) AS q "
    "FROM lineitem GROUP BY l_orderkey, l_partkey, l_suppkey";

class WorkerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    ASSERT_OK(distributed_testing::LoadTpch(single_, 2));
  }

  void StartWorkers(WorkerServiceOptions w) {
    w.version = "test";
    w.catalog = runner_.session().catalog();
    ASSERT_OK(workers_.Start(2, w));
    ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(distributed_testing::CoordinatorFor(
                                               workers_.addresses, workers_.channels, "test")));
    runner_.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  }

  bool AllClean() const { return distributed_testing::TasksHeld(workers_.services) == 0; }

  engine::QueryRunner runner_;
  engine::QueryRunner single_;
  distributed_testing::GrpcTestCluster workers_;
};

// Before the fix a task's pool on a worker was a child of the worker's unlimited pool: the
// query's memory_limit never reached it and the aggregate grew without spilling.
TEST_F(WorkerLimitsTest, AQuerysMemoryLimitMakesItsAggregateSpillOnTheWorkers) {
  StartWorkers({});
  ASSERT_OK(runner_.RunOne("SET memory_limit = '6MB'").status());
  ASSERT_OK_AND_ASSIGN(auto explained,
                       runner_.RunOne(std::string("EXPLAIN ANALYZE ") + kBigAggregate));
  const std::string text = distributed_testing::SortedText(explained);
  EXPECT_NE(text.find("spilled="), std::string::npos) << text;
  distributed_testing::ExpectSameRows(single_, runner_, kBigAggregate);
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task"));
}

// A client's spill_dir names a directory on the client's side; a worker spills into its own.
TEST_F(WorkerLimitsTest, WorkersSpillIntoTheirOwnDirectoryNotTheClients) {
  WorkerServiceOptions w;
  w.spill_directory = ::testing::TempDir();
  StartWorkers(w);
  ASSERT_OK(runner_.RunOne("SET memory_limit = '6MB'").status());
  // Before the fix the workers tried to spill here and failed ("cannot create a spill
  // directory in '/nonexistent-client-spill-dir'").
  ASSERT_OK(runner_.RunOne("SET spill_dir = '/nonexistent-client-spill-dir'").status());
  ASSERT_OK_AND_ASSIGN(auto explained,
                       runner_.RunOne(std::string("EXPLAIN ANALYZE ") + kBigAggregate));
  const std::string text = distributed_testing::SortedText(explained);
  EXPECT_NE(text.find("spilled="), std::string::npos) << text;
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task"));
}

TEST_F(WorkerLimitsTest, AQueryWithMoreTasksThanAWorkerAllowsIsRefusedAndTheWorkerServesOthers) {
  WorkerServiceOptions w;
  w.max_tasks_per_query = 1;
  StartWorkers(w);
  ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  auto refused = runner_.RunOne(kBigAggregate);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().UserMessage().find("--max-tasks-per-query"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(refused.status().sqlstate(), "53400") << refused.status().ToString();
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task"));
  // A query of one task per worker still runs.
  ASSERT_OK(runner_.RunOne("RESET dist_bytes_per_task").status());
  ASSERT_OK_AND_ASSIGN(auto one, runner_.RunOne("SELECT count(*) FROM nation"));
  EXPECT_EQ(distributed_testing::SortedRows(one), std::vector<std::string>{"25"});
}

}  // namespace
}  // namespace shoal::distributed

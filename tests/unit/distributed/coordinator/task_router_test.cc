// Task routing: round-robin reproduces the documented placement, a router's answer outside the
// query's workers is refused, and a coordinator places every task with the router it was given.
#include "shoal/distributed/coordinator/task_router.h"

#include <mutex>

#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

TEST(TaskRouterTest, RoundRobinStartsOneWorkerFurtherPerQuery) {
  RoundRobinTaskRouter router;
  const std::vector<std::string> workers = {"a", "b", "c"};
  std::vector<std::string> placed;
  for (size_t ordinal = 0; ordinal < 4; ++ordinal) {
    TaskPlacement task;
    task.ordinal = ordinal;
    task.query_sequence = 1;
    ASSERT_OK_AND_ASSIGN(std::string w, RouteTask(router, task, workers));
    placed.push_back(w);
  }
  EXPECT_EQ(placed, (std::vector<std::string>{"b", "c", "a", "b"}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, router.Route(TaskPlacement{}, {}));
}

// Sends every task to one worker and remembers what it was asked.
class PinningRouter final : public TaskRouter {
 public:
  explicit PinningRouter(std::string worker) : worker_(std::move(worker)) {}

  Result<std::string> Route(const TaskPlacement& task, const std::vector<std::string>&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    asked_.push_back(task);
    return worker_;
  }

  std::vector<TaskPlacement> asked() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return asked_;
  }

 private:
  std::string worker_;
  mutable std::mutex mutex_;
  std::vector<TaskPlacement> asked_;
};

TEST(TaskRouterTest, AnAnswerOutsideTheWorkersIsRefused) {
  PinningRouter router("elsewhere");
  TaskPlacement task;
  task.stage_id = 2;
  task.task_number = 1;
  Result<std::string> r = RouteTask(router, task, {"a", "b"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_NE(r.status().UserMessage().find("'elsewhere'"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().UserMessage().find("stage 2 task 1"), std::string::npos);
}

class RoutedQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(single_, 2));
    ASSERT_OK(distributed_testing::LoadTpch(distributed_, 2));
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
    // w1 is listed but never started: a task placed on it would fail the query. Default worker
    // options (no version, default threads).
    WorkerServiceOptions worker;
    worker.catalog = distributed_.session().catalog();
    ASSERT_OK_AND_ASSIGN(cluster_, distributed_testing::MakeInProcessCluster({"w2", "w3"}, worker));
  }

  engine::QueryRunner single_;
  engine::QueryRunner distributed_;
  std::shared_ptr<InProcessCluster> cluster_;
};

TEST_F(RoutedQueryTest, EveryTaskGoesWhereTheRouterSays) {
  auto router = std::make_shared<PinningRouter>("w3");
  CoordinatorOptions options =
      distributed_testing::CoordinatorFor({"w1", "w2", "w3"}, cluster_, "");
  options.router = router;
  ASSERT_OK(distributed_testing::InstallCoordinator(distributed_, std::move(options)).status());
  for (int q : {1, 3, 18}) {
    const std::string sql = distributed_testing::TpchQuery(q);
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected))
        << "q" << q;
  }
  const std::vector<TaskPlacement> asked = router->asked();
  ASSERT_GT(asked.size(), 3u);
  // Ordinals count the tasks of each query from 0.
  size_t expected_ordinal = 0;
  std::string query;
  for (const auto& task : asked) {
    if (task.query_id != query) {
      query = task.query_id;
      expected_ordinal = 0;
    }
    EXPECT_EQ(task.ordinal, expected_ordinal++);
    EXPECT_GE(task.stage_id, 1);
    EXPECT_LT(task.task_number, task.task_count);
  }
  EXPECT_EQ(distributed_testing::TasksHeld(*cluster_), 0);
  // Round-robin over the same list skips the missing w1 (it fails its health check): no task is
  // ever routed to a worker known dead.
  ASSERT_OK(distributed_testing::InstallCoordinator(
                distributed_, distributed_testing::CoordinatorFor({"w1", "w2", "w3"}, cluster_, ""))
                .status());
  EXPECT_OK(distributed_.RunOne(distributed_testing::TpchQuery(1)).status());
}

}  // namespace
}  // namespace shoal::distributed

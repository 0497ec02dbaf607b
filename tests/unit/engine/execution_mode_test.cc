// Execution modes of the QueryRunner: local by default, across in-process workers through the
// coordinator, through the shuffle driver (local until shuffle_dir is set), and the test seam that
// hands plans to a rewriter; and SetUpSession, which picks the mode from `shoal sql`'s flags.
#include "shoal/engine/execution_mode.h"

#include <string>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/engine/execution_modes.h"
#include "shoal/engine/in_process_workers.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/session_setup.h"
#include "shoal/exec/execution_plan.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::engine {
namespace {

constexpr const char* kQuery =
    "SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY 1 ORDER BY 1";

std::string Rows(const QueryResult& result) {
  return result.schema ? columnar::FormatTable(*result.schema, result.batches) : "";
}

std::string Explain(QueryRunner& runner, const std::string& sql) {
  auto result = runner.RunAll("EXPLAIN " + sql);
  EXPECT_OK(result.status());
  return result.ok() && !result->empty() ? Rows(result->back()) : "";
}

class ExecutionModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SessionSetup setup;
    setup.tpch_scale = "0.01";
    for (QueryRunner* runner : {&local_, &other_})
      ASSERT_OK(SetUpSession(setup, *runner));
    ASSERT_OK_AND_ASSIGN(expected_, local_.RunOne(kQuery));
  }

  QueryRunner local_;
  QueryRunner other_;
  QueryResult expected_;
};

TEST_F(ExecutionModeTest, ARunnerIsLocalUntilToldOtherwise) {
  QueryRunner runner;
  EXPECT_EQ(runner.execution_mode().kind(), ExecutionMode::Kind::kLocal);
  EXPECT_EQ(runner.execution_mode().coordinator(), nullptr);
  EXPECT_STREQ(ExecutionMode::KindName(ExecutionMode::Kind::kWorkers), "workers");
}

TEST_F(ExecutionModeTest, InProcessWorkersGiveTheLocalAnswerThroughTheCoordinator) {
  ASSERT_OK(other_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  ASSERT_OK(UseWorkers(other_, {"inproc:3", {"trace-id=t1"}, ""}));
  ASSERT_EQ(other_.execution_mode().kind(), ExecutionMode::Kind::kWorkers);
  ASSERT_NE(other_.execution_mode().coordinator(), nullptr);
  EXPECT_EQ(other_.execution_mode().coordinator()->options().workers.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto actual, other_.RunOne(kQuery));
  EXPECT_EQ(Rows(actual), Rows(expected_));
  // The plan really was distributed: its head reads from the workers' stages.
  EXPECT_NE(Explain(other_, kQuery).find("stage="), std::string::npos) << Explain(other_, kQuery);
  EXPECT_EQ(Explain(local_, kQuery).find("stage="), std::string::npos);
  // Back to local: the same runner plans for one node again.
  other_.SetExecutionMode(ExecutionMode::Local());
  EXPECT_EQ(Explain(other_, kQuery).find("stage="), std::string::npos);
}

// retry_policy = task runs queries as shuffle tasks on the workers: in-process workers run none,
// so the policy is refused with a clear error (not silently ignored), and `none` works again.
TEST_F(ExecutionModeTest, TaskRetriesAreRefusedOnInProcessWorkers) {
  ASSERT_OK(UseWorkers(other_, {"inproc:2", {}, ""}));
  EXPECT_EQ(other_.execution_mode().shuffle_driver(), nullptr);
  ASSERT_OK(other_.RunOne("SET retry_policy = 'task'").status());
  auto refused = other_.RunOne(kQuery);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().UserMessage().find("in-process workers"), std::string::npos)
      << refused.status().ToString();
  ASSERT_OK(other_.RunOne("SET retry_policy = 'none'").status());
  ASSERT_OK_AND_ASSIGN(auto actual, other_.RunOne(kQuery));
  EXPECT_EQ(Rows(actual), Rows(expected_));
}

TEST_F(ExecutionModeTest, BadWorkerListsAreRefusedBeforeAnyQuery) {
  Status zero = UseWorkers(other_, {"inproc:0", {}, ""});
  EXPECT_EQ(zero.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(zero.UserMessage().find("inproc:N with N from 1 to"), std::string::npos);
  EXPECT_EQ(UseWorkers(other_, {"inproc:2x", {}, ""}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(UseWorkers(other_, {"inproc:1", {"no-equals-sign"}, ""}).code(),
            StatusCode::kInvalidArgument);
  // A refused list leaves the mode as it was (SetUpSession's shuffle mode).
  EXPECT_EQ(other_.execution_mode().kind(), ExecutionMode::Kind::kShuffle);
  EXPECT_TRUE(IsInProcessWorkers("inproc:4"));
  EXPECT_FALSE(IsInProcessWorkers("localhost:4000"));
}

// A semi join whose preserved side (orders) is the smaller: one node builds it once for all
// partitions (collect-build), tasks of other processes partition it.
constexpr const char* kSemiJoinQuery =
    "SELECT count(*) FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = "
    "o_orderkey)";

TEST_F(ExecutionModeTest, TheShuffleModeRunsLocallyUntilAShuffleDirIsSet) {
  // What `shoal sql` without --workers sets up.
  ASSERT_EQ(other_.execution_mode().kind(), ExecutionMode::Kind::kShuffle);
  ASSERT_NE(other_.execution_mode().shuffle_driver(), nullptr);
  EXPECT_TRUE(other_.execution_mode().RunsInProcess(other_.session().settings()));
  ASSERT_OK_AND_ASSIGN(auto actual, other_.RunOne(kQuery));
  EXPECT_EQ(Rows(actual), Rows(expected_));
  // Planned as on one node, not as for tasks (`shoal sql` planned a partitioned right semi join
  // here, and no runtime filter on partitioned joins).
  for (const char* query : {kQuery, kSemiJoinQuery})
    EXPECT_EQ(Explain(other_, query), Explain(local_, query)) << query;
  EXPECT_NE(Explain(local_, kSemiJoinQuery).find("type=RightSemi, mode=collect_build"),
            std::string::npos)
      << Explain(local_, kSemiJoinQuery);
  ASSERT_OK(other_.RunOne("SET shuffle_dir = '/tmp/shoal-execution-mode-test'").status());
  EXPECT_FALSE(other_.execution_mode().RunsInProcess(other_.session().settings()));
}

// A partitioned join publishes the union of its partitions' runtime filters where all of its
// partitions run: on one node. In the file shuffle each task runs one partition, so the join
// keeps no filter there; the filter is formed from its build side's stage instead, for the stage
// that scans the probe side (shuffle/stage_runtime_filters.h).
TEST_F(ExecutionModeTest, PartitionedJoinsFilterTheirProbeScanOnOneNode) {
  constexpr const char* kJoin =
      "SELECT count(*), sum(l_quantity) FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
      "WHERE o_totalprice > 400000";
  for (QueryRunner* runner : {&local_, &other_})
    ASSERT_OK(runner->RunOne("SET join_collect_build_rows = 0").status());
  const std::string plan = Explain(local_, kJoin);
  EXPECT_NE(plan.find("mode=partitioned, on=[#0 = #0], runtime_filters=[rf1"), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("runtime_filters=[rf1 on l_orderkey]"), std::string::npos) << plan;
  ASSERT_OK_AND_ASSIGN(auto filtered, local_.RunOne(kJoin));
  ASSERT_OK(local_.RunOne("SET runtime_filters = off").status());
  ASSERT_OK_AND_ASSIGN(auto unfiltered, local_.RunOne(kJoin));
  EXPECT_EQ(Rows(filtered), Rows(unfiltered));

  ASSERT_OK(other_.RunOne("SET shuffle_dir = '/tmp/shoal-execution-mode-test'").status());
  const std::string staged = Explain(other_, kJoin);
  EXPECT_NE(staged.find("mode=partitioned"), std::string::npos) << staged;
  EXPECT_EQ(staged.find("mode=partitioned, on=[#0 = #0], runtime_filters"), std::string::npos)
      << staged;
  EXPECT_NE(staged.find("runtime_filters=[rf1 stage 2 -> 1]"), std::string::npos) << staged;
}

TEST_F(ExecutionModeTest, ARewriterSeesEveryPlanAndWhatItReturnsRuns) {
  int rewrites = 0;
  exec::ExecPlanPtr seen;
  engine_testing::RewritePlans(
      other_,
      [&](const exec::ExecPlanPtr& plan,
          const std::shared_ptr<exec::TaskContext>& context) -> Result<exec::ExecPlanPtr> {
        ++rewrites;
        seen = plan;
        EXPECT_EQ(context->settings().GetInt("batch_size"), 8192);
        return plan;
      });
  EXPECT_EQ(other_.execution_mode().kind(), ExecutionMode::Kind::kRewritten);
  ASSERT_OK_AND_ASSIGN(auto actual, other_.RunOne(kQuery));
  EXPECT_EQ(Rows(actual), Rows(expected_));
  EXPECT_EQ(rewrites, 1);
  ASSERT_NE(seen, nullptr);
  // A rewriter's error is the statement's error.
  engine_testing::RewritePlans(
      other_, [](const exec::ExecPlanPtr&, const std::shared_ptr<exec::TaskContext>&) {
        return Result<exec::ExecPlanPtr>(Status::Internal("rewriter says no"));
      });
  auto failed = other_.RunOne(kQuery);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().ToString().find("rewriter says no"), std::string::npos);
}

TEST(SessionSetupTest, RefusesCombinationsThatCannotWork) {
  QueryRunner runner;
  SessionSetup both;
  both.workers.workers = "inproc:2";
  both.shuffle_dir = "/tmp/x";
  Status st = SetUpSession(both, runner);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.UserMessage().find("cannot be combined"), std::string::npos);

  SessionSetup no_dir;
  no_dir.shuffle_workers = "h:1";
  st = SetUpSession(no_dir, runner);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.UserMessage().find("--shuffle-workers needs --shuffle-dir"), std::string::npos);

  SessionSetup bad_worker;
  bad_worker.shuffle_dir = "/tmp/x";
  bad_worker.shuffle_workers = "h:1,nohost";
  st = SetUpSession(bad_worker, runner);
  EXPECT_NE(st.UserMessage().find("'nohost' is not HOST:PORT"), std::string::npos);

  SessionSetup bad_scale;
  bad_scale.tpch_scale = "-1";
  EXPECT_FALSE(SetUpSession(bad_scale, runner).ok());
}

TEST(SessionSetupTest, AShuffleDirFlagBecomesTheSessionSetting) {
  QueryRunner runner;
  SessionSetup setup;
  setup.shuffle_dir = "/tmp/shoal-engine-test-shuffle";
  ASSERT_OK(SetUpSession(setup, runner));
  EXPECT_EQ(runner.execution_mode().kind(), ExecutionMode::Kind::kShuffle);
  EXPECT_EQ(runner.session().settings().GetString("shuffle_dir"), setup.shuffle_dir);
}

}  // namespace
}  // namespace shoal::engine

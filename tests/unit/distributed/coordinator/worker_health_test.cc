// Worker health checks: a worker that does not answer is quarantined and checked again in the
// background until it answers, no worker answering names them all, and a version mismatch stays
// an error.
#include "shoal/distributed/coordinator/worker_health.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/fake_worker_cluster.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

using shoal::testing::FakeWorkerCluster;

// Regression: one unreachable worker stopped the session; now it is skipped, checked again in
// the background, and back in use once it answers.
TEST(WorkerHealthTest, AWorkerThatDoesNotAnswerIsQuarantinedUntilItAnswers) {
  auto cluster = std::make_shared<FakeWorkerCluster>();
  cluster->Add("a:1");
  auto b = cluster->Add("b:1");
  WorkerHealthOptions options;
  options.quarantine = std::chrono::milliseconds(20);
  WorkerHealth health(cluster, options);
  b->up = false;
  ASSERT_OK_AND_ASSIGN(auto usable, health.Usable({"a:1", "b:1"}));
  EXPECT_EQ(usable, std::vector<std::string>{"a:1"});
  EXPECT_TRUE(health.IsQuarantined("b:1"));
  // Queries skip it without waiting for it while it is quarantined.
  const int calls = [&] {
    std::lock_guard<std::mutex> lock(b->mutex);
    return b->info_calls;
  }();
  ASSERT_TRUE(shoal::testing::WaitFor(
      [&] {
        std::lock_guard<std::mutex> lock(b->mutex);
        return b->info_calls > calls;
      },
      "a background check of b"));
  EXPECT_TRUE(health.IsQuarantined("b:1"));
  {
    std::lock_guard<std::mutex> lock(b->mutex);
    b->up = true;
  }
  ASSERT_TRUE(
      shoal::testing::WaitFor([&] { return !health.IsQuarantined("b:1"); }, "b to be back in use"));
  ASSERT_OK_AND_ASSIGN(usable, health.Usable({"a:1", "b:1"}));
  EXPECT_EQ(usable, (std::vector<std::string>{"a:1", "b:1"}));
}

TEST(WorkerHealthTest, NoWorkerAnsweringNamesThemAllAndAVersionMismatchIsAnError) {
  auto cluster = std::make_shared<FakeWorkerCluster>();
  auto a = cluster->Add("a:1");
  WorkerHealthOptions options;
  options.version = "v1";
  WorkerHealth health(cluster, options);
  a->up = false;
  Result<std::vector<std::string>> none = health.Usable({"a:1", "gone:1"});
  ASSERT_EQ(none.status().code(), StatusCode::kUnavailable) << none.status().ToString();
  EXPECT_NE(none.status().UserMessage().find("a:1"), std::string::npos);
  EXPECT_NE(none.status().UserMessage().find("gone:1"), std::string::npos);
  // Both quarantined now: the next query checks them again rather than failing blind.
  {
    std::lock_guard<std::mutex> lock(a->mutex);
    a->up = true;
    a->version = "v2";
  }
  Result<std::vector<std::string>> mismatch = health.Usable({"a:1"});
  ASSERT_EQ(mismatch.status().code(), StatusCode::kInvalidArgument) << mismatch.status().ToString();
  EXPECT_NE(mismatch.status().UserMessage().find("v2"), std::string::npos);
}

// The shuffle driver's use (issue 16): its own check (a ping of the shuffle service), and
// CheckNow on a worker a failed task points at, quarantined or not: a worker that does not
// answer is quarantined at once, one that answers is back in use at once.
TEST(WorkerHealthTest, CheckNowQuarantinesAWorkerThatDoesNotAnswerAndReleasesOneThatDoes) {
  std::mutex mutex;
  std::map<std::string, bool> up = {{"a", true}, {"b", true}};
  WorkerHealthOptions options;
  options.quarantine = std::chrono::hours(1);  // only CheckNow releases it in this test
  WorkerHealth health(
      [&](const std::string& worker) {
        std::lock_guard<std::mutex> lock(mutex);
        return up[worker] ? Status::OK() : Status::Unavailable("worker {} is gone", worker);
      },
      options);
  ASSERT_OK(health.CheckNow("a"));
  {
    std::lock_guard<std::mutex> lock(mutex);
    up["b"] = false;
  }
  Status st = health.CheckNow("b");
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_TRUE(health.IsQuarantined("b"));
  ASSERT_OK_AND_ASSIGN(auto usable, health.Usable({"a", "b"}));
  EXPECT_EQ(usable, std::vector<std::string>{"a"});
  {
    std::lock_guard<std::mutex> lock(mutex);
    up["b"] = true;
  }
  EXPECT_OK(health.CheckNow("b"));
  EXPECT_FALSE(health.IsQuarantined("b"));
}

// Regression (chaos test, seed 1019399011): a worker frozen twice in a row failed all three
// attempts of a retry_policy = query query, because it answered its health check between the
// freezes and the next attempt went straight back to it. A worker that failed a query now stays
// out of use for failure_quarantine although it answers, unless no other worker answers.
TEST(WorkerHealthTest, APenalizedWorkerIsSkippedThoughItAnswersUnlessItIsTheOnlyOne) {
  auto cluster = std::make_shared<FakeWorkerCluster>();
  cluster->Add("a:1");
  auto b = cluster->Add("b:1");
  WorkerHealthOptions options;
  options.quarantine = std::chrono::milliseconds(10);
  options.failure_quarantine = std::chrono::hours(1);
  WorkerHealth health(cluster, options);
  health.Penalize("b:1", Status::Unavailable("worker b:1 is unreachable: keepalive watchdog"));
  ASSERT_OK_AND_ASSIGN(auto usable, health.Usable({"a:1", "b:1"}));
  EXPECT_EQ(usable, std::vector<std::string>{"a:1"});
  // Its background re-check waits for the penalty (an hour), not the usual quarantine.
  const int calls = [&] {
    std::lock_guard<std::mutex> lock(b->mutex);
    return b->info_calls;
  }();
  ASSERT_OK_AND_ASSIGN(usable, health.Usable({"a:1", "b:1"}));
  EXPECT_EQ(usable, std::vector<std::string>{"a:1"});
  EXPECT_TRUE(health.IsQuarantined("b:1"));
  {
    std::lock_guard<std::mutex> lock(b->mutex);
    EXPECT_EQ(b->info_calls, calls);
  }
  // Alone, it is used: a penalty never fails a query that could run.
  ASSERT_OK_AND_ASSIGN(usable, health.Usable({"b:1"}));
  EXPECT_EQ(usable, std::vector<std::string>{"b:1"});
}

TEST(WorkerHealthTest, UnreachableWorkersAreReadOffTheTransportsWords) {
  EXPECT_EQ(UnreachableWorkers(UnreachableWorkerError("10.0.0.7:7001", "connection refused")),
            std::vector<std::string>{"10.0.0.7:7001"});
  // A consumer's error naming its producer's worker, inside another task's context.
  Status nested =
      Status::Unavailable("stage 10 task 1 on worker b:2 failed: {}",
                          UnreachableWorkerError("b:2", "keepalive watchdog timeout").ToString())
          .WithContext("stage 10 task 0 on worker a:1");
  EXPECT_EQ(UnreachableWorkers(nested), std::vector<std::string>{"b:2"});
  Status two = Status::Unavailable("{}; {}; {}", UnreachableWorkerError("a:1", "x").ToString(),
                                   UnreachableWorkerError("c:3", "y").ToString(),
                                   UnreachableWorkerError("a:1", "z").ToString());
  EXPECT_EQ(UnreachableWorkers(two), (std::vector<std::string>{"a:1", "c:3"}));
  EXPECT_TRUE(UnreachableWorkers(Status::InvalidArgument("division by zero")).empty());
  EXPECT_TRUE(UnreachableWorkers(Status::Unavailable("the worker is unreachable")).empty());
}

}  // namespace
}  // namespace shoal::distributed

// retry_policy = query (engine/query_retry.h): which failures run a query again, how often, and
// the NOTICE each retry leaves. tests/integration/fault_tolerance.mjs kills real workers.
#include "shoal/engine/query_retry.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/sql/session.h"

namespace shoal::engine {
namespace {

Settings Policy(const std::string& policy, int attempts = 3) {
  sql::Session session;
  EXPECT_TRUE(session.settings().Set("retry_policy", policy).ok());
  EXPECT_TRUE(session.settings().Set("query_retry_attempts", std::to_string(attempts)).ok());
  return session.settings();
}

const Status kLost =
    Status::Unavailable("worker 127.0.0.1:7001 is unreachable: Socket closed\nmore");

TEST(QueryRetryTest, ALostWorkerRunsTheQueryAgainUpToTheAttempts) {
  const QueryRetry retry(Policy("query", 3), ExecutionMode::Kind::kWorkers);
  std::vector<std::string> notices;
  EXPECT_TRUE(retry.Again(kLost, 1, &notices));
  EXPECT_TRUE(retry.Again(kLost, 2, &notices));
  EXPECT_FALSE(retry.Again(kLost, 3, &notices));  // the third attempt was the last
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0],
            "a worker failed before any row was sent (worker 127.0.0.1:7001 is unreachable: "
            "Socket closed); running the query again on the workers that answer "
            "(retry_policy = query, attempt 2 of 3)");
  EXPECT_NE(notices[1].find("attempt 3 of 3"), std::string::npos);
}

TEST(QueryRetryTest, ErrorsEveryAttemptWouldRepeatAreNeverRetried) {
  const QueryRetry retry(Policy("query"), ExecutionMode::Kind::kWorkers);
  std::vector<std::string> notices;
  EXPECT_FALSE(retry.Again(Status::InvalidArgument("division by zero"), 1, &notices));
  EXPECT_FALSE(retry.Again(Status::OutOfMemory("memory limit exceeded"), 1, &notices));
  EXPECT_FALSE(
      retry.Again(Status::Cancelled("canceling statement due to user request"), 1, &notices));
  EXPECT_TRUE(notices.empty());
}

// A worker's task stopped although this query was not cancelled (the chaos test, seed 76106253:
// a consumer of the task lost a frozen worker and dropped its stream, and another consumer of the
// same task then read "canceling statement"): a lost worker's symptom, retried. The same error
// after the query's own context was cancelled (its user, a statement timeout) stands.
TEST(QueryRetryTest, ACancellationThisQueryDidNotAskForIsRetried) {
  const QueryRetry retry(Policy("query"), ExecutionMode::Kind::kWorkers);
  const Status stopped = Status::Cancelled("canceling statement due to user request")
                             .WithContext("stage 3 task 1 on worker 127.0.0.1:7002 failed");
  std::vector<std::string> notices;
  EXPECT_FALSE(retry.Again(stopped, 1, &notices, /*cancelled_here=*/true));
  EXPECT_TRUE(notices.empty());
  EXPECT_TRUE(retry.Again(stopped, 1, &notices, /*cancelled_here=*/false));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("retry_policy = query, attempt 2"), std::string::npos) << notices[0];
}

// Run(): an attempt that fails while it starts (the tasks sent to a worker frozen or killed at
// that moment: "sending stage 10 task 1 to worker ...: unreachable") is retried like one that fails
// while its rows are pulled. The chaos test (tests/integration/chaos.mjs) found the first attempt
// of a streaming query failing so, with no retry.
TEST(QueryRetryTest, RunRetriesAttemptsThatFailWhileStarting) {
  const QueryRetry retry(Policy("query", 3), ExecutionMode::Kind::kWorkers);
  std::vector<std::string> notices;
  int calls = 0;
  int attempt = 1;
  Result<int> r = retry.Run<int>(
      [&]() -> Result<int> {
        if (++calls < 3)
          return kLost;
        return 42;
      },
      &attempt, &notices);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(attempt, 3);
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_NE(notices[1].find("attempt 3 of 3"), std::string::npos);

  // Out of attempts: the last error stands.
  calls = 0;
  attempt = 1;
  notices.clear();
  const auto lost = [&]() -> Result<int> {
    ++calls;
    return kLost;
  };
  r = retry.Run<int>(lost, &attempt, &notices);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(notices.size(), 2u);

  // A deterministic error, or the policy none: one call.
  calls = 0;
  attempt = 1;
  r = retry.Run<int>(
      [&]() -> Result<int> {
        ++calls;
        return Status::InvalidArgument("division by zero");
      },
      &attempt, &notices);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 1);
  calls = 0;
  attempt = 1;
  r = QueryRetry(Policy("none"), ExecutionMode::Kind::kWorkers).Run<int>(lost, &attempt, &notices);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 1);
}

TEST(QueryRetryTest, OnlyQueriesOnWorkersUnderPolicyQueryAreRetried) {
  std::vector<std::string> notices;
  EXPECT_FALSE(QueryRetry(Policy("none"), ExecutionMode::Kind::kWorkers).Again(kLost, 1, &notices));
  EXPECT_FALSE(QueryRetry(Policy("query"), ExecutionMode::Kind::kLocal).Again(kLost, 1, &notices));
  // The file shuffle's driver retries each task itself.
  EXPECT_FALSE(
      QueryRetry(Policy("query"), ExecutionMode::Kind::kShuffle).Again(kLost, 1, &notices));
  // Under `task` a query on workers runs through the shuffle driver, which re-runs tasks: the
  // query itself is never run again.
  EXPECT_FALSE(QueryRetry(Policy("task"), ExecutionMode::Kind::kWorkers).Again(kLost, 1, &notices));
  EXPECT_TRUE(notices.empty());
  // The default is none; the three policies of Trino's names are accepted, nothing else.
  sql::Session session;
  EXPECT_EQ(session.settings().GetString("retry_policy"), "none");
  EXPECT_TRUE(session.settings().Set("retry_policy", "task").ok());
  EXPECT_FALSE(session.settings().Set("retry_policy", "stage").ok());
}

}  // namespace
}  // namespace shoal::engine

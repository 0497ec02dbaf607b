// Which failed shuffle tasks the driver runs again (task_error.h): errors that would come back on
// every attempt (SQL errors, out-of-range values, bad data) never, lost processes and transport
// failures always; and a task's code and SQLSTATE survive the trip through its stdout.
#include "shoal/distributed/shuffle/task_error.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/task_process.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;

// Regression: a division by zero was run 1 + shuffle_task_retries times per task.
TEST(TaskErrorTest, DeterministicErrorsAreNeverRetried) {
  for (const Status& st :
       {Status::InvalidArgument("division by zero").WithSqlState("22012"),
        Status::OutOfRange("smallint out of range"), Status::InvalidData("a bad Parquet page"),
        Status::TypeError("no operator"), Status::NotFound("no table"),
        Status::NotImplemented("not yet"), Status::SyntaxError("bad SQL"),
        Status::Internal("a bug"), Status::Cancelled("cancelled")})
    EXPECT_FALSE(IsRetryableTaskError(st)) << st.ToString();
  for (const Status& st :
       {Status::Unavailable("killed by signal 9"), Status::IoError("disk full"),
        Status::DeadlineExceeded("timed out"), Status::OutOfMemory("over the limit")})
    EXPECT_TRUE(IsRetryableTaskError(st)) << st.ToString();
}

TEST(TaskErrorTest, AReportRoundTripsAndJunkIsNoReport) {
  const Status st = Status::OutOfRange("smallint out of range");
  auto parsed = ParseTaskErrorReport("some output\n" + TaskErrorReport(st) + "\n");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->first, StatusCode::kOutOfRange);
  EXPECT_EQ(parsed->second, st.sqlstate());
  for (const char* junk : {"", "42\n", "error\n", "error 999 22012\n", "error 5 2201\n",
                           "error x 22012\n", "error 5 22012\nmore\n"})
    EXPECT_FALSE(ParseTaskErrorReport(junk).has_value()) << junk;
}

class TaskOutcomeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal-task-error-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<int64_t> Outcome(int wait_status, const std::string& out, const std::string& err) {
    std::ofstream(dir_ / "stdout") << out;
    std::ofstream(dir_ / "stderr") << err;
    return TaskOutcome(wait_status, (dir_ / "stdout").string(), (dir_ / "stderr").string());
  }

  fs::path dir_;
};

// The wait status of a child that ended as `body` makes it.
template <typename Body>
int WaitStatusOf(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_F(TaskOutcomeTest, ATasksOwnErrorKeepsItsCodeAndSqlStateAndIsNotRetried) {
  const int exit1 = WaitStatusOf([] { ::_exit(1); });
  const Status error = Status::OutOfRange("smallint out of range");
  Result<int64_t> r = Outcome(exit1, TaskErrorReport(error) + "\n",
                              "ERROR:  smallint out of range\nHINT:  cast to integer\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange) << r.status().ToString();
  EXPECT_EQ(r.status().sqlstate(), error.sqlstate());
  EXPECT_EQ(r.status().UserMessage(), "smallint out of range");
  EXPECT_EQ(r.status().hint(), "cast to integer");
  EXPECT_FALSE(IsRetryableTaskError(r.status()));
}

TEST_F(TaskOutcomeTest, AKilledTaskOrOneThatReportedNothingIsRetried) {
  const int killed = WaitStatusOf([] { ::raise(SIGKILL); });
  Result<int64_t> r = Outcome(killed, "", "");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsRetryableTaskError(r.status())) << r.status().ToString();
  EXPECT_NE(r.status().UserMessage().find("killed by signal 9"), std::string::npos);

  const int exit3 = WaitStatusOf([] { ::_exit(3); });
  r = Outcome(exit3, "", "terminate called without an active exception\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsRetryableTaskError(r.status())) << r.status().ToString();

  ASSERT_OK_AND_ASSIGN(int64_t rows, Outcome(0, "17\n", ""));
  EXPECT_EQ(rows, 17);
}

}  // namespace
}  // namespace shoal::distributed::shuffle

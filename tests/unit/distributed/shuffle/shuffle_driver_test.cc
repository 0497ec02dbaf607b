// The materialized-shuffle driver with real `shoal task` processes (the shoal binary): answers
// equal the single-node ones, a used directory is refused while unrelated files are fine, every
// stage of a union is shipped, a task killed mid-write is retried without changing the answer, a
// cancelled driver leaves no task running, and `shoal shuffle gc` empties the directory for another
// query.
#include "shoal/distributed/shuffle/shuffle_driver.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/engine/execution_modes.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;

class ShuffleDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("shoal-driver-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    for (auto* runner : {&single_, &shuffled_})
      ASSERT_OK(distributed_testing::LoadTpch(*runner, 2));
    ShuffleDriverOptions options;
    options.tpch_scale = "0.01";
    options.executable = SHOAL_BINARY;
    ASSERT_OK(engine::UseShuffleDriver(shuffled_, std::move(options)));
  }

  void TearDown() override {
    ::unsetenv("SHOAL_SHUFFLE_TEST_KILL_MARKER");
    ::unsetenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS");
    fs::remove_all(root_);
  }

  Status UseDir(const fs::path& dir) {
    return shuffled_.RunOne("SET shuffle_dir = '" + dir.string() + "'").status();
  }

  // Runs `sql` single-node and through the shuffle in `dir`; the rows must agree.
  void ExpectSameAnswer(const std::string& sql, const fs::path& dir) {
    ASSERT_OK(UseDir(dir));
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, shuffled_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected))
        << sql;
    EXPECT_GT(expected.num_rows(), 0);
  }

  // Stage files per stage id.
  static std::map<int, int> StageFiles(const fs::path& dir) {
    std::map<int, int> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (IsStageFileName(name))
        ++files[std::stoi(name.substr(6))];
    }
    return files;
  }

  fs::path root_;
  engine::QueryRunner single_;
  engine::QueryRunner shuffled_;
};

TEST_F(ShuffleDriverTest, TpchQueriesGiveTheSingleNodeAnswer) {
  for (int q : {1, 3, 13, 18}) {
    const fs::path dir = root_ / ("q" + std::to_string(q));
    ExpectSameAnswer(distributed_testing::TpchQuery(q), dir);
    // Q13 plans without a shuffle at SF 0.01 (one customer scan unit): it runs in the driver.
    if (q != 13) {
      EXPECT_FALSE(StageFiles(dir).empty()) << "q" << q << " ran no stage";
    }
  }
}

TEST_F(ShuffleDriverTest, AUnionWithAnAggregateInEachBranchShipsEveryStage) {
  const fs::path dir = root_ / "union";
  ExpectSameAnswer(
      "SELECT l_returnflag AS k, count(*) AS n FROM lineitem GROUP BY 1 "
      "UNION ALL SELECT o_orderstatus, count(*) FROM orders GROUP BY 1",
      dir);
  // Stage 1 passes the union's four partitions to the final coalesce; stages 2 and 3 are the
  // two branches' shuffles, two hash partitions each.
  std::map<int, int> files = StageFiles(dir);
  EXPECT_EQ(files, (std::map<int, int>{{1, 4}, {2, 2}, {3, 2}}));
  // Every stage partition had an envelope, and every envelope a stage file.
  std::map<int, int> envelopes;
  for (const auto& e : fs::directory_iterator(dir / "tasks")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("task-", 0) == 0 && e.path().extension() == ".envelope")
      ++envelopes[std::stoi(name.substr(5))];
  }
  EXPECT_EQ(envelopes, files);
}

TEST_F(ShuffleDriverTest, AUsedDirectoryIsRefusedAndUnrelatedFilesAreFine) {
  const fs::path dir = root_ / "used";
  fs::create_directories(dir / "subdir");
  std::ofstream(dir / "notes.txt") << "not a stage file\n";
  std::ofstream(dir / "stage-1-part-0.arrow.bak") << "not a stage file either\n";
  const std::string sql = distributed_testing::TpchQuery(1);
  ExpectSameAnswer(sql, dir);  // unrelated files are accepted

  auto again = shuffled_.RunOne(sql);  // the same directory now holds stage output
  ASSERT_EQ(again.status().code(), StatusCode::kInvalidArgument) << again.status().ToString();
  EXPECT_NE(again.status().UserMessage().find("already holds stage output"), std::string::npos)
      << again.status().UserMessage();
  EXPECT_NE(again.status().UserMessage().find("stage-1-part-0.arrow"), std::string::npos);
  EXPECT_NE(again.status().hint().find("shoal shuffle gc"), std::string::npos);

  // gc removes only the query's files; then the directory serves another query.
  ASSERT_OK_AND_ASSIGN(int64_t removed, RemoveShuffleFiles(dir.string()));
  EXPECT_GT(removed, 0);
  EXPECT_TRUE(StageFiles(dir).empty());
  EXPECT_FALSE(fs::exists(dir / "tasks"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir / "stage-1-part-0.arrow.bak"));
  EXPECT_TRUE(fs::exists(dir / "subdir"));
  ExpectSameAnswer(sql, dir);
}

TEST_F(ShuffleDriverTest, ExplainRunsNoTask) {
  const fs::path dir = root_ / "explain";
  ASSERT_OK(UseDir(dir));
  ASSERT_OK_AND_ASSIGN(auto result,
                       shuffled_.RunOne("EXPLAIN " + distributed_testing::TpchQuery(3)));
  std::string text;
  for (const auto& line : distributed_testing::SortedRows(result))
    text += line + "\n";
  EXPECT_NE(text.find("MaterializedShuffle"), std::string::npos) << text;
  EXPECT_NE(text.find("ShuffleStage"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir / "tasks"));
}

TEST_F(ShuffleDriverTest, ATaskKilledMidWriteIsRetriedAndTheAnswerIsUnchanged) {
  const fs::path dir = root_ / "killed";
  const fs::path marker = root_ / "killed.marker";
  ::setenv("SHOAL_SHUFFLE_TEST_KILL_MARKER", marker.c_str(), 1);
  ExpectSameAnswer(distributed_testing::TpchQuery(3), dir);
  ::unsetenv("SHOAL_SHUFFLE_TEST_KILL_MARKER");
  ASSERT_TRUE(fs::exists(marker)) << "no task was killed";
  // The killed writer left its temporary (never read: the answer is right) and was run again.
  int temporaries = 0;
  for (const auto& e : fs::directory_iterator(dir))
    temporaries += IsStageTemporaryName(e.path().filename().string()) ? 1 : 0;
  EXPECT_EQ(temporaries, 1);
  int second_attempts = 0;
  for (const auto& e : fs::directory_iterator(dir / "tasks")) {
    const std::string name = e.path().filename().string();
    second_attempts += name.find(".attempt-2.stdout") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(second_attempts, 1);
}

TEST_F(ShuffleDriverTest, TasksThatKeepFailingAreAllReportedTogether) {
  const fs::path dir = root_ / "failing";
  ASSERT_OK(UseDir(dir));
  ASSERT_OK(shuffled_.RunOne("SET shuffle_task_retries = 1").status());
  // Tasks start from a binary that cannot run them: every attempt fails.
  ShuffleDriverOptions options;
  options.tpch_scale = "0.01";
  options.executable = "/bin/false";
  ASSERT_OK(engine::UseShuffleDriver(shuffled_, std::move(options)));
  auto result = shuffled_.RunOne(
      "SELECT l_returnflag, count(*) FROM lineitem GROUP BY 1 "
      "UNION ALL SELECT o_orderstatus, count(*) FROM orders GROUP BY 1");
  ASSERT_FALSE(result.ok());
  const std::string message = result.status().UserMessage();
  // Both partitions of both level-0 stages, each with both attempts.
  EXPECT_NE(message.find("4 of the 4 tasks"), std::string::npos) << message;
  EXPECT_NE(message.find("after 2 attempts"), std::string::npos) << message;
  EXPECT_NE(message.find("exit status 1"), std::string::npos) << message;
  EXPECT_TRUE(distributed_testing::ProcessesMentioning(dir.string()).empty());
}

TEST_F(ShuffleDriverTest, ACancelledDriverLeavesNoTaskProcessRunning) {
  const fs::path dir = root_ / "cancelled";
  ASSERT_OK(UseDir(dir));
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Status status;
  std::thread query([&] { status = shuffled_.RunOne(distributed_testing::TpchQuery(3)).status(); });
  // Wait until task processes run, then cancel as Ctrl-C in `shoal sql` does.
  const bool started = shoal::testing::WaitFor(
      [&] { return !distributed_testing::ProcessesMentioning(dir.string()).empty(); },
      "a task process to start");
  shuffled_.CancelRunning();
  query.join();
  EXPECT_TRUE(started);
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_TRUE(distributed_testing::ProcessesMentioning(dir.string()).empty());
}

}  // namespace
}  // namespace shoal::distributed::shuffle

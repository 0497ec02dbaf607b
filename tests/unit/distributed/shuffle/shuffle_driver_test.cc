// The materialized-shuffle driver with real `shoal task` processes (the shoal binary): answers
// equal the single-node ones, every query gets its own directory (so any number run in one
// session's directory) removed when it ends, every stage of a union is shipped, a task killed
// mid-write is retried without changing the answer, a deterministic error is never retried, a
// cancelled driver leaves no task running, task processes are named `shoal task` in `ps`, and
// `shoal shuffle gc` deletes only what carries Shoal's marker.
#include "shoal/distributed/shuffle/shuffle_driver.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/map_output.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/task_process.h"
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
    // Most tests look at a query's files after it ran; the cleanup tests unset this.
    ::setenv("SHOAL_SHUFFLE_TEST_KEEP_FILES", "1", 1);
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
    ::unsetenv("SHOAL_SHUFFLE_TEST_KEEP_FILES");
    ::unsetenv("SHOAL_SHUFFLE_TEST_KILL_MARKER");
    ::unsetenv("SHOAL_SHUFFLE_TEST_KILL_BEFORE_COMMIT_MARKER");
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

  // The per-query directories q-<id>/ in a session's shuffle directory.
  static std::vector<fs::path> QueryDirs(const fs::path& dir) {
    std::vector<fs::path> dirs;
    if (!fs::exists(dir))
      return dirs;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory() && e.path().filename().string().rfind("q-", 0) == 0)
        dirs.push_back(e.path());
    }
    return dirs;
  }

  // The directory of the only query run in `dir` (empty when there is not exactly one).
  static fs::path QueryDir(const fs::path& dir) {
    std::vector<fs::path> dirs = QueryDirs(dir);
    return dirs.size() == 1 ? dirs[0] : fs::path();
  }

  // Stage files per stage id of the only query run in `dir`.
  static std::map<int, int> StageFiles(const fs::path& session_dir) {
    std::map<int, int> files;
    const fs::path dir = QueryDir(session_dir);
    if (dir.empty())
      return files;
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
  for (int q : {1, 3, 13, 15, 18}) {
    const fs::path dir = root_ / ("q" + std::to_string(q));
    ExpectSameAnswer(distributed_testing::TpchQuery(q), dir);
    // Q13 plans without a shuffle at SF 0.01 (one customer scan unit): it runs in the driver.
    if (q != 13) {
      EXPECT_FALSE(StageFiles(dir).empty()) << "q" << q << " ran no stage";
    }
    // Q15's view, read twice, is computed once by the driver: one lineitem stage, not two.
    if (q == 15) {
      EXPECT_EQ(StageFiles(dir).size(), 2u) << "lineitem's stage and supplier's";
    }
  }
}

TEST_F(ShuffleDriverTest, AUnionWithAnAggregateInEachBranchShipsEveryStage) {
  const fs::path dir = root_ / "union";
  ExpectSameAnswer(
      "SELECT l_returnflag AS k, count(*) AS n FROM lineitem GROUP BY 1 "
      "UNION ALL SELECT o_orderstatus, count(*) FROM orders GROUP BY 1",
      dir);
  // Stages 1 and 2 are the two branches' shuffles, two hash partitions each, written by two map
  // tasks each (one per scan partition): 2 x 2 files and two commits. The union of their final
  // aggregates reads only those files: the driver runs it, no stage of tasks passes it on.
  std::map<int, int> files = StageFiles(dir);
  EXPECT_EQ(files, (std::map<int, int>{{1, 4}, {2, 4}}));
  std::map<int, int> commits;
  for (const auto& e : fs::directory_iterator(QueryDir(dir))) {
    const std::string name = e.path().filename().string();
    if (IsMapCommitName(name))
      ++commits[std::stoi(name.substr(6))];
  }
  EXPECT_EQ(commits, (std::map<int, int>{{1, 2}, {2, 2}}));
  // Every task (here, every map task) had an envelope.
  std::map<int, int> envelopes;
  for (const auto& e : fs::directory_iterator(QueryDir(dir) / "tasks")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("task-", 0) == 0 && e.path().extension() == ".envelope")
      ++envelopes[std::stoi(name.substr(5))];
  }
  EXPECT_EQ(envelopes, (std::map<int, int>{{1, 2}, {2, 2}}));
}

// Regression: the second shuffling query of a session found the first one's stage files and was
// refused; and a failed query left its files behind.
TEST_F(ShuffleDriverTest, QueriesInOneDirectoryEachGetTheirOwnAndLeaveNothingBehind) {
  ::unsetenv("SHOAL_SHUFFLE_TEST_KEEP_FILES");
  const fs::path dir = root_ / "session";
  fs::create_directories(dir / "subdir");
  std::ofstream(dir / "notes.txt") << "not a stage file\n";
  const std::string sql = distributed_testing::TpchQuery(1);
  for (int run = 0; run < 3; ++run) {
    ExpectSameAnswer(run == 1 ? distributed_testing::TpchQuery(3) : sql, dir);
    EXPECT_TRUE(QueryDirs(dir).empty()) << "run " << run << " left its directory";
  }
  // A failed query (a division by zero in its tasks) removes its directory too.
  auto failed = shuffled_.RunOne(
      "SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) FROM lineitem "
      "GROUP BY 1");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(QueryDirs(dir).empty());
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir / "subdir"));
  EXPECT_TRUE(IsMarkedShuffleDir(dir.string()));
}

// Regression: `shoal shuffle gc DIR` deleted any tasks/ and q-<hex>/ folder of any directory.
TEST_F(ShuffleDriverTest, GcDeletesOnlyWhatCarriesTheMarker) {
  const fs::path foreign = root_ / "foreign";
  fs::create_directories(foreign / "tasks");
  fs::create_directories(foreign / "q-abc");
  std::ofstream(foreign / "q-abc" / "data") << "someone's data\n";
  std::ofstream(foreign / "stage-1-part-0.arrow") << "not ours\n";
  auto refused = RemoveShuffleFiles(foreign.string());
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().UserMessage().find("not a Shoal shuffle directory"), std::string::npos)
      << refused.status().UserMessage();
  EXPECT_TRUE(fs::exists(foreign / "tasks"));
  EXPECT_TRUE(fs::exists(foreign / "q-abc" / "data"));
  EXPECT_TRUE(fs::exists(foreign / "stage-1-part-0.arrow"));

  // A shuffle directory a query ran in: its query directory goes, nothing else does.
  const fs::path dir = root_ / "used";
  ExpectSameAnswer(distributed_testing::TpchQuery(1), dir);
  ASSERT_FALSE(QueryDir(dir).empty());
  fs::create_directories(dir / "q-0ff" / "tasks");  // looks like Shoal's, has no marker
  fs::create_directories(dir / "tasks");
  ASSERT_OK_AND_ASSIGN(int64_t removed, RemoveShuffleFiles(dir.string()));
  EXPECT_GT(removed, 0);
  EXPECT_EQ(QueryDirs(dir), std::vector<fs::path>{dir / "q-0ff"});
  EXPECT_TRUE(fs::exists(dir / "tasks"));
  EXPECT_TRUE(IsMarkedShuffleDir(dir.string()));
}

// Regression: a division by zero in a task was run 1 + shuffle_task_retries times, and reached
// the user as a transport failure (Unavailable) instead of SQLSTATE 22012.
TEST_F(ShuffleDriverTest, ADeterministicErrorIsNeverRetried) {
  const fs::path dir = root_ / "deterministic";
  ASSERT_OK(UseDir(dir));
  auto result = shuffled_.RunOne(
      "SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) FROM lineitem "
      "GROUP BY 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "22012") << result.status().ToString();
  EXPECT_NE(result.status().UserMessage().find("division by zero"), std::string::npos)
      << result.status().UserMessage();
  const fs::path query = QueryDir(dir);
  ASSERT_FALSE(query.empty());
  int first = 0;
  int retried = 0;
  for (const auto& e : fs::directory_iterator(query / "tasks")) {
    const std::string name = e.path().filename().string();
    first += name.find(".attempt-1.stdout") != std::string::npos ? 1 : 0;
    retried += name.find(".attempt-2.stdout") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(first, 0);
  EXPECT_EQ(retried, 0);
}

// Regression: task processes showed in `ps` as "/proc/self/exe task ...".
TEST_F(ShuffleDriverTest, TaskProcessesAreNamedShoalTask) {
  const fs::path dir = root_ / "named";
  ASSERT_OK(UseDir(dir));
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Status status;
  std::thread query([&] { status = shuffled_.RunOne(distributed_testing::TpchQuery(3)).status(); });
  std::vector<int> pids;
  const bool started = shoal::testing::WaitFor(
      [&] {
        pids = distributed_testing::ProcessesMentioning(dir.string());
        return !pids.empty();
      },
      "a task process to start");
  std::string cmdline;
  if (started) {
    std::ifstream in("/proc/" + std::to_string(pids[0]) + "/cmdline", std::ios::binary);
    cmdline.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  shuffled_.CancelRunning();
  query.join();
  ASSERT_TRUE(started);
  EXPECT_EQ(cmdline.substr(0, cmdline.find('\0')), "shoal") << cmdline;
  EXPECT_EQ(cmdline.rfind(std::string("shoal\0task\0", 11), 0), 0u) << cmdline;
  EXPECT_EQ(cmdline.find("/proc/self/exe"), std::string::npos) << cmdline;
  // The default executable is this process's link, which execs a file named "exe": the real path
  // is run instead.
  EXPECT_EQ(ResolveTaskExecutable("/proc/self/exe"), fs::read_symlink("/proc/self/exe").string());
  EXPECT_EQ(ResolveTaskExecutable("/usr/bin/shoal"), "/usr/bin/shoal");
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
  for (const auto& e : fs::directory_iterator(QueryDir(dir)))
    temporaries += IsStageTemporaryName(e.path().filename().string()) ? 1 : 0;
  EXPECT_EQ(temporaries, 1);
  int second_attempts = 0;
  for (const auto& e : fs::directory_iterator(QueryDir(dir) / "tasks")) {
    const std::string name = e.path().filename().string();
    second_attempts += name.find(".attempt-2.stdout") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(second_attempts, 1);
}

// A map task killed after publishing all its partition files but before its commit: the
// reducers read the retry's committed attempt only, and the answer is unchanged.
TEST_F(ShuffleDriverTest, AMapTaskKilledBeforeItsCommitIsRetriedAndItsFilesAreNeverRead) {
  const fs::path dir = root_ / "uncommitted";
  const fs::path marker = root_ / "uncommitted.marker";
  ::setenv("SHOAL_SHUFFLE_TEST_KILL_BEFORE_COMMIT_MARKER", marker.c_str(), 1);
  ExpectSameAnswer(distributed_testing::TpchQuery(3), dir);
  ::unsetenv("SHOAL_SHUFFLE_TEST_KILL_BEFORE_COMMIT_MARKER");
  ASSERT_TRUE(fs::exists(marker)) << "no map task was killed";
  // Exactly one map committed its second attempt, and the killed first attempt's files are all
  // there, published under attempt 1's names: the right answer above did not read them.
  std::vector<std::string> retried;  // "stage-s-map-m"
  for (const auto& e : fs::directory_iterator(QueryDir(dir))) {
    const std::string name = e.path().filename().string();
    if (!IsMapCommitName(name))
      continue;
    ASSERT_OK_AND_ASSIGN(std::string commit, ReadWholeFile(e.path().string()));
    if (commit.find("attempt 2\n") != std::string::npos)
      retried.push_back(name.substr(0, name.size() - std::string(".commit").size()));
  }
  ASSERT_EQ(retried.size(), 1u);
  int first_attempt_files = 0;
  for (const auto& e : fs::directory_iterator(QueryDir(dir))) {
    const std::string name = e.path().filename().string();
    first_attempt_files += name.rfind(retried[0] + "-attempt-1-part-", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(first_attempt_files, 2);  // both hash partitions (threads = 2)
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

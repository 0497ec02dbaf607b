// The task launcher with real processes (the shoal binary): a task forked by it runs the `shoal
// task` body and its report is read; a killed task is reported as killed by signal 9; a launcher
// killed while a task runs fails that task as retryable and the next task starts a new launcher;
// nothing outlives a launcher, a cancelled query or its driver. A task whose stdout is a FIFO
// nobody reads blocks opening it: a task that runs until killed, whatever its envelope.
#include "shoal/distributed/shuffle/task_launcher.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/task_error.h"
#include "shoal/distributed/shuffle/task_process.h"
#include "shoal/engine/execution_modes.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Gone: no such process, or a zombie (dead; its new parent reaps it).
bool ProcessGone(pid_t pid) {
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty())
    return true;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

// The launchers this process started that still run.
std::vector<pid_t> Launchers() {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const std::string stat = ReadText(entry.path() / "stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos || ProcessGone(std::stoi(name)))
      continue;
    if (std::atoi(stat.c_str() + paren + 4) != ::getpid())  // ") S PPID"
      continue;
    if (ReadText(entry.path() / "cmdline").find(std::string("\0--launcher\0", 12)) !=
        std::string::npos)
      pids.push_back(std::stoi(name));
  }
  return pids;
}

class TaskLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("shoal-launcher-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }

  void TearDown() override { fs::remove_all(root_); }

  // A task that runs until killed: its stdout is a FIFO that nobody opens for reading.
  Result<LaunchedTask> SpawnBlockedTask(TaskLauncher& launcher) {
    const fs::path fifo = root_ / "blocked.stdout";
    if (::mkfifo(fifo.c_str(), 0600) != 0)
      return Status::IoError("mkfifo {}", fifo.string());
    return launcher.Spawn((root_ / "none.envelope").string(), fifo.string(),
                          (root_ / "blocked.stderr").string());
  }

  fs::path root_;
};

TEST_F(TaskLauncherTest, ATaskRunsThroughTheLauncherAndItsReportIsRead) {
  ASSERT_OK_AND_ASSIGN(auto launcher, TaskLauncher::Start(SHOAL_BINARY));
  const fs::path envelope = root_ / "task-1-0.envelope";
  std::ofstream(envelope) << "not an envelope";
  const std::string out = (root_ / "task.stdout").string();
  const std::string err = (root_ / "task.stderr").string();
  ASSERT_OK_AND_ASSIGN(LaunchedTask task, launcher->Spawn(envelope.string(), out, err));
  EXPECT_NE(task.pid, launcher->pid());
  ASSERT_OK_AND_ASSIGN(int status, launcher->WaitExit(task, std::chrono::seconds(60)));
  // What `shoal task ENVELOPE` does with a bad envelope: the error report on stdout, the message
  // on stderr, exit status 1; the driver reads the code from the report.
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << DescribeTaskExit(status);
  Result<int64_t> rows = TaskOutcome(status, out, err);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), StatusCode::kInvalidData) << rows.status().ToString();
  EXPECT_NE(rows.status().UserMessage().find("is not a shuffle task envelope"), std::string::npos)
      << rows.status().ToString();
  EXPECT_NE(ReadText(err).find("ERROR:  "), std::string::npos);
  // Reported once.
  EXPECT_FALSE(launcher->TakeExit(task).has_value());
}

TEST_F(TaskLauncherTest, AKilledTaskIsReportedAsKilledBySignal9) {
  ASSERT_OK_AND_ASSIGN(auto launcher, TaskLauncher::Start(SHOAL_BINARY));
  ASSERT_OK_AND_ASSIGN(LaunchedTask task, SpawnBlockedTask(*launcher));
  EXPECT_FALSE(launcher->TakeExit(task).has_value());
  // Its own process group, as the driver kills it.
  ASSERT_TRUE(shoal::testing::WaitFor([&] { return ::getpgid(task.pid) == task.pid; },
                                      "the task to lead its own process group"));
  ASSERT_EQ(::kill(-task.pid, SIGKILL), 0);
  ASSERT_OK_AND_ASSIGN(int status, launcher->WaitExit(task, std::chrono::seconds(60)));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << DescribeTaskExit(status);
  EXPECT_EQ(DescribeTaskExit(status).rfind("killed by signal 9", 0), 0u);
  EXPECT_TRUE(launcher->alive());
}

TEST_F(TaskLauncherTest, ALauncherKilledMidTaskFailsItAsRetryableAndTheNextTaskStartsANewOne) {
  SharedTaskLauncher shared;
  std::shared_ptr<TaskLauncher> first = shared.Get(SHOAL_BINARY);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(shared.Get(SHOAL_BINARY), first);  // one per driver
  ASSERT_OK_AND_ASSIGN(LaunchedTask task, SpawnBlockedTask(*first));
  ASSERT_EQ(::kill(first->pid(), SIGKILL), 0);
  Result<int> status = first->WaitExit(task, std::chrono::seconds(60));
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(IsRetryableTaskError(status.status())) << status.status().ToString();
  EXPECT_NE(status.status().UserMessage().find("killed by signal 9"), std::string::npos)
      << status.status().ToString();
  EXPECT_TRUE(shoal::testing::WaitFor([&] { return ProcessGone(task.pid); },
                                      "the task to die with its launcher"));
  EXPECT_FALSE(first->alive());
  std::shared_ptr<TaskLauncher> second = shared.Get(SHOAL_BINARY);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_NE(second->pid(), first->pid());
  const fs::path envelope = root_ / "next.envelope";
  std::ofstream(envelope) << "not an envelope";
  ASSERT_OK_AND_ASSIGN(LaunchedTask next,
                       second->Spawn(envelope.string(), (root_ / "next.stdout").string(),
                                     (root_ / "next.stderr").string()));
  ASSERT_OK_AND_ASSIGN(int next_status, second->WaitExit(next, std::chrono::seconds(60)));
  EXPECT_TRUE(WIFEXITED(next_status) && WEXITSTATUS(next_status) == 1)
      << DescribeTaskExit(next_status);
}

TEST_F(TaskLauncherTest, NothingOutlivesItsLauncher) {
  ASSERT_OK_AND_ASSIGN(auto launcher, TaskLauncher::Start(SHOAL_BINARY));
  ASSERT_OK_AND_ASSIGN(LaunchedTask task, SpawnBlockedTask(*launcher));
  const pid_t launcher_pid = launcher->pid();
  launcher.reset();
  EXPECT_TRUE(ProcessGone(launcher_pid));  // reaped by its reader before the destructor returned
  EXPECT_TRUE(shoal::testing::WaitFor([&] { return ProcessGone(task.pid); },
                                      "the task to die with its launcher"));
}

// The launcher resolves its dynamic symbols when it starts, so that the tasks it forks inherit
// them bound instead of each resolving them again; the driver's own environment is unchanged, and
// the launcher keeps the rest of it.
TEST_F(TaskLauncherTest, TheLauncherBindsItsSymbolsAtStartAndKeepsTheDriversEnvironment) {
  auto bind_now = [] {
    const char* value = std::getenv("LD_BIND_NOW");
    return value == nullptr ? std::string("(unset)") : std::string(value);
  };
  const std::string driver_bind_now = bind_now();
  ::setenv("SHOAL_LAUNCHER_TEST_MARK", "kept", 1);
  ASSERT_OK_AND_ASSIGN(auto launcher, TaskLauncher::Start(SHOAL_BINARY));
  ::unsetenv("SHOAL_LAUNCHER_TEST_MARK");
  EXPECT_EQ(bind_now(), driver_bind_now);
  const std::string block = ReadText("/proc/" + std::to_string(launcher->pid()) + "/environ");
  std::vector<std::string> entries;
  for (size_t at = 0; at < block.size();) {
    const size_t end = std::min(block.find('\0', at), block.size());
    entries.push_back(block.substr(at, end - at));
    at = end + 1;
  }
  EXPECT_EQ(std::count(entries.begin(), entries.end(), "LD_BIND_NOW=1"), 1);
  EXPECT_EQ(std::count_if(entries.begin(), entries.end(),
                          [](const std::string& e) { return e.rfind("LD_BIND_NOW=", 0) == 0; }),
            1);
  EXPECT_EQ(std::count(entries.begin(), entries.end(), "SHOAL_LAUNCHER_TEST_MARK=kept"), 1);
}

// The launcher's malloc backs its heaps with huge pages, so that the tasks it forks do not fault
// their memory in page by page (glibc.malloc.hugetlb=1 in its environment). glibc rewrites
// GLIBC_TUNABLES in place when it reads it, so what is checked is the effect: the heap is advised
// (VmFlags "hg"), which glibc does only when the kernel's mode is "madvise".
TEST_F(TaskLauncherTest, TheLauncherAdvisesHugePagesForItsHeap) {
#if defined(SHOAL_SANITIZE_BUILD)
  GTEST_SKIP() << "under a sanitizer malloc is the sanitizer's: glibc's tunables do not apply";
#endif
  const std::string mode = ReadText("/sys/kernel/mm/transparent_hugepage/enabled");
  if (mode.find("[madvise]") == std::string::npos)
    GTEST_SKIP() << "transparent huge pages are '" << mode
                 << "' here, not madvise: glibc advises nothing";
  const char* before = std::getenv("GLIBC_TUNABLES");
  ASSERT_EQ(before, nullptr) << "the test needs a driver without GLIBC_TUNABLES";
  ASSERT_OK_AND_ASSIGN(auto launcher, TaskLauncher::Start(SHOAL_BINARY));
  std::istringstream smaps(ReadText("/proc/" + std::to_string(launcher->pid()) + "/smaps"));
  bool in_heap = false;
  std::string flags;
  for (std::string line; std::getline(smaps, line);) {
    const std::string first = line.substr(0, line.find(' '));
    if (first.back() != ':')  // a mapping's header line: "start-end perms offset dev inode path"
      in_heap = line.find("[heap]") != std::string::npos;
    if (in_heap && line.rfind("VmFlags:", 0) == 0)
      flags = line;
  }
  ASSERT_FALSE(flags.empty()) << "the launcher has no [heap] mapping";
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;
}

// What a launcher does before it forks any task may not start a thread: it refuses to fork with
// more than one.
TEST(PrepareProcessForTasksTest, StartsNoThread) {
  auto threads = [] {
    return std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator());
  };
  const auto before = threads();
  PrepareProcessForTasks();
  EXPECT_EQ(threads(), before);
}

TEST_F(TaskLauncherTest, ALauncherThatCannotStartIsRefused) {
  auto started = TaskLauncher::Start("/bin/false");
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().UserMessage().find("exit status 1"), std::string::npos)
      << started.status().ToString();
  // The driver then starts its tasks itself.
  SharedTaskLauncher shared;
  EXPECT_EQ(shared.Get("/bin/false"), nullptr);
}

// The same through a driver: queries run their tasks through one launcher, a launcher killed
// mid-query costs its tasks one retry each, and no process outlives a cancelled query or the
// driver.
class TaskLauncherDriverTest : public TaskLauncherTest {
 protected:
  void SetUp() override {
    TaskLauncherTest::SetUp();
    dir_ = root_ / "shuffle";
    ::setenv("SHOAL_SHUFFLE_TEST_KEEP_FILES", "1", 1);
    for (auto* runner : {&single_, shuffled_.get()})
      ASSERT_OK(distributed_testing::LoadTpch(*runner, 2));
    ShuffleDriverOptions options;
    options.tpch_scale = "0.01";
    options.executable = SHOAL_BINARY;
    ASSERT_OK(engine::UseShuffleDriver(*shuffled_, std::move(options)));
    ASSERT_OK(shuffled_->RunOne("SET shuffle_dir = '" + dir_.string() + "'").status());
  }

  void TearDown() override {
    ::unsetenv("SHOAL_SHUFFLE_TEST_KEEP_FILES");
    ::unsetenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS");
    TaskLauncherTest::TearDown();
  }

  void ExpectSameAnswer(const std::string& sql) {
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, shuffled_->RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected));
  }

  // Task attempts whose stdout files name `attempt` in the queries' directories.
  int Attempts(int attempt) const {
    int n = 0;
    const std::string suffix = ".attempt-" + std::to_string(attempt) + ".stdout";
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      n += e.path().filename().string().find(suffix) != std::string::npos ? 1 : 0;
    return n;
  }

  const std::string kQuery =
      "SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY 1";
  fs::path dir_;
  engine::QueryRunner single_;
  std::unique_ptr<engine::QueryRunner> shuffled_ = std::make_unique<engine::QueryRunner>();
};

TEST_F(TaskLauncherDriverTest, QueriesShareOneLauncher) {
  EXPECT_TRUE(Launchers().empty());  // started at the first task, not before
  ExpectSameAnswer(kQuery);
  const std::vector<pid_t> launchers = Launchers();
  ASSERT_EQ(launchers.size(), 1u);
  ExpectSameAnswer(distributed_testing::TpchQuery(3));
  EXPECT_EQ(Launchers(), launchers);
  EXPECT_GT(Attempts(1), 0);
  EXPECT_EQ(Attempts(2), 0);
}

TEST_F(TaskLauncherDriverTest, ALauncherKilledMidQueryCostsItsTasksARetryOnANewOne) {
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Result<engine::QueryResult> result = Status::Internal("not run");
  std::thread query([&] { result = shuffled_->RunOne(kQuery); });
  std::vector<pid_t> launchers;
  const bool started = shoal::testing::WaitFor(
      [&] {
        launchers = Launchers();
        return !launchers.empty() &&
               !distributed_testing::ProcessesMentioning(dir_.string()).empty();
      },
      "a task to start");
  // A task reads the environment the driver had when it asked: the retries do not wait.
  ::unsetenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS");
  if (started)
    ::kill(launchers[0], SIGKILL);
  query.join();
  ASSERT_TRUE(started);
  ASSERT_OK(result.status());
  ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(kQuery));
  EXPECT_EQ(distributed_testing::SortedRows(*result), distributed_testing::SortedRows(expected));
  EXPECT_GT(Attempts(2), 0);
  const std::vector<pid_t> now = Launchers();
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], launchers[0]);
}

TEST_F(TaskLauncherDriverTest, NoProcessOutlivesACancelledQueryOrTheDriver) {
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Status status;
  std::thread query([&] { status = shuffled_->RunOne(kQuery).status(); });
  const bool started = shoal::testing::WaitFor(
      [&] { return !distributed_testing::ProcessesMentioning(dir_.string()).empty(); },
      "a task to start");
  shuffled_->CancelRunning();
  query.join();
  ASSERT_TRUE(started);
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  // The query's tasks are gone when it returns; the launcher waits for the next query.
  EXPECT_TRUE(distributed_testing::ProcessesMentioning(dir_.string()).empty());
  ASSERT_EQ(Launchers().size(), 1u);
  shuffled_.reset();
  EXPECT_TRUE(Launchers().empty());
}

}  // namespace
}  // namespace shoal::distributed::shuffle

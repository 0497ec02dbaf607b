// The distributed slt configurations: over in-process workers and over `shoal worker` processes a
// file's queries really run as stages on several workers (even over tables of a few rows), the
// file shuffle really runs `shoal task` processes and removes its directories, and worker
// processes are gone after Stop and when their parent dies, even by SIGKILL.
#include "tests/slt/distributed_modes.h"

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shoal/columnar/scalar.h"
#include "tests/slt/worker_processes.h"
#include "tests/support/gtest_util.h"

namespace shoal::slt {
namespace {

namespace fs = std::filesystem;

bool Alive(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

// Waits until `pid` no longer exists (it may be another process's child, so no waitpid).
bool WaitUntilGone(pid_t pid, std::chrono::seconds timeout = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Alive(pid)) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a condition
  }
  return true;
}

std::string Text(const QueryResult& result) {
  std::string text;
  for (const auto& batch : result.batches)
    for (int64_t r = 0; r < batch->num_rows(); ++r)
      text += columnar::Scalar::FromArray(*batch->column(0), r).ToString() + "\n";
  return text;
}

// A table of a few rows in three INSERTs (three scan units), then the EXPLAIN ANALYZE text of an
// aggregation over it.
std::string ExplainAnalyzeAggregate(SltEngine& engine) {
  for (const char* sql :
       {"CREATE TABLE p (k int, g text)", "INSERT INTO p VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO p VALUES (3, 'a'), (4, 'c')", "INSERT INTO p VALUES (5, 'a'), (6, 'c')"}) {
    auto st = engine.Execute(sql);
    EXPECT_OK(st.status()) << sql;
  }
  auto explain = engine.Execute("EXPLAIN ANALYZE SELECT g, count(*) FROM p GROUP BY g ORDER BY g");
  EXPECT_OK(explain.status());
  auto rows = engine.Execute("SELECT g, count(*) FROM p GROUP BY g ORDER BY g");
  EXPECT_OK(rows.status());
  if (rows.ok()) {
    EXPECT_EQ(Text(*rows), "a\nb\nc\n");
  }
  return explain.ok() ? Text(*explain) : "";
}

// The workers named in the "#<task> on WORKER (rows=...)" entries of a distributed EXPLAIN
// ANALYZE.
std::set<std::string> WorkersThatRanTasks(const std::string& text) {
  std::set<std::string> workers;
  for (size_t at = text.find(" on "); at != std::string::npos; at = text.find(" on ", at + 1)) {
    const size_t task = text.rfind('#', at);
    if (task == std::string::npos || text.find_first_not_of("0123456789", task + 1) != at ||
        at == task + 1)
      continue;
    const size_t end = text.find(' ', at + 4);
    workers.insert(text.substr(at + 4, end - at - 4));
  }
  return workers;
}

TEST(DistributedModesTest, InProcessWorkersRunTinyTablesAsStagesOnEveryWorker) {
  ASSERT_OK_AND_ASSIGN(auto engine,
                       ShoalSltEngine::Make("inproc3", WorkerSettings(), MakeInProcessMode(3)));
  EXPECT_TRUE(engine->MatchesCondition("distributed"));
  EXPECT_FALSE(engine->MatchesCondition("local"));
  const std::string text = ExplainAnalyzeAggregate(*engine);
  EXPECT_NE(text.find("NetworkShuffle: stage=1, tasks=3"), std::string::npos) << text;
  EXPECT_NE(text.find("NetworkCoalesce: stage=2"), std::string::npos) << text;
  EXPECT_EQ(WorkersThatRanTasks(text), (std::set<std::string>{"inproc-1", "inproc-2", "inproc-3"}))
      << text;
}

TEST(DistributedModesTest, WorkerProcessesRunTheFilesTablesAndStopLeavingNoProcess) {
  SltRunModePtr mode = MakeWorkerProcessesMode(2, SHOAL_BINARY);
  std::string text;
  {
    ASSERT_OK_AND_ASSIGN(auto engine, ShoalSltEngine::Make("grpc2", WorkerSettings(), mode));
    text = ExplainAnalyzeAggregate(*engine);
  }
  // The workers hold no tables: the file's table travelled inside the plans.
  std::set<std::string> workers = WorkersThatRanTasks(text);
  EXPECT_EQ(workers.size(), 2u) << text;
  for (const auto& w : workers)
    EXPECT_EQ(w.rfind("127.0.0.1:", 0), 0u) << w;
  EXPECT_NE(text.find("NetworkShuffle"), std::string::npos) << text;
}

TEST(DistributedModesTest, WorkerProcessesAreGoneAfterStopAndWhenTheirParentIsKilled) {
  ASSERT_OK_AND_ASSIGN(auto workers, WorkerProcesses::Start(SHOAL_BINARY, 2));
  std::vector<pid_t> pids = workers->pids();
  ASSERT_EQ(pids.size(), 2u);
  ASSERT_EQ(workers->addresses().size(), 2u);
  for (pid_t pid : pids)
    EXPECT_TRUE(Alive(pid));
  workers->Stop();
  for (pid_t pid : pids)
    EXPECT_FALSE(Alive(pid)) << pid;  // stopped and reaped
  EXPECT_TRUE(workers->pids().empty());

  // A parent that starts workers and is killed: its workers die with it.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    ::close(report[0]);
    auto started = WorkerProcesses::Start(SHOAL_BINARY, 2);
    if (!started.ok())
      ::_exit(1);
    for (pid_t pid : (*started)->pids())
      (void)!::write(report[1], &pid, sizeof(pid));
    ::close(report[1]);
    for (;;)
      ::pause();  // until killed
  }
  ::close(report[1]);
  // The child writes each pid on its own, so a pipe read may return the first alone: read until
  // both arrived or the child closed its end. The parent is killed before anything is asserted,
  // so a failure cannot leave it (and the test's output pipe) behind.
  std::vector<pid_t> orphans(2, -1);
  auto* bytes = reinterpret_cast<char*>(orphans.data());
  const size_t wanted = sizeof(pid_t) * orphans.size();
  size_t got = 0;
  while (got < wanted) {
    const ssize_t n = ::read(report[0], bytes + got, wanted - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(report[0]);
  ::kill(parent, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(parent, &status, 0), parent);
  ASSERT_EQ(got, wanted) << "the child reported " << got << " of " << wanted << " bytes of pids";
  for (pid_t pid : orphans)
    EXPECT_TRUE(WaitUntilGone(pid)) << "worker " << pid << " outlived its parent";
}

TEST(DistributedModesTest, TheFileShuffleRunsTaskProcessesAndRemovesItsDirectories) {
  std::string text;
  {
    ASSERT_OK_AND_ASSIGN(auto engine, ShoalSltEngine::Make("shuffle", ShuffleSettings(),
                                                           MakeFileShuffleMode(SHOAL_BINARY)));
    text = ExplainAnalyzeAggregate(*engine);
  }
  EXPECT_NE(text.find("MaterializedShuffle: dir="), std::string::npos) << text;
  EXPECT_NE(text.find("task_processes="), std::string::npos) << text;
  EXPECT_EQ(text.find("task_processes=0"), std::string::npos) << text;
  // The statement's directory, and with the engine the whole root, are gone.
  const size_t at = text.find("dir=") + 4;
  const fs::path dir = text.substr(at, text.find(',', at) - at);
  EXPECT_FALSE(dir.empty());
  EXPECT_FALSE(fs::exists(dir)) << dir;
  EXPECT_FALSE(fs::exists(dir.parent_path())) << dir.parent_path();
}

}  // namespace
}  // namespace shoal::slt

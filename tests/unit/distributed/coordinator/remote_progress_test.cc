// RemoteProgress: the workers' task figures summed per stage against what the coordinator noted
// at dispatch, a task done when its worker says so or once it is gone from the worker that
// listed it, and figures that never go back.
#include "shoal/distributed/coordinator/remote_progress.h"

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/fake_worker_cluster.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

using shoal::testing::FakeWorkerCluster;
using shoal::testing::FakeWorkerState;

void Set(FakeWorkerState& w, std::vector<TaskProgress> tasks) {
  std::lock_guard<std::mutex> lock(w.mutex);
  w.tasks = std::move(tasks);
}

int Calls(FakeWorkerState& w) {
  std::lock_guard<std::mutex> lock(w.mutex);
  return w.progress_calls;
}

TEST(RemoteProgressTest, SumsEachStageAndCountsItsDoneTasks) {
  auto cluster = std::make_shared<FakeWorkerCluster>();
  auto a = cluster->Add("a:1");
  auto b = cluster->Add("b:1");
  RemoteProgress progress(cluster, {"a:1", "b:1"}, "q1");
  // Stage 1 scans 1000 bytes in two tasks; stage 2 reads stage 1 in three; stage 3 is not
  // dispatched yet (adaptive): not listed until a worker shows one of its tasks.
  progress.AddStage(1, 2, 1000);
  progress.AddStage(2, 3, 0);
  Set(*a, {{1, 0, 300, 10, false}, {2, 0, 0, 4, true}});
  Set(*b, {{1, 1, 200, 20, true}, {2, 1, 0, 5, false}});

  exec::QueryProgress::Remote r = progress.Read();
  EXPECT_EQ(r.bytes_read, 500);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].stage_id, 1);
  EXPECT_EQ(r.stages[0].bytes_total, 1000);
  EXPECT_EQ(r.stages[0].bytes_read, 500);
  EXPECT_EQ(r.stages[0].rows, 30);
  EXPECT_EQ(r.stages[0].tasks_done, 1);
  EXPECT_EQ(r.stages[0].tasks_total, 2);
  EXPECT_EQ(r.stages[1].stage_id, 2);
  EXPECT_EQ(r.stages[1].bytes_total, 0);
  EXPECT_EQ(r.stages[1].rows, 9);
  EXPECT_EQ(r.stages[1].tasks_done, 1);
  EXPECT_EQ(r.stages[1].tasks_total, 3);
  // Per worker, by address: stage 1 runs one task on a and finished one on b.
  auto workers = [](const exec::QueryProgress::StageProgress& s) {
    std::vector<std::string> out;
    for (const auto& w : s.workers)
      out.push_back(fmt::format("{} {}/{}", w.worker, w.running, w.done));
    return out;
  };
  EXPECT_EQ(workers(r.stages[0]), (std::vector<std::string>{"a:1 1/0", "b:1 0/1"}));
  EXPECT_EQ(workers(r.stages[1]), (std::vector<std::string>{"a:1 0/1", "b:1 1/0"}));
  // A reader within the poll interval gets the last figures without asking again.
  const int calls = Calls(*a);
  EXPECT_EQ(progress.Read().bytes_read, 500);
  EXPECT_EQ(Calls(*a), calls);

  // Task 1/0 ended and left worker a; worker b does not answer: its figures stay.
  Set(*a, {{2, 0, 0, 4, true}});
  {
    std::lock_guard<std::mutex> lock(b->mutex);
    b->up = false;
  }
  ASSERT_TRUE(shoal::testing::WaitFor([&] { return progress.Read().stages[0].tasks_done == 2; },
                                      "the next poll to see task 1/0 gone"));
  r = progress.Read();
  EXPECT_EQ(r.bytes_read, 500);
  EXPECT_EQ(r.stages[0].rows, 30);
  EXPECT_EQ(r.stages[1].tasks_done, 1);  // b's task 2/1 was not done, and b did not answer
  EXPECT_EQ(workers(r.stages[0]), (std::vector<std::string>{"a:1 0/1", "b:1 0/1"}));
  for (const auto& w : {a, b}) {
    std::lock_guard<std::mutex> lock(w->mutex);
    EXPECT_EQ(w->progress_queries, std::set<std::string>{"q1"});
  }
}

}  // namespace
}  // namespace shoal::distributed

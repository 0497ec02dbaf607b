// Worker lifecycle and failures: versions are reported and checked, workers hold no task and no
// memory after a query completes, fails or is cancelled, a task outliving the TTL is dropped, an
// unreachable worker fails fast with its address, and a worker's error reaches the user with the
// worker's address, stage, task and the original message.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

using shoal::testing::WaitFor;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  // Two gRPC workers in this process reporting `version` (default threads).
  void StartGrpcWorkers(const std::string& version) {
    WorkerServiceOptions w;
    w.version = version;
    w.catalog = runner_.session().catalog();
    ASSERT_OK(workers_.Start(2, w));
  }

  Result<std::shared_ptr<Coordinator>> MakeCoordinator(const std::string& version) {
    return Coordinator::Make(
        distributed_testing::CoordinatorFor(workers_.addresses, workers_.channels, version));
  }

  bool AllClean() const {
    for (const auto& s : workers_.services) {
      if (s->num_tasks() != 0 || s->bytes_used() != 0)
        return false;
    }
    return true;
  }

  engine::QueryRunner runner_;
  distributed_testing::GrpcTestCluster workers_;
};

TEST_F(LifecycleTest, VersionsAreReportedAndChecked) {
  StartGrpcWorkers("1.2.3-test");
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, workers_.channels->Connect(workers_.addresses[0]));
  ASSERT_OK_AND_ASSIGN(WorkerInfo info, channel->GetWorkerInfo());
  EXPECT_EQ(info.version, "1.2.3-test");
  EXPECT_FALSE(info.codec_ids.empty());
  // Over gRPC too: what it holds now (nothing: no query ran), for the console's cluster view.
  EXPECT_EQ(info.memory_used, 0);
  EXPECT_GE(info.memory_limit, 0);
  EXPECT_EQ(info.running_tasks, 0);
  ASSERT_OK_AND_ASSIGN(auto same, MakeCoordinator("1.2.3-test"));
  EXPECT_OK(same->CheckWorkers());
  ASSERT_OK_AND_ASSIGN(auto unchecked, MakeCoordinator(""));
  EXPECT_OK(unchecked->CheckWorkers());
  ASSERT_OK_AND_ASSIGN(auto other, MakeCoordinator("2.0.0"));
  Status st = other->CheckWorkers();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.UserMessage().find(workers_.addresses[0]), std::string::npos) << st.ToString();
  EXPECT_NE(st.UserMessage().find("1.2.3-test"), std::string::npos) << st.ToString();
  EXPECT_NE(st.UserMessage().find("2.0.0"), std::string::npos) << st.ToString();
}

TEST_F(LifecycleTest, WorkersAreCleanAfterCompletionAndAfterAnError) {
  StartGrpcWorkers("t");
  ASSERT_OK_AND_ASSIGN(auto coordinator, MakeCoordinator("t"));
  runner_.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  ASSERT_OK(runner_.RunOne(distributed_testing::TpchQuery(5)).status());
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task and no memory"));
  // A LIMIT stops consumers early; producers still running must be freed too.
  ASSERT_OK(runner_.RunOne("SELECT * FROM lineitem, orders WHERE l_orderkey = o_orderkey LIMIT 3")
                .status());
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task and no memory"));
  // A worker's error: the user sees the worker's address, stage, task and the original message.
  auto failed = runner_.RunOne(
      "SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) FROM lineitem "
      "GROUP BY l_returnflag");
  ASSERT_FALSE(failed.ok());
  const std::string message = failed.status().UserMessage();
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
  EXPECT_TRUE(message.find(workers_.addresses[0]) != std::string::npos ||
              message.find(workers_.addresses[1]) != std::string::npos)
      << message;
  EXPECT_NE(message.find("stage "), std::string::npos) << message;
  EXPECT_NE(message.find("task "), std::string::npos) << message;
  EXPECT_EQ(failed.status().sqlstate(), "22012") << failed.status().ToString();
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task and no memory"));
}

TEST_F(LifecycleTest, WorkersAreCleanAfterCancellation) {
  StartGrpcWorkers("t");
  ASSERT_OK_AND_ASSIGN(auto coordinator, MakeCoordinator("t"));
  runner_.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  // A nested-loop join of 60k x 60k rows: runs far longer than the test waits.
  Status result;
  std::thread query([&] {
    result = testing::StatusOf(runner_.RunOne(
        "SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_orderkey + b.l_orderkey < 0"));
  });
  // Cancel once the query really runs on the workers: they hold its tasks, and the tasks hold
  // memory (the join's build side), so they execute rather than wait for their plans.
  const bool running = WaitFor(
      [&] {
        int64_t bytes = 0;
        for (const auto& s : workers_.services)
          bytes += s->bytes_used();
        return workers_.TasksHeld() > 0 && bytes > 0;
      },
      "the workers to run the query's tasks");
  const auto cancelled_at = steady_clock::now();
  runner_.CancelRunning();
  query.join();
  ASSERT_TRUE(running);
  EXPECT_LT(steady_clock::now() - cancelled_at, std::chrono::seconds(10));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.code(), StatusCode::kCancelled) << result.ToString();
  EXPECT_TRUE(WaitFor([&] { return AllClean(); }, "the workers to hold no task and no memory"));
  for (const auto& s : workers_.services)
    EXPECT_EQ(s->bytes_used(), 0) << s->address();
}

// A distributed query's scans run on its workers: the coordinator's progress reads what they
// report (GetTaskProgress over gRPC); before, it stayed at 0 for every distributed query.
TEST_F(LifecycleTest, ProgressOfADistributedQueryComesFromItsWorkers) {
  StartGrpcWorkers("t");
  ASSERT_OK_AND_ASSIGN(auto coordinator, MakeCoordinator("t"));
  runner_.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  Status result;
  std::thread query([&] {
    result = testing::StatusOf(runner_.RunOne(
        "SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_orderkey + b.l_orderkey < 0"));
  });
  int64_t first = 0, total = 0;
  const bool moved = WaitFor(
      [&] {
        auto progress = runner_.RunningProgress();
        if (!progress)
          return false;
        first = progress->bytes_read;
        total = progress->bytes_total;
        return first > 0;
      },
      "the workers' scans to report bytes read");
  runner_.CancelRunning();
  query.join();
  ASSERT_TRUE(moved);
  EXPECT_GT(total, 0);
  EXPECT_LE(first, total);
  EXPECT_EQ(result.code(), StatusCode::kCancelled) << result.ToString();
}

TEST_F(LifecycleTest, AnUnreachableWorkerFailsFastNamingItsAddress) {
  GrpcChannelOptions options;
  options.connect_timeout_ms = 1000;
  CoordinatorOptions coordinator_options;
  coordinator_options.workers = {"127.0.0.1:1"};
  coordinator_options.channels = std::make_shared<GrpcChannelResolver>(options);
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(coordinator_options)));
  auto start = steady_clock::now();
  Status st = coordinator->CheckWorkers();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find("127.0.0.1:1"), std::string::npos) << st.ToString();
  EXPECT_FALSE(st.hint().empty());
  // A refused port fails at the first connection attempt, well before the connect timeout.
  EXPECT_LT(steady_clock::now() - start, milliseconds(900));
  // Also without the check at start: the first query fails, naming the worker, without a hang.
  runner_.SetExecutionMode(engine::ExecutionMode::OnWorkers(coordinator));
  auto result = runner_.RunOne("SELECT count(*) FROM lineitem");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable) << result.status().ToString();
  EXPECT_NE(result.status().UserMessage().find("127.0.0.1:1"), std::string::npos);
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
}

// Regression (integration_chaos: a worker did not stop on SIGTERM): gRPC's Shutdown cancels the
// calls at its deadline but then waits for every handler to return, and an ExecuteTask handler
// returns only once its task's streams end. A stream waiting for something that never comes (here
// work units, for a task that no coordinator channel ends and whose TTL is 10 minutes) held the
// worker's shutdown forever. The shutdown now cancels every task first; the consumer hears why.
TEST_F(LifecycleTest, ShutdownDoesNotWaitForACallServingATaskThatNothingEnds) {
  WorkerServiceOptions w;
  w.catalog = runner_.session().catalog();
  ASSERT_OK(workers_.Start(1, w));
  std::shared_ptr<WorkerService> service = workers_.services[0];
  auto entry = runner_.session().catalog()->LookupTable(sql::kDefaultSchema, "lineitem");
  ASSERT_OK(entry.status());
  io::ScanRequest scan_request;
  scan_request.projection = {0};
  ASSERT_OK_AND_ASSIGN(auto scan,
                       exec::TableScanExec::Make(entry->provider, "lineitem", scan_request, 1));
  ASSERT_OK_AND_ASSIGN(auto feed_scan, WorkUnitFeedScanExec::Make(*scan, "f", 1, nullptr));
  SetPlanRequest request;
  request.task_key = {"q-stop", 1, 0};
  ASSERT_OK_AND_ASSIGN(request.encoded_plan,
                       EncodePlan(feed_scan, *TableCodecRegistry::Builtin(w.catalog)));
  request.work_unit_feeds = {{"f", 1}};
  ASSERT_OK(service->SetPlan(request));  // held with no coordinator channel: nothing ends it
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, workers_.channels->Connect(workers_.addresses[0]));
  ExecuteTaskRequest execute;
  execute.task_key = request.task_key;
  execute.partition_end = 1;
  ASSERT_OK_AND_ASSIGN(auto streams, channel->ExecuteTask({}, execute, nullptr));
  ASSERT_EQ(streams.size(), 1u);
  Status read;
  std::thread consumer([&] { read = streams[0]->Next().status(); });
  // The handler serves the call: its producer waits for work units.
  ASSERT_TRUE(WaitFor([&] { return !service->ExecuteHeadersSeen().empty(); },
                      "the worker to serve the ExecuteTask call"));
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    workers_.servers[0]->Shutdown();
    stopped = true;
  });
  const bool in_time = static_cast<bool>(
      WaitFor([&] { return stopped.load(); }, "the worker's server to stop", milliseconds(15000)));
  if (!in_time)
    (void)service->EndTask(request.task_key);  // lets the hung shutdown end, so the test does
  stopper.join();
  consumer.join();
  EXPECT_TRUE(in_time);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.UserMessage().find("is shutting down"), std::string::npos) << read.ToString();
  // A plan arriving at a worker shutting down is refused with the same reason.
  request.task_key = {"q-stop", 1, 1};
  const Status late = service->SetPlan(request);
  EXPECT_NE(late.UserMessage().find("is shutting down"), std::string::npos) << late.ToString();
}

// Regression: the TTL counted from the task's start, so every query running longer than it was
// killed ("canceling statement due to user request"). A coordinator that keeps in touch keeps its
// task for any length of time; once it falls silent, the task ends one TTL later.
TEST(TaskTtlTest, HeartbeatsKeepATaskLongPastItsTtlAndSilenceEndsIt) {
  auto cluster = InProcessCluster::Make();
  WorkerServiceOptions options;
  options.address = "w1";
  options.task_ttl = milliseconds(100);
  options.plan_wait = milliseconds(100);
  ASSERT_OK(cluster->AddWorker(std::move(options)));
  auto worker = cluster->worker("w1");
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, cluster->Connect("w1"));
  ASSERT_OK_AND_ASSIGN(auto stream, channel->OpenCoordinatorChannel({}));
  SetPlanRequest request;
  request.task_key = {"q-beat", 1, 0};
  request.encoded_plan = "not a plan";  // refused, but held like any task
  const auto sent = steady_clock::now();
  ASSERT_OK(stream->SendPlan(request));
  // A heartbeat after every sweep (one every TTL/4) until the sweeper has seen four TTLs pass.
  const int64_t first = worker->sweeps();
  while (worker->sweeps() - first < 16 && worker->num_tasks() == 1) {
    ASSERT_OK(stream->SendHeartbeat());
    const int64_t seen = worker->sweeps();
    ASSERT_TRUE(WaitFor([&] { return worker->sweeps() > seen; }, "the TTL sweeper's next round"));
  }
  EXPECT_GE(steady_clock::now() - sent, milliseconds(400));
  EXPECT_EQ(worker->num_tasks(), 1);
  EXPECT_EQ(worker->tasks_expired(), 0);
  // Silence: the task ends, and a consumer asking for it learns why.
  ASSERT_TRUE(WaitFor([&] { return worker->num_tasks() == 0; }, "w1 to drop the silent task"));
  EXPECT_EQ(worker->tasks_expired(), 1);
  ExecuteTaskRequest execute;
  execute.task_key = request.task_key;
  execute.partition_end = 1;
  Result<std::vector<exec::StreamPtr>> late = channel->ExecuteTask({}, execute, nullptr);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().UserMessage().find(
                "task expired after 0.1 s without contact from the coordinator"),
            std::string::npos)
      << late.status().UserMessage();
  EXPECT_EQ(late.status().UserMessage().find("user request"), std::string::npos);
}

// Regression: a consumer asking for a plan that never came (its query failed before sending
// it) waited plan_wait (10 s) even once its own task had been ended. A join dropped after an
// error opens the input it never read, so the failed query's teardown, and under retry_policy =
// query the retry's answer, waited those 10 s. The wait now ends when the caller's task is
// cancelled, whether before the call or during it.
TEST(PlanWaitTest, AConsumerWhoseTaskEndedStopsWaitingForAPlanThatNeverComes) {
  auto cluster = InProcessCluster::Make();
  WorkerServiceOptions options;
  options.address = "w1";
  options.plan_wait = std::chrono::seconds(30);  // what a consumer waited for; never reached
  ASSERT_OK(cluster->AddWorker(std::move(options)));
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, cluster->Connect("w1"));
  ExecuteTaskRequest execute;
  execute.task_key = {"q-never", 1, 0};
  execute.partition_end = 1;

  auto ended = std::make_shared<exec::TaskContext>(exec::TaskContext::Options());
  ended->Cancel();
  EXPECT_STATUS_CODE(StatusCode::kCancelled, channel->ExecuteTask({}, execute, ended));

  auto running = std::make_shared<exec::TaskContext>(exec::TaskContext::Options());
  std::thread consumer([&] {
    EXPECT_STATUS_CODE(StatusCode::kCancelled, channel->ExecuteTask({}, execute, running));
  });
  running->Cancel();
  consumer.join();
}

TEST(TaskTtlTest, ATaskOlderThanTheTtlIsDroppedAndConsumersAreTold) {
  auto cluster = InProcessCluster::Make();
  WorkerServiceOptions options;
  options.address = "w1";
  options.task_ttl = milliseconds(100);
  options.plan_wait = milliseconds(100);
  ASSERT_OK(cluster->AddWorker(std::move(options)));
  auto worker = cluster->worker("w1");
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, cluster->Connect("w1"));
  // Another worker with a TTL of 10 minutes, to see a task inside its TTL stay.
  WorkerServiceOptions patient;
  patient.address = "w2";
  patient.task_ttl = std::chrono::minutes(10);
  ASSERT_OK(cluster->AddWorker(std::move(patient)));
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel2, cluster->Connect("w2"));
  // A coordinator that sends a plan and then never closes the channel: to w2 first, so that
  // w2's task is older than w1's, and so older than w1's TTL once w1 drops its copy.
  ASSERT_OK_AND_ASSIGN(auto stream2, channel2->OpenCoordinatorChannel({}));
  ASSERT_OK_AND_ASSIGN(auto stream, channel->OpenCoordinatorChannel({}));
  SetPlanRequest request;
  request.task_key = {"q-ttl", 1, 0};
  request.encoded_plan = "not a plan";  // refused, but held like any task
  ASSERT_OK(stream2->SendPlan(request));
  ASSERT_OK(stream->SendPlan(request));
  EXPECT_EQ(worker->num_tasks(), 1);
  ASSERT_TRUE(WaitFor([&] { return worker->num_tasks() == 0; }, "w1 to drop its expired task"));
  EXPECT_EQ(worker->tasks_expired(), 1);
  EXPECT_EQ(worker->bytes_used(), 0);
  ExecuteTaskRequest execute;
  execute.task_key = request.task_key;
  execute.partition_end = 1;
  Result<std::vector<exec::StreamPtr>> late = channel->ExecuteTask({}, execute, nullptr);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), StatusCode::kCancelled) << late.status().ToString();
  EXPECT_NE(late.status().UserMessage().find(
                "task expired after 0.1 s without contact from the coordinator"),
            std::string::npos)
      << late.status().UserMessage();
  // A task inside its TTL stays, although older than w1's TTL by now.
  EXPECT_EQ(cluster->worker("w2")->num_tasks(), 1);
  EXPECT_FALSE(stream2->Finish().ok());  // the refusal
  EXPECT_EQ(cluster->worker("w2")->num_tasks(), 0);
}

}  // namespace
}  // namespace shoal::distributed

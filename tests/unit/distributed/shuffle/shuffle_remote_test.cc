// The materialized shuffle across machines: a driver sends its tasks to two in-process gRPC
// stage-file servers on loopback, each with its own directory (nothing shared: every file a stage
// reads that another server wrote is fetched over gRPC), and the answers equal the single-node
// ones; a missing remote file is NotFound naming the worker and the file; a task whose worker is
// gone runs on the other worker; a file of several chunks arrives whole; a cancelled driver
// leaves no task process and no directory on the workers, and a worker refuses a task of a query
// its driver dropped.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/map_output.h"
#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/shuffle/shuffle_task.h"
#include "shoal/distributed/shuffle/stage_file_client.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/stage_file_service.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/engine/execution_modes.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_builders.h"
#include "tests/support/wait.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;

// One worker's shuffle half: the stage-file service on its own loopback port and directory.
struct StageFileServer {
  std::unique_ptr<StageFileService> service;
  std::unique_ptr<grpc::Server> server;
  std::string address;
};

// Tasks run on the service's threads, or with `executable` as child processes of that program
// (another program than shoal makes every task fail).
Result<std::unique_ptr<StageFileServer>> StartServer(const fs::path& dir,
                                                     const std::string& executable = "",
                                                     const std::string& listen = "127.0.0.1:0") {
  auto s = std::make_unique<StageFileServer>();
  StageFileServiceOptions options;
  options.shuffle_dir = dir.string();
  options.task_processes = !executable.empty();
  if (options.task_processes)
    options.executable = executable;
  SHOAL_ASSIGN_OR_RETURN(s->service, StageFileService::Make(std::move(options)));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(s->service->grpc_service());
  ApplyServerChannelArguments(builder);
  s->server = builder.BuildAndStart();
  if (!s->server || port == 0)
    return Status::Unavailable("could not start a stage file server");
  s->address = "127.0.0.1:" + std::to_string(port);
  s->service->set_address(s->address);
  return s;
}

int CountStageFiles(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += IsStageFileName(e.path().filename().string()) ? 1 : 0;
  return n;
}

// The per-query directories q-<id>/ in a shuffle directory (0 when it does not exist).
int CountQueryDirs(const fs::path& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    n += e.path().filename().string().rfind("q-", 0) == 0 ? 1 : 0;
  return n;
}

class ShuffleRemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("shoal-remote-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    for (auto* runner : {&single_, &shuffled_})
      ASSERT_OK(distributed_testing::LoadTpch(*runner, 2));
  }

  void TearDown() override {
    for (auto& s : servers_)
      if (s->server)
        s->server->Shutdown();
    servers_.clear();
    fs::remove_all(root_);
  }

  void StartServers(int n, const std::string& executable = "") {
    for (int i = 0; i < n; ++i) {
      ASSERT_OK_AND_ASSIGN(auto s, StartServer(root_ / ("worker" + std::to_string(i)), executable));
      servers_.push_back(std::move(s));
    }
  }

  void UseWorkers(std::vector<std::string> workers) {
    ShuffleDriverOptions options;
    options.tpch_scale = "0.01";
    options.executable = SHOAL_BINARY;
    options.workers = std::move(workers);
    ASSERT_OK(engine::UseShuffleDriver(shuffled_, std::move(options)));
  }

  void ExpectSameAnswer(const std::string& sql, const fs::path& dir) {
    ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + dir.string() + "'").status());
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, shuffled_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected))
        << sql;
    EXPECT_GT(expected.num_rows(), 0);
  }

  fs::path root_;
  std::vector<std::unique_ptr<StageFileServer>> servers_;
  engine::QueryRunner single_;
  engine::QueryRunner shuffled_;
};

TEST_F(ShuffleRemoteTest, TpchQ3AndQ18OnTwoWorkersGiveTheSingleNodeAnswer) {
  StartServers(2);
  UseWorkers({servers_[0]->address, servers_[1]->address});
  // The driver's own directory of each query is kept, to look at the files it fetched.
  ::setenv("SHOAL_SHUFFLE_TEST_KEEP_FILES", "1", 1);
  for (int q : {3, 18}) {
    const fs::path dir = root_ / ("driver-q" + std::to_string(q));
    ExpectSameAnswer(distributed_testing::TpchQuery(q), dir);
  }
  // Both workers ran tasks; the driver holds the files of the final stages, which it fetched;
  // each query's files left the workers when the query was over.
  EXPECT_GT(servers_[0]->service->tasks_run(), 0);
  EXPECT_GT(servers_[1]->service->tasks_run(), 0);
  EXPECT_GT(CountStageFiles(root_ / "driver-q3"), 0);
  EXPECT_GT(CountStageFiles(root_ / "driver-q18"), 0);
  EXPECT_EQ(CountStageFiles(root_ / "worker0"), 0);
  EXPECT_EQ(CountStageFiles(root_ / "worker1"), 0);
  ::unsetenv("SHOAL_SHUFFLE_TEST_KEEP_FILES");
}

// Regression: a failed query left its directories on the workers, and a deterministic error (a
// division by zero) was retried on every worker and reported as a transport failure.
TEST_F(ShuffleRemoteTest, ADeterministicErrorIsNotRetriedAndLeavesNoDirectory) {
  StartServers(2);
  UseWorkers({servers_[0]->address, servers_[1]->address});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + (root_ / "driver").string() + "'").status());
  auto result = shuffled_.RunOne(
      "SELECT l_returnflag, sum(l_quantity / (l_linenumber - l_linenumber)) FROM lineitem "
      "GROUP BY 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "22012") << result.status().ToString();
  EXPECT_NE(result.status().UserMessage().find("division by zero"), std::string::npos)
      << result.status().UserMessage();
  for (const char* dir : {"worker0", "worker1", "driver"})
    EXPECT_EQ(CountQueryDirs(root_ / dir), 0) << dir;
}

// A file the worker does not have (it restarted, or its directory was cleaned) is a lost input the
// driver computes again: Unavailable, never a NotFound that would fail the query.
TEST_F(ShuffleRemoteTest, AMissingRemoteFileIsALostInputNamingTheWorkerAndTheFile) {
  StartServers(1);
  fs::create_directories(root_ / "local");
  const std::string local = StageFilePath((root_ / "local").string(), 4, 1);
  Status st = FetchStageFile({servers_[0]->address, "0123abcd"}, 4, 1, local);
  ASSERT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find("no longer has it"), std::string::npos) << st.ToString();
  EXPECT_NE(st.UserMessage().find(servers_[0]->address), std::string::npos) << st.ToString();
  EXPECT_NE(st.UserMessage().find("q-0123abcd/stage-4-part-1.arrow"), std::string::npos)
      << st.ToString();
  // Nothing half-written is left behind.
  EXPECT_TRUE(fs::is_empty(root_ / "local"));
  // An id that would escape the worker's directory is refused.
  st = FetchStageFile({servers_[0]->address, "../etc"}, 4, 1, local);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
}

// A stage node over twenty rows (keys 0..19), one passthrough partition, in `dir`.
std::shared_ptr<StageFileExec> TwentyRowStage(const fs::path& dir) {
  const std::vector<Field> fields = {Field("k", DataType::Int64()), Field("v", DataType::Utf8())};
  std::vector<testing::TextRow> rows;
  for (int i = 0; i < 20; ++i)
    rows.push_back({std::to_string(i), "row" + std::to_string(i)});
  auto values = exec::ValuesExec::Make(std::make_shared<columnar::Schema>(fields),
                                       {testing::MakeBatch(fields, rows)});
  EXPECT_OK(values.status());
  auto stage = StageFileExec::Make(*values, dir.string(), 2, exec::Partitioning::Unknown(1), "lz4");
  EXPECT_OK(stage.status());
  return *stage;
}

Result<int64_t> CountRows(const exec::ExecPlanPtr& stage) {
  return exec::testutil::DrainPartition(
      stage, 0, std::make_shared<exec::TaskContext>(exec::TaskContext::Options()));
}

TEST_F(ShuffleRemoteTest, AStageNodeFetchesAFileItDoesNotHaveFromTheRecordedWorker) {
  StartServers(1);
  // The worker's copy, written where its service keeps query 00ff.
  const fs::path remote = root_ / "worker0" / "q-00ff";
  fs::create_directories(remote);
  ASSERT_OK_AND_ASSIGN(int64_t written, CountRows(TwentyRowStage(remote)));
  EXPECT_EQ(written, 20);
  // The driver's node: no local file, a recorded location, so it fetches instead of computing.
  const fs::path local = root_ / "local";
  fs::create_directories(local);
  auto stage = TwentyRowStage(local);
  SetStageFileLocation(local.string(), 2, 0, {servers_[0]->address, "00ff"});
  ASSERT_OK_AND_ASSIGN(int64_t fetched, CountRows(stage));
  EXPECT_EQ(fetched, 20);
  EXPECT_EQ(fs::file_size(stage->FilePath(0)), fs::file_size(StageFilePath(remote.string(), 2, 0)));
  // Recorded on a worker that does not have it: a lost input (Unavailable, the driver computes it
  // again) naming both, nothing computed here.
  const fs::path other = root_ / "other";
  fs::create_directories(other);
  auto missing = TwentyRowStage(other);
  SetStageFileLocation(other.string(), 2, 0, {servers_[0]->address, "0bad"});
  auto rows = CountRows(missing);
  ASSERT_EQ(rows.status().code(), StatusCode::kUnavailable) << rows.status().ToString();
  EXPECT_NE(rows.status().UserMessage().find("worker " + servers_[0]->address), std::string::npos)
      << rows.status().ToString();
  EXPECT_NE(rows.status().UserMessage().find("q-0bad/stage-2-part-0.arrow"), std::string::npos)
      << rows.status().ToString();
  EXPECT_TRUE(fs::is_empty(other));
  ClearStageFileLocations(local.string());
  ClearStageFileLocations(other.string());
}

// A hash stage of two map tasks, one per worker: a reducer on a third machine fetches its
// partition of each map's committed attempt from the worker that ran it.
TEST_F(ShuffleRemoteTest, AReducerFetchesItsPartitionFromEveryMapTasksWorker) {
  StartServers(2);
  const std::vector<Field> fields = {Field("k", DataType::Int64())};
  auto make_stage = [&](const fs::path& dir) {
    std::vector<exec::ExecPlanPtr> halves;
    for (int h = 0; h < 2; ++h) {
      std::vector<testing::TextRow> rows;
      for (int i = h * 10; i < h * 10 + 10; ++i)
        rows.push_back({std::to_string(i)});
      auto values = exec::ValuesExec::Make(std::make_shared<columnar::Schema>(fields),
                                           {testing::MakeBatch(fields, rows)});
      EXPECT_OK(values.status());
      halves.push_back(*values);
    }
    auto input = exec::UnionExec::Make(halves);
    EXPECT_OK(input.status());
    auto stage = StageFileExec::Make(
        *input, dir.string(), 3,
        exec::Partitioning::Hash({sql::MakeColumnRef(0, "k", DataType::Int64(), true)}, 2), "lz4",
        /*map_tasks=*/2);
    EXPECT_OK(stage.status());
    return *stage;
  };
  auto context = [] { return std::make_shared<exec::TaskContext>(exec::TaskContext::Options()); };
  // Map 0 ran on worker 0 (attempt 1), map 1 on worker 1 (its attempt 1 died uncommitted, its
  // attempt 2 committed).
  const fs::path on0 = root_ / "worker0" / "q-00aa";
  const fs::path on1 = root_ / "worker1" / "q-00bb";
  fs::create_directories(on0);
  fs::create_directories(on1);
  ASSERT_OK(make_stage(on0)->RunTask(0, 1, context()).status());
  ASSERT_OK(make_stage(on1)->RunTask(1, 1, context()).status());
  fs::remove(MapCommitPath(on1.string(), 3, 1));
  ASSERT_OK(make_stage(on1)->RunTask(1, 2, context()).status());
  // Attempt 1 of map 1 holds every row of map 1 in partition 0: served, it would duplicate rows.
  fs::copy_file(MapOutputPath(on1.string(), 3, 1, 2, 0), MapOutputPath(on1.string(), 3, 1, 1, 1),
                fs::copy_options::overwrite_existing);

  const fs::path local = root_ / "reducer";
  fs::create_directories(local);
  auto reducer = make_stage(local);
  SetStageFileLocation(local.string(), 3, 0, {servers_[0]->address, "00aa", 1});
  SetStageFileLocation(local.string(), 3, 1, {servers_[1]->address, "00bb", 2});
  std::multiset<std::string> all;
  for (int p = 0; p < 2; ++p) {
    ASSERT_OK_AND_ASSIGN(auto stream, reducer->Execute(p, context()));
    for (;;) {
      ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
      if (!batch)
        break;
      for (auto& k : testing::ArrayToStrings(*batch->column(0)))
        all.insert(k);
    }
    // Both maps' files of the partition were fetched.
    EXPECT_TRUE(fs::exists(FetchedMapOutputPath(local.string(), 3, 0, 1, p)));
    EXPECT_TRUE(fs::exists(FetchedMapOutputPath(local.string(), 3, 1, 2, p)));
  }
  std::multiset<std::string> expected;
  for (int i = 0; i < 20; ++i)
    expected.insert(std::to_string(i));
  EXPECT_EQ(all, expected);

  // A map the worker never committed: a lost input naming the worker and the commit file.
  Status st = FetchMapOutput({servers_[0]->address, "00aa"}, 3, 1, 0,
                             FetchedMapOutputPath(local.string(), 3, 9, 1, 0));
  ASSERT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find(servers_[0]->address), std::string::npos) << st.ToString();
  EXPECT_NE(st.UserMessage().find("q-00aa/stage-3-map-1.commit"), std::string::npos)
      << st.ToString();
  ClearStageFileLocations(local.string());
}

TEST_F(ShuffleRemoteTest, ATaskWhoseWorkerIsGoneRunsOnTheOtherWorker) {
  StartServers(2);
  const std::string gone = servers_[1]->address;
  servers_[1]->server->Shutdown();
  servers_.pop_back();
  UseWorkers({gone, servers_[0]->address});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_task_retries = 1").status());
  ExpectSameAnswer(distributed_testing::TpchQuery(3), root_ / "driver");
  EXPECT_GT(servers_[0]->service->tasks_run(), 0);
}

// Issue 16 (retry_policy = task): a worker holding committed map outputs is lost between two
// stages (after the first round of tasks, before the next stage fetches them). Its outputs are
// computed again from their inputs on the other workers, the consumers run again, and the answer
// does not change. Before lineage, every consumer's attempts failed fetching from it.
TEST_F(ShuffleRemoteTest, AWorkerLostBetweenStagesHasItsOutputsComputedAgainElsewhere) {
  StartServers(3);
  int64_t ran_before_loss = -1;
  int64_t others_before_loss = 0;
  ShuffleDriverOptions options;
  options.tpch_scale = "0.01";
  options.executable = SHOAL_BINARY;
  // The victim first: the first task goes to it.
  options.workers = {servers_[2]->address, servers_[0]->address, servers_[1]->address};
  options.after_round = [&](int round) {
    if (round != 1 || ran_before_loss >= 0)
      return;
    ran_before_loss = servers_[2]->service->tasks_run();
    others_before_loss = servers_[0]->service->tasks_run() + servers_[1]->service->tasks_run();
    servers_[2]->server->Shutdown();
    servers_[2]->server.reset();
  };
  ASSERT_OK(engine::UseShuffleDriver(shuffled_, std::move(options)));
  ExpectSameAnswer(distributed_testing::TpchQuery(3), root_ / "driver");
  // The lost worker held outputs of the first stages, and ran nothing after it was lost.
  EXPECT_GT(ran_before_loss, 0);
  EXPECT_EQ(servers_[2]->service->tasks_run(), ran_before_loss);
  EXPECT_GT(servers_[0]->service->tasks_run() + servers_[1]->service->tasks_run(),
            others_before_loss);
  // The driver's and the live workers' directories of the query are gone.
  for (const char* dir : {"worker0", "worker1", "driver"})
    EXPECT_EQ(CountQueryDirs(root_ / dir), 0) << dir;
}

// A map output is served only as the attempt the driver recorded: a commit of another attempt
// is NotFound, so a reader never mixes two attempts' files.
TEST_F(ShuffleRemoteTest, AMapOutputOfAnotherAttemptIsNotServed) {
  StartServers(1);
  const std::vector<Field> fields = {Field("k", DataType::Int64())};
  auto values = exec::ValuesExec::Make(std::make_shared<columnar::Schema>(fields),
                                       {testing::MakeBatch(fields, {{"1"}, {"2"}})});
  ASSERT_OK(values.status());
  const fs::path remote = root_ / "worker0" / "q-00cc";
  fs::create_directories(remote);
  ASSERT_OK_AND_ASSIGN(
      auto stage, StageFileExec::Make(*values, remote.string(), 2,
                                      exec::Partitioning::Hash(
                                          {sql::MakeColumnRef(0, "k", DataType::Int64(), true)}, 1),
                                      "lz4"));
  ASSERT_OK(stage->RunTask(0, 3, std::make_shared<exec::TaskContext>(exec::TaskContext::Options()))
                .status());
  fs::create_directories(root_ / "local");
  const std::string local = FetchedMapOutputPath((root_ / "local").string(), 2, 0, 2, 0);
  Status st = FetchMapOutput({servers_[0]->address, "00cc", 2}, 2, 0, 0, local);
  ASSERT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find("not attempt 2"), std::string::npos) << st.ToString();
  ASSERT_OK(FetchMapOutput({servers_[0]->address, "00cc", 3}, 2, 0, 0,
                           FetchedMapOutputPath((root_ / "local").string(), 2, 0, 3, 0)));
}

// The health check of a shuffle worker: a live one answers with its incarnation, the same every
// time and different from another worker process's; a gone one is Unavailable naming it.
TEST_F(ShuffleRemoteTest, APingTellsALiveShuffleWorkerFromAGoneOne) {
  StartServers(2);
  ASSERT_OK_AND_ASSIGN(std::string first,
                       PingShuffleWorker(servers_[0]->address, std::chrono::seconds(5)));
  ASSERT_OK_AND_ASSIGN(std::string again,
                       PingShuffleWorker(servers_[0]->address, std::chrono::seconds(5)));
  ASSERT_OK_AND_ASSIGN(std::string other,
                       PingShuffleWorker(servers_[1]->address, std::chrono::seconds(5)));
  EXPECT_EQ(first.size(), 32u);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  const std::string gone = servers_[1]->address;
  servers_[1]->server->Shutdown();
  servers_.pop_back();
  Status st = PingShuffleWorker(gone, std::chrono::seconds(5)).status();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find(gone), std::string::npos) << st.ToString();
}

// A worker restarted on its port answers the next ping. Its channel had failed, and until the end
// of its backoff (a second, then more, up to two minutes) it failed every call at once without
// trying: the driver kept a worker that was back out of use that long.
TEST_F(ShuffleRemoteTest, APingReachesAShuffleWorkerBackOnItsPort) {
  StartServers(1);
  const std::string address = servers_[0]->address;
  ASSERT_OK_AND_ASSIGN(std::string before, PingShuffleWorker(address, std::chrono::seconds(5)));
  servers_[0]->server->Shutdown();
  servers_.clear();
  for (int i = 0; i < 2; ++i)
    EXPECT_STATUS_CODE(StatusCode::kUnavailable,
                       PingShuffleWorker(address, std::chrono::seconds(5)));

  ASSERT_OK_AND_ASSIGN(auto back, StartServer(root_ / "back", "", address));
  servers_.push_back(std::move(back));
  ASSERT_OK_AND_ASSIGN(std::string after, PingShuffleWorker(address, std::chrono::seconds(5)));
  EXPECT_NE(after, before);  // another process: its committed outputs are gone
}

TEST_F(ShuffleRemoteTest, WithoutRetriesAGoneWorkerFailsTheQueryNamingIt) {
  StartServers(1);
  const std::string gone = servers_[0]->address;
  servers_[0]->server->Shutdown();
  servers_.clear();
  UseWorkers({gone});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_task_retries = 0").status());
  ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + (root_ / "driver").string() + "'").status());
  auto result = shuffled_.RunOne(distributed_testing::TpchQuery(3));
  ASSERT_FALSE(result.ok());
  // The health check before the first task finds it gone.
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable) << result.status().ToString();
  EXPECT_NE(result.status().UserMessage().find("worker " + gone), std::string::npos)
      << result.status().ToString();
}

TEST_F(ShuffleRemoteTest, AFileOfSeveralChunksArrivesWhole) {
  StartServers(1);
  const fs::path remote = root_ / "worker0" / "q-1234";
  fs::create_directories(remote);
  // Not a multiple of the chunk size: the last chunk is short.
  std::string bytes(kStageFileChunkBytes * 2 + 12345, '\0');
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
  ASSERT_OK(WriteFileAtomically(StageFilePath(remote.string(), 3, 5), bytes));
  fs::create_directories(root_ / "local");
  const std::string local = StageFilePath((root_ / "local").string(), 3, 5);
  ASSERT_OK(FetchStageFile({servers_[0]->address, "1234"}, 3, 5, local));
  ASSERT_OK_AND_ASSIGN(std::string fetched, ReadWholeFile(local));
  EXPECT_TRUE(fetched == bytes) << fetched.size() << " bytes fetched of " << bytes.size();
}

TEST_F(ShuffleRemoteTest, ACancelledDriverLeavesNoTaskProcessRunningOnTheWorkers) {
  StartServers(2, SHOAL_BINARY);
  UseWorkers({servers_[0]->address, servers_[1]->address});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + (root_ / "driver").string() + "'").status());
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Status status;
  std::thread query([&] { status = shuffled_.RunOne(distributed_testing::TpchQuery(3)).status(); });
  const std::string needle = (root_ / "worker").string();
  const bool started = shoal::testing::WaitFor(
      [&] { return !distributed_testing::ProcessesMentioning(needle).empty(); },
      "a task process to start on a worker");
  shuffled_.CancelRunning();
  query.join();
  EXPECT_TRUE(started);
  ::unsetenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS");
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  // The workers notice the cancelled calls within their polling interval.
  EXPECT_TRUE(shoal::testing::WaitFor(
      [&] { return distributed_testing::ProcessesMentioning(needle).empty(); },
      "the workers' task processes to exit", std::chrono::seconds(10)));
  // Nor a directory: the workers sent a task drop the query (none had published a stage file).
  EXPECT_EQ(CountQueryDirs(root_ / "driver"), 0);
  for (const char* dir : {"worker0", "worker1"})
    EXPECT_EQ(CountQueryDirs(root_ / dir), 0) << dir;
}

// The same with tasks on the workers' threads: cancelling the driver's calls cancels the tasks'
// contexts, so the workers' task threads stop (they would hold their calls for a minute).
TEST_F(ShuffleRemoteTest, ACancelledDriverLeavesNoTaskThreadRunningOnTheWorkers) {
  StartServers(2);
  UseWorkers({servers_[0]->address, servers_[1]->address});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + (root_ / "driver").string() + "'").status());
  ::setenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS", "60000", 1);
  Status status;
  std::thread query([&] { status = shuffled_.RunOne(distributed_testing::TpchQuery(3)).status(); });
  auto running = [&] {
    return servers_[0]->service->tasks_running() + servers_[1]->service->tasks_running();
  };
  const bool started = shoal::testing::WaitFor([&] { return running() > 0; },
                                               "a task to start on a worker's thread");
  shuffled_.CancelRunning();
  query.join();
  EXPECT_TRUE(started);
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_TRUE(shoal::testing::WaitFor([&] { return running() == 0; },
                                      "the workers' task threads to stop",
                                      std::chrono::seconds(10)));
  ::unsetenv("SHOAL_SHUFFLE_TEST_TASK_DELAY_MS");
  EXPECT_EQ(servers_[0]->service->tasks_run() + servers_[1]->service->tasks_run(), 0);
}

// Regression: only the workers holding a published stage file dropped a query that succeeded, so
// a worker whose every attempt failed (and was run again elsewhere) kept the query's directory.
TEST_F(ShuffleRemoteTest, AWorkerThatOnlyRanFailedAttemptsDropsTheQueryToo) {
  StartServers(1);
  ASSERT_OK_AND_ASSIGN(auto broken, StartServer(root_ / "broken", "/bin/false"));
  broken->service->set_address(broken->address);
  servers_.push_back(std::move(broken));
  UseWorkers({servers_[1]->address, servers_[0]->address});
  ASSERT_OK(shuffled_.RunOne("SET shuffle_task_retries = 1").status());
  ExpectSameAnswer(distributed_testing::TpchQuery(3), root_ / "driver");
  EXPECT_EQ(servers_[1]->service->tasks_run(), 0);
  EXPECT_GT(servers_[0]->service->tasks_run(), 0);
  for (const char* dir : {"broken", "worker0", "driver"})
    EXPECT_EQ(CountQueryDirs(root_ / dir), 0) << dir;
}

// A task call the driver sent before it cancelled the query can reach the worker after the drop:
// it must not create the query's directory again.
TEST_F(ShuffleRemoteTest, ATaskOfADroppedQueryIsRefusedAndCreatesNothing) {
  StartServers(1);
  DropRemoteShuffleQuery(servers_[0]->address, "0dd");
  grpc::ClientContext call;
  Result<RemoteTaskOutput> late = RunRemoteShuffleTask(
      servers_[0]->address, "0dd", proto::ShuffleTaskEnvelopeProto(), "", &call);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), StatusCode::kCancelled) << late.status().ToString();
  EXPECT_FALSE(fs::exists(root_ / "worker0" / "q-0dd"));
  EXPECT_EQ(servers_[0]->service->tasks_run(), 0);
}

}  // namespace
}  // namespace shoal::distributed::shuffle

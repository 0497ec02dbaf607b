// The gRPC transport in one process: real servers on loopback ports chosen by the OS, the
// coordinator talking to them over GrpcChannelResolver. Answers equal the single-node ones, errors
// keep their SQLSTATE across the wire and name the worker, and workers forget finished tasks.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

class GrpcTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(single_, 2));
    ASSERT_OK(distributed_testing::LoadTpch(distributed_, 2));
    GrpcWorkerServerOptions server;
    server.send_budget_bytes = 1 << 16;  // small: exercises the flow control
    ASSERT_OK(workers_.Start(2, distributed_testing::TestWorker(distributed_.session().catalog()),
                             server));
    for (const auto& s : workers_.servers)
      EXPECT_GT(s->port(), 0);
    ASSERT_OK_AND_ASSIGN(auto coordinator,
                         distributed_testing::InstallCoordinator(
                             distributed_, distributed_testing::CoordinatorFor(workers_.addresses,
                                                                               workers_.channels)));
    ASSERT_OK(coordinator->CheckWorkers());
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  int TasksHeld() const { return workers_.TasksHeld(); }

  engine::QueryRunner single_;
  engine::QueryRunner distributed_;
  distributed_testing::GrpcTestCluster workers_;
};

TEST_F(GrpcTransportTest, TpchQueriesGiveTheSingleNodeAnswerWithEveryCompression) {
  for (const char* compression : {"none", "lz4", "zstd"}) {
    ASSERT_OK(
        distributed_.RunOne(std::string("SET dist_compression = '") + compression + "'").status());
    for (int q : {1, 3, 13, 18}) {
      SCOPED_TRACE(std::string(compression) + " q" + std::to_string(q));
      distributed_testing::ExpectSameRows(single_, distributed_, distributed_testing::TpchQuery(q));
    }
  }
  // The coordinator channels closed with the queries: no task state is left on the workers.
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(GrpcTransportTest, ErrorsKeepTheirSqlStateAndNameTheWorker) {
  const char* sql =
      "SELECT count(*) FROM lineitem WHERE l_linenumber / (l_linenumber - l_linenumber) > 0";
  auto expected = single_.RunOne(sql);
  ASSERT_FALSE(expected.ok());
  auto actual = distributed_.RunOne(sql);
  ASSERT_FALSE(actual.ok());
  EXPECT_EQ(actual.status().code(), expected.status().code()) << actual.status().ToString();
  EXPECT_EQ(actual.status().sqlstate(), expected.status().sqlstate());
  EXPECT_NE(actual.status().UserMessage().find("on worker 127.0.0.1:"), std::string::npos)
      << actual.status().ToString();
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(GrpcTransportTest, AnUnreachableWorkerIsUnavailable) {
  GrpcChannelOptions options;
  options.connect_timeout_ms = 500;
  auto channels = std::make_shared<GrpcChannelResolver>(options);
  CoordinatorOptions coordinator_options;
  coordinator_options.workers = {"127.0.0.1:1"};
  coordinator_options.channels = channels;
  ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(coordinator_options)));
  Status st = coordinator->CheckWorkers();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.UserMessage().find("127.0.0.1:1"), std::string::npos) << st.ToString();
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, channels->Connect("no-port"));
}

// A worker that died mid-query: the channel's first attempt to reach it again fails, and gRPC
// then reports that failure throughout its next attempts (no state change comes). The health
// check after a lost task waited the whole connect timeout (5 s by default) for one, so a query
// that lost a worker stalled 5 s before its retry. Each check now makes an attempt whose end it
// sees and fails at once; a worker back on the same port is reached by the next check.
TEST(GrpcChannelTest, AWorkerThatFailedBeforeIsAskedAgainAtOnce) {
  engine::QueryRunner runner;
  distributed_testing::GrpcTestCluster cluster;
  ASSERT_OK(cluster.Start(1, distributed_testing::TestWorker(runner.session().catalog())));
  const std::string address = cluster.addresses[0];
  GrpcChannelOptions options;
  // A check that waits for a state change gives up after this ("no connection within"), well
  // before gRPC's own next report (some 20-30 s later); a refused port answers at once.
  options.connect_timeout_ms = 10000;
  auto channels = std::make_shared<GrpcChannelResolver>(options);
  ASSERT_OK_AND_ASSIGN(WorkerChannelPtr channel, channels->Connect(address));
  ASSERT_OK(channel->GetWorkerInfo().status());

  cluster.Shutdown();
  for (int check = 0; check < 3; ++check) {
    SCOPED_TRACE(check);
    auto info = channel->GetWorkerInfo();
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status().code(), StatusCode::kUnavailable) << info.status().ToString();
    EXPECT_EQ(info.status().UserMessage().find("no connection within"), std::string::npos)
        << info.status().ToString();
  }

  // Back on its port (a restart): the next check reaches it.
  GrpcWorkerServerOptions server;
  server.listen = address;
  std::shared_ptr<WorkerService> service;
  ASSERT_OK_AND_ASSIGN(
      auto restarted, GrpcWorkerServer::Start(server, [&](const std::string& bound) {
        WorkerServiceOptions w = distributed_testing::TestWorker(runner.session().catalog());
        w.address = bound;
        service = std::make_shared<WorkerService>(std::move(w));
        return service;
      }));
  EXPECT_OK(channel->GetWorkerInfo().status());
  restarted->Shutdown();
}

// Reaches every worker but `refused` (a worker's own address).
class RefusingResolver final : public ChannelResolver {
 public:
  RefusingResolver(ChannelResolverPtr inner, std::string refused)
      : inner_(std::move(inner)), refused_(std::move(refused)) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    if (address == refused_)
      return Status::Unavailable("{} is refused by the test", address);
    return inner_->Connect(address);
  }

 private:
  ChannelResolverPtr inner_;
  std::string refused_;
};

// A consumer task reads the producer tasks of its own worker in-process, not over a loopback gRPC
// connection (which with TLS encrypted and decrypted in the same process half the bytes of a
// shuffle on 2 workers). Each worker here cannot reach itself over gRPC, so before the change the
// queries failed on their first read of a local producer ("... is refused by the test").
TEST(GrpcLocalReadsTest, AWorkerReadsItsOwnProducerTasksInProcess) {
  engine::QueryRunner single;
  engine::QueryRunner distributed;
  ASSERT_OK(distributed_testing::LoadTpch(single, 2));
  ASSERT_OK(distributed_testing::LoadTpch(distributed, 2));
  auto channels = std::make_shared<GrpcChannelResolver>();
  std::vector<std::unique_ptr<GrpcWorkerServer>> servers;
  std::vector<std::string> addresses;
  for (int i = 0; i < 2; ++i) {
    GrpcWorkerServerOptions server;
    server.listen = "127.0.0.1:0";
    ASSERT_OK_AND_ASSIGN(
        auto started, GrpcWorkerServer::Start(server, [&](const std::string& address) {
          WorkerServiceOptions w = distributed_testing::TestWorker(distributed.session().catalog());
          w.address = address;
          w.channels = std::make_shared<RefusingResolver>(channels, address);
          return std::make_shared<WorkerService>(std::move(w));
        }));
    addresses.push_back(started->address());
    servers.push_back(std::move(started));
  }
  ASSERT_OK(distributed_testing::InstallCoordinator(
                distributed, distributed_testing::CoordinatorFor(addresses, channels))
                .status());
  ASSERT_OK(distributed.RunOne("SET dist_bytes_per_task = '64kB'").status());
  ASSERT_OK_AND_ASSIGN(auto explained, distributed.RunOne(std::string("EXPLAIN ") +
                                                          distributed_testing::TpchQuery(18)));
  // Stages read by other stages' tasks, so some consumer reads a producer of its own worker.
  EXPECT_NE(distributed_testing::SortedText(explained).find("NetworkShuffle"), std::string::npos)
      << distributed_testing::SortedText(explained);
  for (int q : {3, 13, 18}) {
    SCOPED_TRACE("q" + std::to_string(q));
    distributed_testing::ExpectSameRows(single, distributed, distributed_testing::TpchQuery(q));
  }
  for (auto& s : servers)
    s->Shutdown();
}

}  // namespace
}  // namespace shoal::distributed

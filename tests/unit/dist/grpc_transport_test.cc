// The gRPC transport in one process: real servers on loopback ports chosen by the OS, the
// coordinator talking to them over GrpcChannelResolver. Answers equal the single-node ones, errors
// keep their SQLSTATE across the wire and name the worker, and workers forget finished tasks.
#include <gtest/gtest.h>

#include "shoal/dist/coordinator.h"
#include "shoal/dist/grpc_worker_channel.h"
#include "shoal/dist/grpc_worker_server.h"
#include "shoal/exec/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/dist/dist_test_util.h"

namespace shoal::dist {
namespace {

class GrpcTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    for (auto* runner : {&single_, &distributed_}) {
      ASSERT_OK(exec::RegisterTpchTables(scale, runner->session().catalog().get()));
      ASSERT_OK(runner->RunOne("SET threads = 2").status());
    }
    auto channels = std::make_shared<GrpcChannelResolver>();
    std::vector<std::string> addresses;
    for (int i = 0; i < 2; ++i) {
      GrpcWorkerServerOptions options;
      options.listen = "127.0.0.1:0";
      options.send_budget_bytes = 1 << 16;  // small: exercises the flow control
      std::shared_ptr<WorkerService> service;
      ASSERT_OK_AND_ASSIGN(auto server,
                           GrpcWorkerServer::Start(options, [&](const std::string& address) {
                             WorkerServiceOptions w;
                             w.address = address;
                             w.version = "test";
                             w.threads = 2;
                             w.catalog = distributed_.session().catalog();
                             w.channels = channels;
                             service = std::make_shared<WorkerService>(std::move(w));
                             return service;
                           }));
      EXPECT_GT(server->port(), 0);
      addresses.push_back(server->address());
      services_.push_back(service);
      servers_.push_back(std::move(server));
    }
    CoordinatorOptions options;
    options.workers = addresses;
    options.channels = channels;
    options.version = "test";
    ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(options)));
    ASSERT_OK(coordinator->CheckWorkers());
    distributed_.SetPlanTransform(coordinator->AsPlanTransform());
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  void TearDown() override {
    for (auto& s : servers_)
      s->Shutdown();
  }

  int TasksHeld() const {
    int n = 0;
    for (const auto& s : services_)
      n += s->num_tasks();
    return n;
  }

  exec::QueryRunner single_;
  exec::QueryRunner distributed_;
  std::vector<std::shared_ptr<WorkerService>> services_;
  std::vector<std::unique_ptr<GrpcWorkerServer>> servers_;
};

TEST_F(GrpcTransportTest, TpchQueriesGiveTheSingleNodeAnswerWithEveryCompression) {
  for (const char* compression : {"none", "lz4", "zstd"}) {
    ASSERT_OK(
        distributed_.RunOne(std::string("SET dist_compression = '") + compression + "'").status());
    for (int q : {1, 3, 13, 18}) {
      SCOPED_TRACE(std::string(compression) + " q" + std::to_string(q));
      const std::string sql = dist_testing::TpchQuery(q);
      ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
      ASSERT_OK_AND_ASSIGN(auto actual, distributed_.RunOne(sql));
      EXPECT_EQ(dist_testing::SortedRows(expected), dist_testing::SortedRows(actual));
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

}  // namespace
}  // namespace shoal::dist

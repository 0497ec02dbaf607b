// Passthrough headers and session settings travel with a distributed query: headers given to the
// coordinator reach producer tasks through a consumer worker (two hops), in-process and over gRPC,
// and a non-default setting reaches the workers' tasks.
#include "shoal/distributed/transport/passthrough_headers.h"

#include <atomic>
#include <set>

#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

TEST(PassthroughHeadersTest, HeadersAreCheckedAndParsed) {
  Headers headers;
  ASSERT_OK(ParseHeader("trace-id=abc=1", &headers));
  ASSERT_OK(ParseHeader("tenant=", &headers));
  EXPECT_EQ(headers, (Headers{{"trace-id", "abc=1"}, {"tenant", ""}}));
  for (const char* bad : {"novalue", "=v", "Upper=v", "sp ace=v", "x-bin=v", "k=\x01"}) {
    EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseHeader(bad, &headers)) << bad;
  }
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, CheckHeader(std::string(65, 'a'), "v"));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, CheckHeader("k", std::string(4097, 'v')));
  CoordinatorOptions options;
  options.workers = {"w"};
  options.channels = InProcessCluster::Make();
  options.headers = {{"Bad Key", "v"}};
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, Coordinator::Make(std::move(options)));
}

// Stages read by other stages' tasks (not only by the coordinator) must have seen the header,
// and the query id the coordinator adds.
void ExpectHeadersEverywhere(const std::vector<std::shared_ptr<WorkerService>>& workers) {
  std::set<int> stages;
  int calls = 0;
  for (const auto& w : workers) {
    for (const auto& [key, headers] : w->ExecuteHeadersSeen()) {
      ++calls;
      stages.insert(key.stage_id);
      auto it = headers.find("trace-id");
      EXPECT_TRUE(it != headers.end() && it->second == "t-42")
          << key.ToString() << " on " << w->address() << " lacks the header";
      // The coordinator adds the query id: one grep of it follows the query across nodes.
      auto id = headers.find(std::string(kQueryIdHeader));
      EXPECT_TRUE(id != headers.end() && id->second == key.query_id)
          << key.ToString() << " on " << w->address() << " lacks the query id header";
    }
  }
  EXPECT_GT(calls, 2);
  // TPC-H Q3 has stages read by worker tasks (scans under shuffles and broadcasts) and one read
  // by the coordinator.
  EXPECT_GE(stages.size(), 2u);
}

class HeaderQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  void UseCoordinator(std::vector<std::string> workers, ChannelResolverPtr channels) {
    CoordinatorOptions options =
        distributed_testing::CoordinatorFor(std::move(workers), std::move(channels), "");
    options.headers = {{"trace-id", "t-42"}};
    ASSERT_OK(distributed_testing::InstallCoordinator(runner_, std::move(options)).status());
  }

  // Workers with default options (no version, default threads) sharing the runner's tables.
  WorkerServiceOptions Worker() {
    WorkerServiceOptions w;
    w.catalog = runner_.session().catalog();
    return w;
  }

  engine::QueryRunner runner_;
};

TEST_F(HeaderQueryTest, HeadersReachProducersThroughConsumersInProcess) {
  ASSERT_OK_AND_ASSIGN(auto cluster,
                       distributed_testing::MakeInProcessCluster({"w1", "w2"}, Worker()));
  UseCoordinator({"w1", "w2"}, cluster);
  ASSERT_OK(runner_.RunOne(distributed_testing::TpchQuery(3)).status());
  ExpectHeadersEverywhere({cluster->worker("w1"), cluster->worker("w2")});
}

TEST_F(HeaderQueryTest, HeadersReachProducersThroughConsumersOverGrpc) {
  distributed_testing::GrpcTestCluster workers;
  ASSERT_OK(workers.Start(2, Worker()));
  UseCoordinator(workers.addresses, workers.channels);
  ASSERT_OK(runner_.RunOne(distributed_testing::TpchQuery(3)).status());
  ExpectHeadersEverywhere(workers.services);
}

// Wraps the streams the coordinator receives and records the largest batch.
class BatchSizeProbe final : public ChannelResolver {
 public:
  explicit BatchSizeProbe(ChannelResolverPtr inner) : inner_(std::move(inner)) {}

  Result<WorkerChannelPtr> Connect(const std::string& address) override {
    SHOAL_ASSIGN_OR_RETURN(WorkerChannelPtr channel, inner_->Connect(address));
    return WorkerChannelPtr(std::make_shared<Channel>(std::move(channel), &max_rows_));
  }

  int64_t max_rows() const { return max_rows_.load(); }

 private:
  class Stream final : public exec::RecordBatchStream {
   public:
    Stream(exec::StreamPtr input, std::atomic<int64_t>* max_rows)
        : input_(std::move(input)), max_rows_(max_rows) {}
    const columnar::SchemaPtr& schema() const override { return input_->schema(); }
    Result<columnar::RecordBatchPtr> Next() override {
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, input_->Next());
      if (batch && batch->num_rows() > max_rows_->load())
        max_rows_->store(batch->num_rows());
      return batch;
    }

   private:
    exec::StreamPtr input_;
    std::atomic<int64_t>* max_rows_;
  };

  class Channel final : public WorkerChannel {
   public:
    Channel(WorkerChannelPtr inner, std::atomic<int64_t>* max_rows)
        : inner_(std::move(inner)), max_rows_(max_rows) {}
    const std::string& address() const override { return inner_->address(); }
    Result<std::unique_ptr<CoordinatorStream>> OpenCoordinatorChannel(
        const Headers& headers) override {
      return inner_->OpenCoordinatorChannel(headers);
    }
    Result<std::vector<exec::StreamPtr>> ExecuteTask(
        const Headers& headers, const ExecuteTaskRequest& request,
        const std::shared_ptr<exec::TaskContext>& context) override {
      SHOAL_ASSIGN_OR_RETURN(auto streams, inner_->ExecuteTask(headers, request, context));
      for (auto& s : streams)
        s = exec::StreamPtr(new Stream(std::move(s), max_rows_));
      return streams;
    }
    Result<WorkerInfo> GetWorkerInfo() override { return inner_->GetWorkerInfo(); }

   private:
    WorkerChannelPtr inner_;
    std::atomic<int64_t>* max_rows_;
  };

  ChannelResolverPtr inner_;
  std::atomic<int64_t> max_rows_{0};
};

// The final aggregate runs on the workers and cuts its output by the task's batch_size, which
// only the session's settings (shipped in SetPlanRequest) can have set to 7.
TEST_F(HeaderQueryTest, ANonDefaultSettingReachesTheWorkersTasks) {
  ASSERT_OK_AND_ASSIGN(auto cluster,
                       distributed_testing::MakeInProcessCluster({"w1", "w2"}, Worker()));
  const char* sql = "SELECT l_orderkey, count(*) FROM lineitem GROUP BY l_orderkey";
  for (int batch_size : {0, 7}) {
    auto probe = std::make_shared<BatchSizeProbe>(cluster);
    UseCoordinator({"w1", "w2"}, probe);
    if (batch_size > 0) {
      ASSERT_OK(runner_.RunOne("SET batch_size = " + std::to_string(batch_size)).status());
    }
    ASSERT_OK_AND_ASSIGN(auto result, runner_.RunOne(sql));
    EXPECT_EQ(result.num_rows(), 15000);
    if (batch_size > 0) {
      EXPECT_EQ(probe->max_rows(), batch_size);
    } else {
      EXPECT_GT(probe->max_rows(), 7);  // so the check above can fail
    }
  }
}

}  // namespace
}  // namespace shoal::distributed

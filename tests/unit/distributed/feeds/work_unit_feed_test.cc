// Work-unit feeds: the worker's queues (routing, bounded buffering that never deadlocks a merge,
// errors naming the feed, empty feeds), the coordinator's hand-out of scan units, one task fed by
// hand through the in-process transport, and whole queries with `dist_work_unit_feeds` on over the
// in-process and gRPC transports giving the answers of a single node.
#include "shoal/distributed/feeds/work_unit_feed.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/feeds/work_unit_feed_dispatch.h"
#include "shoal/distributed/feeds/work_unit_feed_scan_exec.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"

namespace shoal::distributed {
namespace {

using shoal::testing::WaitFor;

WorkUnit Unit(const std::string& node, int partition, const std::string& body) {
  WorkUnit u;
  u.node_id = node;
  u.partition = partition;
  u.body = body;
  return u;
}

WorkUnitBatch Batch(std::vector<WorkUnit> units) {
  WorkUnitBatch b;
  b.units = std::move(units);
  return b;
}

// Every body of the partition until its end.
std::vector<std::string> Drain(WorkUnitFeeds& feeds, const std::string& node, int partition) {
  std::vector<std::string> out;
  for (;;) {
    Result<std::optional<std::string>> next = feeds.Next(node, partition, nullptr);
    EXPECT_OK(next.status());
    if (!next.ok() || !next->has_value())
      return out;
    out.push_back(**next);
  }
}

// ------------------------------------------------------------------ the worker's queues

TEST(WorkUnitFeedsTest, RoutesUnitsToTheirNodeAndPartitionInOrder) {
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 2}, {"b", 1}}, "task t"));
  EXPECT_EQ(feeds->partitions("a"), 2);
  EXPECT_EQ(feeds->partitions("c"), -1);
  ASSERT_OK(feeds->Push(Batch({Unit("a", 0, "x"), Unit("a", 1, "y"), Unit("b", 0, "z")}), {}));
  ASSERT_OK(feeds->Push(Batch({Unit("a", 0, "w")}), {}));
  feeds->End();
  EXPECT_EQ(Drain(*feeds, "a", 0), (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(Drain(*feeds, "a", 1), (std::vector<std::string>{"y"}));
  EXPECT_EQ(Drain(*feeds, "b", 0), (std::vector<std::string>{"z"}));
}

TEST(WorkUnitFeedsTest, AFeedThatEndsWithoutUnitsGivesEmptyPartitions) {
  // Feed "probe" only tells when a consumer waits: a push to its full queue goes through as soon
  // as some consumer of the task waits on an empty queue (the overfill rule).
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 3}, {"probe", 1}}, "task t"));
  for (size_t i = 0; i < WorkUnitFeeds::kQueuedUnitsPerPartition; ++i)
    ASSERT_OK(feeds->Push(Batch({Unit("probe", 0, "p")}), {}));
  std::thread ender([&] {
    EXPECT_OK(feeds->Push(Batch({Unit("probe", 0, "p")}), {}));
    feeds->End();
  });
  // Waits for the end (which comes only once this waits), then ends: no unit, no hang.
  EXPECT_TRUE(Drain(*feeds, "a", 0).empty());
  ender.join();
  EXPECT_TRUE(Drain(*feeds, "a", 1).empty());
  EXPECT_TRUE(Drain(*feeds, "a", 2).empty());
}

TEST(WorkUnitFeedsTest, BadDeclarationsAreRefused) {
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, WorkUnitFeeds::Make({{"a", 0}}, "t").status());
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     WorkUnitFeeds::Make({{"a", 1}, {"a", 2}}, "t").status());
}

TEST(WorkUnitFeedsTest, AMisaddressedUnitFailsEveryFeedNamingIt) {
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 2}, {"b", 1}}, "task t"));
  Status st = feeds->Push(Batch({Unit("a", 5, "x")}), {});
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, st);
  EXPECT_NE(st.ToString().find("partition 5 of feed 'a'"), std::string::npos) << st.ToString();
  Result<std::optional<std::string>> next = feeds->Next("b", 0, nullptr);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, next.status());

  ASSERT_OK_AND_ASSIGN(auto other, WorkUnitFeeds::Make({{"a", 1}}, "task t"));
  st = other->Push(Batch({Unit("nope", 0, "x")}), {});
  EXPECT_NE(st.ToString().find("feed 'nope'"), std::string::npos) << st.ToString();
}

TEST(WorkUnitFeedsTest, ACoordinatorFailureFailsThatFeedOnlyAndNamesIt) {
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 2}, {"b", 1}}, "task 1/0"));
  ASSERT_OK(feeds->Push(Batch({Unit("b", 0, "z")}), {}));
  WorkUnitBatch failed;
  failed.failed_node_id = "a";
  failed.failure = Status::IoError("listing s3://bucket/lineitem failed");
  ASSERT_OK(feeds->Push(std::move(failed), {}));
  feeds->End();
  for (int p = 0; p < 2; ++p) {
    Result<std::optional<std::string>> next = feeds->Next("a", p, nullptr);
    EXPECT_STATUS_CODE(StatusCode::kIoError, next.status());
    const std::string text = next.status().ToString();
    EXPECT_NE(text.find("listing s3://bucket/lineitem failed"), std::string::npos) << text;
    EXPECT_NE(text.find("work-unit feed 'a'"), std::string::npos) << text;
  }
  EXPECT_EQ(Drain(*feeds, "b", 0), (std::vector<std::string>{"z"}));
}

TEST(WorkUnitFeedsTest, APushWaitsForSpaceAndOverfillsOnlyForAWaitingConsumer) {
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 2}}, "task t"));
  const size_t n = WorkUnitFeeds::kQueuedUnitsPerPartition + 2;
  std::atomic<size_t> pushed{0};
  std::atomic<bool> blocked{false};
  std::atomic<bool> done{false};
  std::thread pusher([&] {
    // A push polls `abandoned` only while it waits for space: the probe tells the test so.
    auto waiting = [&] {
      blocked = true;
      return false;
    };
    for (size_t i = 0; i < n; ++i) {
      EXPECT_OK(feeds->Push(Batch({Unit("a", 0, std::to_string(i))}), waiting));
      ++pushed;
    }
    EXPECT_OK(feeds->Push(Batch({Unit("a", 1, "late")}), waiting));
    done = true;
  });
  // Partition 0 is full and nobody waits: the pusher must block, the worker holding only
  // kQueuedUnitsPerPartition units.
  ASSERT_TRUE(WaitFor([&] { return blocked.load(); }, "the pusher to wait for space"));
  EXPECT_EQ(pushed.load(), WorkUnitFeeds::kQueuedUnitsPerPartition);
  EXPECT_FALSE(done.load());
  // A merge reading partition 1 first: its unit is behind partition 0's in the channel. Waiting
  // for it lets the pusher overfill partition 0 instead of deadlocking.
  Result<std::optional<std::string>> late = feeds->Next("a", 1, nullptr);
  ASSERT_OK(late.status());
  ASSERT_TRUE(late->has_value());
  EXPECT_EQ(**late, "late");
  pusher.join();
  feeds->End();
  EXPECT_EQ(Drain(*feeds, "a", 0).size(), n);
}

TEST(WorkUnitFeedsTest, AnAbandonedPushAndACancelledConsumerReturn) {
  ASSERT_OK_AND_ASSIGN(auto feeds, WorkUnitFeeds::Make({{"a", 1}}, "task t"));
  for (size_t i = 0; i < WorkUnitFeeds::kQueuedUnitsPerPartition; ++i)
    ASSERT_OK(feeds->Push(Batch({Unit("a", 0, "x")}), {}));
  // The sender is there when the push starts waiting and gone at the next poll.
  int polls = 0;
  EXPECT_STATUS_CODE(StatusCode::kCancelled,
                     feeds->Push(Batch({Unit("a", 0, "y")}), [&] { return ++polls > 1; }));
  EXPECT_EQ(polls, 2);

  ASSERT_OK_AND_ASSIGN(auto empty, WorkUnitFeeds::Make({{"a", 1}}, "task t"));
  exec::TaskContext::Options options;
  exec::TaskContext context(std::move(options));
  context.Cancel();
  EXPECT_STATUS_CODE(StatusCode::kCancelled, empty->Next("a", 0, &context).status());
  // Ending the task fails whatever still waits.
  empty->Fail(Status::Cancelled("task ended"));
  EXPECT_STATUS_CODE(StatusCode::kCancelled, empty->Next("a", 0, nullptr).status());
}

// ------------------------------------------------------------------ one task fed by hand

// The same task over either transport (parameter: "inproc" or "grpc"), so that declarations,
// units, failures and the end of the feeds also cross the wire.
class FeedTaskTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_.session().catalog().get()));
    WorkerServiceOptions options;
    options.threads = 2;
    options.catalog = runner_.session().catalog();
    if (GetParam() == "grpc") {
      ASSERT_OK(grpc_.Start(1, options));
      address_ = grpc_.addresses[0];
      service_ = grpc_.services[0];
      channels_ = grpc_.channels;
    } else {
      ASSERT_OK_AND_ASSIGN(auto cluster,
                           distributed_testing::MakeInProcessCluster({"w1"}, options));
      address_ = "w1";
      service_ = cluster->worker("w1");
      channels_ = cluster;
    }
    auto entry = runner_.session().catalog()->LookupTable(sql::kDefaultSchema, "lineitem");
    ASSERT_OK(entry.status());
    io::ScanRequest request;
    request.projection = {0, 4};  // l_orderkey, l_quantity
    ASSERT_OK_AND_ASSIGN(scan_, exec::TableScanExec::Make(entry->provider, "lineitem", request, 1));
    ASSERT_GE(scan_->unit_groups()[0].size(), 2u);
  }

  // Sends a plan with one feed scan of `partitions` partitions, runs `send`, then reads every
  // partition; returns the rows read or the first error.
  Result<int64_t> Run(int partitions, const std::function<void(CoordinatorStream*)>& send,
                      bool declare = true) {
    SHOAL_ASSIGN_OR_RETURN(auto feed_scan,
                           WorkUnitFeedScanExec::Make(*scan_, "f", partitions, nullptr));
    auto codecs = TableCodecRegistry::Builtin(runner_.session().catalog());
    SetPlanRequest request;
    request.task_key = {"q" + std::to_string(++query_), 1, 0};
    SHOAL_ASSIGN_OR_RETURN(request.encoded_plan, EncodePlan(feed_scan, *codecs));
    if (declare)
      request.work_unit_feeds = {{"f", partitions}};
    SHOAL_ASSIGN_OR_RETURN(auto channel, channels_->Connect(address_));
    SHOAL_ASSIGN_OR_RETURN(auto stream, channel->OpenCoordinatorChannel({}));
    SHOAL_RETURN_IF_ERROR(stream->SendPlan(request));
    ExecuteTaskRequest execute;
    execute.task_key = request.task_key;
    execute.partition_start = 0;
    execute.partition_end = partitions;
    SHOAL_ASSIGN_OR_RETURN(auto streams, channel->ExecuteTask({}, execute, nullptr));
    std::thread sender([&] { send(stream.get()); });
    int64_t rows = 0;
    Status status;
    for (auto& s : streams) {
      for (;;) {
        Result<columnar::RecordBatchPtr> batch = s->Next();
        if (!batch.ok()) {
          status = batch.status();
          break;
        }
        if (!*batch)
          break;
        rows += (*batch)->num_rows();
      }
      if (!status.ok())
        break;
    }
    // The sends here never wait long (few units, every partition read); not cancelling them keeps
    // Finish synchronous with the worker ending the task.
    sender.join();
    streams.clear();
    (void)stream->Finish();
    if (!status.ok())
      return status;
    return rows;
  }

  std::vector<io::ScanUnit> units() const { return scan_->unit_groups()[0]; }

  engine::QueryRunner runner_;
  std::string address_;
  ChannelResolverPtr channels_;
  std::shared_ptr<WorkerService> service_;
  distributed_testing::GrpcTestCluster grpc_;  // empty over the in-process transport
  std::shared_ptr<exec::TableScanExec> scan_;
  int query_ = 0;
};

TEST_P(FeedTaskTest, UnitsStreamedToPartitionsAreScannedOnce) {
  int64_t expected = 0;
  for (const auto& u : units())
    expected += u.rows;
  ASSERT_OK_AND_ASSIGN(
      int64_t rows, Run(3, [&](CoordinatorStream* s) {
        int i = 0;
        for (const auto& u : units())
          ASSERT_OK(s->SendWorkUnitBatch(Batch({Unit("f", i++ % 3, EncodeScanUnitBody(u))})));
        ASSERT_OK(s->SendWorkUnitEos());
      }));
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(service_->num_tasks(), 0);
}

TEST_P(FeedTaskTest, AnEmptyFeedGivesEmptyPartitions) {
  ASSERT_OK_AND_ASSIGN(int64_t rows,
                       Run(4, [](CoordinatorStream* s) { ASSERT_OK(s->SendWorkUnitEos()); }));
  EXPECT_EQ(rows, 0);
}

TEST_P(FeedTaskTest, AUnitTheScanCannotReadFailsTheTaskNamingFeedAndUnit) {
  Result<int64_t> garbage = Run(2, [](CoordinatorStream* s) {
    (void)s->SendWorkUnitBatch(Batch({Unit("f", 0, "\xff\xff not a unit")}));
    (void)s->SendWorkUnitEos();
  });
  ASSERT_FALSE(garbage.ok());
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, garbage.status());
  EXPECT_NE(garbage.status().ToString().find("work-unit feed 'f'"), std::string::npos)
      << garbage.status().ToString();

  io::ScanUnit bad = units()[0];
  bad.description = "memory batch 9999";
  bad.payload = "9999";
  Result<int64_t> unreadable = Run(2, [&](CoordinatorStream* s) {
    (void)s->SendWorkUnitBatch(Batch({Unit("f", 1, EncodeScanUnitBody(bad))}));
    (void)s->SendWorkUnitEos();
  });
  ASSERT_FALSE(unreadable.ok());
  const std::string text = unreadable.status().ToString();
  EXPECT_NE(text.find("memory batch 9999"), std::string::npos) << text;
  EXPECT_NE(text.find("partition 1 of work-unit feed 'f'"), std::string::npos) << text;
}

TEST_P(FeedTaskTest, TheCoordinatorFailingToProduceUnitsFailsTheTask) {
  Result<int64_t> failed = Run(2, [&](CoordinatorStream* s) {
    (void)s->SendWorkUnitBatch(Batch({Unit("f", 0, EncodeScanUnitBody(units()[0]))}));
    WorkUnitBatch failure;
    failure.failed_node_id = "f";
    failure.failure = Status::IoError("listing the table's files failed");
    (void)s->SendWorkUnitBatch(failure);
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_STATUS_CODE(StatusCode::kIoError, failed.status());
  EXPECT_NE(failed.status().ToString().find("listing the table's files failed"), std::string::npos);
  EXPECT_EQ(service_->num_tasks(), 0);
}

TEST_P(FeedTaskTest, AFeedScanWithoutADeclarationIsRefused) {
  Result<int64_t> refused = Run(
      2, [](CoordinatorStream* s) { (void)s->SendWorkUnitEos(); }, /*declare=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("work-unit feed 'f' is not declared"),
            std::string::npos)
      << refused.status().ToString();
}

TEST_P(FeedTaskTest, AFeedScanRoundTripsThroughThePlanCodec) {
  ASSERT_OK_AND_ASSIGN(auto feed_scan, WorkUnitFeedScanExec::Make(*scan_, "f", 3, nullptr));
  auto codecs = TableCodecRegistry::Builtin(runner_.session().catalog());
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(feed_scan, *codecs));
  PlanDecodeContext unbound;
  unbound.codecs = codecs;
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodePlan(bytes, unbound));
  const auto* node = dynamic_cast<const WorkUnitFeedScanExec*>(decoded.get());
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->feed_id(), "f");
  EXPECT_EQ(node->num_partitions(), 3);
  EXPECT_EQ(node->request().projection, scan_->request().projection);
  EXPECT_EQ(*node->schema(), *scan_->schema());
  // Unbound: it cannot run.
  EXPECT_STATUS_CODE(StatusCode::kInternal, node->Execute(0, nullptr).status());
  // Bound to feeds that declare another partition count: refused.
  PlanDecodeContext mismatched = unbound;
  ASSERT_OK_AND_ASSIGN(mismatched.feeds, WorkUnitFeeds::Make({{"f", 2}}, "task t"));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, DecodePlan(bytes, mismatched).status());
}

INSTANTIATE_TEST_SUITE_P(Transports, FeedTaskTest, ::testing::Values("inproc", "grpc"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// ------------------------------------------------------------------ the coordinator's hand-out

TEST(UseWorkUnitFeedsTest, PoolsAStagesUnitsAndDealsThemOverEveryPartitionOfEveryTask) {
  engine::QueryRunner runner;
  ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  ASSERT_OK(engine::RegisterTpchTables(scale, runner.session().catalog().get()));
  auto entry = runner.session().catalog()->LookupTable(sql::kDefaultSchema, "nation");
  ASSERT_OK(entry.status());
  // 3 tasks of 64 partitions each, sharing 300 equal units (task t got units [100t, 100t+100)).
  constexpr int kTasks = 3;
  constexpr int kPartitions = 64;
  std::vector<exec::ExecPlanPtr> plans;
  for (int t = 0; t < kTasks; ++t) {
    std::vector<std::vector<io::ScanUnit>> groups(kPartitions);
    for (int i = 0; i < 100; ++i) {
      const int id = t * 100 + i;
      groups[static_cast<size_t>(i % kPartitions)].push_back(
          {"unit " + std::to_string(id), 1000, 10, std::to_string(id)});
    }
    ASSERT_OK_AND_ASSIGN(auto scan, exec::TableScanExec::FromUnitGroups(entry->provider, "nation",
                                                                        {}, std::move(groups)));
    plans.push_back(std::move(scan));
  }
  ASSERT_OK_AND_ASSIGN(auto tasks, UseWorkUnitFeeds(7, &plans));
  ASSERT_EQ(tasks.size(), static_cast<size_t>(kTasks));
  std::set<std::string> seen;
  std::map<std::pair<int, int>, int> per_slot;
  for (int t = 0; t < kTasks; ++t) {
    const auto* feed =
        dynamic_cast<const WorkUnitFeedScanExec*>(plans[static_cast<size_t>(t)].get());
    ASSERT_NE(feed, nullptr);
    EXPECT_EQ(feed->num_partitions(), kPartitions);
    ASSERT_EQ(tasks[static_cast<size_t>(t)].feeds.size(), 1u);
    EXPECT_EQ(tasks[static_cast<size_t>(t)].feeds[0].node_id, feed->feed_id());
    EXPECT_EQ(tasks[static_cast<size_t>(t)].feeds[0].partitions, kPartitions);
    for (const auto& u : tasks[static_cast<size_t>(t)].units) {
      EXPECT_EQ(u.node_id, feed->feed_id());
      ASSERT_GE(u.partition, 0);
      ASSERT_LT(u.partition, kPartitions);
      ASSERT_OK_AND_ASSIGN(io::ScanUnit unit, DecodeScanUnitBody(u.body));
      EXPECT_TRUE(seen.insert(unit.payload).second) << "unit handed out twice: " << unit.payload;
      ++per_slot[{t, u.partition}];
    }
  }
  EXPECT_EQ(seen.size(), 300u);
  // Equal units: every one of the 192 partitions gets 1 or 2 of them.
  EXPECT_EQ(per_slot.size(), static_cast<size_t>(kTasks * kPartitions));
  for (const auto& [slot, n] : per_slot) {
    EXPECT_GE(n, 1);
    EXPECT_LE(n, 2);
  }
}

TEST(UseWorkUnitFeedsTest, TasksScanningDifferentTablesKeepTheirOwnUnits) {
  engine::QueryRunner runner;
  ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  ASSERT_OK(engine::RegisterTpchTables(scale, runner.session().catalog().get()));
  // A stage whose tasks split a UNION's inputs: task 0 scans nation, task 1 region.
  std::vector<exec::ExecPlanPtr> plans;
  for (const char* name : {"nation", "region"}) {
    auto entry = runner.session().catalog()->LookupTable(sql::kDefaultSchema, name);
    ASSERT_OK(entry.status());
    std::vector<std::vector<io::ScanUnit>> groups(2);
    for (int i = 0; i < 5; ++i)
      groups[static_cast<size_t>(i % 2)].push_back(
          {std::string(name) + " " + std::to_string(i), 100, 1, name});
    ASSERT_OK_AND_ASSIGN(auto scan, exec::TableScanExec::FromUnitGroups(entry->provider, name, {},
                                                                        std::move(groups)));
    plans.push_back(std::move(scan));
  }
  ASSERT_OK_AND_ASSIGN(auto tasks, UseWorkUnitFeeds(2, &plans));
  ASSERT_EQ(tasks.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    const char* name = t == 0 ? "nation" : "region";
    EXPECT_NE(dynamic_cast<const WorkUnitFeedScanExec*>(plans[t].get()), nullptr);
    ASSERT_EQ(tasks[t].units.size(), 5u);
    for (const auto& u : tasks[t].units) {
      ASSERT_OK_AND_ASSIGN(io::ScanUnit unit, DecodeScanUnitBody(u.body));
      EXPECT_EQ(unit.payload, name);
      EXPECT_LT(u.partition, 2);
    }
  }
}

// ------------------------------------------------------------------ whole queries

class FeedQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal_work_unit_feed_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "lp");
    ASSERT_OK(distributed_testing::LoadTpch(single_, 4));
    ASSERT_OK(distributed_testing::LoadTpch(distributed_, 4));
    // lineitem as two Parquet files of many small row groups: many scan units.
    ASSERT_OK(single_
                  .RunOne("COPY (SELECT * FROM lineitem WHERE l_orderkey <= 30000) TO '" +
                          (dir_ / "lp" / "a.parquet").string() + "' (ROW_GROUP_SIZE 500)")
                  .status());
    ASSERT_OK(single_
                  .RunOne("COPY (SELECT * FROM lineitem WHERE l_orderkey > 30000) TO '" +
                          (dir_ / "lp" / "b.parquet").string() + "' (ROW_GROUP_SIZE 500)")
                  .status());
    for (auto* runner : {&single_, &distributed_}) {
      ASSERT_OK(runner
                    ->RunOne("CREATE EXTERNAL TABLE lp STORED AS PARQUET LOCATION '" +
                             (dir_ / "lp").string() + "'")
                    .status());
    }
  }

  void TearDown() override { std::filesystem::remove_all(dir_); }

  void UseCoordinator(const std::vector<std::string>& workers, ChannelResolverPtr channels) {
    ASSERT_OK_AND_ASSIGN(coordinator_, distributed_testing::InstallCoordinator(
                                           distributed_, distributed_testing::CoordinatorFor(
                                                             workers, std::move(channels))));
    ASSERT_OK(coordinator_->CheckWorkers());
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
    ASSERT_OK(distributed_.RunOne("SET dist_work_unit_feeds = true").status());
  }

  void ExpectSameAnswer(const std::string& sql) {
    SCOPED_TRACE(sql.substr(0, 80));
    distributed_testing::ExpectSameRows(single_, distributed_, sql);
  }

  std::filesystem::path dir_;
  engine::QueryRunner single_;
  engine::QueryRunner distributed_;
  std::shared_ptr<Coordinator> coordinator_;
};

class InProcessFeedQueryTest : public FeedQueryTest {
 protected:
  void SetUp() override {
    FeedQueryTest::SetUp();
    ASSERT_OK_AND_ASSIGN(
        cluster_,
        distributed_testing::MakeInProcessCluster(
            {"w1", "w2", "w3"}, distributed_testing::TestWorker(distributed_.session().catalog())));
    UseCoordinator({"w1", "w2", "w3"}, cluster_);
  }

  int TasksHeld() const { return distributed_testing::TasksHeld(*cluster_); }

  std::shared_ptr<InProcessCluster> cluster_;
};

TEST_F(InProcessFeedQueryTest, EveryTpchQueryGivesTheSingleNodeAnswerWithFeeds) {
  for (int q : distributed_testing::TpchQueriesToCheck()) {
    SCOPED_TRACE("q" + std::to_string(q));
    ExpectSameAnswer(distributed_testing::TpchQuery(q));
    EXPECT_EQ(TasksHeld(), 0) << "workers still hold tasks after the query ended";
  }
}

// The value of metric `name` in EXPLAIN ANALYZE text, or -1.
int64_t Metric(const std::string& text, const std::string& name) {
  const size_t at = text.find(name + "=");
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + name.size() + 1));
}

TEST_F(InProcessFeedQueryTest, LeafTasksReadEveryUnitFromTheirFeeds) {
  const std::string sql = "EXPLAIN ANALYZE SELECT sum(l_quantity) FROM lp";
  for (bool feeds : {true, false}) {
    SCOPED_TRACE(feeds ? "feeds on" : "feeds off");
    ASSERT_OK(
        distributed_.RunOne(std::string("SET dist_work_unit_feeds = ") + (feeds ? "true" : "false"))
            .status());
    ASSERT_OK_AND_ASSIGN(auto result, distributed_.RunOne(sql));
    const std::string text = distributed_testing::SortedText(result);
    if (feeds) {
      EXPECT_GT(Metric(text, "row_groups_total"), 100) << text;
      EXPECT_EQ(Metric(text, "work_units"), Metric(text, "row_groups_total")) << text;
    } else {
      EXPECT_EQ(Metric(text, "work_units"), -1) << text;
    }
  }
}

TEST_F(InProcessFeedQueryTest, SixtyFourFeedPartitionsPerTaskOverThreeWorkers) {
  // 64 scan partitions in every leaf task: most of the 192 feed partitions of the stage get one
  // or two of the ~120 row groups, the rest end empty.
  ASSERT_OK(distributed_.RunOne("SET threads = 64").status());
  ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '1kB'").status());
  {
    ASSERT_OK_AND_ASSIGN(auto analyzed,
                         distributed_.RunOne("EXPLAIN ANALYZE SELECT sum(l_quantity) FROM lp"));
    const std::string text = distributed_testing::SortedText(analyzed);
    EXPECT_NE(text.find("tasks=3, partitions_per_task=64"), std::string::npos) << text;
    EXPECT_EQ(Metric(text, "work_units"), Metric(text, "row_groups_total")) << text;
  }
  ExpectSameAnswer("SELECT count(*), sum(l_quantity), min(l_orderkey), max(l_orderkey) FROM lp");
  ExpectSameAnswer(
      "SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice) FROM lp "
      "WHERE l_shipdate <= DATE '1998-09-01' GROUP BY l_returnflag, l_linestatus");
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(InProcessFeedQueryTest, UnionsGiveTheSingleNodeAnswer) {
  // The planner may split a UNION's inputs over the tasks of a stage (task plans of different
  // shapes): each task then deals its own units.
  ExpectSameAnswer(
      "SELECT count(*), sum(k) FROM (SELECT l_orderkey AS k FROM lp UNION ALL "
      "SELECT o_orderkey FROM orders UNION ALL SELECT c_custkey FROM customer) t");
  ExpectSameAnswer(
      "SELECT l_orderkey FROM lp WHERE l_quantity > 49 UNION ALL "
      "SELECT o_orderkey FROM orders WHERE o_totalprice > 400000");
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(InProcessFeedQueryTest, ALimitStopsTheFeedsWithoutHanging) {
  // Few partitions and ~120 units: the feeds' queues fill and the senders block until the query
  // ends and cancels them.
  ASSERT_OK(distributed_.RunOne("SET threads = 1").status());
  ASSERT_OK(distributed_.RunOne("SET dist_max_tasks = 1").status());
  ASSERT_OK_AND_ASSIGN(auto result, distributed_.RunOne("SELECT l_orderkey FROM lp LIMIT 3"));
  EXPECT_EQ(result.num_rows(), 3);
  EXPECT_EQ(TasksHeld(), 0);
  ExpectSameAnswer("SELECT count(*) FROM lp WHERE l_quantity > 10");
}

class GrpcFeedQueryTest : public FeedQueryTest {
 protected:
  void SetUp() override {
    FeedQueryTest::SetUp();
    ASSERT_OK(workers_.Start(2, distributed_testing::TestWorker(distributed_.session().catalog())));
    UseCoordinator(workers_.addresses, workers_.channels);
  }

  void TearDown() override {
    distributed_.SetExecutionMode(engine::ExecutionMode::Local());
    coordinator_.reset();
    workers_.Shutdown();
    FeedQueryTest::TearDown();
  }

  distributed_testing::GrpcTestCluster workers_;
};

TEST_F(GrpcFeedQueryTest, FeedsOverGrpcGiveTheSingleNodeAnswers) {
  for (int q : {1, 3, 6, 12, 18})
    ExpectSameAnswer(distributed_testing::TpchQuery(q));
  ExpectSameAnswer("SELECT l_linestatus, count(*), sum(l_quantity) FROM lp GROUP BY l_linestatus");
  {
    ASSERT_OK_AND_ASSIGN(auto analyzed,
                         distributed_.RunOne("EXPLAIN ANALYZE SELECT sum(l_quantity) FROM lp"));
    const std::string text = distributed_testing::SortedText(analyzed);
    EXPECT_GT(Metric(text, "row_groups_total"), 100) << text;
    EXPECT_EQ(Metric(text, "work_units"), Metric(text, "row_groups_total")) << text;
  }
  ASSERT_OK(distributed_.RunOne("SET threads = 1").status());
  ASSERT_OK_AND_ASSIGN(auto limited, distributed_.RunOne("SELECT l_orderkey FROM lp LIMIT 2"));
  EXPECT_EQ(limited.num_rows(), 2);
  // Workers forget the tasks once their channels close (asynchronously over gRPC).
  EXPECT_TRUE(WaitFor([&] { return workers_.TasksHeld() == 0; }, "the workers to drop the tasks"));
}

}  // namespace
}  // namespace shoal::distributed

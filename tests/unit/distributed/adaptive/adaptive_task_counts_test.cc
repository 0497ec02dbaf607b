// Adaptive task counts: the worker's LoadInfo sampler reports the right statistics of a known
// table and hands every sampled row to the first consumer exactly once; the coordinator's sizing
// extrapolates samples as documented; in adaptive mode TPC-H gives the single-node answers (four
// in-process workers, and two gRPC workers), workers forget every task, and a big input gets more
// tasks than a small one.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>

#include <gtest/gtest.h>

#include "shoal/distributed/adaptive/adaptive_dispatch.h"
#include "shoal/distributed/adaptive/load_sampler.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed {
namespace {

// Collects a sampler's LoadInfo feed.
struct Feed {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<LoadInfo> infos;
  int eos = 0;

  LoadInfoSink Sink() {
    return [this](const LoadInfo* info) {
      std::lock_guard<std::mutex> lock(mutex);
      if (info)
        infos.push_back(*info);
      else
        ++eos;
      cv.notify_all();
    };
  }

  bool WaitForEos() {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return eos > 0; });
  }
};

class LoadSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_.session().catalog().get()));
    ASSERT_OK(engine::RegisterTpchTables(scale, capture_.session().catalog().get()));
    engine_testing::RewritePlans(
        capture_, [this](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
          captured_ = plan;
          return Result<exec::ExecPlanPtr>(plan);
        });
  }

  // The physical plan of `sql` (the capturing runner also runs it, which does no harm).
  Result<exec::ExecPlanPtr> Plan(const std::string& sql, int threads) {
    SHOAL_RETURN_IF_ERROR(capture_.RunOne("SET threads = " + std::to_string(threads)).status());
    SHOAL_RETURN_IF_ERROR(capture_.RunOne(sql).status());
    return captured_;
  }

  static std::shared_ptr<exec::TaskContext> Context(int threads) {
    exec::TaskContext::Options options;
    EXPECT_OK(options.settings.Set("threads", std::to_string(threads)));
    return std::make_shared<exec::TaskContext>(std::move(options));
  }

  static int64_t Rows(const std::vector<columnar::RecordBatchPtr>& batches) {
    int64_t n = 0;
    for (const auto& b : batches)
      n += b->num_rows();
    return n;
  }

  engine::QueryRunner runner_;
  engine::QueryRunner capture_;
  exec::ExecPlanPtr captured_;
};

TEST_F(LoadSamplerTest, ReportsRowsBytesDistinctAndNullShareOfAKnownTable) {
  const std::string sql =
      "SELECT n_nationkey, n_regionkey, CASE WHEN n_nationkey % 5 = 0 THEN NULL ELSE "
      "n_regionkey END AS r, n_name FROM nation";
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan, Plan(sql, 1));
  ASSERT_EQ(plan->num_partitions(), 1);
  auto context = Context(1);
  Feed feed;
  auto sampler = LoadSampler::Start(
      plan, context, SampleLimits{1000, 1 << 20, std::chrono::minutes(1)}, feed.Sink());
  ASSERT_TRUE(feed.WaitForEos());
  ASSERT_EQ(feed.infos.size(), 1u);
  const LoadInfo& info = feed.infos[0];
  EXPECT_EQ(info.partition, 0);
  EXPECT_EQ(info.rows_ready, 25);
  EXPECT_TRUE(info.reached_eos);
  EXPECT_EQ(info.rows_pulled_from_leaf, 25);
  ASSERT_EQ(info.column_ndv_percentage.size(), 4u);
  ASSERT_EQ(info.column_null_percentage.size(), 4u);
  ASSERT_EQ(info.column_bytes_ready.size(), 4u);
  // 25 distinct keys, 5 regions; r: 20 non-null values over the 5 regions, 5 nulls.
  EXPECT_NEAR(info.column_ndv_percentage[0], 100.0, 2.0);
  EXPECT_NEAR(info.column_ndv_percentage[1], 20.0, 1.0);
  EXPECT_NEAR(info.column_ndv_percentage[2], 20.0, 1.0);
  EXPECT_NEAR(info.column_ndv_percentage[3], 100.0, 2.0);
  EXPECT_FLOAT_EQ(info.column_null_percentage[0], 0.0f);
  EXPECT_FLOAT_EQ(info.column_null_percentage[1], 0.0f);
  EXPECT_FLOAT_EQ(info.column_null_percentage[2], 20.0f);
  EXPECT_FLOAT_EQ(info.column_null_percentage[3], 0.0f);
  // Bytes: the fixed-width keys at their width, names as their characters plus one offset each,
  // a validity bitmap for the column with nulls.
  ASSERT_OK_AND_ASSIGN(auto names, runner_.RunOne("SELECT sum(length(n_name)) FROM nation"));
  const int64_t name_chars =
      std::stoll(columnar::Scalar::FromArray(*names.batches[0]->column(0), 0).ToString());
  const auto& schema = *plan->schema();
  EXPECT_EQ(info.column_bytes_ready[0], 25 * schema.field(0).type.byte_width());
  EXPECT_EQ(info.column_bytes_ready[1], 25 * schema.field(1).type.byte_width());
  EXPECT_EQ(info.column_bytes_ready[2], 25 * schema.field(2).type.byte_width() + 4);
  EXPECT_EQ(info.column_bytes_ready[3], name_chars + 4 * 25);

  // The first consumer gets the sampled rows, a second execution recomputes them.
  ASSERT_OK_AND_ASSIGN(auto first, exec::CollectAll(sampler->plan(), context));
  EXPECT_EQ(Rows(first), 25);
  ASSERT_OK_AND_ASSIGN(auto second, exec::CollectAll(sampler->plan(), context));
  EXPECT_EQ(Rows(second), 25);
  sampler->Stop();
}

TEST_F(LoadSamplerTest, StatisticsOfAnEmptyAndANullOnlyColumn) {
  SampleStats stats(1);
  LoadInfo empty = stats.ToLoadInfo(3);
  EXPECT_EQ(empty.partition, 3);
  EXPECT_EQ(empty.rows_ready, 0);
  EXPECT_FLOAT_EQ(empty.column_ndv_percentage[0], 0.0f);
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan,
                       Plan("SELECT CAST(NULL AS INTEGER) AS x FROM region", 1));
  ASSERT_OK_AND_ASSIGN(auto batches, exec::CollectAll(plan, Context(1)));
  for (const auto& b : batches)
    ASSERT_OK(stats.Add(*b));
  LoadInfo info = stats.ToLoadInfo(0);
  EXPECT_EQ(info.rows_ready, 5);
  EXPECT_FLOAT_EQ(info.column_null_percentage[0], 100.0f);
  EXPECT_FLOAT_EQ(info.column_ndv_percentage[0], 0.0f);
}

TEST_F(LoadSamplerTest, DistinctEstimateStaysCloseOnManyValues) {
  // 60k lineitem rows: l_orderkey has 15000 distinct values at SF 0.01.
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan, Plan("SELECT l_orderkey FROM lineitem", 1));
  ASSERT_OK_AND_ASSIGN(auto batches, exec::CollectAll(plan, Context(1)));
  ASSERT_OK_AND_ASSIGN(auto exact,
                       runner_.RunOne("SELECT count(DISTINCT l_orderkey), count(*) FROM lineitem"));
  const double distinct =
      std::stod(columnar::Scalar::FromArray(*exact.batches[0]->column(0), 0).ToString());
  const double rows =
      std::stod(columnar::Scalar::FromArray(*exact.batches[0]->column(1), 0).ToString());
  SampleStats stats(1);
  for (const auto& b : batches)
    ASSERT_OK(stats.Add(*b));
  const double expected = 100.0 * distinct / rows;
  // A 2048-register HyperLogLog is within a few percent (standard error ~2.3%).
  EXPECT_NEAR(stats.ToLoadInfo(0).column_ndv_percentage[0], expected, expected * 0.08);
}

struct Totals {
  int64_t count = 0;
  int64_t sum_key = 0;
  double sum_quantity = 0;
};

Totals Sum(const std::vector<columnar::RecordBatchPtr>& batches) {
  Totals t;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      ++t.count;
      t.sum_key += std::stoll(columnar::Scalar::FromArray(*b->column(0), r).ToString());
      t.sum_quantity += std::stod(columnar::Scalar::FromArray(*b->column(1), r).ToString());
    }
  }
  return t;
}

// The sampled streams continue where the sample stopped: counts and sums equal the unsampled
// plan's (and the row count the SQL answer), whether consumers come after the sample or while it
// is still being taken.
TEST_F(LoadSamplerTest, ConsumersGetEveryRowExactlyOnce) {
  const std::string sql = "SELECT l_orderkey, l_quantity FROM lineitem WHERE l_quantity > 10";
  ASSERT_OK_AND_ASSIGN(auto count,
                       runner_.RunOne("SELECT count(*) FROM lineitem WHERE l_quantity > 10"));
  const int64_t want_count =
      std::stoll(columnar::Scalar::FromArray(*count.batches[0]->column(0), 0).ToString());
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan, Plan(sql, 4));
  // Below the root's coalesce: a task plan has several partitions.
  while (plan->num_partitions() == 1 && plan->children().size() == 1)
    plan = plan->children()[0];
  ASSERT_GT(plan->num_partitions(), 1);
  ASSERT_OK_AND_ASSIGN(auto unsampled, exec::CollectAll(plan, Context(4)));
  const Totals want = Sum(unsampled);
  EXPECT_EQ(want.count, want_count);
  for (bool wait : {true, false}) {
    SCOPED_TRACE(wait ? "after the sample" : "during the sample");
    auto context = Context(4);
    Feed feed;
    auto sampler = LoadSampler::Start(
        plan, context, SampleLimits{1000, 1 << 20, std::chrono::minutes(1)}, feed.Sink());
    if (wait) {
      ASSERT_TRUE(feed.WaitForEos());
      ASSERT_EQ(feed.infos.size(), static_cast<size_t>(plan->num_partitions()));
      for (const LoadInfo& info : feed.infos) {
        EXPECT_GE(info.rows_ready, 1000);
        EXPECT_FALSE(info.reached_eos);
        EXPECT_GE(info.rows_pulled_from_leaf, info.rows_ready);
      }
    }
    ASSERT_OK_AND_ASSIGN(auto batches, exec::CollectAll(sampler->plan(), context));
    const Totals got = Sum(batches);
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.sum_key, want.sum_key);
    EXPECT_NEAR(got.sum_quantity, want.sum_quantity, 1e-6);
    ASSERT_TRUE(feed.WaitForEos());
    EXPECT_EQ(feed.eos, 1);
    sampler->Stop();
  }
}

// Out of time before the first batch: an empty, open sample; the consumer still gets every row.
TEST_F(LoadSamplerTest, ASampleOutOfTimeReportsWhatItHasAndLosesNothing) {
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan, Plan("SELECT l_orderkey FROM lineitem", 1));
  auto context = Context(1);
  Feed feed;
  auto sampler = LoadSampler::Start(
      plan, context, SampleLimits{1000, 1 << 20, std::chrono::milliseconds(0)}, feed.Sink());
  ASSERT_TRUE(feed.WaitForEos());
  ASSERT_EQ(feed.infos.size(), 1u);
  EXPECT_EQ(feed.infos[0].rows_ready, 0);
  EXPECT_FALSE(feed.infos[0].reached_eos);
  ASSERT_OK_AND_ASSIGN(auto batches, exec::CollectAll(sampler->plan(), context));
  ASSERT_OK_AND_ASSIGN(auto unsampled, exec::CollectAll(plan, Context(1)));
  EXPECT_EQ(Rows(batches), Rows(unsampled));
  EXPECT_GT(Rows(batches), 0);
}

// A cancelled task: the sampler stops, its consumers get the cancellation (never a truncated
// result), and the sink hears nothing after Stop.
TEST_F(LoadSamplerTest, CancelledSamplesFailTheirConsumersAndStopSilencesTheSink) {
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr plan, Plan("SELECT * FROM lineitem", 2));
  while (plan->num_partitions() == 1 && plan->children().size() == 1)
    plan = plan->children()[0];
  auto context = Context(2);
  Feed feed;
  context->Cancel();  // before the start, so that no partition can end first
  auto sampler = LoadSampler::Start(
      plan, context, SampleLimits{1 << 30, 1LL << 40, std::chrono::minutes(1)}, feed.Sink());
  Result<std::vector<columnar::RecordBatchPtr>> consumed =
      exec::CollectAll(sampler->plan(), context);
  ASSERT_FALSE(consumed.ok());
  EXPECT_EQ(consumed.status().code(), StatusCode::kCancelled) << consumed.status().ToString();
  sampler->Stop();
  size_t heard = 0;
  {
    std::lock_guard<std::mutex> lock(feed.mutex);
    heard = feed.infos.size() + static_cast<size_t>(feed.eos);
  }
  sampler.reset();
  std::lock_guard<std::mutex> lock(feed.mutex);
  EXPECT_EQ(feed.infos.size() + static_cast<size_t>(feed.eos), heard);
  for (const LoadInfo& info : feed.infos)
    EXPECT_FALSE(info.reached_eos);
}

TEST(EstimateTaskOutputTest, ExactWhenEveryPartitionEnded) {
  LoadInfo a;
  a.rows_ready = 10;
  a.column_bytes_ready = {40, 80};
  a.reached_eos = true;
  a.rows_pulled_from_leaf = 100;
  LoadInfo b = a;
  b.partition = 1;
  OutputEstimate e = EstimateTaskOutput({a, b}, 1000);
  EXPECT_TRUE(e.known);
  EXPECT_EQ(e.rows, 20);
  EXPECT_EQ(e.bytes, 240);
}

TEST(EstimateTaskOutputTest, ScalesOpenPartitionsByTheShareOfLeafRowsPulled) {
  LoadInfo open;
  open.rows_ready = 100;
  open.column_bytes_ready = {800};
  open.rows_pulled_from_leaf = 250;  // a quarter of the leaf rows
  LoadInfo ended;
  ended.partition = 1;
  ended.rows_ready = 5;
  ended.column_bytes_ready = {40};
  ended.reached_eos = true;
  ended.rows_pulled_from_leaf = 200;
  OutputEstimate e = EstimateTaskOutput({open, ended}, 1000);
  EXPECT_TRUE(e.known);
  EXPECT_EQ(e.rows, 5 + 400);
  EXPECT_EQ(e.bytes, 40 + 3200);
  // Unknown leaf rows: not extrapolable.
  EXPECT_FALSE(EstimateTaskOutput({open}, -1).known);
  // Leaves exhausted but the partition goes on (an aggregate): one row per leaf row at most.
  open.rows_pulled_from_leaf = 1000;
  e = EstimateTaskOutput({open}, 1000);
  EXPECT_EQ(e.rows, 1000);
  EXPECT_EQ(e.bytes, 8000);
}

class AdaptiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(single_, 2));
    ASSERT_OK(distributed_testing::LoadTpch(distributed_, 2));
    const std::vector<std::string> names = {"w1", "w2", "w3", "w4"};
    ASSERT_OK_AND_ASSIGN(
        cluster_, distributed_testing::MakeInProcessCluster(
                      names, distributed_testing::TestWorker(distributed_.session().catalog())));
    ASSERT_OK_AND_ASSIGN(coordinator_,
                         distributed_testing::InstallCoordinator(
                             distributed_, distributed_testing::CoordinatorFor(names, cluster_)));
    ASSERT_OK(distributed_.RunOne("SET dist_bytes_per_task = '64kB'").status());
    ASSERT_OK(distributed_.RunOne("SET dist_adaptive_task_counts = true").status());
  }

  int TasksHeld() const { return distributed_testing::TasksHeld(*cluster_); }

  // The task counts EXPLAIN ANALYZE says adaptive mode chose for the stages it sized.
  std::vector<int> SampledTaskCounts(const std::string& sql) {
    Result<engine::QueryResult> result = distributed_.RunOne("EXPLAIN ANALYZE " + sql);
    EXPECT_OK(result.status());
    std::vector<int> counts;
    if (!result.ok())
      return counts;
    static const std::regex kChoice(R"(adaptive: (\d+) task\(s\) \(planned)");
    for (const auto& line : distributed_testing::SortedRows(*result)) {
      if (std::getenv("B_DEBUG"))
        std::fprintf(stderr, "%s\n", line.c_str());
      std::smatch m;
      if (std::regex_search(line, m, kChoice))
        counts.push_back(std::stoi(m[1].str()));
    }
    return counts;
  }

  engine::QueryRunner single_;
  engine::QueryRunner distributed_;
  std::shared_ptr<InProcessCluster> cluster_;
  std::shared_ptr<Coordinator> coordinator_;
};

TEST_F(AdaptiveTest, EveryTpchQueryGivesTheSingleNodeAnswer) {
  for (int q : distributed_testing::TpchQueriesToCheck()) {
    SCOPED_TRACE("q" + std::to_string(q));
    distributed_testing::ExpectSameRows(single_, distributed_, distributed_testing::TpchQuery(q));
    EXPECT_EQ(TasksHeld(), 0) << "workers still hold tasks after the query ended";
  }
}

TEST_F(AdaptiveTest, ABigInputGetsMoreTasksThanASmallOne) {
  // Both scan all of lineitem, so the static planner sizes them alike; their aggregates' inputs
  // differ by a factor of 150, which only the samples show.
  ASSERT_OK(distributed_.RunOne("SET threads = 4").status());
  const std::vector<int> small = SampledTaskCounts(
      "SELECT l_orderkey, count(*) FROM lineitem WHERE l_orderkey < 400 GROUP BY l_orderkey");
  const std::vector<int> big =
      SampledTaskCounts("SELECT l_orderkey, count(*) FROM lineitem GROUP BY l_orderkey");
  ASSERT_EQ(small.size(), 1u);
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(small[0], 1);
  EXPECT_EQ(big[0], 4);
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(AdaptiveTest, ExplainEndsTheTasksItStartedAndStaticModeStillWorks) {
  ASSERT_OK(distributed_.RunOne("EXPLAIN " + distributed_testing::TpchQuery(3)).status());
  EXPECT_EQ(TasksHeld(), 0);
  ASSERT_OK(distributed_.RunOne("SET dist_adaptive_task_counts = false").status());
  distributed_testing::ExpectSameRows(single_, distributed_, distributed_testing::TpchQuery(5));
}

TEST(AdaptiveGrpcTest, TpchQueriesOverGrpcGiveTheSingleNodeAnswer) {
  engine::QueryRunner single;
  engine::QueryRunner distributed;
  ASSERT_OK(distributed_testing::LoadTpch(single, 2));
  ASSERT_OK(distributed_testing::LoadTpch(distributed, 2));
  distributed_testing::GrpcTestCluster workers;
  ASSERT_OK(workers.Start(2, distributed_testing::TestWorker(distributed.session().catalog())));
  ASSERT_OK(
      distributed_testing::InstallCoordinator(
          distributed, distributed_testing::CoordinatorFor(workers.addresses, workers.channels))
          .status());
  ASSERT_OK(distributed.RunOne("SET dist_bytes_per_task = '64kB'").status());
  ASSERT_OK(distributed.RunOne("SET dist_adaptive_task_counts = true").status());
  for (int q : {1, 3, 5, 13, 18}) {
    SCOPED_TRACE("q" + std::to_string(q));
    distributed_testing::ExpectSameRows(single, distributed, distributed_testing::TpchQuery(q));
  }
  EXPECT_EQ(workers.TasksHeld(), 0);
}

}  // namespace
}  // namespace shoal::distributed

// The distributed EXPLAIN of every TPC-H query against golden files in tests/data/tpch/dist_plans
// (regenerate them with SHOAL_UPDATE_GOLDEN=1 and review the diff). The setup is fixed so the
// text is deterministic: TPC-H SF 0.1 in memory, threads = 4, three in-process workers named
// w1..w3, dist_bytes_per_task = 4MB, the static task counts. Each file holds the stage summary
// (id, inputs, planned and maximum task counts) and the EXPLAIN text the shell prints.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/golden_file.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed {
namespace {

std::string GoldenPath(int n) {
  return fmt::format("{}/q{:02d}.txt", SHOAL_TPCH_DIST_PLAN_DIR, n);
}

class TpchDistPlanTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    runner_ = new engine::QueryRunner();
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.1"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_->session().catalog().get()));
    ASSERT_OK(runner_->RunOne("SET threads = 4").status());
    cluster_ = new std::shared_ptr<InProcessCluster>(InProcessCluster::Make());
    for (const char* name : {"w1", "w2", "w3"}) {
      WorkerServiceOptions options;
      options.address = name;
      options.threads = 2;
      options.catalog = runner_->session().catalog();
      ASSERT_OK((*cluster_)->AddWorker(std::move(options)));
    }
    CoordinatorOptions options;
    options.workers = {"w1", "w2", "w3"};
    options.channels = *cluster_;
    ASSERT_OK_AND_ASSIGN(auto coordinator, Coordinator::Make(std::move(options)));
    ASSERT_OK(runner_->RunOne("SET dist_bytes_per_task = '4MB'").status());
    // The stage summary comes from planning the same physical plan the coordinator gets.
    engine_testing::RewritePlans(*runner_, [coordinator](
                                               const exec::ExecPlanPtr& plan,
                                               const std::shared_ptr<exec::TaskContext>& context) {
      summary_.clear();
      DistributedPlannerOptions planner;
      planner.workers = coordinator->options().workers;
      planner.query_id = "golden";
      planner.bytes_per_task = context->settings().GetInt("dist_bytes_per_task");
      planner.broadcast_max_bytes = context->settings().GetInt("dist_broadcast_max_bytes");
      auto distributed = PlanDistributed(plan, planner, nullptr, nullptr);
      if (distributed.ok()) {
        for (const auto& d : (*distributed)->stages()) {
          std::string inputs;
          for (int i : d.input_stage_ids)
            inputs += (inputs.empty() ? "" : ",") + std::to_string(i);
          summary_ += fmt::format("stage {}: inputs=[{}] tasks={} max_tasks={}{}\n", d.id, inputs,
                                  d.planned_task_count, d.max_task_count, d.leaf ? " leaf" : "");
        }
      }
      return coordinator->Distribute(plan, context);
    });
  }

  static void TearDownTestSuite() {
    delete runner_;
    delete cluster_;
    runner_ = nullptr;
    cluster_ = nullptr;
  }

  static Result<std::string> Explain(int q) {
    SHOAL_ASSIGN_OR_RETURN(auto result,
                           runner_->RunOne("EXPLAIN " + distributed_testing::TpchQuery(q)));
    std::string text = summary_;
    for (const auto& batch : result.batches) {
      for (int64_t r = 0; r < batch->num_rows(); ++r)
        text += columnar::Scalar::FromArray(*batch->column(0), r).ToString() + "\n";
    }
    return text;
  }

  static engine::QueryRunner* runner_;
  static std::shared_ptr<InProcessCluster>* cluster_;
  static std::string summary_;
};

engine::QueryRunner* TpchDistPlanTest::runner_ = nullptr;
std::shared_ptr<InProcessCluster>* TpchDistPlanTest::cluster_ = nullptr;
std::string TpchDistPlanTest::summary_;

TEST_P(TpchDistPlanTest, MatchesGoldenPlan) {
  ASSERT_OK_AND_ASSIGN(std::string text, Explain(GetParam()));
  ASSERT_NE(text.find("Network"), std::string::npos) << "q" << GetParam() << " is not distributed";
  EXPECT_TRUE(shoal::testing::MatchesGoldenFile(text, GoldenPath(GetParam())))
      << "distributed plan of q" << GetParam();
  // Planning twice gives the same text: the golden comparison can only fail on a real change.
  ASSERT_OK_AND_ASSIGN(std::string again, Explain(GetParam()));
  EXPECT_EQ(again, text);
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchDistPlanTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return fmt::format("q{:02d}", info.param);
                         });

}  // namespace
}  // namespace shoal::distributed

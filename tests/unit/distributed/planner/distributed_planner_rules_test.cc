// The distributed planner's rules, checked on the stages it makes from real physical plans (TPC-H
// SF 0.01 in memory, three in-process workers): late-bound stages, UNION inputs on disjoint
// tasks, one-task-to-one-task boundaries removed, LIMIT below a NetworkCoalesce, task counts
// scaled by estimates, no broadcast into a multi-task RIGHT / FULL join, and scan shares.
#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/planner/distributed_planner.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/shared_subplans.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed {
namespace {

// Every node of a stage's plan, not following exchanges into other stages.
void Visit(const exec::ExecutionPlan& node,
           const std::function<void(const exec::ExecutionPlan&)>& fn) {
  fn(node);
  if (dynamic_cast<const NetworkExchangeExec*>(&node) != nullptr)
    return;
  for (const auto& c : node.children())
    Visit(*c, fn);
}

std::vector<const exec::TableScanExec*> Scans(const exec::ExecutionPlan& plan) {
  std::vector<const exec::TableScanExec*> out;
  Visit(plan, [&](const exec::ExecutionPlan& n) {
    if (const auto* x = dynamic_cast<const exec::TableScanExec*>(&n))
      out.push_back(x);
  });
  return out;
}

std::vector<std::string> UnitNames(const exec::TableScanExec& scan) {
  std::vector<std::string> out;
  for (const auto& g : scan.unit_groups()) {
    for (const auto& u : g)
      out.push_back(u.description);
  }
  return out;
}

int Count(const exec::ExecutionPlan& plan, std::string_view name) {
  int n = 0;
  Visit(plan, [&](const exec::ExecutionPlan& x) { n += x.name() == name ? 1 : 0; });
  return n;
}

class PlannerRulesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    runner_ = new engine::QueryRunner();
    ASSERT_OK(distributed_testing::LoadTpch(*runner_, 4));
  }

  static void TearDownTestSuite() {
    delete runner_;
    runner_ = nullptr;
  }

  // The single-node physical plan of `sql`.
  static exec::ExecPlanPtr Physical(const std::string& sql) {
    exec::ExecPlanPtr captured;
    engine_testing::RewritePlans(
        *runner_,
        [&](const exec::ExecPlanPtr& plan,
            const std::shared_ptr<exec::TaskContext>&) -> Result<exec::ExecPlanPtr> {
          captured = plan;
          return plan;
        });
    auto result = runner_->RunOne("EXPLAIN " + sql);
    runner_->SetExecutionMode(engine::ExecutionMode::Local());
    EXPECT_OK(result.status());
    return captured;
  }

  static DistributedPlannerOptions Options(int64_t bytes_per_task = 64 << 10) {
    DistributedPlannerOptions options;
    options.workers = {"w1", "w2", "w3"};
    options.query_id = "q";
    options.bytes_per_task = bytes_per_task;
    return options;
  }

  static Result<DistributedPlanPtr> Plan(const std::string& sql,
                                         const DistributedPlannerOptions& options) {
    exec::ExecPlanPtr physical = Physical(sql);
    if (!physical)
      return Status::Internal("no physical plan for {}", sql);
    return PlanDistributed(physical, options, nullptr, nullptr);
  }

  static engine::QueryRunner* runner_;
};

engine::QueryRunner* PlannerRulesTest::runner_ = nullptr;

TEST_F(PlannerRulesTest, StagesAreBoundLateAndOnce) {
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan("SELECT l_partkey, count(*) FROM lineitem GROUP BY 1", Options()));
  ASSERT_EQ(plan->stages().size(), 2u);
  const StageDescription& leaf = plan->stages()[0];
  const StageDescription& upper = plan->stages()[1];
  EXPECT_TRUE(leaf.leaf);
  EXPECT_GT(leaf.scanned_bytes, 0);
  EXPECT_FALSE(upper.leaf);
  EXPECT_EQ(upper.input_stage_ids, std::vector<int>{leaf.id});
  EXPECT_EQ(plan->instantiated(leaf.id), nullptr);
  // Nothing is bound yet: the head's exchange has no producer to show or read.
  std::string before = exec::FormatExecutionPlan(*plan->head());
  EXPECT_NE(before.find("tasks=0"), std::string::npos) << before;
  // Producers first, within the cap, once.
  EXPECT_STATUS_CODE(StatusCode::kInternal, plan->InstantiateStage(upper.id, {"w1"}).status());
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     plan->InstantiateStage(leaf.id, {"w1", "w2", "w3", "w1"}).status());
  ASSERT_OK_AND_ASSIGN(const Stage* stage, plan->InstantiateStage(leaf.id, {"w2", "w2"}));
  EXPECT_EQ(stage->task_count, 2);
  EXPECT_STATUS_CODE(StatusCode::kInternal, plan->InstantiateStage(leaf.id, {"w1"}).status());
  ASSERT_OK_AND_ASSIGN(stage, plan->InstantiateStage(upper.id, {"w3"}));
  // The upper stage's exchange reads both leaf tasks, on the workers chosen now.
  std::string upper_text = exec::FormatExecutionPlan(*stage->task_plans[0], true);
  EXPECT_NE(upper_text.find("tasks=2"), std::string::npos) << upper_text;
  EXPECT_NE(upper_text.find("workers=[w2, w2]"), std::string::npos) << upper_text;
  // The head, built before any stage was instantiated, sees the chosen task.
  std::string after = exec::FormatExecutionPlan(*plan->head(), true);
  EXPECT_NE(after.find("stage=2, tasks=1"), std::string::npos) << after;
  EXPECT_NE(after.find("workers=[w3]"), std::string::npos) << after;
  EXPECT_NE(after.find("stage=1, tasks=2"), std::string::npos) << after;
}

TEST_F(PlannerRulesTest, AnyTaskCountWorksAndUnevenTasksArePadded) {
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan("SELECT l_partkey, count(*) FROM lineitem GROUP BY 1", Options()));
  ASSERT_EQ(plan->stages().size(), 2u);
  ASSERT_OK(plan->InstantiateStage(1, {"w1", "w2"}).status());
  // Three tasks over the 4-way shuffle read 1, 1 and 2 partitions; FitTaskCount prefers 2.
  EXPECT_EQ(plan->FitTaskCount(2, 3), 2);
  ASSERT_OK_AND_ASSIGN(const Stage* stage, plan->InstantiateStage(2, {"w1", "w2", "w3"}));
  std::set<int> partitions;
  auto codecs = TableCodecRegistry::Builtin(runner_->session().catalog());
  for (const auto& p : stage->task_plans) {
    partitions.insert(p->num_partitions());
    // Padded plans still travel to workers.
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(p, *codecs));
    PlanDecodeContext context;
    context.codecs = codecs;
    context.channels = InProcessCluster::Make();
    ASSERT_OK_AND_ASSIGN(auto decoded, DecodePlan(bytes, context));
    EXPECT_EQ(decoded->num_partitions(), p->num_partitions());
  }
  EXPECT_EQ(partitions.size(), 1u);
  EXPECT_EQ(Count(*stage->task_plans[0], "Values"), 1)
      << exec::FormatExecutionPlan(*stage->task_plans[0]);
  EXPECT_EQ(Count(*stage->task_plans[2], "Values"), 0);
}

TEST_F(PlannerRulesTest, UnionInputsRunOnDisjointTasks) {
  ASSERT_OK_AND_ASSIGN(
      auto plan,
      Plan("SELECT l_orderkey FROM lineitem UNION ALL SELECT o_orderkey FROM orders", Options()));
  ASSERT_EQ(plan->stages().size(), 1u);
  const StageDescription& d = plan->stages()[0];
  ASSERT_EQ(d.max_task_count, 3);
  ASSERT_OK_AND_ASSIGN(const Stage* stage, plan->InstantiateStage(d.id, {"w1", "w2", "w3"}));
  // Three tasks, two inputs: lineitem on task 0 only, orders on tasks 1 and 2.
  std::vector<std::set<std::string>> tables(3);
  for (int t = 0; t < 3; ++t) {
    for (const auto* scan : Scans(*stage->task_plans[static_cast<size_t>(t)]))
      tables[static_cast<size_t>(t)].insert(scan->table_name());
  }
  EXPECT_EQ(tables[0], std::set<std::string>{"lineitem"});
  EXPECT_EQ(tables[1], std::set<std::string>{"orders"});
  EXPECT_EQ(tables[2], std::set<std::string>{"orders"});
  // Tasks 1 and 2 split orders between them.
  auto a = UnitNames(*Scans(*stage->task_plans[1])[0]);
  auto b = UnitNames(*Scans(*stage->task_plans[2])[0]);
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  for (const auto& u : a)
    EXPECT_EQ(std::count(b.begin(), b.end(), u), 0) << u;
  // EXPLAIN shows every input, although no task runs both.
  const std::string text = exec::FormatExecutionPlan(*plan->head());
  EXPECT_NE(text.find("TableScan: lineitem"), std::string::npos) << text;
  EXPECT_NE(text.find("TableScan: orders"), std::string::npos) << text;
  // Every task has the same number of partitions (short ones are padded).
  for (const auto& p : stage->task_plans)
    EXPECT_EQ(p->num_partitions(), stage->task_plans[0]->num_partitions());
}

TEST_F(PlannerRulesTest, OneTaskToOneTaskBoundariesAreRemoved) {
  // A union of two global limits can only run as one task, and so can the head merging its two
  // partitions: the planner puts the union back into the head; only the scans stay on workers.
  exec::ExecPlanPtr physical = Physical(
      "SELECT * FROM (SELECT l_orderkey FROM lineitem LIMIT 3) a UNION ALL SELECT * "
      "FROM (SELECT o_orderkey FROM orders LIMIT 3) b");
  ASSERT_NE(physical, nullptr);
  if (physical->num_partitions() > 1)
    physical = exec::CoalescePartitionsExec::Make(physical);
  ASSERT_OK_AND_ASSIGN(auto plan, PlanDistributed(physical, Options(), nullptr, nullptr));
  ASSERT_OK(plan->InstantiateAll());
  const std::string head = exec::FormatExecutionPlan(*plan->head());
  EXPECT_EQ(Count(*plan->head(), "GlobalLimit"), 2) << head;
  EXPECT_EQ(Count(*plan->head(), "Union"), 1) << head;
  // Without the rule the union's stage would sit between the head and the scans.
  ASSERT_EQ(plan->stages().size(), 2u) << head;
  for (size_t i = 0; i < plan->stages().size(); ++i) {
    EXPECT_TRUE(plan->stages()[i].leaf) << head;
    EXPECT_EQ(plan->stages()[i].id, static_cast<int>(i + 1));  // ids stay dense
  }
  // A multi-task consumer keeps its boundary: the broadcast below a partitioned probe stays.
  ASSERT_OK_AND_ASSIGN(auto joined, Plan("SELECT count(*) FROM supplier, nation WHERE "
                                         "s_nationkey = n_nationkey",
                                         Options(1024)));
  ASSERT_OK(joined->InstantiateAll());
  EXPECT_NE(exec::FormatExecutionPlan(*joined->head()).find("NetworkBroadcast"), std::string::npos);
}

TEST_F(PlannerRulesTest, ALimitAboveACoalesceReachesTheProducerStage) {
  ASSERT_OK_AND_ASSIGN(auto plan, Plan("SELECT l_orderkey FROM lineitem LIMIT 7", Options()));
  ASSERT_OK(plan->InstantiateAll());
  ASSERT_EQ(plan->stages().size(), 1u);
  const Stage* stage = plan->instantiated(1);
  ASSERT_NE(stage, nullptr);
  EXPECT_GT(stage->task_count, 1);
  for (const auto& p : stage->task_plans)
    EXPECT_EQ(Count(*p, "LocalLimit"), 1) << exec::FormatExecutionPlan(*p);
  EXPECT_EQ(Count(*plan->head(), "GlobalLimit"), 1) << exec::FormatExecutionPlan(*plan->head());

  // ORDER BY ... LIMIT: each producer partition sorts only its top offset + fetch rows.
  ASSERT_OK_AND_ASSIGN(
      auto top, Plan("SELECT l_orderkey FROM lineitem ORDER BY l_extendedprice DESC, l_orderkey "
                     "LIMIT 5 OFFSET 2",
                     Options()));
  ASSERT_OK(top->InstantiateAll());
  const Stage* sorted = top->instantiated(static_cast<int>(top->stages().size()));
  ASSERT_NE(sorted, nullptr);
  for (const auto& p : sorted->task_plans) {
    const auto* sort = dynamic_cast<const exec::SortExec*>(p.get());
    ASSERT_NE(sort, nullptr) << exec::FormatExecutionPlan(*p);
    EXPECT_EQ(sort->fetch(), 7);
  }
}

TEST_F(PlannerRulesTest, UpperStageTaskCountsScaleWithEstimates) {
  const std::string sql = "SELECT l_partkey, count(*) FROM lineitem GROUP BY 1";
  ASSERT_OK_AND_ASSIGN(auto big, Plan(sql, Options(1LL << 40)));
  ASSERT_OK_AND_ASSIGN(auto small, Plan(sql, Options(16 << 10)));
  ASSERT_EQ(big->stages().size(), 2u);
  const StageDescription& upper = small->stages()[1];
  EXPECT_GT(upper.estimated_input_bytes, 0);
  EXPECT_LE(upper.estimated_input_bytes, small->stages()[0].scanned_bytes);
  EXPECT_EQ(big->stages()[1].planned_task_count, 1);
  EXPECT_GT(upper.planned_task_count, 1);
  EXPECT_LE(upper.planned_task_count, upper.max_task_count);
  // dist_max_tasks caps every stage.
  DistributedPlannerOptions capped = Options(16 << 10);
  capped.max_tasks = 2;
  ASSERT_OK_AND_ASSIGN(auto two, Plan(sql, capped));
  for (const auto& d : two->stages())
    EXPECT_LE(d.max_task_count, 2);
}

// RIGHT and FULL joins over a broadcast build side run as one task (every task would emit the
// unmatched build rows otherwise): in the head, or in a stage that cannot have more tasks.
TEST_F(PlannerRulesTest, RightAndFullJoinsAreNotSplitOverBroadcasts) {
  auto outer_joins = [](const exec::ExecutionPlan& plan) {
    int n = 0;
    Visit(plan, [&](const exec::ExecutionPlan& node) {
      const auto* j = dynamic_cast<const exec::HashJoinExec*>(&node);
      if (j == nullptr || j->mode() != exec::HashJoinExec::Mode::kCollectBuild)
        return;
      const auto* x = dynamic_cast<const NetworkExchangeExec*>(j->children()[1].get());
      if (x != nullptr && x->spec().kind == ExchangeKind::kBroadcast &&
          (j->join_type() == sql::JoinType::kRight || j->join_type() == sql::JoinType::kFull))
        ++n;
    });
    return n;
  };
  int in_stages = 0;
  for (const char* sql :
       {"SELECT count(*) FROM lineitem RIGHT JOIN nation ON l_suppkey = n_nationkey",
        "SELECT count(*) FROM lineitem FULL JOIN nation ON l_suppkey = n_nationkey",
        "SELECT n_name, count(l_orderkey) FROM lineitem RIGHT JOIN nation ON l_suppkey = "
        "n_nationkey GROUP BY n_name",
        "SELECT n_name, count(l_orderkey) FROM lineitem FULL JOIN nation ON l_suppkey = "
        "n_nationkey GROUP BY n_name",
        "SELECT count(*) FROM nation FULL JOIN region ON n_regionkey = r_regionkey"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto plan, Plan(sql, Options()));
    ASSERT_OK(plan->InstantiateAll());
    int found = outer_joins(*plan->head());
    for (const auto& d : plan->stages()) {
      const Stage* stage = plan->instantiated(d.id);
      const int n = outer_joins(*stage->task_plans[0]);
      if (n > 0) {
        EXPECT_EQ(d.max_task_count, 1) << exec::FormatExecutionPlan(*stage->task_plans[0]);
        in_stages += n;
      }
      found += n;
    }
    EXPECT_EQ(found, 1) << exec::FormatExecutionPlan(*plan->head());
  }
  // The grouped queries keep the join's stage on a worker (a multi-task stage reads it).
  EXPECT_GE(in_stages, 2);
}

// A recursive CTE re-runs its recursive term every round: no stage boundary is cut inside it
// (not even the broadcast of a join's build side), and its stage runs as one task.
TEST_F(PlannerRulesTest, NoStageIsCutInsideARecursiveCte) {
  const char* sql =
      "WITH RECURSIVE r(k, d) AS (SELECT n_nationkey, 0 FROM nation WHERE n_nationkey < 3 "
      "UNION ALL SELECT n_nationkey, d + 1 FROM r JOIN nation ON n_regionkey = r.k WHERE d < 3) "
      "SELECT count(*) FROM r JOIN lineitem ON l_suppkey = r.k";
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(sql, Options()));
  ASSERT_OK(plan->InstantiateAll());
  std::function<int(const exec::ExecutionPlan&)> exchanges = [&](const exec::ExecutionPlan& n) {
    int count = dynamic_cast<const NetworkExchangeExec*>(&n) != nullptr ? 1 : 0;
    for (const auto& c : n.children())
      count += exchanges(*c);
    return count;
  };
  int ctes = 0;
  auto check = [&](const exec::ExecutionPlan& root, int max_tasks) {
    Visit(root, [&](const exec::ExecutionPlan& n) {
      if (n.name() != "RecursiveCte")
        return;
      ++ctes;
      EXPECT_EQ(exchanges(n), 0) << exec::FormatExecutionPlan(root);
      EXPECT_EQ(max_tasks, 1) << exec::FormatExecutionPlan(root);
    });
  };
  check(*plan->head(), 1);
  for (const auto& d : plan->stages())
    check(*plan->instantiated(d.id)->task_plans[0], d.max_task_count);
  EXPECT_EQ(ctes, 1);
}

TEST_F(PlannerRulesTest, EachTaskGetsOnlyItsShareOfTheScan) {
  exec::ExecPlanPtr physical = Physical("SELECT l_orderkey FROM lineitem WHERE l_quantity > 10");
  ASSERT_NE(physical, nullptr);
  std::vector<std::string> all;
  for (const auto* scan : Scans(*physical))
    all = UnitNames(*scan);
  ASSERT_GE(all.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto plan, PlanDistributed(physical, Options(), nullptr, nullptr));
  ASSERT_EQ(plan->stages().size(), 1u);
  ASSERT_OK_AND_ASSIGN(const Stage* stage, plan->InstantiateStage(1, {"w1", "w2", "w3"}));
  std::vector<std::string> joined;
  for (const auto& p : stage->task_plans) {
    auto scans = Scans(*p);
    ASSERT_EQ(scans.size(), 1u);
    auto mine = UnitNames(*scans[0]);
    EXPECT_GE(mine.size(), all.size() / 3);
    EXPECT_LE(mine.size(), all.size() / 3 + 1);
    joined.insert(joined.end(), mine.begin(), mine.end());
    EXPECT_EQ(p->num_partitions(), stage->task_plans[0]->num_partitions());
  }
  EXPECT_EQ(joined, all);
}

// The nodes a stage's plan runs itself: exchanges show their producer stage as a child, which
// another task runs.
void VisitOwn(const exec::ExecutionPlan& node,
              const std::function<void(const exec::ExecutionPlan&)>& fn) {
  fn(node);
  if (dynamic_cast<const NetworkExchangeExec*>(&node) != nullptr)
    return;
  for (const auto& c : node.children())
    VisitOwn(*c, fn);
}

// A subplan the single-node plan shares (SharedResultExec) becomes one stage of one task, and
// every reference reads it through its own NetworkShared exchange: lineitem is scanned once.
TEST_F(PlannerRulesTest, ASharedSubplanIsOneStageThatEveryReferenceReads) {
  const char* sql =
      "WITH r AS (SELECT l_suppkey AS k, sum(l_quantity) AS q FROM lineitem GROUP BY 1) "
      "SELECT count(*) FROM (SELECT k FROM r WHERE q > 100 UNION ALL SELECT k FROM r "
      "WHERE q < 200) u";
  exec::ExecPlanPtr physical = Physical(sql);
  ASSERT_NE(physical, nullptr);
  ASSERT_OK_AND_ASSIGN(physical, exec::ShareCommonSubplans(physical));
  ASSERT_GT(Count(*physical, "SharedResult"), 0) << exec::FormatExecutionPlan(*physical);
  ASSERT_OK_AND_ASSIGN(auto plan, PlanDistributed(physical, Options(), nullptr, nullptr));
  ASSERT_OK(plan->InstantiateAll());
  std::vector<exec::ExecPlanPtr> plans = {plan->head()};
  for (const auto& d : plan->stages())
    plans.push_back(plan->instantiated(d.id)->task_plans[0]);
  std::map<int, int> shared_reads;  // stage -> exchanges reading it
  int lineitem_scans = 0;
  int shared_nodes = 0;
  for (const auto& p : plans) {
    VisitOwn(*p, [&](const exec::ExecutionPlan& n) {
      if (const auto* x = dynamic_cast<const NetworkExchangeExec*>(&n)) {
        if (x->spec().kind == ExchangeKind::kShared)
          ++shared_reads[x->spec().stage_id];
      }
      if (const auto* x = dynamic_cast<const exec::TableScanExec*>(&n))
        lineitem_scans += x->table_name() == "lineitem" ? 1 : 0;
      shared_nodes += n.name() == "SharedResult" ? 1 : 0;
    });
  }
  const std::string text = exec::FormatExecutionPlan(*plan->head());
  ASSERT_EQ(shared_reads.size(), 1u) << text;
  EXPECT_EQ(shared_reads.begin()->second, 2) << text;
  EXPECT_EQ(lineitem_scans, 1) << text;
  EXPECT_EQ(shared_nodes, 0) << text;
  const StageDescription& shared =
      plan->stages()[static_cast<size_t>(shared_reads.begin()->first - 1)];
  EXPECT_EQ(shared.max_task_count, 1);
  // The readers' plans travel to workers, and their shared reads keep the partitioning claim.
  auto codecs = TableCodecRegistry::Builtin(runner_->session().catalog());
  PlanDecodeContext context;
  context.codecs = codecs;
  context.channels = InProcessCluster::Make();
  for (size_t i = 1; i < plans.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(plans[i], *codecs));
    ASSERT_OK_AND_ASSIGN(auto decoded, DecodePlan(bytes, context));
    auto claims = [](const exec::ExecutionPlan& root) {
      std::vector<std::string> out;
      VisitOwn(root, [&](const exec::ExecutionPlan& n) {
        const auto* x = dynamic_cast<const NetworkExchangeExec*>(&n);
        if (x != nullptr && x->spec().kind == ExchangeKind::kShared)
          out.push_back(x->output_partitioning().ToString());
      });
      return out;
    };
    EXPECT_EQ(claims(*decoded), claims(*plans[i]));
  }
}

// A shared read tells the operators above it how its rows are partitioned: a plan from outside
// may not claim keys over columns the read does not have.
TEST_F(PlannerRulesTest, ASharedReadClaimsOnlyKeysOverItsOwnColumns) {
  auto codecs = TableCodecRegistry::Builtin(runner_->session().catalog());
  PlanDecodeContext context;
  context.codecs = codecs;
  context.channels = InProcessCluster::Make();
  for (sql::ColumnId key : {0, 1, 5}) {
    ExchangeSpec spec;
    spec.kind = ExchangeKind::kShared;
    spec.schema = std::make_shared<columnar::Schema>(
        std::vector<columnar::Field>{columnar::Field("k", columnar::DataType::Int64()),
                                     columnar::Field("v", columnar::DataType::Int64())});
    spec.query_id = "q";
    spec.stage_id = 1;
    spec.producer_workers = {"w1"};
    spec.producer_partitions = 2;
    spec.partitioning = exec::Partitioning::Hash(
        {sql::MakeColumnRef(key, "k", columnar::DataType::Int64(), false)}, 2);
    spec.partition_end = 2;
    ASSERT_OK_AND_ASSIGN(auto node, NetworkExchangeExec::Make(spec, nullptr));
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(node, *codecs));
    auto decoded = DecodePlan(bytes, context);
    if (key < 2) {
      ASSERT_OK(decoded.status());
      EXPECT_EQ((*decoded)->output_partitioning().ToString(), spec.partitioning.ToString());
    } else {
      EXPECT_STATUS_CODE(StatusCode::kInvalidData, decoded.status());
    }
  }
}

// Runners over the same TPC-H tables: `single` on one node, `distributed` on in-process workers
// named `names` (2 threads each) with small tasks, so that every stage runs as several.
void LoadSingleAndDistributed(engine::QueryRunner& single, engine::QueryRunner& distributed,
                              const std::vector<std::string>& names,
                              std::shared_ptr<InProcessCluster>* cluster) {
  ASSERT_OK(distributed_testing::LoadTpch(single, 3));
  ASSERT_OK(distributed_testing::LoadTpch(distributed, 3));
  WorkerServiceOptions worker;  // no version
  worker.threads = 2;
  worker.catalog = distributed.session().catalog();
  ASSERT_OK_AND_ASSIGN(*cluster, distributed_testing::MakeInProcessCluster(names, worker));
  ASSERT_OK(distributed_testing::InstallCoordinator(
                distributed, distributed_testing::CoordinatorFor(names, *cluster, ""))
                .status());
  ASSERT_OK(distributed.RunOne("SET dist_bytes_per_task = '32kB'").status());
}

// The UNION rules, end to end against the single-node answers.
TEST(PlannerRulesEndToEndTest, UnionsOfAggregatesGiveTheSingleNodeAnswer) {
  engine::QueryRunner single;
  engine::QueryRunner distributed;
  std::shared_ptr<InProcessCluster> cluster;
  ASSERT_NO_FATAL_FAILURE(
      LoadSingleAndDistributed(single, distributed, {"w1", "w2", "w3", "w4"}, &cluster));
  for (const char* sql :
       {"SELECT count(*) FROM lineitem UNION ALL SELECT count(*) FROM orders",
        "SELECT l_returnflag, count(*) FROM lineitem GROUP BY 1 UNION ALL SELECT "
        "o_orderstatus, count(*) FROM orders GROUP BY 1",
        "SELECT l_suppkey AS k FROM lineitem WHERE l_quantity > 45 UNION ALL SELECT ps_suppkey "
        "FROM partsupp WHERE ps_availqty < 100 UNION ALL SELECT s_suppkey FROM supplier",
        "SELECT k, count(*) FROM (SELECT l_suppkey AS k FROM lineitem UNION ALL SELECT "
        "ps_suppkey FROM partsupp) t GROUP BY k",
        "SELECT n_name FROM nation UNION SELECT r_name FROM region",
        "SELECT l_orderkey, l_linenumber FROM lineitem ORDER BY l_extendedprice DESC, l_orderkey, "
        "l_linenumber LIMIT 5 OFFSET 2",
        "SELECT * FROM (SELECT l_orderkey FROM lineitem ORDER BY 1 LIMIT 3) a UNION ALL SELECT * "
        "FROM (SELECT o_orderkey FROM orders ORDER BY 1 LIMIT 3) b"}) {
    SCOPED_TRACE(sql);
    distributed_testing::ExpectSameRows(single, distributed, sql);
  }
}

// Shared subplans across workers: each reference reads the one stage that computes it, in every
// place a reference may stand, including both sides of a join that relies on the shared result's
// hash partitioning, and EXPLAIN ANALYZE folds the shared stage's metrics once.
TEST(PlannerRulesEndToEndTest, SharedSubplansGiveTheSingleNodeAnswer) {
  engine::QueryRunner single;
  engine::QueryRunner distributed;
  std::shared_ptr<InProcessCluster> cluster;
  ASSERT_NO_FATAL_FAILURE(
      LoadSingleAndDistributed(single, distributed, {"w1", "w2", "w3"}, &cluster));
  const std::string cte =
      "WITH r AS (SELECT l_suppkey AS k, sum(l_extendedprice * (1 - l_discount)) AS v FROM "
      "lineitem WHERE l_shipdate >= DATE '1996-01-01' GROUP BY 1) ";
  const std::vector<std::string> queries = {
      cte +
          "SELECT s_suppkey, s_name, v FROM supplier JOIN r ON s_suppkey = k WHERE v = (SELECT "
          "max(v) FROM r) ORDER BY 1",
      cte + "SELECT count(*), sum(a.v - b.v) FROM r a JOIN r b ON a.k = b.k",
      cte +
          "SELECT k FROM r WHERE v > (SELECT avg(v) FROM r) AND v < (SELECT max(v) FROM r) - 1 "
          "ORDER BY 1 LIMIT 7",
      cte + "SELECT k, v FROM r WHERE v < 100000 UNION ALL SELECT k, v FROM r WHERE v > 400000"};
  for (const std::string& sql : queries) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto explained, distributed.RunOne("EXPLAIN " + sql));
    EXPECT_NE(distributed_testing::SortedText(explained).find("NetworkShared"), std::string::npos)
        << distributed_testing::SortedText(explained);
    distributed_testing::ExpectSameRows(single, distributed, sql);
  }
  ASSERT_OK_AND_ASSIGN(auto analyzed, distributed.RunOne("EXPLAIN ANALYZE " + queries[0]));
  const std::string text = distributed_testing::SortedText(analyzed);
  std::map<std::string, int> notes;  // "* stage N:" lines, once per stage
  const std::regex note(R"(\* stage (\d+): )");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), note); it != std::sregex_iterator();
       ++it)
    ++notes[(*it)[1].str()];
  ASSERT_FALSE(notes.empty()) << text;
  for (const auto& [stage, count] : notes)
    EXPECT_EQ(count, 1) << "stage " << stage << "\n" << text;
}

}  // namespace
}  // namespace shoal::distributed

// The materialized-shuffle stage node and planner: a stage partition is computed and written once,
// then read; hash partitions split the rows exactly; a dropped stream publishes nothing; a file
// with another schema is a clear error; the planner cuts every branch and chains; the node
// survives the plan codec with its directory.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/shuffle/map_output.h"
#include "shoal/distributed/shuffle/materialized_planner.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/distributed/shuffle/task_error.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_builders.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;

class StageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal-stage-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<Field> Fields() {
    return {Field("k", DataType::Int64()), Field("v", DataType::Utf8())};
  }

  // Two batches of ten rows each: keys 0..19.
  static exec::ExecPlanPtr Values(bool empty = false) {
    std::vector<columnar::RecordBatchPtr> batches;
    if (!empty) {
      for (int b = 0; b < 2; ++b) {
        std::vector<testing::TextRow> rows;
        for (int i = 0; i < 10; ++i)
          rows.push_back({std::to_string(b * 10 + i), "row" + std::to_string(b * 10 + i)});
        batches.push_back(testing::MakeBatch(Fields(), rows));
      }
    }
    auto schema = std::make_shared<columnar::Schema>(Fields());
    auto values = exec::ValuesExec::Make(schema, std::move(batches));
    EXPECT_OK(values.status());
    return *values;
  }

  static exec::Partitioning HashOnK(int n) {
    return exec::Partitioning::Hash(
        {sql::MakeColumnRef(0, "k", DataType::Int64(), /*nullable=*/true)}, n);
  }

  static std::shared_ptr<exec::TaskContext> Context() {
    return std::make_shared<exec::TaskContext>(exec::TaskContext::Options());
  }

  // The partition's keys, pulling every batch.
  static Result<std::vector<std::string>> Keys(const exec::ExecutionPlan& plan, int partition) {
    SHOAL_ASSIGN_OR_RETURN(auto stream, plan.Execute(partition, Context()));
    std::vector<std::string> keys;
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(auto batch, stream->Next());
      if (!batch)
        return keys;
      for (auto& k : testing::ArrayToStrings(*batch->column(0)))
        keys.push_back(std::move(k));
    }
  }

  std::vector<std::string> DirectoryNames() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    return names;
  }

  fs::path dir_;
};

// Two inputs of ten rows each, as two partitions (a union): keys 0..9 and 10..19.
exec::ExecPlanPtr TwoPartitions(const exec::ExecPlanPtr& a, const exec::ExecPlanPtr& b) {
  auto u = exec::UnionExec::Make({a, b});
  EXPECT_OK(u.status());
  return *u;
}

TEST_F(StageFileTest, MapTasksWriteEveryPartitionOnceAndReducersReadEveryMap) {
  // Two map tasks, one per input partition, three hash partitions.
  std::vector<columnar::RecordBatchPtr> halves;
  auto split = [&](int first) {
    std::vector<testing::TextRow> rows;
    for (int i = first; i < first + 10; ++i)
      rows.push_back({std::to_string(i), "row" + std::to_string(i)});
    auto values = exec::ValuesExec::Make(std::make_shared<columnar::Schema>(Fields()),
                                         {testing::MakeBatch(Fields(), rows)});
    EXPECT_OK(values.status());
    return exec::ExecPlanPtr(*values);
  };
  const exec::ExecPlanPtr first = split(0);
  const exec::ExecPlanPtr second = split(10);
  ASSERT_OK_AND_ASSIGN(auto stage, StageFileExec::Make(TwoPartitions(first, second), dir_, 7,
                                                       HashOnK(3), "lz4", /*map_tasks=*/2));
  EXPECT_EQ(stage->num_partitions(), 3);
  EXPECT_EQ(stage->num_tasks(), 2);
  // Before any map committed, reading is a clear error, not a silent empty partition.
  auto early = stage->Execute(0, Context());
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.status().UserMessage().find("map task 0 of 2 has no committed output"),
            std::string::npos)
      << early.status().ToString();
  // Each map task reads only its own input partition: the rows read across map tasks are the
  // input's rows, once.
  int64_t read = 0;
  int64_t written = 0;
  for (int m = 0; m < 2; ++m) {
    auto context = Context();
    ASSERT_OK_AND_ASSIGN(int64_t rows, stage->RunTask(m, /*attempt=*/1, context));
    EXPECT_EQ(rows, 10) << "map " << m;
    written += rows;
    for (const auto& leaf : {first, second})
      read += context->metrics().Sum(leaf.get()).output_rows;
    ASSERT_OK_AND_ASSIGN(auto committed, stage->CommittedTaskRows(m));
    EXPECT_EQ(committed, std::optional<int64_t>(10));
    // All three partition files of the attempt, and its commit.
    for (int p = 0; p < 3; ++p)
      EXPECT_TRUE(fs::exists(MapOutputPath(dir_, 7, m, 1, p))) << m << " " << p;
    EXPECT_TRUE(fs::exists(MapCommitPath(dir_, 7, m)));
  }
  EXPECT_EQ(read, 20);
  EXPECT_EQ(written, 20);
  // Every reducer reads its partition from both maps: every row in exactly one partition.
  std::multiset<std::string> all;
  std::map<int, std::set<std::string>> by_partition;
  for (int p = 0; p < 3; ++p) {
    ASSERT_OK_AND_ASSIGN(auto keys, Keys(*stage, p));
    all.insert(keys.begin(), keys.end());
    by_partition[p].insert(keys.begin(), keys.end());
  }
  std::multiset<std::string> expected;
  for (int i = 0; i < 20; ++i)
    expected.insert(std::to_string(i));
  EXPECT_EQ(all, expected);
  // Both maps contributed to some partition (keys below 10 come from map 0, the others map 1).
  bool low = false, high = false;
  for (const auto& [p, keys] : by_partition) {
    for (const auto& k : keys) {
      low = low || std::stoi(k) < 10;
      high = high || std::stoi(k) >= 10;
    }
  }
  EXPECT_TRUE(low && high);
  for (const auto& name : DirectoryNames())
    EXPECT_TRUE(IsStageFileName(name) || IsMapCommitName(name)) << name;  // no temporaries
}

TEST_F(StageFileTest, OneMapTaskRunsAllInputPartitions) {
  ASSERT_OK_AND_ASSIGN(auto stage, StageFileExec::Make(TwoPartitions(Values(), Values()), dir_, 2,
                                                       HashOnK(2), "none", /*map_tasks=*/1));
  ASSERT_OK_AND_ASSIGN(int64_t rows, stage->RunTask(0, 1, Context()));
  EXPECT_EQ(rows, 40);
  int64_t read = 0;
  for (int p = 0; p < 2; ++p) {
    ASSERT_OK_AND_ASSIGN(auto keys, Keys(*stage, p));
    read += static_cast<int64_t>(keys.size());
  }
  EXPECT_EQ(read, 40);
}

TEST_F(StageFileTest, ReducersReadOnlyTheCommittedAttempt) {
  ASSERT_OK_AND_ASSIGN(auto stage,
                       StageFileExec::Make(Values(), dir_, 4, HashOnK(2), "lz4", /*map_tasks=*/1));
  // Attempt 1 published its partition files but died before its commit; attempt 2 committed.
  ASSERT_OK(stage->RunTask(0, 1, Context()).status());
  fs::remove(MapCommitPath(dir_, 4, 0));
  ASSERT_OK(stage->RunTask(0, 2, Context()).status());
  ASSERT_TRUE(fs::exists(MapOutputPath(dir_, 4, 0, 1, 0)));
  // Attempt 1's files are replaced by rows no reader may see (another query's partition files).
  for (int p = 0; p < 2; ++p)
    fs::copy_file(MapOutputPath(dir_, 4, 0, 2, 0), MapOutputPath(dir_, 4, 0, 1, p),
                  fs::copy_options::overwrite_existing);
  // A half-written file of an attempt 3 still running: a temporary, never read either.
  {
    std::ofstream half(dir_ / ".stage-4-map-0-attempt-3-part-0.arrow.attempt-3.1-00.tmp");
    half << "ARROW half";
  }
  std::multiset<std::string> all;
  for (int p = 0; p < 2; ++p) {
    ASSERT_OK_AND_ASSIGN(auto keys, Keys(*stage, p));
    all.insert(keys.begin(), keys.end());
  }
  EXPECT_EQ(all.size(), 20u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 20u);
  // A commit that is not one is a clear error naming the file.
  {
    std::ofstream bad(MapCommitPath(dir_, 4, 0), std::ios::trunc);
    bad << "shoal-map-output 1\nattempt 2\npartitions 2\nrows 5\n";
  }
  auto stream = stage->Execute(0, Context());
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kInvalidData) << stream.status().ToString();
  EXPECT_NE(stream.status().UserMessage().find(MapCommitPath(dir_, 4, 0)), std::string::npos);
}

// A worker restarted with an empty directory loses its committed files while the driver still
// points readers at them: the read fails as the transient loss it is (retryable, so the driver
// computes the file again), never as a deterministic error that fails the query (CI saw a task
// fail with "No such file or directory" after the driver had noticed the restart).
TEST_F(StageFileTest, ACommittedFileThatIsGoneIsARetryableLoss) {
  ASSERT_OK_AND_ASSIGN(auto stage,
                       StageFileExec::Make(Values(), dir_, 4, HashOnK(2), "lz4", /*map_tasks=*/1));
  ASSERT_OK(stage->RunTask(0, 1, Context()).status());
  const std::string gone = MapOutputPath(dir_, 4, 0, 1, 0);
  ASSERT_TRUE(fs::remove(gone));
  auto keys = Keys(*stage, 0);
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.status().code(), StatusCode::kUnavailable) << keys.status().ToString();
  EXPECT_TRUE(IsRetryableTaskError(keys.status())) << keys.status().ToString();
  EXPECT_NE(keys.status().UserMessage().find(gone), std::string::npos) << keys.status().ToString();
}

TEST_F(StageFileTest, AMapCommitWithAnotherPartitionCountIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto three, StageFileExec::Make(Values(), dir_, 6, HashOnK(3), "lz4"));
  ASSERT_OK(three->RunTask(0, 1, Context()).status());
  ASSERT_OK_AND_ASSIGN(auto two, StageFileExec::Make(Values(), dir_, 6, HashOnK(2), "lz4"));
  auto stream = two->Execute(0, Context());
  ASSERT_FALSE(stream.ok());
  EXPECT_NE(stream.status().UserMessage().find("commits 3 partitions but stage 6 has 2"),
            std::string::npos)
      << stream.status().ToString();
}

TEST_F(StageFileTest, PassthroughStageKeepsTheChildPartition) {
  ASSERT_OK_AND_ASSIGN(
      auto stage, StageFileExec::Make(Values(), dir_, 1, exec::Partitioning::Unknown(1), "zstd"));
  EXPECT_FALSE(stage->hash_stage());
  EXPECT_EQ(stage->num_partitions(), 1);
  ASSERT_OK_AND_ASSIGN(auto keys, Keys(*stage, 0));
  EXPECT_EQ(keys.size(), 20u);
  EXPECT_EQ(keys.front(), "0");
  EXPECT_EQ(keys.back(), "19");
  EXPECT_TRUE(fs::exists(stage->FilePath(0)));
}

TEST_F(StageFileTest, AStreamDroppedBeforeItsEndPublishesNothing) {
  ASSERT_OK_AND_ASSIGN(
      auto stage, StageFileExec::Make(Values(), dir_, 2, exec::Partitioning::Unknown(1), "none"));
  {
    ASSERT_OK_AND_ASSIGN(auto stream, stage->Execute(0, Context()));
    ASSERT_OK_AND_ASSIGN(auto first, stream->Next());
    ASSERT_NE(first, nullptr);
    bool temporary = false;
    for (const auto& name : DirectoryNames())
      temporary = temporary || IsStageTemporaryName(name);
    EXPECT_TRUE(temporary) << "writes go to a temporary name first";
    EXPECT_FALSE(fs::exists(stage->FilePath(0)));
  }
  EXPECT_TRUE(DirectoryNames().empty());
}

TEST_F(StageFileTest, AFileWithAnotherSchemaNamesTheFileAndBothSchemas) {
  const std::string path = StageFilePath(dir_, 3, 0);
  {
    auto other = std::make_shared<columnar::Schema>(
        std::vector<Field>{Field("name", DataType::Utf8()), Field("n", DataType::Int32())});
    ASSERT_OK_AND_ASSIGN(auto sink, columnar::ipc::FileSink::Open(path));
    ASSERT_OK_AND_ASSIGN(auto writer, columnar::ipc::MakeStreamWriter(sink.get(), other));
    ASSERT_OK(writer->Close());
  }
  ASSERT_OK_AND_ASSIGN(
      auto stage, StageFileExec::Make(Values(), dir_, 3, exec::Partitioning::Unknown(1), "lz4"));
  auto stream = stage->Execute(0, Context());
  ASSERT_FALSE(stream.ok());
  const std::string message = stream.status().UserMessage();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("name: utf8"), std::string::npos) << message;
  EXPECT_NE(message.find("k: int64"), std::string::npos) << message;
}

TEST_F(StageFileTest, FileNamePatterns) {
  EXPECT_TRUE(IsStageFileName("stage-1-part-0.arrow"));
  EXPECT_TRUE(IsStageFileName("stage-12-part-345.arrow"));
  EXPECT_FALSE(IsStageFileName("stage-1-part-0.arrow.tmp"));
  EXPECT_FALSE(IsStageFileName(".stage-1-part-0.arrow.123-00ff.tmp"));
  EXPECT_FALSE(IsStageFileName("notes.txt"));
  EXPECT_TRUE(IsStageTemporaryName(".stage-1-part-0.arrow.123-00ff.tmp"));
  EXPECT_FALSE(IsStageTemporaryName("stage-1-part-0.arrow"));
  // Map outputs: an attempt's files, a fetched copy, the commit and their temporaries.
  EXPECT_TRUE(IsStageFileName("stage-3-map-1-attempt-2-part-0.arrow"));
  EXPECT_TRUE(IsStageFileName("stage-3-map-1-part-0.arrow"));
  EXPECT_FALSE(IsStageFileName("stage-3-map-1.commit"));
  EXPECT_TRUE(IsMapCommitName("stage-3-map-1.commit"));
  EXPECT_FALSE(IsMapCommitName(".stage-3-map-1.commit.attempt-2.1-00.tmp"));
  EXPECT_TRUE(IsStageTemporaryName(".stage-3-map-1-attempt-2-part-0.arrow.attempt-2.1-00.tmp"));
  EXPECT_TRUE(IsStageTemporaryName(".stage-3-map-1.commit.attempt-2.1-00.tmp"));
  EXPECT_EQ(MapOutputPath("/d", 3, 1, 2, 0), "/d/stage-3-map-1-attempt-2-part-0.arrow");
  EXPECT_EQ(MapCommitPath("/d", 3, 1), "/d/stage-3-map-1.commit");
}

TEST_F(StageFileTest, TheNodeTravelsThroughThePlanCodecWithItsDirectory) {
  ASSERT_OK_AND_ASSIGN(auto stage,
                       StageFileExec::Make(Values(), dir_, 5, HashOnK(4), "zstd", /*map_tasks=*/3));
  auto codecs = TableCodecRegistry::Builtin(nullptr);
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(stage, *codecs));
  PlanDecodeContext context;
  context.codecs = codecs;
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodePlan(bytes, context));
  const auto* back = dynamic_cast<const StageFileExec*>(decoded.get());
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->dir(), dir_.string());
  EXPECT_EQ(back->stage_id(), 5);
  EXPECT_EQ(back->compression(), "zstd");
  EXPECT_TRUE(back->hash_stage());
  EXPECT_EQ(back->num_partitions(), 4);
  EXPECT_EQ(back->map_tasks(), 3);
  EXPECT_EQ(back->Describe(false), stage->Describe(false));
}

// The physical plans the single-node planner makes, cut by the materialized planner.
// A join of two aggregates, then an ORDER BY: shuffles below shuffles, and above them a join
// and a sort that read only stage files.
constexpr const char* kJoinOfAggregates =
    "EXPLAIN SELECT a.k, a.n, b.n FROM "
    "(SELECT l_orderkey AS k, count(*) AS n FROM lineitem GROUP BY 1) a JOIN "
    "(SELECT o_orderkey AS k, count(*) AS n FROM orders GROUP BY 1) b "
    "ON a.k = b.k ORDER BY 2 DESC, 1 LIMIT 5";

class MaterializedPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_.session().catalog().get()));
    ASSERT_OK(runner_.RunOne("SET threads = 3").status());
    engine_testing::RewritePlans(
        runner_,
        [this](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
          MaterializedPlannerOptions options;
          options.shuffle_dir = shuffle_dir_;
          options.local_tasks = local_tasks_;
          options.repeated_build_min_bytes = repeated_build_min_bytes_;
          auto staged = PlanMaterialized(plan, options);
          if (staged.ok())
            staged_ = *staged;
          return staged.ok() ? Result<exec::ExecPlanPtr>(plan) : staged.status();
        },
        /*takes_shared_subplans=*/true);
  }

  // The scans of a stage's own input (not those of the stages it reads).
  static void CollectScans(const exec::ExecPlanPtr& node,
                           std::vector<const exec::ExecutionPlan*>* out) {
    if (node->Is<exec::TableScanExec>())
      out->push_back(node.get());
    for (const auto& child : node->children()) {
      if (!child->Is<StageFileExec>())
        CollectScans(child, out);
    }
  }

  std::string shuffle_dir_ = "/nonexistent/shuffle";
  bool local_tasks_ = false;
  int64_t repeated_build_min_bytes_ = MaterializedPlannerOptions().repeated_build_min_bytes;
  engine::QueryRunner runner_;
  MaterializedPlan staged_;
};

TEST_F(MaterializedPlannerTest, AHashStageReadsItsInputOnceAcrossItsMapTasks) {
  ASSERT_OK_AND_ASSIGN(auto count, runner_.RunOne("SELECT count(*) FROM lineitem"));
  const int64_t lineitem_rows = std::stoll(distributed_testing::SortedRows(count).at(0));
  const fs::path dir = fs::temp_directory_path() / ("shoal-map-once-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  shuffle_dir_ = dir.string();
  ASSERT_OK(
      runner_.RunOne("EXPLAIN SELECT l_orderkey, count(*) FROM lineitem GROUP BY 1").status());
  std::shared_ptr<const StageFileExec> stage;
  for (const auto& s : staged_.stages) {
    if (s.node->hash_stage()) {
      ASSERT_EQ(stage, nullptr) << exec::FormatExecutionPlan(*staged_.root);
      stage = s.node;
    }
  }
  ASSERT_NE(stage, nullptr) << exec::FormatExecutionPlan(*staged_.root);
  // One map task per input partition (threads = 3): each reads its own scan units.
  EXPECT_EQ(stage->map_tasks(), stage->child()->num_partitions());
  EXPECT_GT(stage->map_tasks(), 1);
  EXPECT_EQ(stage->num_tasks(), stage->map_tasks());
  std::vector<const exec::ExecutionPlan*> scans;
  CollectScans(stage->child(), &scans);
  ASSERT_EQ(scans.size(), 1u);
  int64_t scanned = 0;
  int64_t written = 0;
  for (int m = 0; m < stage->num_tasks(); ++m) {
    auto context = std::make_shared<exec::TaskContext>(exec::TaskContext::Options());
    ASSERT_OK_AND_ASSIGN(int64_t rows, stage->RunTask(m, 1, context));
    written += rows;
    const int64_t mine = context->metrics().Sum(scans[0]).output_rows;
    EXPECT_GT(mine, 0) << "map task " << m << " read nothing";
    scanned += mine;
  }
  // Every lineitem row was read by exactly one map task (before: by each of the stage's tasks).
  EXPECT_EQ(scanned, lineitem_rows);
  // The reducers read every row the maps wrote, each partition from all three maps.
  int64_t read = 0;
  for (int p = 0; p < stage->num_partitions(); ++p) {
    ASSERT_OK_AND_ASSIGN(
        int64_t n,
        exec::testutil::DrainPartition(
            stage, p, std::make_shared<exec::TaskContext>(exec::TaskContext::Options())));
    read += n;
  }
  EXPECT_EQ(read, written);
  fs::remove_all(dir);
}

TEST_F(MaterializedPlannerTest, AUnionWithAnAggregateInEachBranchHasAStagePerBranch) {
  ASSERT_OK(runner_
                .RunOne("EXPLAIN SELECT l_returnflag AS k, count(*) FROM lineitem GROUP BY 1 "
                        "UNION ALL SELECT o_orderstatus, count(*) FROM orders GROUP BY 1")
                .status());
  std::vector<MaterializedStage> hash;
  for (const auto& s : staged_.stages) {
    if (s.node->hash_stage())
      hash.push_back(s);
  }
  ASSERT_EQ(hash.size(), 2u) << exec::FormatExecutionPlan(*staged_.root);
  for (const auto& s : hash) {
    EXPECT_EQ(s.level, 0);
    EXPECT_EQ(s.node->num_partitions(), 3);
    EXPECT_EQ(s.node->dir(), "/nonexistent/shuffle");
  }
  EXPECT_FALSE(FindStages(staged_.root).empty());
}

TEST_F(MaterializedPlannerTest, ChainsAreCutAtEveryShuffleInDependencyOrder) {
  ASSERT_OK(runner_.RunOne(kJoinOfAggregates).status());
  ASSERT_GE(staged_.stages.size(), 3u) << exec::FormatExecutionPlan(*staged_.root);
  std::map<int, int> level_of;
  std::set<int> ids;
  int deepest = 0;
  for (const auto& s : staged_.stages) {
    level_of[s.id] = s.level;
    ids.insert(s.id);
    deepest = std::max(deepest, s.level);
    for (int input : s.inputs) {
      ASSERT_TRUE(level_of.count(input))
          << "stage " << s.id << " listed before its input " << input;
      EXPECT_LT(level_of[input], s.level);
    }
  }
  EXPECT_GE(deepest, 1);
  EXPECT_EQ(*ids.begin(), 1);
  EXPECT_EQ(*ids.rbegin(), static_cast<int>(ids.size()));  // ids 1..n
}

// With local tasks, what the driver would run and reads only earlier stages' files (a final
// aggregate, a join of two aggregates, a sort) is no stage of its own: it would be one more level
// of task processes for work the driver's threads do. What scans a table below a coalesce is
// still a stage; with workers, so is the rest.
TEST_F(MaterializedPlannerTest, TheDriverRunsWhatOnlyReadsStagesAndTasksRunWhatScans) {
  local_tasks_ = true;
  auto passthrough_stages = [this] {
    int n = 0;
    for (const auto& s : staged_.stages)
      n += s.node->hash_stage() ? 0 : 1;
    return n;
  };
  ASSERT_OK(runner_.RunOne(kJoinOfAggregates).status());
  const std::string joined = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(passthrough_stages(), 0) << joined;
  EXPECT_EQ(staged_.stages.size(), 2u) << joined;
  // The sort and the join run in the driver, above both stages.
  EXPECT_LT(joined.find("HashJoin"), joined.find("ShuffleStage")) << joined;

  ASSERT_OK(runner_.RunOne("EXPLAIN SELECT l_orderkey FROM lineitem ORDER BY 1 LIMIT 5").status());
  const std::string sorted = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(passthrough_stages(), 1) << sorted;
  EXPECT_LT(sorted.find("ShuffleStage"), sorted.find("TableScan")) << sorted;

  // Tasks on workers: the join and the sort are a stage of tasks spread over them.
  local_tasks_ = false;
  ASSERT_OK(runner_.RunOne(kJoinOfAggregates).status());
  const std::string remote = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(passthrough_stages(), 1) << remote;
  EXPECT_EQ(staged_.stages.size(), 3u) << remote;
}

// TPC-H Q15's shape: a WITH query read twice, once joined and once under max().
constexpr const char* kViewReadTwice =
    "EXPLAIN WITH r AS (SELECT l_suppkey AS k, sum(l_quantity) AS q FROM lineitem GROUP BY 1) "
    "SELECT s_name, r.q FROM supplier JOIN r ON s_suppkey = r.k "
    "WHERE r.q = (SELECT max(q) FROM r) ORDER BY 1";

// The driver computes a subplan read twice once, from stages cut once, and replays it to both
// references; inside a stage (tasks on workers, where the final join is a stage) each reference
// computes its own copy from the same stage files, and no shared node is left in the tasks'
// plans.
TEST_F(MaterializedPlannerTest, ASubplanReadTwiceIsComputedOnceByTheDriver) {
  auto stages_scanning = [this](const std::string& table) {
    int n = 0;
    for (const auto& s : staged_.stages) {
      std::vector<const exec::ExecutionPlan*> scans;
      CollectScans(s.node->child(), &scans);
      for (const auto* scan : scans)
        n += scan->As<exec::TableScanExec>().table_name() == table ? 1 : 0;
    }
    return n;
  };
  local_tasks_ = true;
  ASSERT_OK(runner_.RunOne(kViewReadTwice).status());
  const std::string local = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(stages_scanning("lineitem"), 1) << local;
  EXPECT_NE(local.find("SharedResult: references=2"), std::string::npos) << local;
  // The supplier scan under the driver's join is a stage of its own: the driver reads files only.
  EXPECT_EQ(stages_scanning("supplier"), 1) << local;
  std::vector<const exec::ExecutionPlan*> driver_scans;
  CollectScans(staged_.root, &driver_scans);
  EXPECT_TRUE(driver_scans.empty()) << local;

  // Tasks on workers: the final join is a stage, and each reference inside it a copy; both
  // copies read the one stage that scans and aggregates lineitem.
  local_tasks_ = false;
  ASSERT_OK(runner_.RunOne(kViewReadTwice).status());
  const std::string remote = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(stages_scanning("lineitem"), 1) << remote;
  EXPECT_EQ(remote.find("SharedResult"), std::string::npos) << remote;
}

// Whether `node` scans a table in its own stage (not below a stage it reads).
bool ScansInStage(const exec::ExecutionPlan& node) {
  if (node.Is<exec::TableScanExec>())
    return true;
  for (const auto& child : node.children())
    if (!child->Is<StageFileExec>() && ScansInStage(*child))
      return true;
  return false;
}

// Collect-build joins in a stage of several tasks whose build side scans in that stage: each task
// computes that build side again.
int RepeatedBuilds(const exec::ExecutionPlan& node, int tasks) {
  int n = 0;
  if (const auto* join = node.TryAs<exec::HashJoinExec>();
      join != nullptr && tasks > 1 && join->mode() == exec::HashJoinExec::Mode::kCollectBuild &&
      !join->right()->Is<StageFileExec>() && ScansInStage(*join->right()))
    ++n;
  for (const auto& child : node.children()) {
    if (const auto* stage = child->TryAs<StageFileExec>())
      n += RepeatedBuilds(*stage->child(), stage->num_tasks());
    else
      n += RepeatedBuilds(*child, tasks);
  }
  return n;
}

// TPC-H Q12 joins orders with a filtered lineitem in a stage of one task per input partition:
// each task built the hash table of the whole build side. A build side that reads enough becomes
// a stage of its own, computed once; a small one stays in the tasks.
TEST_F(MaterializedPlannerTest, ABuildSideThatReadsMuchIsComputedOnceNotInEveryTask) {
  local_tasks_ = true;
  const std::string q12 = "EXPLAIN " + distributed_testing::TpchQuery(12);
  repeated_build_min_bytes_ = int64_t{1} << 40;
  ASSERT_OK(runner_.RunOne(q12).status());
  const std::string repeated = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_GT(RepeatedBuilds(*staged_.root, 1), 0) << repeated;
  const size_t stages_before = staged_.stages.size();

  repeated_build_min_bytes_ = 0;
  ASSERT_OK(runner_.RunOne(q12).status());
  const std::string once = exec::FormatExecutionPlan(*staged_.root);
  EXPECT_EQ(RepeatedBuilds(*staged_.root, 1), 0) << once;
  EXPECT_GT(staged_.stages.size(), stages_before) << once;

  // Tasks on workers: unchanged (each worker's cores build their own copy).
  local_tasks_ = false;
  ASSERT_OK(runner_.RunOne(q12).status());
  EXPECT_GT(RepeatedBuilds(*staged_.root, 1), 0) << exec::FormatExecutionPlan(*staged_.root);
}

}  // namespace
}  // namespace shoal::distributed::shuffle

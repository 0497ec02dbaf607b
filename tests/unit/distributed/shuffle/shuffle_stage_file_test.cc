// The materialized-shuffle stage node and planner: a stage partition is computed and written once,
// then read; hash partitions split the rows exactly; a dropped stream publishes nothing; a file
// with another schema is a clear error; the planner cuts every branch and chains; the node
// survives the plan codec with its directory.
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/ipc/writer.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/shuffle/materialized_planner.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"
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

TEST_F(StageFileTest, HashPartitionsSplitTheRowsAndAreWrittenOnceThenRead) {
  ASSERT_OK_AND_ASSIGN(auto stage, StageFileExec::Make(Values(), dir_, 7, HashOnK(3), "lz4"));
  EXPECT_EQ(stage->num_partitions(), 3);
  std::multiset<std::string> all;
  std::map<int, std::vector<std::string>> computed;
  for (int p = 0; p < 3; ++p) {
    EXPECT_FALSE(fs::exists(stage->FilePath(p)));
    ASSERT_OK_AND_ASSIGN(computed[p], Keys(*stage, p));
    EXPECT_TRUE(fs::exists(stage->FilePath(p))) << stage->FilePath(p);
    all.insert(computed[p].begin(), computed[p].end());
  }
  std::multiset<std::string> expected;
  for (int i = 0; i < 20; ++i)
    expected.insert(std::to_string(i));
  EXPECT_EQ(all, expected);  // every row in exactly one partition
  EXPECT_EQ(stage->FilePath(2), (dir_ / "stage-7-part-2.arrow").string());

  // The same stage over an input with no rows reads the files: it computes nothing.
  ASSERT_OK_AND_ASSIGN(auto reader,
                       StageFileExec::Make(Values(/*empty=*/true), dir_, 7, HashOnK(3), "lz4"));
  for (int p = 0; p < 3; ++p) {
    ASSERT_OK_AND_ASSIGN(auto keys, Keys(*reader, p));
    EXPECT_EQ(keys, computed[p]) << "partition " << p;
  }
  for (const auto& name : DirectoryNames())
    EXPECT_TRUE(IsStageFileName(name)) << name;  // no temporaries left behind
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
}

TEST_F(StageFileTest, TheNodeTravelsThroughThePlanCodecWithItsDirectory) {
  ASSERT_OK_AND_ASSIGN(auto stage, StageFileExec::Make(Values(), dir_, 5, HashOnK(4), "zstd"));
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
  EXPECT_EQ(back->Describe(false), stage->Describe(false));
}

// The physical plans the single-node planner makes, cut by the materialized planner.
class MaterializedPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_.session().catalog().get()));
    ASSERT_OK(runner_.RunOne("SET threads = 3").status());
    engine_testing::RewritePlans(
        runner_, [this](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
          MaterializedPlannerOptions options;
          options.shuffle_dir = "/nonexistent/shuffle";
          auto staged = PlanMaterialized(plan, options);
          if (staged.ok())
            staged_ = *staged;
          return staged.ok() ? Result<exec::ExecPlanPtr>(plan) : staged.status();
        });
  }

  engine::QueryRunner runner_;
  MaterializedPlan staged_;
};

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
  // A join of two aggregates, then an ORDER BY: shuffles below shuffles.
  ASSERT_OK(runner_
                .RunOne("EXPLAIN SELECT a.k, a.n, b.n FROM "
                        "(SELECT l_orderkey AS k, count(*) AS n FROM lineitem GROUP BY 1) a JOIN "
                        "(SELECT o_orderkey AS k, count(*) AS n FROM orders GROUP BY 1) b "
                        "ON a.k = b.k ORDER BY 2 DESC, 1 LIMIT 5")
                .status());
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

}  // namespace
}  // namespace shoal::distributed::shuffle

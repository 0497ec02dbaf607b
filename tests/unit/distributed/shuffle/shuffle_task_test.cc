// `shoal task` logic (RunShuffleTask): an envelope runs its partition into the stage file and
// reports the rows; one written with other codec ids, or naming a partition out of range, or not
// an envelope at all, is refused before anything is decoded.
#include "shoal/distributed/shuffle/shuffle_task.h"

#include <filesystem>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/shuffle/stage_file_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;

class ShuffleTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal-task-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tasks");
    std::vector<Field> fields = {Field("k", DataType::Int64())};
    auto batch = testing::MakeBatch(fields, {{"1"}, {"2"}, {"3"}});
    ASSERT_OK_AND_ASSIGN(auto values, exec::ValuesExec::Make(batch->schema(), std::vector{batch}));
    ASSERT_OK_AND_ASSIGN(stage_, StageFileExec::Make(values, dir_.string(), 1,
                                                     exec::Partitioning::Unknown(1), "lz4"));
    auto codecs = TableCodecRegistry::Builtin(nullptr);
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(stage_, *codecs));
    plan_path_ = (dir_ / "tasks" / "stage-1.plan").string();
    ASSERT_OK(WriteFileAtomically(plan_path_, bytes));
    envelope_.set_plan_path(plan_path_);
    envelope_.set_stage_id(1);
    envelope_.set_partition(0);
    envelope_.set_partition_count(1);
    for (const auto& id : ShuffleCodecIds(*codecs))
      envelope_.add_codec_ids(id);
    envelope_.mutable_session()->set_target_partitions(2);
  }

  void TearDown() override { fs::remove_all(dir_); }

  Result<int64_t> Run() {
    const std::string path = (dir_ / "tasks" / "task-1-0.envelope").string();
    SHOAL_RETURN_IF_ERROR(WriteEnvelope(path, envelope_));
    return RunShuffleTask(path);
  }

  fs::path dir_;
  std::shared_ptr<StageFileExec> stage_;
  std::string plan_path_;
  proto::ShuffleTaskEnvelopeProto envelope_;
};

TEST_F(ShuffleTaskTest, RunsItsPartitionIntoTheStageFileAndCountsTheRows) {
  ASSERT_OK_AND_ASSIGN(int64_t rows, Run());
  EXPECT_EQ(rows, 3);
  EXPECT_TRUE(fs::exists(stage_->FilePath(0)));
  // Run again: the file exists, so it is read, not recomputed, and counts the same.
  ASSERT_OK_AND_ASSIGN(rows, Run());
  EXPECT_EQ(rows, 3);
}

TEST_F(ShuffleTaskTest, ACodecIdMismatchIsRefused) {
  envelope_.add_codec_ids("shoal.bogus/9");
  auto rows = Run();
  ASSERT_EQ(rows.status().code(), StatusCode::kInvalidArgument) << rows.status().ToString();
  EXPECT_NE(rows.status().UserMessage().find("shoal.bogus/9"), std::string::npos);
  EXPECT_NE(rows.status().UserMessage().find("codec ids"), std::string::npos);
  EXPECT_FALSE(fs::exists(stage_->FilePath(0)));

  envelope_.clear_codec_ids();  // no ids at all differs too
  EXPECT_EQ(Run().status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ShuffleTaskTest, APartitionOutOfRangeIsRefused) {
  envelope_.set_partition(1);
  auto rows = Run();
  ASSERT_EQ(rows.status().code(), StatusCode::kOutOfRange) << rows.status().ToString();
  EXPECT_NE(rows.status().UserMessage().find("partition 1 is out of range"), std::string::npos)
      << rows.status().UserMessage();
  envelope_.set_partition(-1);
  EXPECT_EQ(Run().status().code(), StatusCode::kOutOfRange);
  // A count that disagrees with the encoded stage.
  envelope_.set_partition(1);
  envelope_.set_partition_count(2);
  EXPECT_EQ(Run().status().code(), StatusCode::kInvalidData);
  EXPECT_FALSE(fs::exists(stage_->FilePath(0)));
}

TEST_F(ShuffleTaskTest, NotAnEnvelopeIsAClearError) {
  const std::string path = (dir_ / "tasks" / "garbage.envelope").string();
  ASSERT_OK(WriteFileAtomically(path, std::string("\xff\xff\xff\xff not a protobuf", 20)));
  auto rows = RunShuffleTask(path);
  EXPECT_EQ(rows.status().code(), StatusCode::kInvalidData) << rows.status().ToString();
  EXPECT_EQ(RunShuffleTask((dir_ / "missing").string()).status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace shoal::distributed::shuffle

// Spilling: the spill file manager, and sort and hash aggregation under a memory limit small
// enough to force spilling, compared with the same plans run without a limit on random data.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/hash_aggregate_exec.h"
#include "shoal/exec/operators/hash_join_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/sort_exec.h"
#include "shoal/exec/operators/sort_preserving_merge_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/row_key/memory_reservation.h"
#include "shoal/exec/spill/memory_budget.h"
#include "shoal/exec/spill/spill_manager.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/support/wait.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using shoal::testing::WaitFor;

namespace fs = std::filesystem;

// A fresh directory for spill files, removed (with anything left in it) at the end.
class SpillDir {
 public:
  SpillDir() {
    std::string pattern = (fs::temp_directory_path() / "shoal-spill-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    EXPECT_NE(::mkdtemp(buffer.data()), nullptr);
    path_ = buffer.data();
  }

  ~SpillDir() { fs::remove_all(path_); }

  const std::string& path() const { return path_; }

  // Files and directories below the directory.
  int64_t Entries() const {
    int64_t n = 0;
    for (auto it = fs::recursive_directory_iterator(path_);
         it != fs::recursive_directory_iterator(); ++it)
      ++n;
    return n;
  }

 private:
  std::string path_;
};

std::shared_ptr<TaskContext> MakeLimitedContext(int64_t memory_limit, const std::string& spill_dir,
                                                int64_t batch_size = 256, int threads = 2) {
  TaskContext::Options options;
  EXPECT_TRUE(options.settings.Set("batch_size", std::to_string(batch_size)).ok());
  EXPECT_TRUE(options.settings.Set("memory_limit", std::to_string(memory_limit)).ok());
  options.threads = std::make_shared<ThreadPool>(threads);
  options.spill_directory = spill_dir;
  return std::make_shared<TaskContext>(std::move(options));
}

// (id int64, k int32 with NULLs and duplicates, s utf8 with NULLs, v int64 with NULLs).
std::vector<Field> RandomFields() {
  return {{"id", DataType::Int64()},
          {"k", DataType::Int32()},
          {"s", DataType::Utf8()},
          {"v", DataType::Int64()}};
}

std::vector<TextRow> RandomRows(int n, int distinct_keys, uint32_t seed, int null_key_percent = 5) {
  std::mt19937 rng(seed);
  std::vector<TextRow> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const bool null_k = static_cast<int>(rng() % 100) < null_key_percent;
    const bool null_s = rng() % 25 == 0;
    const bool null_v = rng() % 10 == 0;
    rows.push_back({std::to_string(i),
                    null_k ? "NULL" : std::to_string(static_cast<int>(rng() % distinct_keys)),
                    null_s ? "NULL" : fmt::format("str-{}", rng() % 5000),
                    null_v ? "NULL" : std::to_string(static_cast<int64_t>(rng() % 2001) - 1000)});
  }
  return rows;
}

struct RunResult {
  Strings rows;
  MetricsRegistry::Totals totals;
  int64_t pool_after = -1;
};

RunResult RunPlan(const ExecPlanPtr& plan, const std::shared_ptr<TaskContext>& context,
                  const ExecutionPlan* measured) {
  RunResult out;
  // Each partition is drained on its own thread and its batches turned into text at once, so
  // that the result does not count against the memory limit as CollectAll's vector would.
  const int n = plan->num_partitions();
  std::vector<Strings> rows(static_cast<size_t>(n));
  std::vector<Status> statuses(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int p = 0; p < n; ++p) {
    threads.emplace_back([&, p] {
      statuses[static_cast<size_t>(p)] = [&]() -> Status {
        SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, plan->Execute(p, context));
        for (;;) {
          SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
          if (!batch)
            return Status::OK();
          for (std::string& row : Rows({batch}))
            rows[static_cast<size_t>(p)].push_back(std::move(row));
        }
      }();
    });
  }
  for (auto& t : threads)
    t.join();
  for (int p = 0; p < n; ++p) {
    EXPECT_TRUE(statuses[static_cast<size_t>(p)].ok())
        << statuses[static_cast<size_t>(p)].ToString();
    for (std::string& row : rows[static_cast<size_t>(p)])
      out.rows.push_back(std::move(row));
  }
  out.totals = context->metrics().Sum(measured);
  out.pool_after = context->memory_pool()->bytes_used();
  return out;
}

TEST(SpillManagerTest, RoundTripCountsAndDeletes) {
  SpillDir dir;
  OperatorMetrics metrics;
  std::vector<Field> fields = RandomFields();
  RecordBatchPtr batch = MakeBatch(fields, RandomRows(500, 50, 1));
  std::string spill_directory;
  {
    SpillManager manager(dir.path(), "Test[0]", DefaultMemoryPool(), &metrics);
    EXPECT_EQ(dir.Entries(), 0);  // lazily created
    ASSERT_OK_AND_ASSIGN(auto writer, manager.Create(batch->schema()));
    ASSERT_OK(writer->Write(*batch));
    ASSERT_OK(writer->Write(*batch->Slice(100, 50)));
    ASSERT_OK_AND_ASSIGN(SpillFile file, writer->Finish());
    EXPECT_EQ(file.rows, 550);
    EXPECT_GT(file.bytes, 0);
    EXPECT_EQ(metrics.spilled_bytes.load(), file.bytes);
    EXPECT_EQ(metrics.spill_count.load(), 1);
    EXPECT_EQ(metrics.extra["spilled_rows"], 550);
    spill_directory = manager.directory();
    EXPECT_TRUE(fs::exists(file.path));
    ASSERT_OK_AND_ASSIGN(auto reader, manager.Open(file));
    std::vector<RecordBatchPtr> back;
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, reader->Next());
      if (!b)
        break;
      back.push_back(b);
    }
    Strings expected = Rows({batch, batch->Slice(100, 50)});
    EXPECT_EQ(Rows(back), expected);
    EXPECT_EQ(metrics.extra["spill_read_bytes"], file.bytes);
    // An unfinished writer's file is deleted too.
    ASSERT_OK_AND_ASSIGN(auto unfinished, manager.Create(batch->schema()));
    ASSERT_OK(unfinished->Write(*batch));
  }
  EXPECT_FALSE(fs::exists(spill_directory));
  EXPECT_EQ(dir.Entries(), 0);
}

TEST(SpillManagerTest, UnwritableDirectoryIsAClearError) {
  SpillManager manager("/nonexistent/shoal/spill", "Sort[0]", DefaultMemoryPool(), nullptr);
  std::vector<Field> fields = RandomFields();
  auto writer = manager.Create(std::make_shared<const columnar::Schema>(fields));
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), StatusCode::kIoError);
  const std::string text = writer.status().ToString();
  EXPECT_NE(text.find("/nonexistent/shoal/spill"), std::string::npos) << text;
  EXPECT_NE(text.find("spill_dir"), std::string::npos) << text;
}

class SortSpillTest : public ::testing::TestWithParam<int> {};

TEST_P(SortSpillTest, SpilledSortEqualsInMemorySort) {
  const int partitions = GetParam();
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(40000, 3000, 7), 997);
  std::vector<sql::SortKey> keys = {{Col(1, DataType::Int32()), true, false},
                                    {Col(2, DataType::Utf8()), false, true},
                                    {Col(0, DataType::Int64()), true, false}};
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, partitions), keys));
  ASSERT_OK_AND_ASSIGN(auto merge, SortPreservingMergeExec::Make(sort, keys));
  RunResult expected = RunPlan(merge, MakeLimitedContext(0, dir.path()), sort.get());
  EXPECT_EQ(expected.totals.spill_count, 0);
  ASSERT_EQ(expected.rows.size(), 40000u);
  auto context = MakeLimitedContext(1 << 20, dir.path());
  RunResult spilled = RunPlan(merge, context, sort.get());
  EXPECT_GT(spilled.totals.spill_count, 1);
  EXPECT_GT(spilled.totals.spilled_bytes, 0);
  EXPECT_EQ(spilled.totals.extra["spilled_rows"], 40000);
  EXPECT_EQ(spilled.rows, expected.rows);
  EXPECT_EQ(spilled.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);  // every run file and directory deleted
  // The plan prints the spill.
  std::string text = FormatExecutionPlan(*merge, false, context.get());
  EXPECT_NE(text.find("spilled="), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Partitions, SortSpillTest, ::testing::Values(1, 2));

// So little memory that a batch of every run cannot be held at once: runs are merged in passes.
TEST(SortSpillTest, ManyRunsMergeInPasses) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(60000, 3000, 10), 1000);
  std::vector<sql::SortKey> keys = {{Col(2, DataType::Utf8()), true, true},
                                    {Col(0, DataType::Int64()), false, false}};
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, 1), keys));
  RunResult expected = RunPlan(sort, MakeLimitedContext(0, dir.path()), sort.get());
  RunResult spilled = RunPlan(sort, MakeLimitedContext(320 << 10, dir.path(), 512), sort.get());
  EXPECT_GT(spilled.totals.spill_count, 8);
  EXPECT_GT(spilled.totals.extra["merge_passes"], 0);
  EXPECT_EQ(spilled.rows, expected.rows);
  EXPECT_EQ(spilled.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);
}

TEST(SortSpillTest, TopKDoesNotSpill) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(40000, 3000, 8), 1000);
  std::vector<sql::SortKey> keys = {{Col(3, DataType::Int64()), false, false},
                                    {Col(0, DataType::Int64()), true, false}};
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, 1), keys, 10));
  RunResult expected = RunPlan(sort, MakeLimitedContext(0, dir.path()), sort.get());
  RunResult limited = RunPlan(sort, MakeLimitedContext(1 << 20, dir.path()), sort.get());
  EXPECT_EQ(limited.totals.spill_count, 0);
  EXPECT_EQ(limited.rows, expected.rows);
  EXPECT_EQ(dir.Entries(), 0);
}

TEST(SortSpillTest, NoRoomForOneRunIsAClearError) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(20000, 3000, 9), 20000);
  std::vector<sql::SortKey> keys = {{Col(2, DataType::Utf8()), true, false}};
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, 1), keys));
  auto result = CollectAll(sort, MakeLimitedContext(64 << 10, dir.path(), 20000));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kOutOfMemory);
  const std::string text = result.status().ToString();
  EXPECT_NE(text.find("Sort[0]"), std::string::npos) << text;
  EXPECT_NE(text.find("memory_limit"), std::string::npos) << text;
  EXPECT_EQ(dir.Entries(), 0);
}

Strings Sorted(Strings v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<sql::ExprPtr> Aggregates() {
  auto v = Col(3, DataType::Int64());
  auto s = Col(2, DataType::Utf8());
  return {Agg("count", {}, DataType::Int64()), Agg("sum", {v}, DataType::Int64()),
          Agg("min", {s}, DataType::Utf8()), Agg("max", {v}, DataType::Int64()),
          Agg("avg", {v}, DataType::Float64())};
}

class AggregateSpillTest : public ::testing::TestWithParam<int> {};

// kSingle over 1 or 2 partitions, with a limit that forces several spills and re-splits.
TEST_P(AggregateSpillTest, SpilledAggregateEqualsInMemory) {
  const int partitions = GetParam();
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(60000, 40000, 11), 1000);
  std::vector<sql::ExprPtr> group_by = {Col(1, DataType::Int32()), Col(2, DataType::Utf8())};
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(Scan(table, partitions), group_by,
                                                         Aggregates(), AggregateMode::kSingle));
  RunResult expected = RunPlan(agg, MakeLimitedContext(0, dir.path()), agg.get());
  EXPECT_EQ(expected.totals.spill_count, 0);
  RunResult spilled = RunPlan(agg, MakeLimitedContext(1 << 20, dir.path()), agg.get());
  EXPECT_GT(spilled.totals.spill_count, 0);
  EXPECT_GT(spilled.totals.spilled_bytes, 0);
  EXPECT_GT(expected.rows.size(), 40000u);
  EXPECT_EQ(Sorted(spilled.rows), Sorted(expected.rows));
  EXPECT_EQ(spilled.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);
}

INSTANTIATE_TEST_SUITE_P(Partitions, AggregateSpillTest, ::testing::Values(1, 2));

// Partial, hash repartition, final: both phases may spill; partial states cross the spill files.
TEST(AggregateSpillTest, TwoPhaseSpillsEqualInMemory) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(100000, 80000, 12), 1000);
  std::vector<sql::ExprPtr> group_by = {Col(1, DataType::Int32()), Col(2, DataType::Utf8())};
  ASSERT_OK_AND_ASSIGN(auto partial, HashAggregateExec::Make(Scan(table, 2), group_by, Aggregates(),
                                                             AggregateMode::kPartial));
  std::vector<sql::ExprPtr> final_keys = {Col(0, DataType::Int32()), Col(1, DataType::Utf8())};
  ASSERT_OK_AND_ASSIGN(auto repartition,
                       RepartitionExec::Make(partial, Partitioning::Hash(final_keys, 2)));
  ASSERT_OK_AND_ASSIGN(auto final_agg, HashAggregateExec::Make(repartition, group_by, Aggregates(),
                                                               AggregateMode::kFinal));
  RunResult expected = RunPlan(final_agg, MakeLimitedContext(0, dir.path()), final_agg.get());
  auto context = MakeLimitedContext(4 << 20, dir.path());
  RunResult spilled = RunPlan(final_agg, context, final_agg.get());
  const int64_t spills =
      spilled.totals.spill_count + context->metrics().Sum(partial.get()).spill_count;
  EXPECT_GT(spills, 0);
  EXPECT_EQ(Sorted(spilled.rows), Sorted(expected.rows));
  EXPECT_EQ(spilled.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);
}

// Another operator of the query, as a test node: it passes its child's batches through, and before
// batch number `at` of each partition takes every byte the query still has free (holding them
// until its stream ends), as a concurrent operator can between two of an aggregate's checks.
class CrowdOutExec final : public ExecutionPlan {
 public:
  CrowdOutExec(ExecPlanPtr child, int at)
      : ExecutionPlan(PlanKind::kValues, child->schema()), child_(std::move(child)), at_(at) {}

  std::string_view name() const override { return "CrowdOut"; }

  std::vector<ExecPlanPtr> children() const override { return {child_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override {
    return ExecPlanPtr(std::make_shared<CrowdOutExec>(children.at(0), at_));
  }

  Partitioning output_partitioning() const override { return child_->output_partitioning(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr input, child_->Execute(partition, context));
    return StreamPtr(new Stream(std::move(input), context->memory_pool()->MakeChild("crowd"), at_));
  }

  std::string Describe(bool) const override { return fmt::format("at={}", at_); }

 private:
  class Stream final : public columnar::RecordBatchReader {
   public:
    Stream(StreamPtr input, std::shared_ptr<MemoryPool> pool, int at)
        : input_(std::move(input)), pool_(pool), held_(std::move(pool)), at_(at) {}

    const columnar::SchemaPtr& schema() const override { return input_->schema(); }

    Result<RecordBatchPtr> Next() override {
      if (++batches_ == at_) {
        const int64_t free_bytes = AvailableBytes(*pool_);
        if (free_bytes != MemoryPool::kUnlimited)
          SHOAL_RETURN_IF_ERROR(held_.Resize(held_.reserved() + free_bytes));
      }
      return input_->Next();
    }

   private:
    StreamPtr input_;
    std::shared_ptr<MemoryPool> pool_;
    MemoryReservation held_;
    int at_;
    int batches_ = 0;
  };

  ExecPlanPtr child_;
  int at_;
};

// The aggregate's next batch finds no free byte in the query: its computed keys cannot be
// evaluated and its table cannot grow. It spills the table (whose write buffers do not count
// against the full query) and evaluates the batch again, instead of failing the query.
TEST(AggregateSpillTest, NoFreeMemoryForABatchSpillsTheTableAndGoesOn) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(30000, 20000, 13), 1000);
  std::vector<sql::ExprPtr> group_by = {
      Call("+", {Col(1, DataType::Int32()), Lit(Scalar::Int32(1))}, DataType::Int32()),
      Col(2, DataType::Utf8())};
  auto crowded = std::make_shared<CrowdOutExec>(Scan(table, 1), /*at=*/8);
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(crowded, group_by, Aggregates(), AggregateMode::kSingle));
  RunResult expected = RunPlan(agg, MakeLimitedContext(0, dir.path()), agg.get());
  EXPECT_EQ(expected.totals.spill_count, 0);
  RunResult spilled = RunPlan(agg, MakeLimitedContext(64 << 20, dir.path()), agg.get());
  EXPECT_GT(spilled.totals.spill_count, 0);
  EXPECT_EQ(Sorted(spilled.rows), Sorted(expected.rows));
  EXPECT_EQ(spilled.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);
}

// Another operator of the query whose memory comes and goes, as a repartition's or an exchange's
// buffers do: it holds `bytes` while every second batch of its child is out, and nothing while
// the others are.
class PulseExec final : public ExecutionPlan {
 public:
  PulseExec(ExecPlanPtr child, int64_t bytes)
      : ExecutionPlan(PlanKind::kValues, child->schema()),
        child_(std::move(child)),
        bytes_(bytes) {}

  std::string_view name() const override { return "Pulse"; }

  std::vector<ExecPlanPtr> children() const override { return {child_}; }

  Result<ExecPlanPtr> WithNewChildren(std::vector<ExecPlanPtr> children) const override {
    return ExecPlanPtr(std::make_shared<PulseExec>(children.at(0), bytes_));
  }

  Partitioning output_partitioning() const override { return child_->output_partitioning(); }

  Result<StreamPtr> Execute(int partition,
                            const std::shared_ptr<TaskContext>& context) const override {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr input, child_->Execute(partition, context));
    return StreamPtr(
        new Stream(std::move(input), context->memory_pool()->MakeChild("pulse"), bytes_));
  }

  std::string Describe(bool) const override { return fmt::format("bytes={}", bytes_); }

 private:
  class Stream final : public columnar::RecordBatchReader {
   public:
    Stream(StreamPtr input, std::shared_ptr<MemoryPool> pool, int64_t bytes)
        : input_(std::move(input)), held_(std::move(pool)), bytes_(bytes) {}

    const columnar::SchemaPtr& schema() const override { return input_->schema(); }

    Result<RecordBatchPtr> Next() override {
      holding_ = !holding_;
      SHOAL_RETURN_IF_ERROR(held_.Resize(holding_ ? bytes_ : 0));
      return input_->Next();
    }

   private:
    StreamPtr input_;
    MemoryReservation held_;
    int64_t bytes_;
    bool holding_ = false;
  };

  ExecPlanPtr child_;
  int64_t bytes_;
};

// A partial aggregate's table must leave the same headroom a spilling operator leaves: grown to
// the limit, it made the next allocation of the operators beside it fail (a repartition's
// buffers, in TwoPhaseSpillsEqualInMemory, now and then), though flushing the table was free.
TEST(AggregateSpillTest, PartialAggregateLeavesRoomForTheOperatorsBesideIt) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(100000, 80000, 14), 1000);
  std::vector<sql::ExprPtr> group_by = {Col(1, DataType::Int32()), Col(2, DataType::Utf8())};
  auto pulsing = std::make_shared<PulseExec>(Scan(table, 1), int64_t{1} << 20);
  ASSERT_OK_AND_ASSIGN(auto partial, HashAggregateExec::Make(pulsing, group_by, Aggregates(),
                                                             AggregateMode::kPartial));
  ASSERT_OK_AND_ASSIGN(auto final_agg, HashAggregateExec::Make(partial, group_by, Aggregates(),
                                                               AggregateMode::kFinal));
  RunResult expected = RunPlan(final_agg, MakeLimitedContext(0, dir.path()), final_agg.get());
  RunResult limited = RunPlan(final_agg, MakeLimitedContext(4 << 20, dir.path()), final_agg.get());
  EXPECT_EQ(Sorted(limited.rows), Sorted(expected.rows));
  EXPECT_EQ(limited.pool_after, 0);
  EXPECT_EQ(dir.Entries(), 0);
}

// Every join type, collect-build and partitioned, with NULL keys on both sides, spilled (grace
// join) against in memory. The build side alone exceeds what the limit leaves for it.
struct JoinCase {
  sql::JoinType type;
  HashJoinExec::Mode mode;
  int probe_partitions;
  bool residual;
  int build_null_percent;
};

std::string CaseName(const JoinCase& c) {
  return fmt::format("{} {} probe_partitions={} residual={} build_nulls={}%",
                     sql::JoinTypeName(c.type),
                     c.mode == HashJoinExec::Mode::kPartitioned ? "partitioned" : "collect_build",
                     c.probe_partitions, c.residual, c.build_null_percent);
}

TEST(JoinSpillTest, EveryJoinTypeSpilledEqualsInMemory) {
  using sql::JoinType;
  using Mode = HashJoinExec::Mode;
  auto left_table = MakeTable(RandomFields(), RandomRows(20000, 20000, 21, 5), 1000);
  auto right_with_nulls = MakeTable(RandomFields(), RandomRows(80000, 20000, 22, 5), 1000);
  auto right_no_nulls = MakeTable(RandomFields(), RandomRows(80000, 20000, 23, 0), 1000);
  std::vector<JoinCase> cases;
  for (JoinType t :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    cases.push_back({t, Mode::kPartitioned, 2, false, 5});
    cases.push_back({t, Mode::kCollectBuild, 1, t == JoinType::kInner || t == JoinType::kLeft, 5});
  }
  for (JoinType t : {JoinType::kInner, JoinType::kSemi, JoinType::kAnti})
    cases.push_back({t, Mode::kCollectBuild, 2, true, 5});
  for (int nulls : {0, 5}) {
    cases.push_back({JoinType::kNullAwareAnti, Mode::kCollectBuild, 2, false, nulls});
    cases.push_back({JoinType::kMark, Mode::kCollectBuild, 2, false, nulls});
    cases.push_back({JoinType::kMark, Mode::kCollectBuild, 1, true, nulls});
  }
  for (const JoinCase& c : cases) {
    SCOPED_TRACE(CaseName(c));
    SpillDir dir;
    auto right_table = c.build_null_percent > 0 ? right_with_nulls : right_no_nulls;
    ExecPlanPtr left = Scan(left_table, c.probe_partitions);
    ExecPlanPtr right = Scan(right_table, c.mode == Mode::kPartitioned ? c.probe_partitions : 2);
    std::vector<sql::ExprPtr> keys = {Col(1, DataType::Int32())};
    if (c.mode == Mode::kPartitioned) {
      ASSERT_OK_AND_ASSIGN(left, RepartitionExec::Make(left, Partitioning::Hash(keys, 2)));
      ASSERT_OK_AND_ASSIGN(right, RepartitionExec::Make(right, Partitioning::Hash(keys, 2)));
    }
    sql::ExprPtr residual;
    if (c.residual)
      residual =
          Call("<", {Col(3, DataType::Int64()), Col(7, DataType::Int64())}, DataType::Boolean());
    ASSERT_OK_AND_ASSIGN(auto join,
                         HashJoinExec::Make(left, right, keys, keys, c.type, residual, c.mode));
    RunResult expected = RunPlan(join, MakeLimitedContext(0, dir.path()), join.get());
    EXPECT_EQ(expected.totals.spill_count, 0);
    RunResult spilled = RunPlan(join, MakeLimitedContext(4 << 20, dir.path()), join.get());
    EXPECT_GT(spilled.totals.spill_count, 0);
    EXPECT_EQ(Sorted(spilled.rows), Sorted(expected.rows));
    if (c.type == JoinType::kNullAwareAnti && c.build_null_percent > 0)
      EXPECT_TRUE(expected.rows.empty());
    else
      EXPECT_FALSE(expected.rows.empty());
    EXPECT_EQ(spilled.pool_after, 0);
    EXPECT_EQ(dir.Entries(), 0);
  }
}

// RIGHT and FULL joins cannot share a spilled build among several probe partitions: a clear error.
TEST(JoinSpillTest, CollectBuildRightJoinWithSeveralProbesFailsClearly) {
  SpillDir dir;
  auto left_table = MakeTable(RandomFields(), RandomRows(2000, 2000, 31), 1000);
  auto right_table = MakeTable(RandomFields(), RandomRows(80000, 20000, 32), 1000);
  std::vector<sql::ExprPtr> keys = {Col(1, DataType::Int32())};
  ASSERT_OK_AND_ASSIGN(auto join, HashJoinExec::Make(Scan(left_table, 2), Scan(right_table, 2),
                                                     keys, keys, sql::JoinType::kRight, nullptr,
                                                     HashJoinExec::Mode::kCollectBuild));
  auto result = CollectAll(join, MakeLimitedContext(4 << 20, dir.path()));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(result.status().ToString().find("memory_limit"), std::string::npos);
}

// ---- cancellation ---------------------------------------------------------------------------

int ThreadCount() {
  int64_t n = 0;
  for (auto it = fs::directory_iterator("/proc/self/task"); it != fs::directory_iterator(); ++it)
    ++n;
  return static_cast<int>(n);
}

// Dropping the streams of a running query (after one batch) stops its background threads and
// returns every byte to the query pool and to the process pool above it, at once.
TEST(CancelTest, DroppingStreamsStopsWorkAndFreesMemory) {
  auto table = MakeTable(RandomFields(), RandomRows(200000, 1000, 41), 1000);
  auto process = MemoryPool::MakeRoot("process");
  const int threads_before = ThreadCount();
  {
    auto context = MakeContext(1000, 2, process->MakeChild("query"));
    // A many-to-many join on 1000 keys: 200000 x 200 rows, far more than one batch.
    std::vector<sql::ExprPtr> keys = {Col(1, DataType::Int32())};
    ASSERT_OK_AND_ASSIGN(ExecPlanPtr left,
                         RepartitionExec::Make(Scan(table, 2), Partitioning::Hash(keys, 2)));
    ASSERT_OK_AND_ASSIGN(ExecPlanPtr right,
                         RepartitionExec::Make(Scan(table, 2), Partitioning::Hash(keys, 2)));
    ASSERT_OK_AND_ASSIGN(auto join,
                         HashJoinExec::Make(left, right, keys, keys, sql::JoinType::kInner, nullptr,
                                            HashJoinExec::Mode::kPartitioned));
    std::vector<StreamPtr> streams;
    for (int p = 0; p < 2; ++p) {
      ASSERT_OK_AND_ASSIGN(StreamPtr s, join->Execute(p, context));
      streams.push_back(std::move(s));
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, streams[0]->Next());
    ASSERT_NE(first, nullptr);
    first.reset();
    EXPECT_GT(process->bytes_used(), 0);
    const auto start = std::chrono::steady_clock::now();
    streams.clear();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0);
    EXPECT_EQ(context->memory_pool()->bytes_used(), 0);
    EXPECT_EQ(process->bytes_used(), 0);
  }
  // The repartition producers are joined: no thread of the query is left running.
  EXPECT_EQ(ThreadCount(), threads_before);
}

// Cancel() from another thread (Ctrl-C) stops a long query within a second with SQLSTATE 57014,
// also while it is spilling, and leaves no memory and no spill file behind.
TEST(CancelTest, CancelStopsALongSpillingQuery) {
  SpillDir dir;
  auto table = MakeTable(RandomFields(), RandomRows(200000, 150000, 42), 1000);
  auto process = MemoryPool::MakeRoot("process");
  TaskContext::Options options;
  ASSERT_OK(options.settings.Set("batch_size", "1000"));
  options.pool = process->MakeChild("query", 2 << 20);
  options.threads = std::make_shared<ThreadPool>(2);
  options.spill_directory = dir.path();
  auto context = std::make_shared<TaskContext>(std::move(options));
  std::vector<sql::SortKey> sort_keys = {{Col(2, DataType::Utf8()), true, false}};
  std::vector<sql::ExprPtr> group_by = {Col(1, DataType::Int32()), Col(2, DataType::Utf8()),
                                        Col(0, DataType::Int64())};
  ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(Scan(table, 2), group_by, Aggregates(),
                                                         AggregateMode::kSingle));
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(agg, sort_keys));
  ASSERT_OK_AND_ASSIGN(auto merge, SortPreservingMergeExec::Make(sort, sort_keys));
  std::atomic<bool> done{false};
  Status status;
  std::thread runner([&] {
    auto result = CollectAll(merge, context);
    status = result.status();
    done = true;
  });
  // Cancel once the query spills: merging the spilled runs, sorting and merging the groups are
  // still ahead, far more work than the cancellation takes to land, so it must end Cancelled.
  auto spills = [&] {
    return context->metrics().Sum(agg.get()).spill_count +
           context->metrics().Sum(sort.get()).spill_count;
  };
  const bool spilling = WaitFor([&] { return done || spills() > 0; }, "the query to spill");
  const int64_t rows_read = context->metrics().Sum(agg->children()[0].get()).output_rows;
  const auto start = std::chrono::steady_clock::now();
  context->Cancel();
  const bool stopped = WaitFor([&] { return done.load(); }, "the cancelled query to stop");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  runner.join();
  ASSERT_TRUE(spilling);
  ASSERT_TRUE(stopped);
  EXPECT_LT(seconds, 1.0);
  EXPECT_EQ(status.code(), StatusCode::kCancelled)
      << status.ToString() << " (cancelled after reading " << rows_read << " of 200000 rows)";
  EXPECT_EQ(status.sqlstate(), "57014");
  EXPECT_EQ(process->bytes_used(), 0);
  EXPECT_EQ(dir.Entries(), 0);
}

// (id int64, k int32[] of few distinct values with NULL elements, r struct(a int32, b utf8) with
// NULL fields and NULL records, p utf8[] payload): nested keys and payload through every spilling
// operator.
std::shared_ptr<io::MemoryTable> NestedTable(int rows, int per_batch) {
  const DataType list = DataType::List(DataType::Int32());
  const DataType record = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  const DataType texts = DataType::List(DataType::Utf8());
  std::vector<Field> fields = {{"id", DataType::Int64()}, {"k", list}, {"r", record}, {"p", texts}};
  std::vector<RecordBatchPtr> batches;
  for (int start = 0; start < rows; start += per_batch) {
    const int n = std::min(per_batch, rows - start);
    columnar::Int64Builder ids(DataType::Int64(), DefaultMemoryPool());
    columnar::ListBuilder k(list, DefaultMemoryPool());
    columnar::StructBuilder r(record, DefaultMemoryPool());
    columnar::ListBuilder p(texts, DefaultMemoryPool());
    auto* k_items = static_cast<columnar::Int32Builder*>(k.value_builder());
    auto* r_a = static_cast<columnar::Int32Builder*>(r.field_builder(0));
    auto* r_b = static_cast<columnar::BinaryBuilder*>(r.field_builder(1));
    auto* p_items = static_cast<columnar::BinaryBuilder*>(p.value_builder());
    for (int i = start; i < start + n; ++i) {
      EXPECT_TRUE(ids.Append(i).ok());
      const int key = (i * 7919) % 3000;
      EXPECT_TRUE(k.Append().ok());
      EXPECT_TRUE(k_items->Append(key / 3).ok());
      EXPECT_TRUE((key % 3 == 0 ? k_items->AppendNull() : k_items->Append(key % 3)).ok());
      if (key % 5 == 0) {
        EXPECT_TRUE(k_items->Append(key).ok());
      }
      if (i % 97 == 0) {
        EXPECT_TRUE(r.AppendNull().ok());
      } else {
        EXPECT_TRUE(r.Append().ok());
        EXPECT_TRUE((i % 11 == 0 ? r_a->AppendNull() : r_a->Append(i % 40)).ok());
        EXPECT_TRUE(r_b->Append(fmt::format("b{}", i % 9)).ok());
      }
      EXPECT_TRUE(p.Append().ok());
      for (int j = 0; j < i % 4; ++j) {
        EXPECT_TRUE(p_items->Append(fmt::format("payload-{}-{}", i, j)).ok());
      }
    }
    std::vector<columnar::ArrayPtr> columns = {*ids.Finish(), *k.Finish(), *r.Finish(),
                                               *p.Finish()};
    batches.push_back(columnar::RecordBatch::Make(std::make_shared<const columnar::Schema>(fields),
                                                  n, std::move(columns)));
  }
  return MakeTable(fields, std::move(batches));
}

TEST(NestedSpillTest, SortAggregateAndJoinOnNestedKeysSpillAsTheyRunInMemory) {
  auto table = NestedTable(30000, 1000);
  const DataType list = DataType::List(DataType::Int32());
  const DataType record = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  auto run_both = [&](const ExecPlanPtr& plan, const ExecutionPlan* measured, int64_t limit,
                      bool ordered) {
    SpillDir dir;
    RunResult expected = RunPlan(plan, MakeLimitedContext(0, dir.path()), measured);
    EXPECT_EQ(expected.totals.spill_count, 0);
    RunResult spilled = RunPlan(plan, MakeLimitedContext(limit, dir.path()), measured);
    EXPECT_GT(spilled.totals.spill_count, 0);
    EXPECT_FALSE(expected.rows.empty());
    if (ordered)
      EXPECT_EQ(spilled.rows, expected.rows);
    else
      EXPECT_EQ(Sorted(spilled.rows), Sorted(expected.rows));
    EXPECT_EQ(spilled.pool_after, 0);
    EXPECT_EQ(dir.Entries(), 0);
    return expected.rows;
  };
  {
    SCOPED_TRACE("sort by record DESC, list, id");
    std::vector<sql::SortKey> keys = {{Col(2, record), false, true},
                                      {Col(1, list), true, false},
                                      {Col(0, DataType::Int64()), true, false}};
    ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make(Scan(table, 2), keys));
    ASSERT_OK_AND_ASSIGN(auto merge, SortPreservingMergeExec::Make(sort, keys));
    Strings rows = run_both(merge, sort.get(), 2 << 20, true);
    ASSERT_EQ(rows.size(), 30000u);
    // DESC NULLS FIRST: the 310 NULL records (every 97th id) come first.
    EXPECT_NE(rows[309].find("|NULL|"), std::string::npos) << rows[309];
    EXPECT_EQ(rows[310].find("|NULL|"), std::string::npos) << rows[310];
  }
  {
    SCOPED_TRACE("group by list, record");
    std::vector<sql::ExprPtr> group_by = {Col(1, list), Col(2, record)};
    ASSERT_OK_AND_ASSIGN(auto agg, HashAggregateExec::Make(Scan(table, 2), group_by,
                                                           {Agg("count", {}, DataType::Int64())},
                                                           AggregateMode::kSingle));
    Strings rows = run_both(agg, agg.get(), 256 << 10, false);
    EXPECT_GT(rows.size(), 3000u);
  }
  {
    SCOPED_TRACE("partitioned inner join on the list");
    std::vector<sql::ExprPtr> keys = {Col(1, list)};
    ASSERT_OK_AND_ASSIGN(auto left,
                         RepartitionExec::Make(Scan(table, 2), Partitioning::Hash(keys, 2)));
    ASSERT_OK_AND_ASSIGN(auto right,
                         RepartitionExec::Make(Scan(table, 2), Partitioning::Hash(keys, 2)));
    ASSERT_OK_AND_ASSIGN(auto join,
                         HashJoinExec::Make(left, right, keys, keys, sql::JoinType::kInner, nullptr,
                                            HashJoinExec::Mode::kPartitioned));
    Strings rows = run_both(join, join.get(), 4 << 20, false);
    EXPECT_EQ(rows.size(), 300000u);  // 3,000 keys of 10 rows each: 100 pairs a key
  }
}

}  // namespace
}  // namespace shoal::exec

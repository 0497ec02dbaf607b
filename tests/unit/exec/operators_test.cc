#include <algorithm>
#include <chrono>
#include <map>
#include <string_view>

#include <gtest/gtest.h>

#include "shoal/common/thread_start.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/operators/filter_exec.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/projection_exec.h"
#include "shoal/exec/operators/repartition_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/operators/union_exec.h"
#include "shoal/exec/operators/values_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/support/wait.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using shoal::testing::HoldsFor;
using shoal::testing::ProcessThreadCount;
using shoal::testing::WaitFor;

std::vector<Field> Fields() {
  return {{"id", DataType::Int64()}, {"name", DataType::Utf8()}, {"v", DataType::Decimal(10, 2)}};
}

// A table of `n` rows (id, name, v) split into batches of `per_batch` rows.
std::shared_ptr<io::MemoryTable> NumberedTable(int n, int per_batch) {
  std::vector<TextRow> rows;
  for (int i = 0; i < n; ++i) {
    rows.push_back({std::to_string(i), i % 7 == 0 ? "NULL" : "n" + std::to_string(i % 5),
                    std::to_string(i) + ".25"});
  }
  return MakeTable(Fields(), rows, per_batch);
}

Result<std::vector<RecordBatchPtr>> RunPlan(const ExecPlanPtr& plan, int64_t batch_size = 8192) {
  return CollectAll(plan, MakeContext(batch_size));
}

class BatchSizeTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(BatchSizeTest, ScanFilterProject) {
  auto table = NumberedTable(50, 7);
  auto scan = Scan(table, 3);
  auto id = Col(0, DataType::Int64());
  auto pred = Call("and",
                   {Call(">=", {id, Lit(Scalar::Int64(10))}, DataType::Boolean()),
                    Call("is_not_null", {Col(1, DataType::Utf8())}, DataType::Boolean())},
                   DataType::Boolean());
  ASSERT_OK_AND_ASSIGN(auto filter, FilterExec::Make(scan, pred));
  ASSERT_OK_AND_ASSIGN(
      auto project, ProjectionExec::Make(filter,
                                         {Call("*", {id, Lit(Scalar::Int64(2))}, DataType::Int64()),
                                          Col(1, DataType::Utf8())},
                                         {"twice", "name"}));
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(project, GetParam()));
  Strings expected;
  for (int i = 10; i < 50; ++i) {
    if (i % 7 != 0)
      expected.push_back(std::to_string(2 * i) + "|n" + std::to_string(i % 5));
  }
  EXPECT_EQ(Rows(batches), expected);  // partitions are contiguous groups: table order holds
  for (const auto& b : batches) {
    EXPECT_LE(b->num_rows(), std::max<int64_t>(GetParam(), 7));
    EXPECT_GT(b->num_rows(), 0);
    EXPECT_EQ(b->schema()->field(0).name, "twice");
  }
}

TEST_P(BatchSizeTest, LimitWithOffset) {
  auto table = NumberedTable(30, 4);
  auto scan = Scan(table, 1, {0});
  ASSERT_OK_AND_ASSIGN(auto limit, LimitExec::Make(scan, 5, 3));
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(limit, GetParam()));
  EXPECT_EQ(Rows(batches), (Strings{"5", "6", "7"}));
}

TEST_P(BatchSizeTest, RepartitionHashPreservesEveryRowOnce) {
  auto table = NumberedTable(200, 9);
  auto scan = Scan(table, 3);
  ASSERT_OK_AND_ASSIGN(
      auto repart, RepartitionExec::Make(scan, Partitioning::Hash({Col(1, DataType::Utf8())}, 4)));
  auto context = MakeContext(GetParam());
  Strings all;
  std::map<std::string, int> partition_of_name;
  for (int p = 0; p < 4; ++p) {
    // Partitions are pulled one after another: producers must not deadlock on unread outputs.
    ASSERT_OK_AND_ASSIGN(StreamPtr stream, repart->Execute(p, context));
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, stream->Next());
      if (!b)
        break;
      for (const std::string& row : Rows({b})) {
        all.push_back(row);
        std::string name = row.substr(row.find('|') + 1);
        name = name.substr(0, name.find('|'));
        auto [it, inserted] = partition_of_name.emplace(name, p);
        EXPECT_EQ(it->second, p) << "key " << name << " in two partitions";
      }
    }
  }
  ASSERT_OK_AND_ASSIGN(auto direct, RunPlan(scan));
  EXPECT_EQ(Sorted(all), Sorted(Rows(direct)));
  EXPECT_EQ(all.size(), 200u);
  EXPECT_GT(partition_of_name.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, BatchSizeTest, ::testing::Values(1, 2, 8192));

TEST(OperatorsTest, RoundRobinAndCoalesce) {
  auto table = NumberedTable(100, 3);
  auto scan = Scan(table, 4);
  ASSERT_OK_AND_ASSIGN(auto rr, RepartitionExec::Make(scan, Partitioning::RoundRobin(3)));
  EXPECT_EQ(rr->num_partitions(), 3);
  auto merged = CoalescePartitionsExec::Make(rr);
  EXPECT_EQ(merged->num_partitions(), 1);
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(merged));
  ASSERT_OK_AND_ASSIGN(auto direct, RunPlan(scan));
  EXPECT_EQ(Sorted(Rows(batches)), Sorted(Rows(direct)));
  EXPECT_EQ(Rows(batches).size(), 100u);
}

TEST(OperatorsTest, ValuesAndUnion) {
  auto schema = std::make_shared<const columnar::Schema>(
      std::vector<Field>{{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  ASSERT_OK_AND_ASSIGN(
      auto values,
      ValuesExec::FromRows(
          schema, {{Lit(Scalar::Int32(1)), Lit(Scalar::Utf8("x"))},
                   {Call("+", {Lit(Scalar::Int32(1)), Lit(Scalar::Int32(1))}, DataType::Int32()),
                    Lit(Scalar(DataType::Utf8()))}}));
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(values));
  EXPECT_EQ(Rows(batches), (Strings{"1|x", "2|NULL"}));
  ASSERT_OK_AND_ASSIGN(auto both, UnionExec::Make({values, values}));
  EXPECT_EQ(both->num_partitions(), 2);
  ASSERT_OK_AND_ASSIGN(auto unioned, RunPlan(both));
  EXPECT_EQ(Rows(unioned), (Strings{"1|x", "2|NULL", "1|x", "2|NULL"}));
  auto other =
      std::make_shared<const columnar::Schema>(std::vector<Field>{{"a", DataType::Int64()}});
  ASSERT_OK_AND_ASSIGN(auto bad, ValuesExec::Make(other, {}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, UnionExec::Make({values, bad}));
}

TEST(OperatorsTest, MemoryTableAppendChecksTypes) {
  auto table = NumberedTable(3, 3);
  EXPECT_OK(table->Append({MakeBatch(Fields(), {{"7", "z", "1.00"}})}));
  EXPECT_EQ(table->num_rows(), 4);
  EXPECT_STATUS_CODE(StatusCode::kTypeError,
                     table->Append({MakeBatch({{"id", DataType::Int32()}}, {{"1"}})}));
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(Scan(table, 2, {1, 0})));
  EXPECT_EQ(Rows(batches), (Strings{"NULL|0", "n1|1", "n2|2", "z|7"}));
}

TEST(OperatorsTest, ErrorsPropagate) {
  auto table = NumberedTable(20, 5);
  auto scan = Scan(table, 2);
  auto div =
      Call("/",
           {Lit(Scalar::Int64(1)),
            Call("-", {Col(0, DataType::Int64()), Lit(Scalar::Int64(13))}, DataType::Int64())},
           DataType::Int64());
  ASSERT_OK_AND_ASSIGN(auto project, ProjectionExec::Make(scan, {div}, {"d"}));
  auto result = RunPlan(CoalescePartitionsExec::Make(project));
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, result);
  EXPECT_EQ(result.status().message(), "division by zero");
}

TEST(OperatorsTest, CancellationStopsStreams) {
  auto table = NumberedTable(100, 2);
  auto scan = Scan(table, 4);
  ASSERT_OK_AND_ASSIGN(auto rr, RepartitionExec::Make(scan, Partitioning::RoundRobin(2)));
  auto merged = CoalescePartitionsExec::Make(rr);
  auto context = MakeContext(2);
  ASSERT_OK_AND_ASSIGN(StreamPtr stream, merged->Execute(0, context));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stream->Next());
  ASSERT_NE(first, nullptr);
  context->Cancel();
  auto next = stream->Next();
  EXPECT_STATUS_CODE(StatusCode::kCancelled, next);
  // After an error the stream stays ended.
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr after, stream->Next());
  EXPECT_EQ(after, nullptr);
}

// A repartition's producers block once a channel holds its few batches, unless a consumer is
// waiting on an empty channel: outputs that are opened but not read yet (the probe side of a
// partitioned join while its build side runs) must not make the producers buffer their whole
// input. Every row here hashes to one channel.
TEST(OperatorsTest, RepartitionBuffersStayBoundedWhileNobodyReads) {
  auto table = NumberedTable(400, 4);
  auto scan = Scan(table, 1);
  ASSERT_OK_AND_ASSIGN(auto repart,
                       RepartitionExec::Make(scan, Partitioning::Hash({Lit(Scalar::Int64(7))}, 2)));
  auto context = MakeContext(4);
  ASSERT_OK_AND_ASSIGN(StreamPtr first, repart->Execute(0, context));
  ASSERT_OK_AND_ASSIGN(StreamPtr second, repart->Execute(1, context));
  auto produced = [&] { return context->metrics().Sum(scan.get()).output_rows; };
  // Nothing reads. The producer fills the channel every row goes to (kCapacity = 4 batches of 4
  // rows), reads one batch more and blocks. Seeing it get that far makes the check below
  // meaningful (a producer not scheduled yet would pass it vacuously)...
  ASSERT_TRUE(WaitFor([&] { return produced() >= 16; }, "the producer to fill the channel"));
  // ...and a producer that did not block would run on through all 400 rows meanwhile.
  EXPECT_TRUE(HoldsFor([&] { return produced() < 100; }, "the producer holding fewer than 100 rows",
                       std::chrono::milliseconds(300)))
      << "the producer buffered " << produced() << " of 400 rows";
  // Both outputs still give every row exactly once.
  int64_t rows = 0;
  for (StreamPtr* s : {&first, &second}) {
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, (*s)->Next());
      if (!batch)
        break;
      rows += batch->num_rows();
    }
  }
  EXPECT_EQ(rows, 400);
}

TEST(OperatorsTest, MemoryReturnsToZeroAfterStreamsAreDestroyed) {
  auto query_pool = MemoryPool::MakeRoot("test query");
  {
    auto table = NumberedTable(300, 10);
    auto scan = Scan(table, 3);
    auto pred =
        Call("<", {Col(0, DataType::Int64()), Lit(Scalar::Int64(250))}, DataType::Boolean());
    ASSERT_OK_AND_ASSIGN(auto filter, FilterExec::Make(scan, pred));
    ASSERT_OK_AND_ASSIGN(
        auto repart,
        RepartitionExec::Make(filter, Partitioning::Hash({Col(0, DataType::Int64())}, 2)));
    auto merged = CoalescePartitionsExec::Make(repart);
    auto context = MakeContext(16, 2, query_pool);
    ASSERT_OK_AND_ASSIGN(StreamPtr stream, merged->Execute(0, context));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
    ASSERT_NE(batch, nullptr);
    EXPECT_GT(query_pool->bytes_used(), 0);
    batch.reset();
    stream.reset();  // early destruction: producers stop, buffers are freed
    EXPECT_EQ(query_pool->bytes_used(), 0);
    EXPECT_GT(query_pool->peak_bytes(), 0);
  }
  EXPECT_EQ(query_pool->bytes_used(), 0);
}

// ---- the OS refusing a thread ------------------------------------------------------------------
// A loaded machine at its process limit refuses threads (EAGAIN). A query must then fail with a
// status naming what could not start, and the threads it did start must be stopped and joined:
// no crash (an exception past a joinable std::thread is std::terminate), no hang, no thread left.
// ScopedThreadStartFailure stands in for the OS, since RLIMIT_NPROC does not bind root.

void ExpectCannotStart(const Status& status, std::string_view what) {
  EXPECT_EQ(status.code(), StatusCode::kOutOfMemory) << status.ToString();
  EXPECT_NE(status.message().find(fmt::format("cannot start a thread for {}: ", what)),
            std::string::npos)
      << status.ToString();
}

TEST(OperatorsTest, CoalesceFailsCleanlyWhenTheOSRefusesAThread) {
  auto merged = CoalescePartitionsExec::Make(Scan(NumberedTable(100, 2), 4));
  auto context = MakeContext();
  const int threads_before = ProcessThreadCount();
  {
    shoal::testing::ScopedThreadStartFailure refuse(2);  // the third producer
    auto result = CollectAll(merged, context);
    ASSERT_FALSE(result.ok());
    ExpectCannotStart(result.status(), "a CoalescePartitions producer (partition 2 of 4)");
    EXPECT_EQ(refuse.failures(), 1);
  }
  EXPECT_TRUE(WaitFor([&] { return ProcessThreadCount() == threads_before; },
                      "the two producers started to be joined"));
  ASSERT_OK_AND_ASSIGN(auto batches, RunPlan(merged));
  EXPECT_EQ(Rows(batches).size(), 100u);
}

TEST(OperatorsTest, RepartitionFailsEveryOutputWhenTheOSRefusesAThread) {
  ASSERT_OK_AND_ASSIGN(auto repart, RepartitionExec::Make(Scan(NumberedTable(100, 2), 3),
                                                          Partitioning::RoundRobin(2)));
  auto context = MakeContext();
  const int threads_before = ProcessThreadCount();
  {
    shoal::testing::ScopedThreadStartFailure refuse(1);  // the second producer
    auto first = repart->Execute(0, context);
    ASSERT_FALSE(first.ok());
    ExpectCannotStart(first.status(), "a Repartition producer (partition 1 of 3)");
    // The other output reads the same error rather than waiting for producers that never ran.
    ASSERT_OK_AND_ASSIGN(StreamPtr second, repart->Execute(1, context));
    auto next = second->Next();
    ASSERT_FALSE(next.ok());
    ExpectCannotStart(next.status(), "a Repartition producer (partition 1 of 3)");
    EXPECT_EQ(refuse.failures(), 1);
  }
  EXPECT_TRUE(WaitFor([&] { return ProcessThreadCount() == threads_before; },
                      "the producer started to be joined"));
}

TEST(OperatorsTest, CollectAllFailsOnAPoolShortOfThreads) {
  std::shared_ptr<TaskContext> context;
  {
    shoal::testing::ScopedThreadStartFailure refuse(1);
    context = MakeContext(8192, 2);
  }
  EXPECT_EQ(context->thread_pool().num_threads(), 1);
  auto result = CollectAll(Scan(NumberedTable(10, 5), 2), context);
  ASSERT_FALSE(result.ok());
  ExpectCannotStart(result.status(), "a pool of 2 threads (1 started)");
}

// id > 29 over 40 rows in 2 partitions, run to the end: the plan and the context it ran in.
struct FilteredRun {
  ExecPlanPtr filter;
  std::shared_ptr<TaskContext> context;
};

Result<FilteredRun> RunFilterOver40Rows() {
  auto pred = Call(">", {Col(0, DataType::Int64()), Lit(Scalar::Int64(29))}, DataType::Boolean());
  SHOAL_ASSIGN_OR_RETURN(auto filter, FilterExec::Make(Scan(NumberedTable(40, 10), 2), pred));
  FilteredRun run{filter, MakeContext()};
  SHOAL_RETURN_IF_ERROR(CollectAll(run.filter, run.context).status());
  return run;
}

TEST(OperatorsTest, ExplainAnalyzeShowsMetrics) {
  ASSERT_OK_AND_ASSIGN(FilteredRun run, RunFilterOver40Rows());
  const ExecPlanPtr& filter = run.filter;
  const auto& context = run.context;
  std::string text = FormatExecutionPlan(*filter, false, context.get());
  EXPECT_NE(text.find("Filter: (#0 > 29) (rows=10,"), std::string::npos) << text;
  EXPECT_NE(text.find("  TableScan: t (memory), units=4, columns=[id, name, v] (rows=40,"),
            std::string::npos)
      << text;
  EXPECT_EQ(Partitioning::Hash({Col(2, DataType::Int32())}, 8).ToString(), "Hash([#2], 8)");
}

// The hook the distributed layer uses to show its remote tasks: collectors run once, before
// printing; notes print under their node (verbose-only ones with VERBOSE); "<name>_nanos" extras
// print as durations.
TEST(OperatorsTest, ExplainAnalyzeRunsCollectorsAndPrintsNotes) {
  ASSERT_OK_AND_ASSIGN(FilteredRun run, RunFilterOver40Rows());
  const ExecPlanPtr& filter = run.filter;
  const auto& context = run.context;
  int runs = 0;
  const ExecutionPlan* scan_node = filter->children()[0].get();
  context->metrics().AddCollector([&] {
    ++runs;
    OperatorMetrics* remote = context->metrics().For(scan_node, 1000);
    remote->output_rows += 5;
    remote->AddExtra("network_wait_nanos", 2500000);
    context->metrics().AddNote(scan_node, "stage 1: 1 task", false);
    context->metrics().AddNote(scan_node, "task 0 on w1", true);
  });
  std::string text = FormatExecutionPlan(*filter, false, context.get());
  EXPECT_EQ(runs, 1);
  EXPECT_NE(text.find("(rows=45,"), std::string::npos) << text;
  EXPECT_NE(text.find(", network_wait=2.5ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("Filter: (#0 > 29) (rows=10,"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    * stage 1: 1 task\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("task 0 on w1"), std::string::npos) << text;
  text = FormatExecutionPlan(*filter, true, context.get());
  EXPECT_EQ(runs, 1) << "a collector runs once";
  EXPECT_NE(text.find("    * task 0 on w1\n"), std::string::npos) << text;
  // Plain EXPLAIN prints neither metrics nor notes.
  text = FormatExecutionPlan(*filter, false);
  EXPECT_EQ(text.find("* stage"), std::string::npos) << text;
}

}  // namespace
}  // namespace shoal::exec

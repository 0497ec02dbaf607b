// Task metrics and distributed EXPLAIN ANALYZE, over the in-process transport and over gRPC on
// loopback: remote operators show the rows they really produced (summed per stage, per task with
// VERBOSE, with the worker of each task), every task's metrics arrive also when a LIMIT stopped
// the consumer early, and the network counters of both ends of an exchange agree.
#include "shoal/distributed/coordinator/task_metrics.h"

#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "shoal/columnar/scalar.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/transport/grpc_worker_channel.h"
#include "shoal/distributed/transport/grpc_worker_server.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/operators/limit_exec.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/memory_table.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

std::vector<std::string> PlanLines(const engine::QueryResult& result) {
  std::vector<std::string> lines;
  for (const auto& batch : result.batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r)
      lines.push_back(columnar::Scalar::FromArray(*batch->column(0), r).ToString());
  }
  return lines;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines)
    text += line + "\n";
  return text;
}

// The value of "key=N" in a line, or -1.
int64_t Metric(const std::string& line, const std::string& key) {
  std::smatch m;
  if (std::regex_search(line, m, std::regex("[(, ]" + key + "=([0-9]+)")))
    return std::stoll(m[1].str());
  return -1;
}

// Index of the only line containing `needle`.
size_t OnlyLine(const std::vector<std::string>& lines, const std::string& needle) {
  size_t found = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(needle) != std::string::npos) {
      EXPECT_EQ(found, lines.size()) << "several lines with " << needle << "\n" << Joined(lines);
      found = i;
    }
  }
  EXPECT_LT(found, lines.size()) << "no line with " << needle << "\n" << Joined(lines);
  return found;
}

// The line ending the node that starts at line `i` (VERBOSE scans list their units on lines of
// their own; the metrics and the notes follow the last).
size_t EndOfNode(const std::vector<std::string>& lines, size_t i) {
  while (i + 1 < lines.size() && lines[i].find("(rows=") == std::string::npos)
    ++i;
  return i;
}

// The note lines ("* ...") printed under the node starting at line `i`, without the marker.
std::vector<std::string> NotesUnder(const std::vector<std::string>& lines, size_t i) {
  std::vector<std::string> notes;
  for (size_t j = EndOfNode(lines, i) + 1; j < lines.size(); ++j) {
    const size_t start = lines[j].find_first_not_of(' ');
    if (start == std::string::npos || lines[j].compare(start, 2, "* ") != 0)
      break;
    notes.push_back(lines[j].substr(start + 2));
  }
  return notes;
}

int64_t CountRows(engine::QueryRunner& runner, const std::string& table) {
  auto result = runner.RunOne("SELECT count(*) FROM " + table);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok())
    return -1;
  return std::stoll(columnar::Scalar::FromArray(*result->batches[0]->column(0), 0).ToString());
}

// The per-task notes under the lineitem scan: one per task, naming a worker, rows summing to the
// table's rows.
void ExpectPerTaskScanRows(const std::vector<std::string>& lines, int tasks, int64_t total,
                           const std::string& worker_prefix) {
  const size_t scan = OnlyLine(lines, "TableScan: lineitem");
  ASSERT_LT(scan, lines.size());
  std::vector<std::string> notes = NotesUnder(lines, scan);
  ASSERT_EQ(notes.size(), static_cast<size_t>(tasks)) << Joined(lines);
  int64_t sum = 0;
  for (int t = 0; t < tasks; ++t) {
    const std::string& note = notes[static_cast<size_t>(t)];
    EXPECT_NE(note.find(" task " + std::to_string(t) + " on " + worker_prefix), std::string::npos)
        << note;
    const int64_t rows = Metric(note, "rows");
    EXPECT_GT(rows, 0) << note;
    sum += rows;
  }
  EXPECT_EQ(sum, total) << Joined(lines);
}

// A stage plan of two operators: a limit over a scan of a 3-row memory table.
exec::ExecPlanPtr SmallStagePlan() {
  std::vector<columnar::Field> fields = {{"id", columnar::DataType::Int64()}};
  auto batch = shoal::testing::MakeBatch(fields, {{"1"}, {"2"}, {"3"}});
  auto schema = std::make_shared<const columnar::Schema>(fields);
  auto table = io::MemoryTable::Make(schema, {batch});
  EXPECT_TRUE(table.ok());
  io::ScanRequest request;
  request.projection = {0};
  auto scan = exec::TableScanExec::Make(*table, "t", request, 1);
  EXPECT_TRUE(scan.ok());
  auto limit = exec::LimitExec::Make(*scan, 0, 2, false);
  EXPECT_TRUE(limit.ok());
  return *limit;
}

OperatorTaskMetrics Op(std::string name, int64_t rows) {
  OperatorTaskMetrics m;
  m.name = std::move(name);
  m.output_rows = rows;
  m.output_batches = 1;
  m.compute_nanos = 1000;
  m.extra["spill_read_bytes"] = rows;
  return m;
}

TEST(FoldStageMetricsTest, SumsTasksAndRefusesEntriesOfAnotherShape) {
  exec::ExecPlanPtr plan = SmallStagePlan();
  std::vector<const exec::ExecutionPlan*> nodes = TaskPlanOperators(*plan);
  ASSERT_EQ(nodes.size(), 2u);
  const std::string limit_name(nodes[0]->name());
  TaskMetrics good;
  good.output_rows = 2;
  good.operators = {Op(limit_name, 2), Op("TableScan", 3)};
  TaskMetrics leaf_swapped = good;  // another scan kind in the leaf: still folded
  leaf_swapped.operators[1].name = "WorkUnitFeedScan";
  TaskMetrics wrong = good;  // not the plan shown: not folded, and said so
  wrong.operators[0].name = "Sort";
  std::vector<TaskReport> tasks = {{0, "w1", good},
                                   {1, "w2", leaf_swapped},
                                   {2, "w3", wrong},
                                   {3, "w4", Status::Unavailable("worker w4 is gone")}};
  exec::MetricsRegistry registry;
  exec::ExecPlanPtr exchange = SmallStagePlan();  // stands for the exchange: only a key
  FoldStageMetrics(StageDisplay{7, plan, exchange.get()}, tasks, &registry);
  EXPECT_EQ(registry.Sum(nodes[0]).output_rows, 4);
  EXPECT_EQ(registry.Sum(nodes[1]).output_rows, 6);
  EXPECT_EQ(registry.Sum(nodes[1]).extra["spill_read_bytes"], 6);
  std::vector<std::string> notes = registry.Notes(exchange.get(), false);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("stage 7: 4 tasks: #0 on w1 (rows=2), #1 on w2 (rows=2)"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("#2 on w3 (rows=2, operator metrics not shown: operator 0 is Sort"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("#3 on w4 (no metrics: worker w4 is gone)"), std::string::npos)
      << notes[0];
  EXPECT_EQ(registry.Notes(nodes[1], false).size(), 0u);
  EXPECT_EQ(registry.Notes(nodes[1], true).size(), 2u);
}

TEST(FoldStageMetricsTest, TaskMetricsRoundTripThroughTheProto) {
  TaskMetrics m;
  m.output_rows = 5;
  m.output_batches = 2;
  m.elapsed_ns = 77;
  m.worker = "127.0.0.1:1";
  m.bytes_sent = 1234;
  m.messages_sent = 3;
  m.operators = {Op("Filter", 5), Op("TableScan", 9)};
  m.operators[1].peak_memory_bytes = 4096;
  m.operators[1].spilled_bytes = 10;
  m.operators[1].spill_count = 1;
  m.operators[1].partitions = 2;
  m.heads = {Op("Repartition", 5)};
  proto::TaskMetricsProto encoded;
  EncodeTaskMetrics(m, &encoded);
  proto::TaskMetricsProto reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(encoded.SerializeAsString()));
  TaskMetrics back = DecodeTaskMetrics(reparsed);
  EXPECT_EQ(back.output_rows, 5);
  EXPECT_EQ(back.output_batches, 2);
  EXPECT_EQ(back.elapsed_ns, 77);
  EXPECT_EQ(back.worker, "127.0.0.1:1");
  EXPECT_EQ(back.bytes_sent, 1234);
  EXPECT_EQ(back.messages_sent, 3);
  ASSERT_EQ(back.operators.size(), 2u);
  EXPECT_EQ(back.operators[1].name, "TableScan");
  EXPECT_EQ(back.operators[1].output_rows, 9);
  EXPECT_EQ(back.operators[1].peak_memory_bytes, 4096);
  EXPECT_EQ(back.operators[1].spilled_bytes, 10);
  EXPECT_EQ(back.operators[1].spill_count, 1);
  EXPECT_EQ(back.operators[1].partitions, 2);
  EXPECT_EQ(back.operators[1].extra, m.operators[1].extra);
  ASSERT_EQ(back.heads.size(), 1u);
  EXPECT_EQ(back.heads[0].name, "Repartition");
}

class InProcessMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    total_ = CountRows(runner_, "lineitem");
    ASSERT_OK_AND_ASSIGN(
        cluster_,
        distributed_testing::MakeInProcessCluster(
            {"w1", "w2", "w3"}, distributed_testing::TestWorker(runner_.session().catalog())));
    ASSERT_OK(distributed_testing::InstallCoordinator(
                  runner_, distributed_testing::CoordinatorFor({"w1", "w2", "w3"}, cluster_))
                  .status());
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  int TasksHeld() const { return distributed_testing::TasksHeld(*cluster_); }

  engine::QueryRunner runner_;
  std::shared_ptr<InProcessCluster> cluster_;
  int64_t total_ = 0;
};

TEST_F(InProcessMetricsTest, RemoteScanShowsTheTableRowsAndTheStageTasks) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       runner_.RunOne("EXPLAIN ANALYZE SELECT sum(l_quantity) FROM lineitem"));
  const std::vector<std::string> lines = PlanLines(result);
  const std::string text = Joined(lines);
  const size_t scan = OnlyLine(lines, "TableScan: lineitem");
  ASSERT_LT(scan, lines.size());
  EXPECT_EQ(Metric(lines[EndOfNode(lines, scan)], "rows"), total_) << text;
  // The exchange names the stage, its tasks and their workers; per-task lines need VERBOSE.
  const size_t exchange = OnlyLine(lines, "NetworkCoalesce");
  ASSERT_LT(exchange, lines.size());
  const std::vector<std::string> notes = NotesUnder(lines, exchange);
  ASSERT_EQ(notes.size(), 1u) << text;
  EXPECT_NE(notes[0].find("3 tasks: #0 on w"), std::string::npos) << text;
  EXPECT_NE(notes[0].find("#2 on w"), std::string::npos) << text;
  EXPECT_EQ(notes[0].find("no metrics"), std::string::npos) << text;
  EXPECT_TRUE(NotesUnder(lines, scan).empty()) << text;
  EXPECT_GE(Metric(lines[exchange], "rows"), 3) << text;  // a partial sum per producer partition
  EXPECT_NE(lines[exchange].find("network_wait="), std::string::npos) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(InProcessMetricsTest, VerboseShowsEveryTaskWithItsWorker) {
  ASSERT_OK_AND_ASSIGN(auto result, runner_.RunOne("EXPLAIN ANALYZE VERBOSE SELECT "
                                                   "sum(l_quantity) FROM lineitem"));
  const std::vector<std::string> lines = PlanLines(result);
  ExpectPerTaskScanRows(lines, 3, total_, "w");
  const size_t exchange = OnlyLine(lines, "NetworkCoalesce");
  ASSERT_LT(exchange, lines.size());
  // The stage line and one line per task with what it served.
  EXPECT_EQ(NotesUnder(lines, exchange).size(), 4u) << Joined(lines);
}

TEST_F(InProcessMetricsTest, MetricsOfEveryTaskArriveAfterALimit) {
  ASSERT_OK_AND_ASSIGN(auto result, runner_.RunOne("EXPLAIN ANALYZE VERBOSE SELECT l_orderkey "
                                                   "FROM lineitem LIMIT 1"));
  const std::vector<std::string> lines = PlanLines(result);
  const std::string text = Joined(lines);
  EXPECT_NE(text.find("Rows: 1\n"), std::string::npos) << text;
  const size_t scan = OnlyLine(lines, "TableScan: lineitem");
  ASSERT_LT(scan, lines.size());
  EXPECT_GT(Metric(lines[EndOfNode(lines, scan)], "rows"), 0) << text;
  const size_t exchange = OnlyLine(lines, "NetworkCoalesce");
  ASSERT_LT(exchange, lines.size());
  const std::vector<std::string> notes = NotesUnder(lines, exchange);
  int served = 0;
  for (const auto& note : notes) {
    if (note.find("served rows=") != std::string::npos)
      ++served;
    EXPECT_EQ(note.find("no metrics"), std::string::npos) << text;
  }
  EXPECT_EQ(served, 3) << text;
  // Every task reported its operators: one line per task under the scan.
  EXPECT_EQ(NotesUnder(lines, scan).size(), 3u) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(InProcessMetricsTest, PlainQueriesAndPlainExplainAreUnchanged) {
  ASSERT_OK_AND_ASSIGN(auto plain, runner_.RunOne("SELECT count(*) FROM lineitem"));
  EXPECT_EQ(plain.num_rows(), 1);
  ASSERT_OK_AND_ASSIGN(auto explain, runner_.RunOne("EXPLAIN SELECT count(*) FROM lineitem"));
  const std::string text = Joined(PlanLines(explain));
  EXPECT_EQ(text.find("rows="), std::string::npos) << text;
  EXPECT_EQ(text.find("* stage"), std::string::npos) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

class GrpcMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(distributed_testing::LoadTpch(runner_, 2));
    total_ = CountRows(runner_, "lineitem");
    ASSERT_OK(workers_.Start(2, distributed_testing::TestWorker(runner_.session().catalog())));
    ASSERT_OK(
        distributed_testing::InstallCoordinator(
            runner_, distributed_testing::CoordinatorFor(workers_.addresses, workers_.channels))
            .status());
    ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = '64kB'").status());
  }

  int TasksHeld() const { return workers_.TasksHeld(); }

  engine::QueryRunner runner_;
  distributed_testing::GrpcTestCluster workers_;
  int64_t total_ = 0;
};

TEST_F(GrpcMetricsTest, MetricsSurviveTheWireAndBothEndsOfAnExchangeAgree) {
  ASSERT_OK_AND_ASSIGN(auto result, runner_.RunOne("EXPLAIN ANALYZE VERBOSE SELECT "
                                                   "sum(l_quantity) FROM lineitem"));
  const std::vector<std::string> lines = PlanLines(result);
  const std::string text = Joined(lines);
  const size_t scan = OnlyLine(lines, "TableScan: lineitem");
  ASSERT_LT(scan, lines.size());
  EXPECT_EQ(Metric(lines[EndOfNode(lines, scan)], "rows"), total_) << text;
  ExpectPerTaskScanRows(lines, 2, total_, "127.0.0.1:");
  const size_t exchange = OnlyLine(lines, "NetworkCoalesce");
  ASSERT_LT(exchange, lines.size());
  const std::string& line = lines[exchange];
  EXPECT_GT(Metric(line, "received_bytes"), 0) << text;
  EXPECT_EQ(Metric(line, "received_bytes"), Metric(line, "sent_bytes")) << text;
  EXPECT_GT(Metric(line, "received_messages"), 0) << text;
  EXPECT_EQ(Metric(line, "received_messages"), Metric(line, "sent_messages")) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(GrpcMetricsTest, MetricsOfEveryTaskArriveAfterALimit) {
  ASSERT_OK_AND_ASSIGN(auto result, runner_.RunOne("EXPLAIN ANALYZE VERBOSE SELECT l_orderkey "
                                                   "FROM lineitem LIMIT 1"));
  const std::vector<std::string> lines = PlanLines(result);
  const std::string text = Joined(lines);
  const size_t scan = OnlyLine(lines, "TableScan: lineitem");
  ASSERT_LT(scan, lines.size());
  EXPECT_GT(Metric(lines[EndOfNode(lines, scan)], "rows"), 0) << text;
  EXPECT_EQ(NotesUnder(lines, scan).size(), 2u) << text;
  EXPECT_EQ(text.find("no metrics"), std::string::npos) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

TEST_F(GrpcMetricsTest, EveryStageOfTpchQ3ShowsRowsAndNetworkBytes) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       runner_.RunOne("EXPLAIN ANALYZE " + distributed_testing::TpchQuery(3)));
  const std::vector<std::string> lines = PlanLines(result);
  const std::string text = Joined(lines);
  int scans = 0;
  int exchanges = 0;
  for (const auto& line : lines) {
    if (line.find("TableScan: ") != std::string::npos) {
      ++scans;
      EXPECT_GT(Metric(line, "rows"), 0) << line;
    }
    if (line.find("Network") != std::string::npos && line.find("stage=") != std::string::npos) {
      ++exchanges;
      // A consumer may stop before reading everything a producer sent, never the reverse.
      EXPECT_GT(Metric(line, "received_bytes"), 0) << line;
      EXPECT_LE(Metric(line, "received_bytes"), Metric(line, "sent_bytes")) << line;
    }
  }
  EXPECT_EQ(scans, 3) << text;
  EXPECT_GE(exchanges, 3) << text;
  EXPECT_EQ(text.find("no metrics"), std::string::npos) << text;
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
  EXPECT_EQ(TasksHeld(), 0);
}

}  // namespace
}  // namespace shoal::distributed

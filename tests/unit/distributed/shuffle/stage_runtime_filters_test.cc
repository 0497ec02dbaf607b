// Runtime join filters across the stage files of a materialized shuffle
// (shuffle/stage_runtime_filters.h): the planner routes a filter from the stage feeding a join's
// build side to the stage of its probe scan (cutting a filtered dimension into a stage of its own
// when it has to), the source stage's tasks form partial filters, the driver merges them into
// the probe stage's envelopes; the answers never change, and the probe stages write fewer rows.
#include "shoal/distributed/shuffle/stage_runtime_filters.h"

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/distributed/shuffle/shuffle_driver.h"
#include "shoal/distributed/transport/worker_messages.h"
#include "shoal/engine/execution_modes.h"
#include "shoal/exec/join/runtime_filter.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed::shuffle {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;

// TPC-H Q17's shape: the filtered part table builds the join whose probe side is an aggregate of
// lineitem below a shuffle.
constexpr const char* kSmallQuantity = R"(
    SELECT sum(l_extendedprice) / 7.0 AS avg_yearly
    FROM lineitem, part
    WHERE p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container = 'MED BOX'
      AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey))";

// Both sides shuffled (a partitioned join): the filter of the orders that pass comes from the
// orders stage's output, for the lineitem stage.
constexpr const char* kPartitioned = R"(
    SELECT count(*) AS n, sum(l_quantity) AS q FROM lineitem JOIN orders ON l_orderkey = o_orderkey
    WHERE o_orderdate < DATE '1992-04-01')";

class StageRuntimeFiltersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal-stage-filters-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    for (auto* runner : {&single_, &shuffled_})
      ASSERT_OK(distributed_testing::LoadTpch(*runner, 2));
    ShuffleDriverOptions options;
    options.tpch_scale = "0.01";
    options.executable = SHOAL_BINARY;
    ASSERT_OK(engine::UseShuffleDriver(shuffled_, std::move(options)));
    ASSERT_OK(shuffled_.RunOne("SET shuffle_dir = '" + dir_.string() + "'").status());
  }

  void TearDown() override { fs::remove_all(dir_); }

  // The MaterializedShuffle line of EXPLAIN (ANALYZE) `sql`.
  std::string ShuffleLine(const std::string& explain) {
    auto result = shuffled_.RunOne(explain);
    EXPECT_OK(result.status());
    if (!result.ok())
      return {};
    for (const std::string& line : distributed_testing::SortedRows(*result))
      if (line.find("MaterializedShuffle") != std::string::npos)
        return line;
    return {};
  }

  // The rows every task of the query wrote (EXPLAIN ANALYZE's task_rows).
  int64_t TaskRows(const std::string& sql) {
    const std::string line = ShuffleLine("EXPLAIN ANALYZE " + sql);
    std::smatch m;
    if (!std::regex_search(line, m, std::regex("task_rows=([0-9]+)"))) {
      ADD_FAILURE() << "no task_rows in: " << line;
      return -1;
    }
    return std::stoll(m[1]);
  }

  void ExpectSingleNodeAnswer(const std::string& sql) {
    ASSERT_OK_AND_ASSIGN(auto expected, single_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, shuffled_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected))
        << sql;
  }

  fs::path dir_;
  engine::QueryRunner single_;
  engine::QueryRunner shuffled_;
};

TEST_F(StageRuntimeFiltersTest, AFilteredDimensionBecomesAStageWhoseFilterCutsTheProbeStage) {
  const std::string plan = ShuffleLine(std::string("EXPLAIN ") + kSmallQuantity);
  EXPECT_NE(plan.find("runtime_filters=[rf"), std::string::npos) << plan;
  ExpectSingleNodeAnswer(kSmallQuantity);
  const int64_t with_filters = TaskRows(kSmallQuantity);
  ASSERT_OK(shuffled_.RunOne("SET runtime_filters = off").status());
  const int64_t without = TaskRows(kSmallQuantity);
  ExpectSingleNodeAnswer(kSmallQuantity);
  // Without the filter the aggregate's stage writes a group per part key (2,000 at SF 0.01);
  // with it, only the keys of the parts that pass (a handful).
  EXPECT_GT(without, 1000);
  EXPECT_LT(with_filters * 10, without) << "with " << with_filters << ", without " << without;
}

TEST_F(StageRuntimeFiltersTest, APartitionedJoinsFilterComesFromItsBuildStage) {
  // A partitioned join: both sides shuffled by the key.
  ASSERT_OK(shuffled_.RunOne("SET join_collect_build_rows = 0").status());
  ASSERT_OK(single_.RunOne("SET join_collect_build_rows = 0").status());
  const std::string plan = ShuffleLine(std::string("EXPLAIN ") + kPartitioned);
  EXPECT_NE(plan.find("runtime_filters=[rf"), std::string::npos) << plan;
  ExpectSingleNodeAnswer(kPartitioned);
  const int64_t with_filters = TaskRows(kPartitioned);
  ASSERT_OK(shuffled_.RunOne("SET runtime_filters = off").status());
  const int64_t without = TaskRows(kPartitioned);
  // lineitem's 60k rows cross the shuffle without the filter; with it, those of the orders of
  // one month in seven years.
  EXPECT_GT(without, 60000);
  EXPECT_LT(with_filters * 5, without) << "with " << with_filters << ", without " << without;
}

TEST_F(StageRuntimeFiltersTest, OuterAndAntiJoinsGetNoFilterAndKeepTheirAnswers) {
  ASSERT_OK(shuffled_.RunOne("SET join_collect_build_rows = 0").status());
  ASSERT_OK(single_.RunOne("SET join_collect_build_rows = 0").status());
  // The probe side of a LEFT join is preserved, an anti join outputs the unmatched probe rows,
  // NOT IN is NULL-aware: a filter on either would change the answer.
  for (const char* sql : {
           "SELECT count(*), count(o_orderkey) FROM lineitem LEFT JOIN orders "
           "ON l_orderkey = o_orderkey AND o_orderdate < DATE '1992-04-01'",
           "SELECT count(*) FROM lineitem WHERE NOT EXISTS (SELECT 1 FROM orders WHERE "
           "o_orderkey = l_orderkey AND o_orderdate < DATE '1992-04-01')",
           "SELECT count(*) FROM lineitem WHERE l_orderkey NOT IN (SELECT o_orderkey FROM orders "
           "WHERE o_orderdate < DATE '1992-04-01')",
       }) {
    const std::string plan = ShuffleLine(std::string("EXPLAIN ") + sql);
    EXPECT_EQ(plan.find("runtime_filters=[rf"), std::string::npos) << sql << "\n" << plan;
    ExpectSingleNodeAnswer(sql);
  }
}

TEST_F(StageRuntimeFiltersTest, TpchQueriesGiveTheSingleNodeAnswer) {
  for (int q : {2, 8, 17, 18, 20})
    ExpectSingleNodeAnswer(distributed_testing::TpchQuery(q));
}

proto::ShuffleTaskEnvelopeProto Exporting(int id, int column) {
  proto::ShuffleTaskEnvelopeProto envelope;
  auto* e = envelope.add_export_runtime_filters();
  e->set_id(id);
  e->set_column(column);
  return envelope;
}

// A task's partial filter, serialised as it leaves the task.
std::string Formed(StageOutputFilters* filters) {
  auto formed = filters->Finish();
  EXPECT_OK(formed.status());
  return formed.ok() ? formed->SerializeAsString() : std::string();
}

TEST(StageFilterMergerTest, TheTasksPartialFiltersMergeIntoOneThatPassesEveryKey) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}, {"v", DataType::Utf8()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  StageOutputFilters task0(Exporting(7, 0), schema, DefaultMemoryPool());
  StageOutputFilters task1(Exporting(7, 0), schema, DefaultMemoryPool());
  ASSERT_OK(task0.Add(*testing::MakeBatch(fields, {{"10", "a"}, {"NULL", "b"}, {"30", "c"}})));
  ASSERT_OK(task1.Add(*testing::MakeBatch(fields, {{"1000000", "d"}})));
  StageFilterMerger merger({{7, 3, 0, {2}}}, {{3, 2}, {2, 1}});
  EXPECT_EQ(merger.ExportsOf(3).size(), 1U);
  EXPECT_TRUE(merger.ExportsOf(2).empty());
  merger.AddTask(3, 0, Formed(&task0));
  merger.AddTask(3, 1, Formed(&task1));
  std::vector<proto::RuntimeFilterProto> filters = merger.FiltersFor(2);
  ASSERT_EQ(filters.size(), 1U);
  EXPECT_TRUE(merger.FiltersFor(3).empty());
  ASSERT_OK_AND_ASSIGN(auto filter, DecodeRuntimeFilter(filters[0], DefaultMemoryPool()));
  std::vector<uint64_t> hashes;
  std::vector<int32_t> rows;
  ASSERT_OK(filter->Select(
      testing::MakeArray(DataType::Int64(), {"10", "20", "30", "NULL", "1000000", "999999"}),
      &hashes, &rows));
  // Every key of either task passes (no false negative); NULL never does.
  EXPECT_NE(std::find(rows.begin(), rows.end(), 0), rows.end());
  EXPECT_NE(std::find(rows.begin(), rows.end(), 2), rows.end());
  EXPECT_NE(std::find(rows.begin(), rows.end(), 4), rows.end());
  EXPECT_EQ(std::find(rows.begin(), rows.end(), 3), rows.end());
}

TEST(StageFilterMergerTest, AFilterAnyTaskDidNotFormIsLeftOut) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  StageOutputFilters task0(Exporting(1, 0), schema, DefaultMemoryPool());
  ASSERT_OK(task0.Add(*testing::MakeBatch(fields, {{"5"}})));
  StageFilterMerger merger({{1, 3, 0, {2}}}, {{3, 2}, {2, 1}});
  merger.AddTask(3, 0, Formed(&task0));
  merger.AddTask(3, 1, std::nullopt);  // its filters were lost
  EXPECT_TRUE(merger.FiltersFor(2).empty());
  ASSERT_EQ(merger.Notes().size(), 1U);
  EXPECT_NE(merger.Notes()[0].find("left out"), std::string::npos) << merger.Notes()[0];
}

TEST(StageFilterMergerTest, ATaskWithoutRowsContributesAnEmptyFilter) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  StageOutputFilters empty(Exporting(1, 0), schema, DefaultMemoryPool());
  StageOutputFilters task1(Exporting(1, 0), schema, DefaultMemoryPool());
  ASSERT_OK(task1.Add(*testing::MakeBatch(fields, {{"5"}})));
  StageFilterMerger merger({{1, 3, 0, {2}}}, {{3, 2}, {2, 1}});
  merger.AddTask(3, 0, Formed(&empty));
  merger.AddTask(3, 1, Formed(&task1));
  ASSERT_EQ(merger.FiltersFor(2).size(), 1U);
}

TEST(StageFilterMergerTest, AnEnvelopeCarriesFiltersUpToItsByteBudget) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  // Two filters of about 1 KiB each (exact sets of 64 spread keys) for stage 2, 1.5 KiB allowed.
  std::vector<testing::TextRow> rows;
  for (int i = 0; i < 64; ++i)
    rows.push_back({std::to_string(int64_t{1} << 40 | (int64_t{i} * 1000003))});
  proto::ShuffleTaskEnvelopeProto envelope = Exporting(1, 0);
  *envelope.add_export_runtime_filters() = envelope.export_runtime_filters(0);
  envelope.mutable_export_runtime_filters(1)->set_id(2);
  StageOutputFilters task(envelope, schema, DefaultMemoryPool());
  ASSERT_OK(task.Add(*testing::MakeBatch(fields, rows)));
  const std::string formed = Formed(&task);
  StageFilterMerger merger({{1, 3, 0, {2}}, {2, 3, 0, {2}}}, {{3, 1}, {2, 1}}, 1536);
  merger.AddTask(3, 0, formed);
  std::vector<proto::RuntimeFilterProto> filters = merger.FiltersFor(2);
  ASSERT_EQ(filters.size(), 1U);
  EXPECT_EQ(filters[0].id(), 1);
  ASSERT_EQ(merger.Notes().size(), 3U);  // two merged, one left out
  EXPECT_NE(merger.Notes()[2].find("rf2: left out of stage 2's envelopes"), std::string::npos)
      << merger.Notes()[2];
  // Unbounded, both travel.
  StageFilterMerger roomy({{1, 3, 0, {2}}, {2, 3, 0, {2}}}, {{3, 1}, {2, 1}});
  roomy.AddTask(3, 0, formed);
  EXPECT_EQ(roomy.FiltersFor(2).size(), 2U);
}

TEST(StageOutputFiltersTest, AColumnWithTooManyValuesFormsNoFilter) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  StageOutputFilters filters(Exporting(1, 0), schema, DefaultMemoryPool());
  ASSERT_OK_AND_ASSIGN(auto big, columnar::Scalar::Int64(3).MakeArray(kMaxStageFilterKeys / 2 + 1,
                                                                      DefaultMemoryPool()));
  auto batch = columnar::RecordBatch::Make(schema, big->length(), {big});
  ASSERT_OK(filters.Add(*batch));
  ASSERT_OK(filters.Add(*batch));
  ASSERT_OK_AND_ASSIGN(proto::ShuffleTaskFiltersProto formed, filters.Finish());
  EXPECT_EQ(formed.filters_size(), 0);
}

TEST(StageOutputFiltersTest, AnExportOfAColumnTheOutputLacksFormsNothing) {
  const std::vector<Field> fields = {{"k", DataType::Int64()}};
  auto schema = testing::MakeBatch(fields, {})->schema();
  StageOutputFilters filters(Exporting(1, 5), schema, DefaultMemoryPool());
  ASSERT_OK(filters.Add(*testing::MakeBatch(fields, {{"5"}})));
  ASSERT_OK_AND_ASSIGN(proto::ShuffleTaskFiltersProto formed, filters.Finish());
  EXPECT_EQ(formed.filters_size(), 0);
}

}  // namespace
}  // namespace shoal::distributed::shuffle

// Table codecs: Parquet and Arrow external tables survive encode → decode and read the same rows on
// a "worker" (a second codec registry) that opens only the files its scan units name; row-group
// pruning done on the coordinator still shows in the worker's metrics; a worker lacking a codec,
// missing or changed files, and in-memory tables the worker lacks or holds differently are clear
// errors; and a distributed query over Parquet files through in-process workers gives the local
// answers.
#include "shoal/distributed/codec/table_codec.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/distributed/codec/file_table_codec.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/distributed/transport/in_process_channel.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/tpch_tables.h"
#include "shoal/io/arrow_table.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet_directory_storage.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/batch_builder.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed {
namespace {

class TableCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal_table_codec_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "pq");
    std::filesystem::create_directories(dir_ / "ar");
    ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
    ASSERT_OK(engine::RegisterTpchTables(scale, runner_.session().catalog().get()));
    // Two files of several row groups each; file a holds the low order keys, file b the rest.
    for (const char* ext : {"parquet", "arrow"}) {
      const std::string sub = std::string(ext) == "parquet" ? "pq" : "ar";
      const std::string options = std::string(ext) == "parquet" ? " (ROW_GROUP_SIZE 4000)" : "";
      ASSERT_OK(runner_
                    .RunOne("COPY (SELECT * FROM lineitem WHERE l_orderkey <= 20000) TO '" +
                            Path(sub + "/a." + ext) + "'" + options)
                    .status());
      ASSERT_OK(runner_
                    .RunOne("COPY (SELECT * FROM lineitem WHERE l_orderkey > 20000) TO '" +
                            Path(sub + "/b." + ext) + "'" + options)
                    .status());
    }
    ASSERT_OK(
        runner_.RunOne("CREATE EXTERNAL TABLE lp STORED AS PARQUET LOCATION '" + Path("pq") + "'")
            .status());
    ASSERT_OK(
        runner_.RunOne("CREATE EXTERNAL TABLE la STORED AS ARROW LOCATION '" + Path("ar") + "'")
            .status());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  io::TableProviderPtr Table(const std::string& name) {
    auto entry = runner_.session().catalog()->LookupTable(sql::kDefaultSchema, name);
    EXPECT_OK(entry.status());
    return entry.ok() ? entry->provider : nullptr;
  }

  // Every row of `units` read through `table`, one line per row; the metrics reported go to
  // `metrics` when given.
  static std::string Read(const io::TableProvider& table, const std::vector<io::ScanUnit>& units,
                          const io::ScanRequest& request,
                          std::map<std::string, int64_t>* metrics = nullptr) {
    std::string out;
    io::ScanContext context;
    if (metrics != nullptr)
      context.add_metric = [metrics](const std::string& name, int64_t v) { (*metrics)[name] += v; };
    for (const auto& unit : units) {
      auto reader = table.OpenUnit(unit, request, context);
      EXPECT_OK(reader.status());
      if (!reader.ok())
        return out;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch.status());
        if (!batch.ok() || *batch == nullptr)
          break;
        for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
          for (int c = 0; c < (*batch)->num_columns(); ++c)
            out += (c ? "|" : "") + columnar::FormatValue(*(*batch)->column(c), r);
          out += "\n";
        }
      }
    }
    return out;
  }

  std::filesystem::path dir_;
  engine::QueryRunner runner_;
};

io::ScanRequest OrderKeyAndQuantity() {
  io::ScanRequest request;
  request.projection = {0, 4};  // l_orderkey, l_quantity
  request.batch_size = 1000;
  return request;
}

TEST_F(TableCodecTest, ParquetRoundTripReadsTheSameRowsAndOnlyTheNamedFiles) {
  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  auto worker = TableCodecRegistry::Builtin(nullptr);
  io::TableProviderPtr table = Table("lp");
  ASSERT_NE(table, nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* codec, coordinator->ForTable(*table, "lp"));
  EXPECT_EQ(codec->id(), "shoal.parquet/1");
  ASSERT_OK_AND_ASSIGN(std::string payload, codec->Encode(*table, "lp"));
  const auto* worker_codec = dynamic_cast<const FileTableCodec*>(worker->Find("shoal.parquet/1"));
  ASSERT_NE(worker_codec, nullptr);
  ASSERT_OK_AND_ASSIGN(io::TableProviderPtr decoded, worker_codec->Decode(payload, "lp"));
  EXPECT_EQ(decoded->kind(), "parquet");
  EXPECT_EQ(decoded->schema()->ToString(), table->schema()->ToString());
  for (int i = 0; i < table->schema()->num_fields(); ++i)
    EXPECT_EQ(decoded->schema()->field(i).nullable, table->schema()->field(i).nullable);
  EXPECT_EQ(worker_codec->files_opened(), 0);  // nothing read before a unit needs it
  // A decoded table travels on unchanged (a task handing its plan on).
  ASSERT_OK_AND_ASSIGN(const TableCodec* onward, worker->ForTable(*decoded, "lp"));
  EXPECT_EQ(onward->id(), "shoal.parquet/1");
  ASSERT_OK_AND_ASSIGN(std::string onward_payload, onward->Encode(*decoded, "lp"));
  EXPECT_EQ(onward_payload, payload);

  // Pruned on the coordinator: only row groups of file a can hold l_orderkey <= 5000.
  io::ScanRequest request = OrderKeyAndQuantity();
  const columnar::DataType key_type = table->schema()->field(0).type;
  request.predicates.push_back(
      {0,
       io::PredicateOp::kLe,
       {key_type == columnar::DataType::Int32() ? columnar::Scalar::Int32(5000)
                                                : columnar::Scalar::Int64(5000)}});
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  std::set<std::string> files;
  for (const auto& u : units) {
    ASSERT_OK_AND_ASSIGN(std::string file, io::parquet::ParquetTable::UnitFile(u));
    files.insert(file);
  }
  EXPECT_EQ(files, std::set<std::string>{Path("pq/a.parquet")});
  std::map<std::string, int64_t> local_metrics;
  std::map<std::string, int64_t> worker_metrics;
  const std::string expected = Read(*table, units, request, &local_metrics);
  EXPECT_NE(expected, "");
  EXPECT_EQ(Read(*decoded, units, request, &worker_metrics), expected);
  EXPECT_EQ(worker_metrics, local_metrics);
  EXPECT_GT(worker_metrics["row_groups_pruned"], 0);
  EXPECT_GT(worker_metrics["row_groups_total"], worker_metrics["row_groups_pruned"]);
  EXPECT_EQ(worker_codec->files_opened(), 1);

  // A second task's table of the same query reuses the cached footer.
  ASSERT_OK_AND_ASSIGN(io::TableProviderPtr again, worker_codec->Decode(payload, "lp"));
  EXPECT_EQ(Read(*again, units, request), expected);
  EXPECT_EQ(worker_codec->files_opened(), 1);

  // The worker's table can also plan a scan of its own: the same units, every footer read.
  ASSERT_OK_AND_ASSIGN(auto worker_units, decoded->PlanScan(request));
  ASSERT_EQ(worker_units.size(), units.size());
  for (size_t i = 0; i < units.size(); ++i)
    EXPECT_EQ(worker_units[i].payload, units[i].payload);
  EXPECT_EQ(worker_codec->files_opened(), 2);

  // Without predicates, every row of both files.
  io::ScanRequest all = OrderKeyAndQuantity();
  ASSERT_OK_AND_ASSIGN(auto all_units, table->PlanScan(all));
  EXPECT_EQ(Read(*decoded, all_units, all), Read(*table, all_units, all));
}

// A durable table (io/parquet_directory_storage.h) whose first file predates ADD COLUMN: the
// worker reads that file's missing column as the value the manifest gives, and the coordinator's
// pruning by that value holds on the worker.
TEST_F(TableCodecTest, ParquetFilesLackingAddedColumnsReadTheirValueOnTheWorker) {
  const std::vector<columnar::Field> two = {{"a", columnar::DataType::Int32(), true},
                                            {"b", columnar::DataType::Utf8(), true}};
  ASSERT_OK_AND_ASSIGN(auto storage,
                       io::ParquetDirectoryStorage::Create(
                           Path("durable"), std::make_shared<const columnar::Schema>(two)));
  ASSERT_OK(storage->Append({testing::MakeBatch(two, {{"1", "x"}, {"2", "y"}})}));
  ASSERT_OK(storage->AddColumn({"c", columnar::DataType::Int64(), true}, columnar::Scalar::Int64(7),
                               "7"));
  std::vector<columnar::Field> three = two;
  three.emplace_back("c", columnar::DataType::Int64(), true);
  ASSERT_OK(storage->Append({testing::MakeBatch(three, {{"3", "z", "30"}})}));
  io::TableProviderPtr table = storage->Snapshot();

  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  auto worker = TableCodecRegistry::Builtin(nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* codec, coordinator->ForTable(*table, "d"));
  ASSERT_OK_AND_ASSIGN(std::string payload, codec->Encode(*table, "d"));
  ASSERT_OK_AND_ASSIGN(io::TableProviderPtr decoded,
                       worker->Find("shoal.parquet/1")->Decode(payload, "d"));
  io::ScanRequest all;
  all.projection = {2, 0};
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(all));
  EXPECT_EQ(Read(*decoded, units, all), "7|1\n7|2\n30|3\n");
  io::ScanRequest sevens = all;
  sevens.predicates.push_back({2, io::PredicateOp::kEq, {columnar::Scalar::Int64(7)}});
  ASSERT_OK_AND_ASSIGN(auto pruned, table->PlanScan(sevens));
  EXPECT_EQ(Read(*decoded, pruned, sevens), "7|1\n7|2\n");  // the second file is ruled out
  ASSERT_OK_AND_ASSIGN(auto worker_units, decoded->PlanScan(sevens));
  ASSERT_EQ(worker_units.size(), pruned.size());
}

TEST_F(TableCodecTest, ArrowRoundTripReadsTheSameRows) {
  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  auto worker = TableCodecRegistry::Builtin(nullptr);
  io::TableProviderPtr table = Table("la");
  ASSERT_NE(table, nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* codec, coordinator->ForTable(*table, "la"));
  EXPECT_EQ(codec->id(), "shoal.arrow/1");
  ASSERT_OK_AND_ASSIGN(std::string payload, codec->Encode(*table, "la"));
  const auto* worker_codec = dynamic_cast<const FileTableCodec*>(worker->Find("shoal.arrow/1"));
  ASSERT_NE(worker_codec, nullptr);
  ASSERT_OK_AND_ASSIGN(io::TableProviderPtr decoded, worker_codec->Decode(payload, "la"));
  EXPECT_EQ(decoded->kind(), "arrow");
  EXPECT_EQ(decoded->schema()->ToString(), table->schema()->ToString());
  io::ScanRequest request = OrderKeyAndQuantity();
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  ASSERT_GE(units.size(), 2u);
  // Only the last unit (file b): the worker opens only that file.
  std::vector<io::ScanUnit> last = {units.back()};
  EXPECT_EQ(Read(*decoded, last, request), Read(*table, last, request));
  EXPECT_EQ(worker_codec->files_opened(), 1);
  EXPECT_EQ(Read(*decoded, units, request), Read(*table, units, request));
  EXPECT_EQ(worker_codec->files_opened(), 2);
}

TEST_F(TableCodecTest, AWorkerLackingACodecRefusesThePlanNamingTheId) {
  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  // Encode the physical plan of a query over the Parquet table through a plan rewriter.
  std::string bytes;
  engine_testing::RewritePlans(
      runner_,
      [&](const exec::ExecPlanPtr& plan,
          const std::shared_ptr<exec::TaskContext>&) -> Result<exec::ExecPlanPtr> {
        SHOAL_ASSIGN_OR_RETURN(bytes, EncodePlan(plan, *coordinator));
        return plan;
      });
  ASSERT_OK(runner_.RunOne("SELECT count(*) FROM lp").status());
  ASSERT_FALSE(bytes.empty());
  auto lacking = std::make_shared<TableCodecRegistry>();
  lacking->Add(std::make_shared<FileTableCodec>(FileTableCodec::Format::kArrow));
  PlanDecodeContext context;
  context.codecs = lacking;
  auto decoded = DecodePlan(bytes, context);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(decoded.status().message().find("shoal.parquet/1"), std::string::npos)
      << decoded.status().ToString();
  // With the codec, the same bytes decode.
  context.codecs = TableCodecRegistry::Builtin(nullptr);
  EXPECT_OK(DecodePlan(bytes, context).status());
}

TEST_F(TableCodecTest, MissingOrChangedFilesAreClearErrorsNamingFileAndTable) {
  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  io::TableProviderPtr table = Table("lp");
  ASSERT_NE(table, nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* codec, coordinator->ForTable(*table, "lp"));
  ASSERT_OK_AND_ASSIGN(std::string payload, codec->Encode(*table, "lp"));
  io::ScanRequest request = OrderKeyAndQuantity();
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  std::vector<io::ScanUnit> first = {units.front()};
  const std::string a = Path("pq/a.parquet");

  // Changed: one byte longer than the coordinator saw.
  std::filesystem::copy_file(a, Path("a.saved"));
  {
    std::ofstream out(a, std::ios::app | std::ios::binary);
    out << 'x';
  }
  {
    auto worker = TableCodecRegistry::Builtin(nullptr);
    ASSERT_OK_AND_ASSIGN(auto decoded, worker->Find("shoal.parquet/1")->Decode(payload, "lp"));
    auto reader = decoded->OpenUnit(first.front(), request, {});
    ASSERT_FALSE(reader.ok());
    EXPECT_EQ(reader.status().code(), StatusCode::kInvalidData);
    EXPECT_NE(reader.status().message().find(a), std::string::npos) << reader.status().ToString();
    EXPECT_NE(reader.status().message().find("lp"), std::string::npos);
  }
  // Missing.
  std::filesystem::remove(a);
  {
    auto worker = TableCodecRegistry::Builtin(nullptr);
    ASSERT_OK_AND_ASSIGN(auto decoded, worker->Find("shoal.parquet/1")->Decode(payload, "lp"));
    auto reader = decoded->OpenUnit(first.front(), request, {});
    ASSERT_FALSE(reader.ok());
    EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
    EXPECT_NE(reader.status().message().find(a), std::string::npos) << reader.status().ToString();
    EXPECT_NE(reader.status().hint().find("shared filesystem"), std::string::npos);
  }
  // Malformed payloads and units naming a file the table does not list.
  {
    auto worker = TableCodecRegistry::Builtin(nullptr);
    EXPECT_FALSE(worker->Find("shoal.parquet/1")->Decode("\xff\xff garbage", "lp").ok());
    std::filesystem::copy_file(Path("a.saved"), a);
    ASSERT_OK_AND_ASSIGN(auto decoded, worker->Find("shoal.parquet/1")->Decode(payload, "lp"));
    io::ScanUnit stranger = first.front();
    stranger.payload = "0 0 0 /nonexistent/elsewhere.parquet";
    auto reader = decoded->OpenUnit(stranger, request, {});
    ASSERT_FALSE(reader.ok());
    EXPECT_NE(reader.status().message().find("not one of its files"), std::string::npos)
        << reader.status().ToString();
  }
}

TEST_F(TableCodecTest, InMemoryTablesResolveByNameAndRefuseWhatTheWorkerLacksOrHoldsDifferently) {
  ASSERT_OK(runner_.RunOne("CREATE TABLE made AS SELECT n_nationkey, n_name FROM nation").status());
  auto coordinator = TableCodecRegistry::Builtin(nullptr);
  io::TableProviderPtr made = Table("made");
  ASSERT_NE(made, nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* codec, coordinator->ForTable(*made, "made"));
  EXPECT_EQ(codec->id(), "shoal.catalog/1");
  ASSERT_OK_AND_ASSIGN(std::string payload, codec->Encode(*made, "made"));

  // A worker with its own TPC-H tables but not the coordinator's CREATE TABLE AS table.
  engine::QueryRunner worker_runner;
  ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
  ASSERT_OK(engine::RegisterTpchTables(scale, worker_runner.session().catalog().get()));
  auto worker = TableCodecRegistry::Builtin(worker_runner.session().catalog());
  auto missing = worker->Find("shoal.catalog/1")->Decode(payload, "made");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("made"), std::string::npos);
  EXPECT_NE(missing.status().hint().find("CREATE TABLE AS"), std::string::npos)
      << missing.status().ToString();

  // Same name and columns, different rows: refused rather than read.
  ASSERT_OK(worker_runner
                .RunOne("CREATE TABLE made AS SELECT n_nationkey, n_name FROM nation "
                        "WHERE n_nationkey < 5")
                .status());
  auto different = worker->Find("shoal.catalog/1")->Decode(payload, "made");
  ASSERT_FALSE(different.ok());
  EXPECT_NE(different.status().message().find("rows"), std::string::npos)
      << different.status().ToString();

  // The TPC-H tables match and resolve to the worker's own.
  io::TableProviderPtr nation = Table("nation");
  ASSERT_OK_AND_ASSIGN(std::string nation_payload, codec->Encode(*nation, "nation"));
  EXPECT_OK(worker->Find("shoal.catalog/1")->Decode(nation_payload, "nation").status());
}

TEST_F(TableCodecTest, DistributedQueriesOverParquetAndArrowFilesMatchLocalAnswers) {
  engine::QueryRunner distributed;
  for (const char* sql : {"CREATE EXTERNAL TABLE lp STORED AS PARQUET LOCATION '{}'",
                          "CREATE EXTERNAL TABLE la STORED AS ARROW LOCATION '{}'"}) {
    const std::string location =
        std::string(sql).find("PARQUET") != std::string::npos ? Path("pq") : Path("ar");
    std::string text = sql;
    text.replace(text.find("{}"), 2, location);
    ASSERT_OK(distributed.RunOne(text).status());
  }
  // No catalog: the workers get the tables from the plan's codecs alone.
  ASSERT_OK_AND_ASSIGN(auto cluster, distributed_testing::MakeInProcessCluster(
                                         {"w1", "w2"}, distributed_testing::TestWorker(nullptr)));
  ASSERT_OK(distributed_testing::InstallCoordinator(
                distributed, distributed_testing::CoordinatorFor({"w1", "w2"}, cluster))
                .status());
  ASSERT_OK(distributed.RunOne("SET dist_bytes_per_task = '64kB'").status());
  for (const char* sql :
       {"SELECT l_returnflag, count(*), sum(l_quantity) FROM lp GROUP BY l_returnflag",
        "SELECT count(*), sum(l_extendedprice) FROM lp WHERE l_orderkey BETWEEN 100 AND 9000",
        "SELECT l_linestatus, count(*), min(l_shipdate) FROM la GROUP BY l_linestatus"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, runner_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, distributed.RunOne(sql));
    EXPECT_FALSE(expected.batches.empty());
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  // The plan really ran on the workers.
  ASSERT_OK_AND_ASSIGN(auto explain,
                       distributed.RunOne("EXPLAIN SELECT l_returnflag, count(*) FROM lp "
                                          "GROUP BY l_returnflag"));
  const std::string text = distributed_testing::SortedText(explain);
  EXPECT_NE(text.find("Network"), std::string::npos) << text;
}

}  // namespace
}  // namespace shoal::distributed

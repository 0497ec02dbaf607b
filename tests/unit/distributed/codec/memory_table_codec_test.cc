// The memory table codec ("shoal.memory/1"): an in-memory table survives encode → decode with its
// batches in order, so the coordinator's scan units read the same rows on a worker; which tables
// travel is bounded per query by dist_memory_table_max_bytes (the built-in registry ships none, so
// larger tables fall back to "shoal.catalog/1"); malformed payloads are InvalidData; and queries
// over CREATE TABLE / INSERT / CREATE TABLE AS tables run on workers that hold no tables at all,
// while a table above the bound is a NotFound whose hint names the setting.
#include "shoal/distributed/codec/memory_table_codec.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/scalar.h"
#include "shoal/distributed/codec/plan_codec.h"
#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/engine/query_runner.h"
#include "shoal/io/memory_table.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

class MemoryTableCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(runner_
                  .RunOne("CREATE TABLE t (k int, s text, d decimal(6,2), day date, f double "
                          "precision)")
                  .status());
    // Three INSERTs: three batches, three scan units.
    ASSERT_OK(runner_
                  .RunOne("INSERT INTO t VALUES (1, 'one', 1.50, '2024-01-02', 0.5), "
                          "(2, NULL, NULL, NULL, NULL)")
                  .status());
    ASSERT_OK(runner_.RunOne("INSERT INTO t VALUES (3, '', -3.25, '1999-12-31', -1e300)").status());
    ASSERT_OK(runner_.RunOne("INSERT INTO t VALUES (4, 'four', 4.00, '2000-02-29', 4)").status());
  }

  std::shared_ptr<const io::MemoryTable> Table(const std::string& name) {
    auto entry = runner_.session().catalog()->LookupTable(std::string(sql::kDefaultSchema), name);
    if (!entry.ok())
      return nullptr;
    return std::dynamic_pointer_cast<const io::MemoryTable>(entry->provider);
  }

  // The rows `units` give, as text, one line per row.
  static std::vector<std::string> Read(const io::TableProvider& table,
                                       const std::vector<io::ScanUnit>& units,
                                       const io::ScanRequest& request) {
    std::vector<std::string> rows;
    for (const auto& unit : units) {
      auto reader = table.OpenUnit(unit, request, {});
      EXPECT_OK(reader.status());
      if (!reader.ok())
        return rows;
      for (;;) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch.status());
        if (!batch.ok() || *batch == nullptr)
          break;
        for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
          std::string line;
          for (int c = 0; c < (*batch)->num_columns(); ++c)
            line += columnar::Scalar::FromArray(*(*batch)->column(c), r).ToString() + "|";
          rows.push_back(std::move(line));
        }
      }
    }
    return rows;
  }

  static io::ScanRequest AllColumns() {
    io::ScanRequest request;
    request.projection = {0, 1, 2, 3, 4};
    return request;
  }

  // A registry whose memory codec ships tables up to `max_bytes`.
  static TableCodecRegistryPtr Bounded(int64_t max_bytes) {
    Settings settings;
    EXPECT_OK(settings.Set(MemoryTableCodec::kMaxBytesSetting, std::to_string(max_bytes)));
    return MemoryTableCodec::ForQuery(TableCodecRegistry::Builtin(nullptr), settings);
  }

  engine::QueryRunner runner_;
};

TEST_F(MemoryTableCodecTest, RoundTripKeepsTheBatchesSoUnitsReadTheSameRows) {
  auto table = Table("t");
  ASSERT_NE(table, nullptr);
  MemoryTableCodec codec(MemoryTableCodec::kDefaultMaxBytes);
  ASSERT_TRUE(codec.CanEncode(*table));
  ASSERT_OK_AND_ASSIGN(std::string payload, codec.Encode(*table, "t"));
  ASSERT_OK_AND_ASSIGN(io::TableProviderPtr decoded, codec.Decode(payload, "t"));
  EXPECT_EQ(decoded->kind(), "memory");
  EXPECT_EQ(decoded->schema()->ToString(), table->schema()->ToString());
  EXPECT_EQ(decoded->statistics().num_rows, 4);

  io::ScanRequest request = AllColumns();
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  ASSERT_EQ(units.size(), 3u);
  // Each unit alone (a task's share), the coordinator's units opened on the decoded table.
  for (const auto& unit : units) {
    SCOPED_TRACE(unit.description);
    EXPECT_EQ(Read(*decoded, {unit}, request), Read(*table, {unit}, request));
  }
  const std::vector<std::string> all = Read(*decoded, units, request);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1], "2|NULL|NULL|NULL|NULL|");
  EXPECT_EQ(all, Read(*table, units, request));
}

TEST_F(MemoryTableCodecTest, TheBoundDecidesWhichTablesTravel) {
  auto table = Table("t");
  ASSERT_NE(table, nullptr);
  const int64_t bytes = table->statistics().total_bytes;
  ASSERT_GT(bytes, 0);

  // The built-in registry decodes "shoal.memory/1" but ships nothing: the catalog codec encodes.
  auto builtin = TableCodecRegistry::Builtin(nullptr);
  ASSERT_NE(builtin->Find(MemoryTableCodec::kId), nullptr);
  ASSERT_OK_AND_ASSIGN(const TableCodec* chosen, builtin->ForTable(*table, "t"));
  EXPECT_EQ(chosen->id(), "shoal.catalog/1");

  auto exactly = Bounded(bytes);  // codecs live as long as their registry
  ASSERT_OK_AND_ASSIGN(chosen, exactly->ForTable(*table, "t"));
  EXPECT_EQ(chosen->id(), MemoryTableCodec::kId);
  auto smaller = Bounded(bytes - 1);
  ASSERT_OK_AND_ASSIGN(chosen, smaller->ForTable(*table, "t"));
  EXPECT_EQ(chosen->id(), "shoal.catalog/1");

  // The session's default bound ships it; a registry without the codec, or with the bound
  // already, is returned as it is.
  Settings defaults;
  auto by_default = MemoryTableCodec::ForQuery(builtin, defaults);
  ASSERT_OK_AND_ASSIGN(chosen, by_default->ForTable(*table, "t"));
  EXPECT_EQ(chosen->id(), MemoryTableCodec::kId);
  EXPECT_EQ(MemoryTableCodec::ForQuery(by_default, defaults), by_default);
  auto without = std::make_shared<TableCodecRegistry>();
  EXPECT_EQ(MemoryTableCodec::ForQuery(without, defaults), without);
  // The other codecs keep their order (the first that accepts a table encodes it).
  EXPECT_EQ(by_default->ids(), builtin->ids());
  ASSERT_EQ(by_default->codecs().size(), builtin->codecs().size());
  for (size_t i = 0; i < builtin->codecs().size(); ++i)
    EXPECT_EQ(by_default->codecs()[i]->id(), builtin->codecs()[i]->id());

  // Encoding a table larger than the codec's bound is refused, naming the setting.
  auto refused = MemoryTableCodec(1).Encode(*table, "t");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(MemoryTableCodec::kMaxBytesSetting), std::string::npos)
      << refused.status().ToString();
}

TEST_F(MemoryTableCodecTest, MalformedPayloadsAreInvalidData) {
  MemoryTableCodec codec(MemoryTableCodec::kDefaultMaxBytes);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, codec.Decode("\xff\xff garbage", "t"));

  auto table = Table("t");
  ASSERT_NE(table, nullptr);
  ASSERT_OK_AND_ASSIGN(std::string payload, codec.Encode(*table, "t"));
  proto::ValuesProto m;
  ASSERT_TRUE(m.ParseFromString(payload));

  // Batches that do not read.
  proto::ValuesProto cut = m;
  cut.set_ipc_stream(m.ipc_stream().substr(0, m.ipc_stream().size() / 2));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, codec.Decode(cut.SerializeAsString(), "t"));

  // A schema that does not match the batches: the batches of another table.
  ASSERT_OK(runner_.RunOne("CREATE TABLE other AS SELECT s, k FROM t").status());
  ASSERT_OK_AND_ASSIGN(std::string other_payload, codec.Encode(*Table("other"), "other"));
  proto::ValuesProto other;
  ASSERT_TRUE(other.ParseFromString(other_payload));
  proto::ValuesProto mixed = m;
  mixed.set_ipc_stream(other.ipc_stream());
  auto decoded = codec.Decode(mixed.SerializeAsString(), "t");
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, decoded);

  // Truncations and byte flips: a table or an error, never a crash.
  for (size_t cut_at = 0; cut_at < payload.size(); cut_at += 11)
    (void)codec.Decode(payload.substr(0, cut_at), "t");
  for (size_t i = 0; i < payload.size(); i += 5) {
    std::string flipped = payload;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    (void)codec.Decode(flipped, "t");
  }
}

TEST_F(MemoryTableCodecTest, SessionTablesRunOnWorkersThatHoldNoTables) {
  ASSERT_OK(
      runner_.RunOne("CREATE TABLE made AS SELECT k * 10 AS k10, s FROM t WHERE k > 1").status());
  engine::QueryRunner local;
  // The same statements locally, for the expected answers.
  for (const char* sql :
       {"CREATE TABLE t (k int, s text, d decimal(6,2), day date, f double precision)",
        "INSERT INTO t VALUES (1, 'one', 1.50, '2024-01-02', 0.5), (2, NULL, NULL, NULL, NULL)",
        "INSERT INTO t VALUES (3, '', -3.25, '1999-12-31', -1e300)",
        "INSERT INTO t VALUES (4, 'four', 4.00, '2000-02-29', 4)",
        "CREATE TABLE made AS SELECT k * 10 AS k10, s FROM t WHERE k > 1"})
    ASSERT_OK(local.RunOne(sql).status());

  // Workers with an empty catalog: the tables can only come inside the plans.
  ASSERT_OK_AND_ASSIGN(
      auto cluster,
      distributed_testing::MakeInProcessCluster(
          {"w1", "w2", "w3"}, distributed_testing::TestWorker(std::make_shared<sql::Catalog>())));
  ASSERT_OK(distributed_testing::InstallCoordinator(
                runner_, distributed_testing::CoordinatorFor({"w1", "w2", "w3"}, cluster))
                .status());
  ASSERT_OK(runner_.RunOne("SET dist_bytes_per_task = 1").status());
  ASSERT_OK(runner_.RunOne("SET threads = 4").status());
  const std::string join =
      "SELECT t.k, t.s, made.k10, sum(t.d) FROM t JOIN made ON t.s = made.s GROUP BY 1, 2, 3";
  for (const std::string& sql : {std::string("SELECT s, count(*), sum(d), min(day), max(f) FROM t "
                                             "GROUP BY s"),
                                 join}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, local.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, runner_.RunOne(sql));
    EXPECT_FALSE(expected.batches.empty());
    EXPECT_EQ(distributed_testing::SortedRows(actual), distributed_testing::SortedRows(expected));
  }
  // It ran as stages on the workers.
  ASSERT_OK_AND_ASSIGN(auto explain, runner_.RunOne("EXPLAIN ANALYZE " + join));
  const std::string text = distributed_testing::SortedText(explain);
  EXPECT_NE(text.find("NetworkShuffle"), std::string::npos) << text;
  EXPECT_NE(text.find(" on w"), std::string::npos) << text;

  // Above the bound (which travels to the workers as a session setting) the table stays home and
  // the workers cannot find it.
  ASSERT_OK(runner_.RunOne("SET dist_memory_table_max_bytes = 1").status());
  auto missing = runner_.RunOne("SELECT s, count(*) FROM t GROUP BY s");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("t"), std::string::npos);
  EXPECT_NE(missing.status().hint().find("dist_memory_table_max_bytes"), std::string::npos)
      << missing.status().ToString();
  ASSERT_OK(runner_.RunOne("RESET dist_memory_table_max_bytes").status());
  EXPECT_OK(runner_.RunOne("SELECT s, count(*) FROM t GROUP BY s").status());
  EXPECT_EQ(distributed_testing::TasksHeld(*cluster), 0);
}

}  // namespace
}  // namespace shoal::distributed

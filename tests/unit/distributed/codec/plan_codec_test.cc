// Plan serialization: every TPC-H query's physical plan survives encode → decode with the same
// EXPLAIN text and the same answers; malformed and unsupported plans are refused clearly.
#include "shoal/distributed/codec/plan_codec.h"

#include <gtest/gtest.h>

#include "shoal/engine/tpch_tables.h"
#include "shoal/exec/execution_plan.h"
#include "shoal/io/tpch/scale.h"
#include "tests/support/distributed_test_util.h"
#include "tests/support/gtest_util.h"
#include "tests/support/plan_rewriting.h"

namespace shoal::distributed {
namespace {

class PlanCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto* runner : {&plain_, &coded_}) {
      ASSERT_OK_AND_ASSIGN(auto scale, io::tpch::TpchScale::Parse("0.01"));
      ASSERT_OK(engine::RegisterTpchTables(scale, runner->session().catalog().get()));
      ASSERT_OK(runner->RunOne("SET threads = 3").status());
    }
    codecs_ = TableCodecRegistry::Builtin(coded_.session().catalog());
    engine_testing::RewritePlans(
        coded_,
        [this](const exec::ExecPlanPtr& plan,
               const std::shared_ptr<exec::TaskContext>&) -> Result<exec::ExecPlanPtr> {
          SHOAL_ASSIGN_OR_RETURN(std::string bytes, EncodePlan(plan, *codecs_));
          SHOAL_ASSIGN_OR_RETURN(exec::ExecPlanPtr decoded, DecodePlan(bytes, {codecs_, nullptr}));
          const std::string before = exec::FormatExecutionPlan(*plan, true);
          const std::string after = exec::FormatExecutionPlan(*decoded, true);
          if (before != after)
            return Status::Internal("EXPLAIN differs after the round trip:\n{}\n---\n{}", before,
                                    after);
          ++round_trips_;
          return decoded;
        });
  }

  engine::QueryRunner plain_;
  engine::QueryRunner coded_;
  TableCodecRegistryPtr codecs_;
  int round_trips_ = 0;
};

TEST_F(PlanCodecTest, EveryTpchQueryRoundTripsWithTheSameExplainAndAnswers) {
  for (int q = 1; q <= 22; ++q) {
    SCOPED_TRACE("q" + std::to_string(q));
    const std::string sql = distributed_testing::TpchQuery(q);
    ASSERT_FALSE(sql.empty());
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_FALSE(expected.batches.empty());
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_GE(round_trips_, 22);
}

TEST_F(PlanCodecTest, LiteralsOfEveryKindRoundTrip) {
  const char* sql =
      "SELECT 1::smallint, 2::bigint, 2.5::double precision, 12.34::decimal(30,4), 'x'::text, "
      "DATE '1998-12-01', INTERVAL '3 days', TIMESTAMP '2020-01-02 03:04:05', NULL::int, true, "
      "CASE WHEN 1 < 2 THEN 'a' ELSE NULL END";
  ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
  ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
  EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  EXPECT_EQ(round_trips_, 1);
}

TEST_F(PlanCodecTest, WindowAndGroupingSetPlansRoundTrip) {
  for (const char* sql :
       {"SELECT n_regionkey, n_name, rank() OVER (PARTITION BY n_regionkey ORDER BY n_name), "
        "sum(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_name ROWS BETWEEN 1 "
        "PRECEDING AND CURRENT ROW) FROM nation",
        "SELECT n_regionkey, count(*) FROM nation GROUP BY ROLLUP (n_regionkey)"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_EQ(round_trips_, 2);
}

// The ORDER BY, DISTINCT and FILTER of aggregates and the ordered-set aggregates travel in the
// plan: an aggregate that lost its ORDER BY would concatenate in arrival order (or fail).
TEST_F(PlanCodecTest, OrderedAggregatesAndDistinctOnRoundTrip) {
  for (const char* sql :
       {"SELECT n_regionkey, string_agg(n_name, ',' ORDER BY n_nationkey DESC), "
        "string_agg(DISTINCT n_name, ';' ORDER BY n_name) FILTER (WHERE n_nationkey > 3) FROM "
        "nation GROUP BY n_regionkey",
        "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY n_nationkey DESC), "
        "percentile_disc(0.5) WITHIN GROUP (ORDER BY n_name), mode() WITHIN GROUP (ORDER BY "
        "n_regionkey) FROM nation",
        "SELECT DISTINCT ON (n_regionkey) n_regionkey, n_name FROM nation ORDER BY n_regionkey, "
        "n_name DESC"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_EQ(round_trips_, 3);
}

// A worker decoding a recursive CTE binds the working table scans of its recursive term to the
// decoded node's working table.
TEST_F(PlanCodecTest, RecursiveCtesRoundTrip) {
  for (const char* sql :
       {"WITH RECURSIVE r(k, d) AS (SELECT n_nationkey, 0 FROM nation WHERE n_nationkey < 3 "
        "UNION ALL SELECT n_nationkey, d + 1 FROM r JOIN nation ON n_regionkey = r.k WHERE d < "
        "3) SELECT k, d FROM r",
        "WITH RECURSIVE r(k) AS (SELECT 1 UNION SELECT k % 5 + 1 FROM r) SELECT k FROM r"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_FALSE(expected.batches.empty());
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_EQ(round_trips_, 2);
}

TEST_F(PlanCodecTest, RefusesAPlanNeedingCodecsItLacksAndNamesThem) {
  ASSERT_OK(plain_.RunOne("SELECT 1").status());
  exec::ExecPlanPtr captured;
  engine_testing::RewritePlans(
      plain_, [&](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
        captured = plan;
        return Result<exec::ExecPlanPtr>(plan);
      });
  ASSERT_OK(plain_.RunOne("SELECT count(*) FROM nation").status());
  ASSERT_NE(captured, nullptr);
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(captured, *codecs_));
  proto::EncodedPlan encoded;
  ASSERT_TRUE(encoded.ParseFromString(bytes));
  ASSERT_EQ(encoded.codec_ids_size(), 1);
  EXPECT_EQ(encoded.codec_ids(0), "shoal.catalog/1");
  encoded.add_codec_ids("acme.iceberg/3");
  encoded.add_codec_ids("acme.delta/1");
  auto decoded = DecodePlan(encoded, {codecs_, nullptr});
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(decoded.status().message().find("acme.iceberg/3, acme.delta/1"), std::string::npos)
      << decoded.status().ToString();
  EXPECT_EQ(decoded.status().message().find("shoal.catalog/1"), std::string::npos);

  // A worker without the catalog table gets a NotFound that names the table.
  auto empty_catalog = std::make_shared<sql::Catalog>();
  auto other = TableCodecRegistry::Builtin(empty_catalog);
  auto missing = DecodePlan(bytes, {other, nullptr});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nation"), std::string::npos);
}

TEST_F(PlanCodecTest, MalformedBytesAreInvalidDataNotACrash) {
  exec::ExecPlanPtr captured;
  engine_testing::RewritePlans(
      plain_, [&](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
        captured = plan;
        return Result<exec::ExecPlanPtr>(plan);
      });
  ASSERT_OK(plain_.RunOne(distributed_testing::TpchQuery(3)).status());
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(captured, *codecs_));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DecodePlan(std::string("\xff\xff\xff"), {codecs_, nullptr}));
  // Truncations and byte flips: a plan or an error, never a crash.
  int errors = 0;
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    auto r = DecodePlan(bytes.substr(0, cut), {codecs_, nullptr});
    errors += r.ok() ? 0 : 1;
  }
  uint32_t seed = 12345;
  for (int i = 0; i < 2000; ++i) {
    std::string mutated = bytes;
    seed = seed * 1664525u + 1013904223u;
    mutated[seed % mutated.size()] = static_cast<char>(seed >> 24);
    auto r = DecodePlan(mutated, {codecs_, nullptr});
    errors += r.ok() ? 0 : 1;
  }
  EXPECT_GT(errors, 0);
  // Column positions beyond the input are caught before any node is built.
  proto::EncodedPlan encoded;
  ASSERT_TRUE(encoded.ParseFromString(bytes));
  std::function<bool(proto::PlanNodeProto*)> corrupt = [&](proto::PlanNodeProto* node) {
    if (node->has_filter()) {
      auto* e = node->mutable_filter()->mutable_predicate();
      while (e->args_size() > 0)
        e = e->mutable_args(0);
      e->set_kind(static_cast<uint32_t>(sql::ExprKind::kColumnRef));
      e->set_column(999);
      return true;
    }
    for (auto& c : *node->mutable_children()) {
      if (corrupt(&c))
        return true;
    }
    return false;
  };
  ASSERT_TRUE(corrupt(encoded.mutable_root()));
  auto bad = DecodePlan(encoded, {codecs_, nullptr});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidData) << bad.status().ToString();
}

}  // namespace
}  // namespace shoal::distributed

namespace shoal::distributed {
namespace {

// A scan that reads some fields of a Parquet struct column carries them to the worker (the
// decoded plan's EXPLAIN, which names them, is the same); paths naming no field are refused.
TEST_F(PlanCodecTest, StructFieldPathsOfAParquetScanRoundTrip) {
  const std::string create = "CREATE EXTERNAL TABLE sf STORED AS PARQUET LOCATION '" +
                             std::string(SHOAL_PARQUET_TEST_DATA_DIR) + "/struct_fields.parquet'";
  ASSERT_OK(plain_.RunOne(create).status());
  ASSERT_OK(coded_.RunOne(create).status());
  for (const char* sql : {"SELECT (s).b.c, count(*), sum((s).a) FROM sf GROUP BY 1",
                          "SELECT id, (s).b FROM sf WHERE (s).a > 50"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_GE(round_trips_, 2);
  exec::ExecPlanPtr captured;
  engine_testing::RewritePlans(
      plain_, [&](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
        captured = plan;
        return Result<exec::ExecPlanPtr>(plan);
      });
  ASSERT_OK(plain_.RunOne("SELECT sum((s).b.d) FROM sf").status());
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(captured, *codecs_));
  EXPECT_NE(exec::FormatExecutionPlan(*captured, true).find("s.{b.d}"), std::string::npos)
      << exec::FormatExecutionPlan(*captured, true);
  ASSERT_OK(DecodePlan(bytes, {codecs_, nullptr}).status());
  std::function<proto::TableScanProto*(proto::PlanNodeProto*)> find_scan =
      [&](proto::PlanNodeProto* node) -> proto::TableScanProto* {
    if (node->has_table_scan())
      return node->mutable_table_scan();
    for (auto& c : *node->mutable_children()) {
      if (auto* scan = find_scan(&c))
        return scan;
    }
    return nullptr;
  };
  auto corrupted = [&](const std::function<void(proto::TableScanProto*)>& edit) {
    proto::EncodedPlan encoded;
    EXPECT_TRUE(encoded.ParseFromString(bytes));
    proto::TableScanProto* scan = find_scan(encoded.mutable_root());
    EXPECT_NE(scan, nullptr);
    if (scan == nullptr)
      return Status::Internal("no scan");
    EXPECT_EQ(scan->field_paths_size(), 1);
    edit(scan);
    return DecodePlan(encoded.SerializeAsString(), {codecs_, nullptr}).status();
  };
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, corrupted([](proto::TableScanProto* scan) {
                       scan->mutable_field_paths(0)->mutable_paths(0)->set_steps(0, 99);
                     }));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, corrupted([](proto::TableScanProto* scan) {
                       scan->mutable_field_paths(0)->mutable_paths(0)->add_steps(0);
                       scan->mutable_field_paths(0)->mutable_paths(0)->add_steps(0);
                     }));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     corrupted([](proto::TableScanProto* scan) { scan->add_field_paths(); }));
}

// The WHERE conjuncts folded into a Parquet scan (scan_filter_expr.h) go to the worker with it: the
// decoded plan's EXPLAIN shows the same `filter=`, the answers are the same, and a filter reading a
// column the scan does not produce is refused.
TEST_F(PlanCodecTest, AParquetScanFilterRoundTrips) {
  const std::string create = "CREATE EXTERNAL TABLE sorted STORED AS PARQUET LOCATION '" +
                             std::string(SHOAL_PARQUET_TEST_DATA_DIR) + "/sorted.parquet'";
  ASSERT_OK(plain_.RunOne(create).status());
  ASSERT_OK(coded_.RunOne(create).status());
  for (const char* sql : {"SELECT count(*), sum(v) FROM sorted WHERE k >= 9000 OR v < 10",
                          "SELECT k, v FROM sorted WHERE k IN (3, 4097, 9999) AND v / 2 = k"}) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(auto expected, plain_.RunOne(sql));
    ASSERT_OK_AND_ASSIGN(auto actual, coded_.RunOne(sql));
    EXPECT_EQ(distributed_testing::SortedRows(expected), distributed_testing::SortedRows(actual));
  }
  EXPECT_GE(round_trips_, 2);
  exec::ExecPlanPtr captured;
  engine_testing::RewritePlans(
      plain_, [&](const exec::ExecPlanPtr& plan, const std::shared_ptr<exec::TaskContext>&) {
        captured = plan;
        return Result<exec::ExecPlanPtr>(plan);
      });
  ASSERT_OK(plain_.RunOne("SELECT sum(v) FROM sorted WHERE k < 100").status());
  const std::string explained = exec::FormatExecutionPlan(*captured, true);
  EXPECT_NE(explained.find("filter=k < 100"), std::string::npos) << explained;
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlan(captured, *codecs_));
  ASSERT_OK_AND_ASSIGN(exec::ExecPlanPtr decoded, DecodePlan(bytes, {codecs_, nullptr}));
  EXPECT_EQ(exec::FormatExecutionPlan(*decoded, true), explained);
  std::function<proto::TableScanProto*(proto::PlanNodeProto*)> find_scan =
      [&](proto::PlanNodeProto* node) -> proto::TableScanProto* {
    if (node->has_table_scan())
      return node->mutable_table_scan();
    for (auto& c : *node->mutable_children()) {
      if (auto* scan = find_scan(&c))
        return scan;
    }
    return nullptr;
  };
  proto::EncodedPlan encoded;
  ASSERT_TRUE(encoded.ParseFromString(bytes));
  proto::TableScanProto* scan = find_scan(encoded.mutable_root());
  ASSERT_NE(scan, nullptr);
  ASSERT_TRUE(scan->has_filter());
  ASSERT_GE(scan->filter().args_size(), 1);
  scan->mutable_filter()->mutable_args(0)->set_column(7);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DecodePlan(encoded.SerializeAsString(), {codecs_, nullptr}).status());
}

}  // namespace
}  // namespace shoal::distributed

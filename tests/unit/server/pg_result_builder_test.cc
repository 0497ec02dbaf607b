// Results received by PgClient turned back into typed batches (src/shoal/server/
// pg_result_builder.h): each type's text read as that type and printed back the same, NULLs,
// columns that stay text, numeric without a modifier, many chunks, malformed DataRows, and
// PostgreSQL's interval output.
#include "shoal/server/pg_result_builder.h"

#include <optional>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/pg_wire.h"

namespace shoal::server {
namespace {

using columnar::DataType;
using columnar::TypeId;

std::string DataRowBody(const std::vector<std::optional<std::string>>& values) {
  MessageWriter out;
  out.Int16(static_cast<int16_t>(values.size()));
  for (const auto& value : values) {
    if (!value) {
      out.Int32(-1);
    } else {
      out.Int32(static_cast<int32_t>(value->size()));
      out.Bytes(*value);
    }
  }
  return out.buffer();
}

PgColumn Column(std::string name, uint32_t oid, int32_t modifier = -1) {
  PgColumn c;
  c.name = std::move(name);
  c.type_oid = oid;
  c.type_modifier = modifier;
  return c;
}

TEST(PgResultBuilderTest, EveryTypeReadsAsItselfAndPrintsTheSame) {
  struct Case {
    PgColumn column;
    TypeId type;
    std::vector<std::string> values;
  };
  const std::vector<Case> cases = {
      {Column("b", pg_oid::kBool), TypeId::kBoolean, {"t", "f"}},
      {Column("i2", pg_oid::kInt2), TypeId::kInt16, {"-32768", "7"}},
      {Column("i4", pg_oid::kInt4), TypeId::kInt32, {"2147483647", "-1"}},
      {Column("i8", pg_oid::kInt8), TypeId::kInt64, {"-9223372036854775808", "0"}},
      {Column("f4", pg_oid::kFloat4), TypeId::kFloat32, {"1.5", "3.4028235e+38"}},
      {Column("f8", pg_oid::kFloat8), TypeId::kFloat64, {"0.1", "-Infinity"}},
      {Column("f8nan", pg_oid::kFloat8), TypeId::kFloat64, {"NaN", "1e-05"}},
      {Column("d", pg_oid::kNumeric, ((15 << 16) | 2) + 4), TypeId::kDecimal, {"-12.30", "0.05"}},
      {Column("wide", pg_oid::kNumeric, ((38 << 16) | 0) + 4),
       TypeId::kDecimal,
       {"12345678901234567890123456789012345678", "-1"}},
      {Column("t", pg_oid::kText), TypeId::kUtf8, {"héllo", "two\nlines"}},
      {Column("v", pg_oid::kVarchar), TypeId::kUtf8, {"", " x "}},
      {Column("by", pg_oid::kBytea), TypeId::kBinary, {"\\x00ff10", "\\x"}},
      {Column("dt", pg_oid::kDate), TypeId::kDate32, {"2024-02-29", "0044-03-15 BC"}},
      {Column("ts", pg_oid::kTimestamp),
       TypeId::kTimestamp,
       {"2024-01-02 03:04:05.123456", "1999-12-31 23:59:59"}},
      {Column("tz", pg_oid::kTimestampTz),
       TypeId::kTimestamp,
       {"2024-01-02 01:04:05+00", "1970-01-01 00:00:00.5+00"}},
      {Column("iv", pg_oid::kInterval),
       TypeId::kInterval,
       {"1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.column.name);
    PgResultBuilder builder({c.column});
    for (const std::string& value : c.values) {
      ASSERT_TRUE(builder.AddDataRow(DataRowBody({value})).ok());
    }
    ASSERT_TRUE(builder.AddDataRow(DataRowBody({std::nullopt})).ok());
    auto result = builder.Finish();
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const auto& [schema, batches] = *result;
    ASSERT_EQ(schema->num_fields(), 1);
    EXPECT_EQ(schema->field(0).name, c.column.name);
    EXPECT_EQ(schema->field(0).type.id(), c.type) << schema->field(0).type.ToString();
    ASSERT_EQ(batches.size(), 1u);
    const auto& array = *batches[0]->column(0);
    ASSERT_EQ(array.length(), static_cast<int64_t>(c.values.size()) + 1);
    for (size_t i = 0; i < c.values.size(); ++i) {
      EXPECT_EQ(columnar::FormatValue(array, static_cast<int64_t>(i)), c.values[i]);
    }
    EXPECT_TRUE(array.IsNull(static_cast<int64_t>(c.values.size())));
  }
}

TEST(PgResultBuilderTest, ValuesNotOfTheTypeKeepTheColumnAsText) {
  // A PostgreSQL server's 'infinity' date, and a type Shoal lacks (uuid, OID 2950).
  PgResultBuilder builder({Column("d", pg_oid::kDate), Column("u", 2950)});
  ASSERT_TRUE(
      builder.AddDataRow(DataRowBody({"2024-01-01", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"})).ok());
  ASSERT_TRUE(builder.AddDataRow(DataRowBody({"infinity", std::nullopt})).ok());
  auto result = builder.Finish();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->first->field(0).type.id(), TypeId::kUtf8);
  EXPECT_EQ(result->first->field(1).type.id(), TypeId::kUtf8);
  EXPECT_EQ(columnar::FormatValue(*result->second[0]->column(0), 1), "infinity");
}

TEST(PgResultBuilderTest, NumericWithoutModifierTakesTheWidestValue) {
  PgResultBuilder builder({Column("n", pg_oid::kNumeric)});
  for (const char* v : {"1.5", "-22.25", "300"}) {
    ASSERT_TRUE(builder.AddDataRow(DataRowBody({v})).ok());
  }
  auto result = builder.Finish();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->first->field(0).type, DataType::Decimal(5, 2));
  EXPECT_EQ(columnar::FormatValue(*result->second[0]->column(0), 1), "-22.25");

  PgResultBuilder nan({Column("n", pg_oid::kNumeric)});
  ASSERT_TRUE(nan.AddDataRow(DataRowBody({"1.5"})).ok());
  ASSERT_TRUE(nan.AddDataRow(DataRowBody({"NaN"})).ok());
  auto text = nan.Finish();
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->first->field(0).type.id(), TypeId::kUtf8);
}

TEST(PgResultBuilderTest, ManyRowsMakeSeveralBatchesOfOneSchema) {
  PgResultBuilder builder({Column("i", pg_oid::kInt4), Column("s", pg_oid::kText)});
  const int64_t rows = PgResultBuilder::kChunkRows * 2 + 10;
  for (int64_t i = 0; i < rows; ++i) {
    ASSERT_TRUE(builder.AddDataRow(DataRowBody({std::to_string(i), "x"})).ok());
  }
  EXPECT_EQ(builder.num_rows(), rows);
  auto result = builder.Finish();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->second.size(), 3u);
  int64_t total = 0;
  for (const auto& batch : result->second) {
    EXPECT_EQ(batch->schema(), result->first);
    total += batch->num_rows();
  }
  EXPECT_EQ(total, rows);
  EXPECT_EQ(columnar::FormatValue(*result->second[2]->column(0), 9), std::to_string(rows - 1));
}

TEST(PgResultBuilderTest, NoColumnsStillCountRows) {
  PgResultBuilder builder({});
  ASSERT_TRUE(builder.AddDataRow(DataRowBody({})).ok());
  ASSERT_TRUE(builder.AddDataRow(DataRowBody({})).ok());
  auto result = builder.Finish();
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->second.size(), 1u);
  EXPECT_EQ(result->second[0]->num_rows(), 2);
}

TEST(PgResultBuilderTest, MalformedDataRowsAreProtocolViolations) {
  PgResultBuilder builder({Column("a", pg_oid::kInt4), Column("b", pg_oid::kInt4)});
  EXPECT_EQ(builder.AddDataRow(DataRowBody({"1"})).sqlstate(), "08P01");
  std::string body = DataRowBody({"1", "2"});
  EXPECT_EQ(builder.AddDataRow(body.substr(0, body.size() - 1)).sqlstate(), "08P01");
  EXPECT_EQ(builder.AddDataRow(body + "x").sqlstate(), "08P01");
}

TEST(PgResultBuilderTest, RowDescriptionRoundTrip) {
  columnar::Schema schema({{"n", DataType::Decimal(15, 2)}, {"s", DataType::Utf8()}});
  MessageWriter out;
  WriteRowDescription(out, schema, {});
  auto columns = ParseRowDescription(std::string_view(out.buffer()).substr(5));
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  ASSERT_EQ(columns->size(), 2u);
  EXPECT_EQ((*columns)[0].name, "n");
  EXPECT_EQ((*columns)[0].type_oid, pg_oid::kNumeric);
  EXPECT_EQ(PgColumnType((*columns)[0].type_oid, (*columns)[0].type_modifier),
            DataType::Decimal(15, 2));
  EXPECT_EQ((*columns)[1].type_oid, pg_oid::kText);
  EXPECT_FALSE(ParseRowDescription(std::string_view(out.buffer()).substr(5, 10)).ok());
}

TEST(PgResultBuilderTest, IntervalText) {
  struct Case {
    const char* text;
    int32_t months;
    int32_t days;
    int64_t micros;
  };
  for (const Case& c : std::vector<Case>{
           {"00:00:00", 0, 0, 0},
           {"1 year 2 mons 3 days 04:05:06.5", 14, 3, 14706500000},
           {"-1 days +02:00:00", 0, -1, 7200000000},
           {"-00:00:01.5", 0, 0, -1500000},
           {"-1 years -2 mons", -14, 0, 0},
           {"1 day 100:00:00.000001", 0, 1, 360000000001},
       }) {
    SCOPED_TRACE(c.text);
    auto v = ParsePgIntervalText(c.text);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->months, c.months);
    EXPECT_EQ(v->days, c.days);
    EXPECT_EQ(v->nanoseconds, c.micros * 1000);
  }
  for (const char* bad : {"", "1 fortnight", "04:05", "1 day 2", "00:00:00 1 day", "1:2:3",
                          "999999999999999999 years", "3000000000 days", "2147483647 years"}) {
    EXPECT_FALSE(ParsePgIntervalText(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace shoal::server

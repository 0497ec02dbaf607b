// Tests for the delimited-text (TBL / CSV) reader and table provider: quoting, escapes, nulls,
// typed parsing and its errors, trailing delimiters, and byte-range splits.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/io/delimited_reader.h"
#include "shoal/io/delimited_table.h"
#include "shoal/io/file_listing.h"
#include "tests/support/gtest_util.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

class DelimitedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal_csv_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }

  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out << content;
    return path;
  }

  fs::path dir_;
};

SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<Schema>(std::move(fields));
}

// Rows as "v1|v2|..." with NULL for nulls.
Result<std::vector<std::string>> ReadRows(columnar::RecordBatchReader& reader) {
  std::vector<std::string> rows;
  while (true) {
    SHOAL_ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch)
      break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0)
          row += "|";
        const auto& column = *batch->column(c);
        row += column.IsNull(r) ? "NULL" : columnar::FormatValue(column, r);
      }
      rows.push_back(row);
    }
  }
  return rows;
}

Result<std::vector<std::string>> ReadFile(const std::string& path, const SchemaPtr& schema,
                                          const DelimitedOptions& options, int64_t begin = 0,
                                          int64_t end = -1, int64_t batch_size = 3) {
  std::vector<int> projection;
  for (int i = 0; i < schema->num_fields(); ++i)
    projection.push_back(i);
  SHOAL_ASSIGN_OR_RETURN(auto reader, OpenDelimitedReader(path, schema, options, projection, begin,
                                                          end, batch_size, DefaultMemoryPool()));
  return ReadRows(*reader);
}

std::string ErrorOf(const Result<std::vector<std::string>>& result) {
  return result.ok() ? std::string("ok") : result.status().ToString();
}

TEST_F(DelimitedTest, TblWithTrailingDelimiterAndTypes) {
  auto schema = MakeSchema({Field("k", DataType::Int32()), Field("p", DataType::Decimal(15, 2)),
                            Field("d", DataType::Date32()), Field("s", DataType::Utf8())});
  std::string path = Write("t.tbl", "1|12.50|1998-12-01|abc|\n2|-0.01|1992-01-02||\n");
  auto rows = ReadFile(path, schema, DelimitedOptions::Tbl());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"1|12.50|1998-12-01|abc", "2|-0.01|1992-01-02|NULL"}));
}

TEST_F(DelimitedTest, CsvQuotesEscapesAndNulls) {
  auto schema = MakeSchema({Field("a", DataType::Utf8()), Field("b", DataType::Int64())});
  std::string path =
      Write("q.csv", "\"x,y\",1\n\"he said \"\"hi\"\"\",2\n\"multi\nline\",3\n,\n\"\",4\r\n");
  auto rows = ReadFile(path, schema, DelimitedOptions::Csv());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"x,y|1", "he said \"hi\"|2", "multi\nline|3",
                                             "NULL|NULL", "|4"}));
  DelimitedOptions options = DelimitedOptions::Csv();
  ASSERT_TRUE(options.Apply({{"escape", "\\"}, {"null", "NA"}}).ok());
  path = Write("e.csv", "\"a\\\"b\",NA\nNA,5\n");
  rows = ReadFile(path, schema, options);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"a\"b|NULL", "NULL|5"}));
}

TEST_F(DelimitedTest, HeaderAndOptions) {
  DelimitedOptions options = DelimitedOptions::Csv();
  ASSERT_TRUE(options.Apply({{"header", "true"}, {"delimiter", ";"}}).ok());
  auto schema = MakeSchema({Field("a", DataType::Boolean()), Field("b", DataType::Float64())});
  std::string path = Write("h.csv", "a;b\ntrue;1.5\nf;-2\n");
  auto rows = ReadFile(path, schema, options);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"t|1.5", "f|-2"}));
  EXPECT_FALSE(options.Apply({{"bogus", "1"}}).ok());
  EXPECT_FALSE(options.Apply({{"delimiter", "ab"}}).ok());
}

TEST_F(DelimitedTest, Timestamps) {
  auto schema = MakeSchema({Field("t", DataType::Timestamp())});
  std::string path = Write("ts.csv", "2024-02-29 12:34:56.5\n1970-01-01T00:00:00\n2000-01-01\n");
  auto rows = ReadFile(path, schema, DelimitedOptions::Csv());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_NE((*rows)[0].find("2024-02-29 12:34:56.5"), std::string::npos) << (*rows)[0];
}

// Dates and timestamps go through the one date-text parser (common/date_text.h) that SQL
// literals and casts use, so a file takes what DATE '...' takes: where the reader's own copy
// wanted exactly YYYY-MM-DD and refused the rest, PostgreSQL's forms are read (and year 0,
// which does not exist, is refused instead of read as 1 BC).
TEST_F(DelimitedTest, DatesFollowTheSharedParser) {
  auto schema = MakeSchema({Field("d", DataType::Date32()), Field("t", DataType::Timestamp())});
  std::string path = Write("dates.csv",
                           "1998-12-01,1998-12-01 10:00:00.1234565\n"
                           "19990108,1999-01-08T04:05:06Z\n"
                           "1/8/1999,1/8/1999 4:05\n"
                           "0044-03-15 BC,0044-03-15 12:00 BC\n");
  auto rows = ReadFile(path, schema, DelimitedOptions::Csv());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{
                       "1998-12-01|1998-12-01 10:00:00.123456",  // rounded half to even
                       "1999-01-08|1999-01-08 04:05:06",
                       "1999-01-08|1999-01-08 04:05:00",
                       "0044-03-15 BC|0044-03-15 12:00:00 BC",
                   }));
  path = Write("year0.csv", "0000-01-01,2000-01-01\n");
  std::string error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("line 1, column 1 (d): cannot parse as date"), std::string::npos) << error;
}

TEST_F(DelimitedTest, ErrorsNameFileLineColumnAndValue) {
  auto schema = MakeSchema({Field("id", DataType::Int32()), Field("d", DataType::Date32()),
                            Field("p", DataType::Decimal(5, 2))});
  std::string path = Write("bad.csv", "1,2020-01-01,1.00\n2,2020-02-30,1.00\n");
  std::string error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("bad.csv: line 2, column 2 (d)"), std::string::npos) << error;
  EXPECT_NE(error.find("'2020-02-30'"), std::string::npos) << error;

  path = Write("dec.csv", "1,2020-01-01,1.00\n\n3,2020-01-01,12345.6\n");
  error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("line 3, column 3 (p)"), std::string::npos) << error;
  EXPECT_NE(error.find("'12345.6'"), std::string::npos) << error;

  path = Write("int.csv", "x1,2020-01-01,1\n");
  error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("line 1, column 1 (id)"), std::string::npos) << error;
  EXPECT_NE(error.find("'x1'"), std::string::npos) << error;

  path = Write("ragged.csv", "1,2020-01-01,1\n2,2020-01-01\n");
  error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_NE(error.find("expected 3 fields, found 2"), std::string::npos) << error;

  path = Write("quote.csv", "1,\"2020-01-01,1\n");
  error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Csv()));
  EXPECT_NE(error.find("unterminated quoted field"), std::string::npos) << error;

  path = Write("notrail.tbl", "1|2020-01-01|1.00\n");
  error = ErrorOf(ReadFile(path, schema, DelimitedOptions::Tbl()));
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;
  EXPECT_NE(error.find("does not end with the delimiter"), std::string::npos) << error;

  path = Write("overflow.csv", "300\n");
  error =
      ErrorOf(ReadFile(path, MakeSchema({Field("b", DataType::Int8())}), DelimitedOptions::Csv()));
  EXPECT_NE(error.find("'300'"), std::string::npos) << error;
}

TEST_F(DelimitedTest, EmptyFile) {
  auto schema = MakeSchema({Field("a", DataType::Int32())});
  auto rows = ReadFile(Write("empty.tbl", ""), schema, DelimitedOptions::Tbl());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
  auto table =
      DelimitedTable::Make(DelimitedFormat::kTbl, (dir_ / "empty.tbl").string(), schema, {});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto units = (*table)->PlanScan({});
  ASSERT_TRUE(units.ok());
  EXPECT_EQ(units->size(), 1u);
}

TEST_F(DelimitedTest, ByteRangeSplitsGiveEveryRowOnce) {
  std::string content;
  std::vector<std::string> expected;
  for (int i = 0; i < 200; ++i) {
    std::string s(static_cast<size_t>(i % 13), static_cast<char>('a' + i % 26));
    content += std::to_string(i) + "|" + s + "|\n";
    expected.push_back(std::to_string(i) + "|" + (s.empty() ? "NULL" : s));  // empty: NULL
  }
  Write("big.tbl", content);
  Write("big2.tbl", content);
  auto schema = MakeSchema({Field("i", DataType::Int64()), Field("s", DataType::Utf8())});
  for (int split : {1, 2, 3, 5, 7, 8, 16, 31, 100, 1000, 100000}) {
    auto table = DelimitedTable::Make(DelimitedFormat::kTbl, (dir_ / "*.tbl").string(), schema,
                                      {{"split_bytes", std::to_string(split)}});
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    EXPECT_EQ((*table)->statistics().total_bytes, 2 * static_cast<int64_t>(content.size()));
    ScanRequest request;
    request.projection = {0, 1};
    request.batch_size = 17;
    auto units = (*table)->PlanScan(request);
    ASSERT_TRUE(units.ok());
    std::vector<std::string> all;
    for (const auto& unit : *units) {
      auto reader = (*table)->OpenUnit(unit, request, ScanContext{DefaultMemoryPool(), nullptr});
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      auto rows = ReadRows(**reader);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      all.insert(all.end(), rows->begin(), rows->end());
    }
    std::vector<std::string> twice = expected;
    twice.insert(twice.end(), expected.begin(), expected.end());
    EXPECT_EQ(all, twice) << "split " << split;
  }
}

TEST_F(DelimitedTest, QuotedCsvIsNotSplit) {
  Write("q.csv", "\"a\nb\",1\n\"c\",2\n");
  auto schema = MakeSchema({Field("s", DataType::Utf8()), Field("i", DataType::Int64())});
  auto table = DelimitedTable::Make(DelimitedFormat::kCsv, (dir_ / "q.csv").string(), schema,
                                    {{"split_bytes", "2"}});
  ASSERT_TRUE(table.ok());
  auto units = (*table)->PlanScan({});
  ASSERT_TRUE(units.ok());
  EXPECT_EQ(units->size(), 1u);
}

TEST_F(DelimitedTest, InferSchemaFromHeader) {
  Write("people.csv",
        "id,name,score,born,ok\n1,ann,1.5,2000-01-02,true\n2,bob,,1999-12-31,false\n");
  auto table =
      DelimitedTable::Make(DelimitedFormat::kCsv, dir_.string(), nullptr, {{"header", "true"}});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ((*table)->schema()->ToString(),
            "id: int64, name: utf8, score: float64, born: date32, ok: boolean");
  ScanRequest request;
  request.projection = {1, 0};
  auto units = (*table)->PlanScan(request);
  ASSERT_TRUE(units.ok());
  auto reader = (*table)->OpenUnit((*units)[0], request, ScanContext{DefaultMemoryPool(), nullptr});
  ASSERT_TRUE(reader.ok());
  auto rows = ReadRows(**reader);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"ann|1", "bob|2"}));
}

TEST_F(DelimitedTest, ListingErrors) {
  EXPECT_FALSE(ListFiles((dir_ / "missing.csv").string(), CsvExtensions()).ok());
  EXPECT_FALSE(ListFiles((dir_ / "*.nothing").string(), CsvExtensions()).ok());
  EXPECT_FALSE(DelimitedTable::Make(DelimitedFormat::kTbl, dir_.string(), nullptr, {}).ok());
}

// Issue 13 item 10: a byte-order mark is not part of the first column's name or value.
TEST_F(DelimitedTest, Utf8ByteOrderMarkIsSkipped) {
  Write("bom.csv",
        "\xEF\xBB\xBF"
        "id,name\n1,ann\n2,bob\n");
  ASSERT_OK_AND_ASSIGN(auto table, DelimitedTable::Make(DelimitedFormat::kCsv, dir_.string(),
                                                        nullptr, {{"header", "true"}}));
  EXPECT_EQ(table->schema()->ToString(), "id: int64, name: utf8");
  // Without a header the mark is not part of the first value either.
  const std::string data_only = Write("bom_data.csv",
                                      "\xEF\xBB\xBF"
                                      "7,x\n8,y\n");
  ASSERT_OK_AND_ASSIGN(auto inferred, InferDelimitedSchema(data_only, DelimitedOptions::Csv()));
  EXPECT_EQ(inferred->ToString(), "column1: int64, column2: utf8");
  auto schema = MakeSchema({Field("a", DataType::Int64()), Field("b", DataType::Utf8())});
  auto rows = ReadFile(data_only, schema, DelimitedOptions::Csv());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"7|x", "8|y"}));
  // A TBL file too.
  const std::string tbl = Write("bom.tbl",
                                "\xEF\xBB\xBF"
                                "1|a|\n");
  auto tbl_rows = ReadFile(tbl, schema, DelimitedOptions::Tbl());
  ASSERT_TRUE(tbl_rows.ok()) << tbl_rows.status().ToString();
  EXPECT_EQ(*tbl_rows, (std::vector<std::string>{"1|a"}));
}

// Issue 13 item 10: numbers are never inferred as a type that loses digits.
TEST_F(DelimitedTest, InferenceNeverLosesDigits) {
  const std::string path =
      Write("n.csv",
            "big,neg,wide,many,huge,plain,sci,zip,plus,mixed\n"
            "12345678901234567890,-9223372036854775809,1.12345678901234567890123,0.1,"
            "123456789012345678901234567890123456789,1.5,1e5,007,+5,1\n"
            "1,2,2.5,0.25,1,2.25,2.5e-3,012,+6,12345678901234567890.5\n");
  DelimitedOptions with_header = DelimitedOptions::Csv();
  with_header.header = true;
  ASSERT_OK_AND_ASSIGN(auto schema, InferDelimitedSchema(path, with_header));
  EXPECT_EQ(schema->ToString(),
            "big: decimal(38,0), neg: decimal(38,0), wide: decimal(38,23), many: float64, "
            "huge: utf8, plain: float64, sci: float64, zip: utf8, plus: utf8, "
            "mixed: decimal(38,1)");
  ASSERT_OK_AND_ASSIGN(
      auto table, DelimitedTable::Make(DelimitedFormat::kCsv, path, nullptr, {{"header", "true"}}));
  ScanRequest request;
  request.projection = {0, 1, 2, 4};
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       table->OpenUnit(units[0], request, ScanContext{DefaultMemoryPool(), {}}));
  auto rows = ReadRows(*reader);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{
                       "12345678901234567890|-9223372036854775809|1.12345678901234567890123|"
                       "123456789012345678901234567890123456789",
                       "1|2|2.50000000000000000000000|1"}));
}

}  // namespace
}  // namespace shoal::io

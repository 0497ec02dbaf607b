// ResultPrinter: rows reach the output while the statement still runs (CSV and JSON at once, the
// aligned formats a window at a time), and a result of one window prints as a collected one.
#include "shoal/cli/result_printer.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::cli {
namespace {

using columnar::DataType;
using columnar::Field;

const std::vector<Field> kFields = {{"a", DataType::Int32()}};

columnar::RecordBatchPtr Row(const char* value) {
  return testing::MakeBatch(kFields, {{value}});
}

TEST(ResultPrinterTest, TableWindowsPrintAsSoonAsTheyFill) {
  std::ostringstream out;
  ResultPrinter printer(SqlOutputFormat::kTable, &out, nullptr, /*window_rows=*/2);
  ASSERT_OK(printer.Begin(std::make_shared<const columnar::Schema>(kFields)));
  ASSERT_OK(printer.Rows(Row("1")));
  EXPECT_EQ(out.str(), "");  // the widths of the window are not known yet
  ASSERT_OK(printer.Rows(Row("22")));
  EXPECT_EQ(out.str(), " a  \n----\n  1\n 22\n");  // printed before the statement ends
  ASSERT_OK(printer.Rows(Row("3")));
  ASSERT_OK(printer.End("SELECT 3"));
  EXPECT_EQ(out.str(), " a  \n----\n  1\n 22\n 3\n(3 rows)\n\n");
}

TEST(ResultPrinterTest, CsvAndJsonRowsPrintAtOnce) {
  std::ostringstream csv;
  ResultPrinter csv_printer(SqlOutputFormat::kCsv, &csv, nullptr);
  ASSERT_OK(csv_printer.Begin(std::make_shared<const columnar::Schema>(kFields)));
  ASSERT_OK(csv_printer.Rows(Row("1")));
  EXPECT_EQ(csv.str(), "a\n1\n");
  ASSERT_OK(csv_printer.End("SELECT 1"));
  EXPECT_EQ(csv.str(), "a\n1\n");

  std::ostringstream json;
  ResultPrinter json_printer(SqlOutputFormat::kJson, &json, nullptr);
  ASSERT_OK(json_printer.Begin(std::make_shared<const columnar::Schema>(kFields)));
  ASSERT_OK(json_printer.Rows(Row("1")));
  EXPECT_EQ(json.str(), "[\n{\"a\":1}");
  ASSERT_OK(json_printer.Rows(Row("NULL")));
  ASSERT_OK(json_printer.End("SELECT 2"));
  EXPECT_EQ(json.str(), "[\n{\"a\":1},\n{\"a\":null}\n]\n");
}

TEST(ResultPrinterTest, ExpandedRecordsAreNumberedAcrossWindows) {
  std::ostringstream out;
  ResultPrinter printer(SqlOutputFormat::kExpanded, &out, nullptr, /*window_rows=*/1);
  ASSERT_OK(printer.Begin(std::make_shared<const columnar::Schema>(kFields)));
  ASSERT_OK(printer.Rows(Row("1")));
  ASSERT_OK(printer.Rows(Row("2")));
  ASSERT_OK(printer.End("SELECT 2"));
  EXPECT_EQ(out.str(), "-[ RECORD 1 ]\na | 1\n-[ RECORD 2 ]\na | 2\n\n");
  std::ostringstream none;
  ResultPrinter empty(SqlOutputFormat::kExpanded, &none, nullptr);
  ASSERT_OK(empty.Begin(std::make_shared<const columnar::Schema>(kFields)));
  ASSERT_OK(empty.End("SELECT 0"));
  EXPECT_EQ(none.str(), "(0 rows)\n\n");
}

TEST(ResultPrinterTest, StatementsWithoutRowsPrintTheirTagAndNoticesGoToErr) {
  std::ostringstream out;
  std::ostringstream err;
  ResultPrinter printer(SqlOutputFormat::kTable, &out, &err);
  printer.Notice("retrying");
  ASSERT_OK(printer.Begin(nullptr));
  ASSERT_OK(printer.End("CREATE TABLE"));
  EXPECT_EQ(out.str(), "CREATE TABLE\n");
  EXPECT_EQ(err.str(), "NOTICE:  retrying\n");
}

}  // namespace
}  // namespace shoal::cli

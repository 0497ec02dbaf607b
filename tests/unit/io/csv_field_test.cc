// The one CSV field quoting (io/csv_field.h), as PostgreSQL's COPY ... CSV writes fields.
#include "shoal/io/csv_field.h"

#include <gtest/gtest.h>

namespace shoal::io {
namespace {

TEST(CsvFieldTest, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("abc"), "abc");
  EXPECT_EQ(CsvField("a b"), "a b");
  EXPECT_EQ(CsvField(""), "\"\"");  // apart from NULL, which is written as nothing
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("cr\r"), "\"cr\r\"");
  EXPECT_EQ(CsvField("\""), "\"\"\"\"");
}

TEST(CsvFieldTest, OtherDelimiterAndQuote) {
  std::string out;
  AppendCsvField("a,b", '|', '\'', &out);
  EXPECT_EQ(out, "a,b");  // a comma is plain text when the delimiter is '|'
  out.clear();
  AppendCsvField("a|b", '|', '\'', &out);
  EXPECT_EQ(out, "'a|b'");
  out.clear();
  AppendCsvField("it's", '|', '\'', &out);
  EXPECT_EQ(out, "'it''s'");
  out = "x;";
  AppendCsvField("y", ';', '"', &out);
  EXPECT_EQ(out, "x;y");  // appends
}

}  // namespace
}  // namespace shoal::io

// COPY ... TO STDOUT's binary format (src/shoal/server/copy_out_format.h) byte for byte, as
// PostgreSQL's documentation of the file format ("COPY", Binary Format) lays it out, and the
// options it refuses as PostgreSQL 15 does.
#include "shoal/server/copy_out_format.h"

#include <gtest/gtest.h>

#include "tests/support/batch_builder.h"

namespace shoal::server {
namespace {

using columnar::DataType;

TEST(CopyOutFormatTest, BinaryHeaderTupleAndTrailer) {
  std::string out;
  AppendCopyBinaryHeader(&out);
  EXPECT_EQ(out, std::string("PGCOPY\n\xff\r\n\0", 11) + std::string(8, '\0'));
  auto batch = testing::MakeBatch(
      {{"i", DataType::Int32()}, {"s", DataType::Utf8()}, {"d", DataType::Date32()}},
      {{"258", "ab", "2000-01-02"}, {"NULL", "", "NULL"}});
  out.clear();
  AppendCopyBinaryTuple(*batch, 0, &out);
  EXPECT_EQ(out, std::string("\0\3"               // 3 fields
                             "\0\0\0\4\0\0\1\2"   // int4 258
                             "\0\0\0\2ab"         // text
                             "\0\0\0\4\0\0\0\1",  // date: 1 day after 2000-01-01
                             2 + 8 + 6 + 8));
  out.clear();
  AppendCopyBinaryTuple(*batch, 1, &out);
  EXPECT_EQ(out, std::string("\0\3"
                             "\xff\xff\xff\xff"  // NULL
                             "\0\0\0\0"          // an empty string is not NULL
                             "\xff\xff\xff\xff",
                             2 + 12));
  out.clear();
  AppendCopyBinaryTrailer(&out);
  EXPECT_EQ(out, std::string("\xff\xff", 2));
}

TEST(CopyOutFormatTest, BinaryOptions) {
  auto binary = ParseCopyOutOptions({{"format", "binary"}});
  ASSERT_TRUE(binary.ok()) << binary.status().ToString();
  EXPECT_TRUE(binary->binary);
  for (const char* option : {"delimiter", "null", "header"}) {
    auto refused = ParseCopyOutOptions({{"format", "binary"}, {option, "x"}});
    ASSERT_FALSE(refused.ok()) << option;
    EXPECT_EQ(refused.status().sqlstate(), "42601");
    EXPECT_NE(refused.status().message().find("in BINARY mode"), std::string::npos);
  }
  EXPECT_EQ(ParseCopyOutOptions({{"format", "binary"}, {"quote", "'"}}).status().sqlstate(),
            "0A000");
}

// Text and csv fields of each type, escaped or quoted only where PostgreSQL 15 does (its output
// for the same values: `COPY (VALUES ...) TO STDOUT`).
TEST(CopyOutFormatTest, TextAndCsvFields) {
  auto batch = testing::MakeBatch({{"i", DataType::Int64()},
                                   {"n", DataType::Decimal(15, 2)},
                                   {"s", DataType::Utf8()},
                                   {"d", DataType::Date32()}},
                                  {{"-42", "-0.05", "a\tb\\c\nd", "2024-02-29"},
                                   {"NULL", "123456789012.30", "x,\"y\"", "NULL"},
                                   {"0", "0.00", "", "0001-01-01"}});
  auto line = [&](const CopyOutOptions& o, int64_t row) {
    std::string out;
    std::string scratch;
    for (int c = 0; c < batch->num_columns(); ++c) {
      if (c > 0)
        out.push_back(o.delimiter);
      AppendCopyValue(o, *batch->column(c), row, &out, &scratch);
    }
    return out;
  };
  auto text = ParseCopyOutOptions({});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(line(*text, 0), "-42\t-0.05\ta\\tb\\\\c\\nd\t2024-02-29");
  EXPECT_EQ(line(*text, 1), "\\N\t123456789012.30\tx,\"y\"\t\\N");
  EXPECT_EQ(line(*text, 2), "0\t0.00\t\t0001-01-01");
  auto comma = ParseCopyOutOptions({{"delimiter", ","}});
  ASSERT_TRUE(comma.ok());
  EXPECT_EQ(line(*comma, 1), "\\N,123456789012.30,x\\,\"y\",\\N");
  auto csv = ParseCopyOutOptions({{"format", "csv"}});
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(line(*csv, 0), "-42,-0.05,\"a\tb\\c\nd\",2024-02-29");
  EXPECT_EQ(line(*csv, 1), ",123456789012.30,\"x,\"\"y\"\"\",");
  EXPECT_EQ(line(*csv, 2), "0,0.00,\"\",0001-01-01");  // "" is the empty string, not NULL
  auto dash = ParseCopyOutOptions({{"format", "csv"}, {"delimiter", "-"}});
  ASSERT_TRUE(dash.ok());
  EXPECT_EQ(line(*dash, 0), "\"-42\"-\"-0.05\"-\"a\tb\\c\nd\"-\"2024-02-29\"");
}

TEST(CopyOutFormatTest, TextAndCsvOptionsRefusedAsPostgreSQL) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> options;
    const char* sqlstate;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{{"delimiter", "\n"}}, "22023", "COPY delimiter cannot be newline or carriage return"},
      {{{"null", "a\rb"}},
       "22023",
       "COPY null representation cannot use newline or carriage return"},
      {{{"delimiter", "x"}}, "22023", "COPY delimiter cannot be \"x\""},
      {{{"delimiter", "\\"}}, "22023", "COPY delimiter cannot be \"\\\""},
      {{{"format", "csv"}, {"delimiter", "\""}},
       "22023",
       "COPY delimiter and quote must be different"},
      {{{"delimiter", ","}, {"null", "a,b"}},
       "0A000",
       "COPY delimiter must not appear in the NULL specification"},
      {{{"delimiter", "ab"}}, "0A000", "COPY delimiter must be a single one-byte character"},
  };
  for (const Case& c : cases) {
    auto refused = ParseCopyOutOptions(c.options);
    ASSERT_FALSE(refused.ok()) << c.message;
    EXPECT_EQ(refused.status().sqlstate(), c.sqlstate) << c.message;
    EXPECT_EQ(refused.status().message(), c.message);
  }
  // Accepted by PostgreSQL 15: a header in text format, a letter as csv delimiter.
  auto header = ParseCopyOutOptions({{"header", "true"}});
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_TRUE(header->header);
  EXPECT_TRUE(ParseCopyOutOptions({{"format", "csv"}, {"delimiter", "x"}}).ok());
}

}  // namespace
}  // namespace shoal::server

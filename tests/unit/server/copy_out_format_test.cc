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

}  // namespace
}  // namespace shoal::server

// Thrift compact-protocol codec of the Parquet metadata: round trips, and hostile bytes that must
// come back as kInvalidData instead of an exception or a huge allocation.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/io/parquet/format/parquet_types.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

namespace fmt_ = format;

fmt_::PageHeader MakeHeader() {
  fmt_::PageHeader header;
  header.type = fmt_::PageType::DATA_PAGE;
  header.uncompressed_page_size = 100;
  header.compressed_page_size = 60;
  fmt_::DataPageHeader data;
  data.num_values = 10;
  data.encoding = fmt_::Encoding::PLAIN;
  data.definition_level_encoding = fmt_::Encoding::RLE;
  data.repetition_level_encoding = fmt_::Encoding::RLE;
  header.__set_data_page_header(data);
  return header;
}

TEST(ParquetThriftCodecTest, RoundTripReportsBytesConsumed) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeThrift(MakeHeader()));
  bytes += "trailing page bytes";
  fmt_::PageHeader back;
  ASSERT_OK_AND_ASSIGN(
      size_t consumed,
      DeserializeThrift(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back));
  EXPECT_EQ(consumed, bytes.size() - std::string("trailing page bytes").size());
  EXPECT_EQ(back.type, fmt_::PageType::DATA_PAGE);
  EXPECT_EQ(back.compressed_page_size, 60);
  ASSERT_TRUE(back.__isset.data_page_header);
  EXPECT_EQ(back.data_page_header.num_values, 10);
}

TEST(ParquetThriftCodecTest, EveryTruncationIsInvalidData) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeThrift(MakeHeader()));
  for (size_t n = 0; n < bytes.size(); ++n) {
    fmt_::PageHeader back;
    EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                       DeserializeThrift(reinterpret_cast<const uint8_t*>(bytes.data()), n, &back))
        << "prefix of " << n << " bytes";
  }
}

TEST(ParquetThriftCodecTest, MissingRequiredFieldIsInvalidData) {
  // A struct with only its stop byte: PageHeader.type and sizes are required.
  const uint8_t stop = 0;
  fmt_::PageHeader back;
  auto result = DeserializeThrift(&stop, 1, &back);
  ASSERT_STATUS_CODE(StatusCode::kInvalidData, result);
  EXPECT_NE(result.status().message().find("PageHeader"), std::string::npos)
      << result.status().ToString();
}

TEST(ParquetThriftCodecTest, HugeClaimedListIsRejectedBeforeAllocating) {
  // FileMetaData field 2 (schema, a list of structs) claiming 2^31-1 elements in 8 bytes.
  const std::vector<uint8_t> bytes = {0x15, 0x02,                     // field 1: i32 version = 1
                                      0x19, 0xFC,                     // field 2: list, 15+ structs
                                      0xFF, 0xFF, 0xFF, 0xFF, 0x07};  // varint size 2^31-1
  fmt_::FileMetaData back;
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DeserializeThrift(bytes.data(), bytes.size(), &back));
}

TEST(ParquetThriftCodecTest, DeepNestingIsInvalidData) {
  // Field 10 of SchemaElement is a union whose members are structs; nest unknown struct fields
  // deeper than any real file so the skip recursion limit trips.
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 10000; ++i)
    bytes.push_back(0x1C);  // field delta 1, type struct
  fmt_::SchemaElement back;
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DeserializeThrift(bytes.data(), bytes.size(), &back));
}

}  // namespace
}  // namespace shoal::io::parquet

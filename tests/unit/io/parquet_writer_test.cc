// ParquetWriter and its encoders: RLE / bit-packed bytes computed by hand from Encodings.md, the
// footer (schema annotations, statistics in each sort order, dictionary vs PLAIN), row-group
// splitting, write-then-rename, and a round trip through Shoal's Parquet reader for every type and
// compression. DuckDB reading the files is tests/interop/parquet_interop.mjs.
#include "shoal/io/parquet/parquet_writer.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/io/parquet/format/parquet_types.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet/rle_encoder.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

using columnar::DataType;
using columnar::Field;
using columnar::RecordBatchPtr;
using columnar::TimeUnit;
using columnar::TypeId;
using testing::MakeBatch;
using testing::TextRow;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) {
    out.push_back(static_cast<char>(b));
  }
  return out;
}

std::string Encode(const std::vector<uint32_t>& values, int bit_width) {
  std::string out;
  RleEncoder::Encode(values.data(), static_cast<int64_t>(values.size()), bit_width, &out);
  return out;
}

TEST(RleEncoderTest, BitPacksTheSpecExample) {
  // Encodings.md: 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  EXPECT_EQ(Encode({0, 1, 2, 3, 4, 5, 6, 7}, 3), Bytes({0x03, 0x88, 0xC6, 0xFA}));
}

TEST(RleEncoderTest, RepeatedValuesBecomeOneRun) {
  // Header 10 << 1, then the value in ceil(3 / 8) = 1 byte.
  EXPECT_EQ(Encode(std::vector<uint32_t>(10, 5), 3), Bytes({0x14, 0x05}));
  // Eight is the shortest run.
  EXPECT_EQ(Encode(std::vector<uint32_t>(8, 1), 1), Bytes({0x10, 0x01}));
  // Bit width 12: the value takes 2 little-endian bytes.
  EXPECT_EQ(Encode(std::vector<uint32_t>(9, 0xABC), 12), Bytes({0x12, 0xBC, 0x0A}));
}

TEST(RleEncoderTest, RunLendsValuesToFillTheLastLiteralGroup) {
  // 1, 2, 3 then twenty 4s: the literal group takes five 4s, the other fifteen are a run.
  std::vector<uint32_t> values = {1, 2, 3};
  values.insert(values.end(), 20, 4);
  EXPECT_EQ(Encode(values, 3), Bytes({0x03, 0xD1, 0x48, 0x92, 0x1E, 0x04}));
}

TEST(RleEncoderTest, ShortRunsStayLiteralAndTheEndIsPadded) {
  // Three values: one group, padded with zero bits to 8 values (2 bytes at width 2).
  EXPECT_EQ(Encode({1, 2, 3}, 2), Bytes({0x03, 0x39, 0x00}));
  // Seven equal values are too short for a run.
  EXPECT_EQ(Encode(std::vector<uint32_t>(7, 1), 1), Bytes({0x03, 0x7F}));
  EXPECT_EQ(Encode({}, 1), "");
}

TEST(RleEncoderTest, VarintsAndBitWidths) {
  std::string out;
  RleEncoder::PutVarint(300, &out);
  EXPECT_EQ(out, Bytes({0xAC, 0x02}));
  EXPECT_EQ(RleEncoder::BitWidth(0), 0);
  EXPECT_EQ(RleEncoder::BitWidth(1), 1);
  EXPECT_EQ(RleEncoder::BitWidth(7), 3);
  EXPECT_EQ(RleEncoder::BitWidth(8), 4);
  EXPECT_EQ(RleEncoder::BitWidth(0xFFFFFFFFULL), 32);
}

class ParquetWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal_parquet_writer_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes `batches` to `name` and returns the footer.
  format::FileMetaData Write(const std::string& name, const std::vector<RecordBatchPtr>& batches,
                             ParquetWriteOptions options = {}) {
    auto writer = ParquetWriter::Open(Path(name), batches.front()->schema(), options);
    EXPECT_OK(writer.status());
    if (!writer.ok()) {
      return {};
    }
    for (const auto& b : batches) {
      EXPECT_OK((*writer)->WriteBatch(b));
    }
    EXPECT_OK((*writer)->Close());
    return Footer(name);
  }

  format::FileMetaData Footer(const std::string& name) {
    std::ifstream in(Path(name), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    format::FileMetaData meta;
    EXPECT_GE(bytes.size(), 12U);
    EXPECT_EQ(bytes.substr(0, 4), "PAR1");
    EXPECT_EQ(bytes.substr(bytes.size() - 4), "PAR1");
    uint32_t length = 0;
    std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
    EXPECT_LE(length + 12, bytes.size());
    auto used = DeserializeThrift(
        reinterpret_cast<const uint8_t*>(bytes.data() + bytes.size() - 8 - length), length, &meta);
    EXPECT_OK(used.status());
    return meta;
  }

  std::filesystem::path dir_;
};

template <typename T>
std::string Le(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

const format::ColumnMetaData& Chunk(const format::FileMetaData& meta, int group, int column) {
  return meta.row_groups.at(static_cast<size_t>(group))
      .columns.at(static_cast<size_t>(column))
      .meta_data;
}

TEST_F(ParquetWriterTest, SchemaCarriesLogicalAndConvertedTypes) {
  auto batch =
      MakeBatch({{"i8", DataType::Int8()},
                 {"u16", DataType::UInt16(), false},
                 {"u64", DataType::UInt64()},
                 {"d9", DataType::Decimal(9, 2)},
                 {"d18", DataType::Decimal(18, 3)},
                 {"d30", DataType::Decimal(30, 4)},
                 {"day", DataType::Date32()},
                 {"ts_local", DataType::Timestamp(TimeUnit::kMicro)},
                 {"ts_utc", DataType::Timestamp(TimeUnit::kMilli, "UTC")},
                 {"ts_ns", DataType::Timestamp(TimeUnit::kNano, "UTC")},
                 {"s", DataType::Utf8()},
                 {"b", DataType::Binary()},
                 {"f", DataType::Float32()},
                 {"flag", DataType::Boolean()}},
                {{"1", "2", "3", "4.5", "6.789", "1.2345", "2024-02-29", "2024-01-01 10:00:00",
                  "2024-01-01 10:00:00Z", "2024-01-01 10:00:00Z", "x", "\\x00ff", "1.5", "t"}});
  auto meta = Write("types.parquet", {batch});
  ASSERT_EQ(meta.schema.size(), 15U);
  EXPECT_EQ(meta.schema[0].num_children, 14);
  const auto& s = meta.schema;
  EXPECT_EQ(s[1].type, format::Type::INT32);
  EXPECT_EQ(s[1].converted_type, format::ConvertedType::INT_8);
  EXPECT_EQ(s[1].logicalType.INTEGER.bitWidth, 8);
  EXPECT_TRUE(s[1].logicalType.INTEGER.isSigned);
  EXPECT_EQ(s[1].repetition_type, format::FieldRepetitionType::OPTIONAL);
  EXPECT_EQ(s[2].repetition_type, format::FieldRepetitionType::REQUIRED);
  EXPECT_EQ(s[2].converted_type, format::ConvertedType::UINT_16);
  EXPECT_FALSE(s[2].logicalType.INTEGER.isSigned);
  EXPECT_EQ(s[3].type, format::Type::INT64);
  EXPECT_EQ(s[3].converted_type, format::ConvertedType::UINT_64);
  // Decimals: INT32 up to 9 digits, INT64 up to 18, FIXED_LEN_BYTE_ARRAY of 13 bytes for 30.
  EXPECT_EQ(s[4].type, format::Type::INT32);
  EXPECT_EQ(s[4].converted_type, format::ConvertedType::DECIMAL);
  EXPECT_EQ(s[4].precision, 9);
  EXPECT_EQ(s[4].scale, 2);
  EXPECT_EQ(s[4].logicalType.DECIMAL.precision, 9);
  EXPECT_EQ(s[5].type, format::Type::INT64);
  EXPECT_EQ(s[6].type, format::Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(s[6].type_length, 13);
  EXPECT_EQ(s[7].converted_type, format::ConvertedType::DATE);
  EXPECT_TRUE(s[7].logicalType.__isset.DATE);
  // Timestamps: isAdjustedToUTC from the time zone; legacy annotations only for UTC ms / us.
  EXPECT_FALSE(s[8].logicalType.TIMESTAMP.isAdjustedToUTC);
  EXPECT_TRUE(s[8].logicalType.TIMESTAMP.unit.__isset.MICROS);
  EXPECT_FALSE(s[8].__isset.converted_type);
  EXPECT_TRUE(s[9].logicalType.TIMESTAMP.isAdjustedToUTC);
  EXPECT_EQ(s[9].converted_type, format::ConvertedType::TIMESTAMP_MILLIS);
  EXPECT_TRUE(s[10].logicalType.TIMESTAMP.unit.__isset.NANOS);
  EXPECT_FALSE(s[10].__isset.converted_type);
  EXPECT_EQ(s[11].type, format::Type::BYTE_ARRAY);
  EXPECT_EQ(s[11].converted_type, format::ConvertedType::UTF8);
  EXPECT_TRUE(s[11].logicalType.__isset.STRING);
  EXPECT_EQ(s[12].type, format::Type::BYTE_ARRAY);
  EXPECT_FALSE(s[12].__isset.converted_type);
  EXPECT_EQ(s[13].type, format::Type::FLOAT);
  EXPECT_EQ(s[14].type, format::Type::BOOLEAN);
  EXPECT_EQ(meta.column_orders.size(), 14U);
  EXPECT_EQ(meta.num_rows, 1);
}

TEST_F(ParquetWriterTest, StatisticsFollowEachSortOrder) {
  auto batch = MakeBatch({{"i", DataType::Int32()},
                          {"u", DataType::UInt32()},
                          {"s", DataType::Utf8()},
                          {"d", DataType::Decimal(30, 0)},
                          {"f", DataType::Float64()},
                          {"none", DataType::Int64()}},
                         {{"5", "1", "b", "-1", "0", "NULL"},
                          {"-3", "4000000000", "a", "2", "NaN", "NULL"},
                          {"NULL", "NULL", "c", "NULL", "1.5", "NULL"},
                          {"7", "3", "NULL", "1", "-0", "NULL"}});
  auto meta = Write("stats.parquet", {batch});
  const auto& i = Chunk(meta, 0, 0).statistics;
  EXPECT_EQ(i.min_value, Le<int32_t>(-3));
  EXPECT_EQ(i.max_value, Le<int32_t>(7));
  EXPECT_EQ(i.min, Le<int32_t>(-3));  // legacy fields too, where signed order is right
  EXPECT_EQ(i.null_count, 1);
  // Unsigned: 4000000000 is the largest, although its int32 bit pattern is negative.
  const auto& u = Chunk(meta, 0, 1).statistics;
  EXPECT_EQ(u.min_value, Le<int32_t>(1));
  EXPECT_EQ(u.max_value, Le<uint32_t>(4000000000U));
  EXPECT_FALSE(u.__isset.min);
  const auto& s = Chunk(meta, 0, 2).statistics;
  EXPECT_EQ(s.min_value, "a");
  EXPECT_EQ(s.max_value, "c");
  EXPECT_FALSE(s.__isset.max);
  // Decimals compare by value and are stored big-endian in 13 bytes.
  const auto& d = Chunk(meta, 0, 3).statistics;
  EXPECT_EQ(d.min_value, std::string(13, '\xFF'));
  EXPECT_EQ(d.max_value, std::string(12, '\0') + '\x02');
  // NaN is ignored; a zero bound is -0.0 as min (and +0.0 as max).
  const auto& f = Chunk(meta, 0, 4).statistics;
  EXPECT_EQ(f.min_value, Le<double>(-0.0));
  EXPECT_EQ(f.max_value, Le<double>(1.5));
  // All null: a null count and no bounds.
  const auto& none = Chunk(meta, 0, 5).statistics;
  EXPECT_EQ(none.null_count, 4);
  EXPECT_FALSE(none.__isset.min_value);
}

TEST_F(ParquetWriterTest, LongStringBoundsAreTruncatedAndStillBound) {
  std::string low(100, 'a');
  std::string high = std::string(70, 'z') + "!";
  auto batch = MakeBatch({{"s", DataType::Utf8()}}, {{low}, {high}});
  auto meta = Write("long.parquet", {batch});
  const auto& s = Chunk(meta, 0, 0).statistics;
  EXPECT_EQ(s.min_value, std::string(64, 'a'));
  // 64 'z' with the last incremented to '{': above every string starting with 64 'z'.
  EXPECT_EQ(s.max_value, std::string(63, 'z') + "{");
}

// Page bytes as Encodings.md lays them out: v1 data page = definition levels (4-byte length + RLE
// hybrid) + PLAIN values; dictionary page = PLAIN values; dictionary data page = bit width + RLE.
TEST_F(ParquetWriterTest, PagesHoldTheSpecsBytes) {
  auto batch = MakeBatch({{"n", DataType::Int32()}, {"s", DataType::Utf8(), false}},
                         {{"1", "a"}, {"NULL", "b"}, {"3", "a"}});
  ParquetWriteOptions options;
  options.encoding.compression = ParquetCompression::kNone;
  options.encoding.use_dictionary = false;
  auto plain = Write("plain.parquet", {batch}, options);
  options.encoding.use_dictionary = true;
  std::ifstream in(Path("plain.parquet"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The page at `offset`: its header and its body.
  auto page = [&](const std::string& file, int64_t offset, format::PageHeader* header) {
    EXPECT_LT(offset, static_cast<int64_t>(file.size()));
    auto used = DeserializeThrift(reinterpret_cast<const uint8_t*>(file.data() + offset),
                                  file.size() - static_cast<size_t>(offset), header);
    EXPECT_OK(used.status());
    return file.substr(static_cast<size_t>(offset) + (used.ok() ? *used : 0),
                       static_cast<size_t>(header->compressed_page_size));
  };
  format::PageHeader header;
  std::string body = page(bytes, Chunk(plain, 0, 0).data_page_offset, &header);
  EXPECT_EQ(header.type, format::PageType::DATA_PAGE);
  EXPECT_EQ(header.data_page_header.num_values, 3);
  EXPECT_EQ(header.data_page_header.encoding, format::Encoding::PLAIN);
  EXPECT_EQ(header.data_page_header.definition_level_encoding, format::Encoding::RLE);
  EXPECT_EQ(header.uncompressed_page_size, header.compressed_page_size);
  // Levels 1, 0, 1: one bit-packed group (0b101); then the two values.
  EXPECT_EQ(body, Bytes({2, 0, 0, 0, 0x03, 0x05, 1, 0, 0, 0, 3, 0, 0, 0}));
  body = page(bytes, Chunk(plain, 0, 1).data_page_offset, &header);
  // REQUIRED: no levels; PLAIN byte arrays are a 4-byte length and the bytes.
  EXPECT_EQ(body, Bytes({1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b', 1, 0, 0, 0, 'a'}));

  std::vector<TextRow> rows;
  for (int r = 0; r < 16; ++r) {
    rows.push_back({r % 2 ? "b" : "a"});
  }
  auto strings = MakeBatch({{"s", DataType::Utf8(), false}}, rows);
  auto dict = Write("dict_bytes.parquet", {strings}, options);
  std::ifstream in2(Path("dict_bytes.parquet"), std::ios::binary);
  std::string bytes2((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  const auto& chunk = Chunk(dict, 0, 0);
  ASSERT_TRUE(chunk.__isset.dictionary_page_offset);
  body = page(bytes2, chunk.dictionary_page_offset, &header);
  EXPECT_EQ(header.type, format::PageType::DICTIONARY_PAGE);
  EXPECT_EQ(header.dictionary_page_header.num_values, 2);
  EXPECT_EQ(header.dictionary_page_header.encoding, format::Encoding::PLAIN);
  EXPECT_EQ(body, Bytes({1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b'}));
  body = page(bytes2, chunk.data_page_offset, &header);
  EXPECT_EQ(header.data_page_header.encoding, format::Encoding::RLE_DICTIONARY);
  // Bit width 1, then indices 0, 1, 0, 1, ... as two bit-packed groups (0b10101010 each).
  EXPECT_EQ(body, Bytes({0x01, 0x05, 0xAA, 0xAA}));
}

// Issue 13 item 11: every page carries PageHeader.crc, the CRC-32 (zlib's) of its bytes as
// stored, and a bit flipped in an uncompressed page is an error naming the file, row group, column
// and page instead of a silently different value.
TEST_F(ParquetWriterTest, PagesCarryCrcsAndAFlippedBitIsReported) {
  std::vector<TextRow> rows;
  for (int r = 0; r < 1000; ++r) {
    rows.push_back({std::to_string(r * 1000003LL), r % 2 ? "x" : "y"});
  }
  auto batch = MakeBatch({{"k", DataType::Int64(), false}, {"s", DataType::Utf8(), false}}, rows);
  ParquetWriteOptions options;
  options.encoding.compression = ParquetCompression::kNone;
  auto meta = Write("crc.parquet", {batch}, options);
  std::string bytes;
  {
    std::ifstream in(Path("crc.parquet"), std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  int64_t k_body = -1;  // where column k's first data page body starts
  for (int c = 0; c < 2; ++c) {
    const auto& chunk = Chunk(meta, 0, c);
    int64_t offset = chunk.__isset.dictionary_page_offset ? chunk.dictionary_page_offset
                                                          : chunk.data_page_offset;
    const int64_t end = offset + chunk.total_compressed_size;
    int pages = 0;
    while (offset < end) {
      format::PageHeader header;
      ASSERT_OK_AND_ASSIGN(
          size_t used, DeserializeThrift(reinterpret_cast<const uint8_t*>(bytes.data() + offset),
                                         bytes.size() - static_cast<size_t>(offset), &header));
      ASSERT_TRUE(header.__isset.crc) << "column " << c << " page " << pages;
      const auto* body = reinterpret_cast<const Bytef*>(bytes.data() + offset + used);
      const uLong crc =
          crc32(crc32(0L, Z_NULL, 0), body, static_cast<uInt>(header.compressed_page_size));
      EXPECT_EQ(static_cast<uint32_t>(header.crc), static_cast<uint32_t>(crc));
      if (c == 0 && k_body < 0 && header.type == format::PageType::DATA_PAGE &&
          header.data_page_header.encoding == format::Encoding::PLAIN)
        k_body = offset + static_cast<int64_t>(used);
      offset += static_cast<int64_t>(used) + header.compressed_page_size;
      ++pages;
    }
    EXPECT_GE(pages, 1);
  }
  ASSERT_TRUE(Chunk(meta, 0, 1).__isset.dictionary_page_offset);  // a dictionary page was checked
  ASSERT_GE(k_body, 0);
  // Flip one bit of a value of k (PLAIN int64s: the body's bytes are the values themselves).
  bytes[static_cast<size_t>(k_body) + 8 * 500 + 2] ^= 0x10;
  {
    std::ofstream out(Path("flipped.parquet"), std::ios::binary);
    out << bytes;
  }
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(Path("flipped.parquet"), nullptr, {}));
  ScanRequest request;
  request.projection = {0};
  ScanContext context;
  context.pool = DefaultMemoryPool();
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  Status failure;
  for (const auto& unit : units) {
    ASSERT_OK_AND_ASSIGN(auto reader, table->OpenUnit(unit, request, context));
    for (;;) {
      auto got = reader->Next();
      if (!got.ok()) {
        failure = got.status();
        break;
      }
      if (!*got)
        break;
    }
  }
  ASSERT_FALSE(failure.ok()) << "a flipped bit went unnoticed";
  const std::string text = failure.ToString();
  EXPECT_EQ(failure.code(), StatusCode::kInvalidData);
  for (const std::string& part :
       {Path("flipped.parquet"), std::string("row group 0"), std::string("column 'k'"),
        std::string("page 0"), std::string("checksum")}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << " missing from: " << text;
  }
}

TEST_F(ParquetWriterTest, SplitsRowGroupsAcrossBatches) {
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 4; ++b) {
    std::vector<TextRow> rows;
    for (int r = 0; r < 3; ++r) {
      rows.push_back({std::to_string(b * 3 + r)});
    }
    batches.push_back(MakeBatch({{"n", DataType::Int64(), false}}, rows));
  }
  ParquetWriteOptions options;
  options.row_group_size = 5;
  auto meta = Write("groups.parquet", batches, options);
  ASSERT_EQ(meta.row_groups.size(), 3U);
  EXPECT_EQ(meta.row_groups[0].num_rows, 5);
  EXPECT_EQ(meta.row_groups[1].num_rows, 5);
  EXPECT_EQ(meta.row_groups[2].num_rows, 2);
  EXPECT_EQ(meta.num_rows, 12);
  EXPECT_EQ(Chunk(meta, 1, 0).statistics.min_value, Le<int64_t>(5));
  EXPECT_EQ(Chunk(meta, 1, 0).statistics.max_value, Le<int64_t>(9));
  // Each chunk starts where the previous one ended.
  EXPECT_EQ(Chunk(meta, 0, 0).data_page_offset, 4);
  EXPECT_EQ(Chunk(meta, 1, 0).data_page_offset, 4 + Chunk(meta, 0, 0).total_compressed_size);
}

TEST_F(ParquetWriterTest, DictionaryOnlyWhereItPays) {
  std::vector<TextRow> rows;
  for (int r = 0; r < 1000; ++r) {
    rows.push_back({std::to_string(r), "color-" + std::to_string(r % 3)});
  }
  auto batch =
      MakeBatch({{"key", DataType::Int64(), false}, {"color", DataType::Utf8(), false}}, rows);
  auto meta = Write("dict.parquet", {batch});
  const auto& key = Chunk(meta, 0, 0);
  const auto& color = Chunk(meta, 0, 1);
  EXPECT_FALSE(key.__isset.dictionary_page_offset);
  EXPECT_TRUE(color.__isset.dictionary_page_offset);
  EXPECT_NE(
      std::find(color.encodings.begin(), color.encodings.end(), format::Encoding::RLE_DICTIONARY),
      color.encodings.end());
  EXPECT_LT(color.data_page_offset - color.dictionary_page_offset, 100);
  // 1000 indices of 2 bits plus three values: far smaller than PLAIN's ~11 KB.
  EXPECT_LT(color.total_uncompressed_size, 600);
  ParquetWriteOptions plain;
  plain.encoding.use_dictionary = false;
  auto meta2 = Write("plain.parquet", {batch}, plain);
  EXPECT_FALSE(Chunk(meta2, 0, 1).__isset.dictionary_page_offset);
}

// Dictionaries of thousands of entries (the hash table grows several times) still map every value
// to its own entry.
TEST_F(ParquetWriterTest, LargeDictionariesRoundTrip) {
  std::vector<TextRow> rows;
  for (int r = 0; r < 40000; ++r) {
    const int v = r * 7919 % 3000;
    rows.push_back({std::to_string(v * 1000003LL), "name-" + std::to_string(v)});
  }
  std::vector<Field> fields = {{"k", DataType::Int64(), false}, {"s", DataType::Utf8(), false}};
  auto batch = MakeBatch(fields, rows);
  auto meta = Write("big_dict.parquet", {batch});
  ASSERT_TRUE(Chunk(meta, 0, 0).__isset.dictionary_page_offset);
  ASSERT_TRUE(Chunk(meta, 0, 1).__isset.dictionary_page_offset);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(Path("big_dict.parquet"), nullptr, {}));
  ScanRequest request;
  request.projection = {0, 1};
  request.batch_size = 4096;
  ScanContext context;
  context.pool = DefaultMemoryPool();
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  int64_t row = 0;
  for (const auto& unit : units) {
    ASSERT_OK_AND_ASSIGN(auto reader, table->OpenUnit(unit, request, context));
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr got, reader->Next());
      if (!got) {
        break;
      }
      for (int64_t r = 0; r < got->num_rows(); ++r, ++row) {
        ASSERT_EQ(columnar::FormatValue(*got->column(0), r), rows[static_cast<size_t>(row)][0]);
        ASSERT_EQ(columnar::FormatValue(*got->column(1), r), rows[static_cast<size_t>(row)][1]);
      }
    }
  }
  EXPECT_EQ(row, 40000);
}

TEST_F(ParquetWriterTest, WritesUnderATemporaryNameAndRenamesOnClose) {
  auto batch = MakeBatch({{"n", DataType::Int32()}}, {{"1"}, {"2"}});
  const std::string target = Path("out.parquet");
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(target, batch->schema()));
  ASSERT_OK(writer->WriteBatch(batch));
  EXPECT_TRUE(std::filesystem::exists(writer->temporary_path()));
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_EQ(std::filesystem::path(writer->temporary_path()).filename().string().front(), '.');
  ASSERT_OK(writer->Close());
  EXPECT_TRUE(std::filesystem::exists(target));
  EXPECT_FALSE(std::filesystem::exists(writer->temporary_path()));
}

TEST_F(ParquetWriterTest, FailedOrAbandonedWritesLeaveNoFile) {
  auto batch = MakeBatch({{"n", DataType::Int32()}}, {{"1"}});
  const std::string target = Path("gone.parquet");
  std::string temporary;
  {
    ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(target, batch->schema()));
    ASSERT_OK(writer->WriteBatch(batch));
    temporary = writer->temporary_path();
  }  // destroyed without Close
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_FALSE(std::filesystem::exists(target));
  // A null in a NOT NULL column fails the row group; nothing is left behind.
  auto declared = std::make_shared<columnar::Schema>(
      std::vector<Field>{Field("n", DataType::Int32(), /*nullable=*/false)});
  ParquetWriteOptions options;
  options.row_group_size = 1;
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(target, declared, options));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     writer->WriteBatch(MakeBatch({{"n", DataType::Int32()}}, {{"NULL"}})));
  EXPECT_FALSE(std::filesystem::exists(writer->temporary_path()));
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(ParquetWriterTest, RefusesTypesParquetCannotHold) {
  auto schema =
      std::make_shared<columnar::Schema>(std::vector<Field>{Field("span", DataType::Interval())});
  EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                     ParquetWriter::Open(Path("x.parquet"), schema).status());
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

// Mostly distinct values give up on the dictionary after the probe, long before its size limit.
TEST_F(ParquetWriterTest, DistinctValuesSkipTheDictionaryEarly) {
  std::vector<TextRow> rows;
  for (int r = 0; r < 10000; ++r) {
    rows.push_back({std::to_string(r % 6000), "s" + std::to_string(r % 6000)});
  }
  auto batch = MakeBatch({{"k", DataType::Int32(), false}, {"s", DataType::Utf8(), false}}, rows);
  auto meta = Write("distinct.parquet", {batch});
  // 6000 distinct of 10000 would pay as a dictionary overall, but the first 8192 are mostly new.
  EXPECT_FALSE(Chunk(meta, 0, 0).__isset.dictionary_page_offset);
  EXPECT_FALSE(Chunk(meta, 0, 1).__isset.dictionary_page_offset);
}

// Every type, nulls, dictionary arrays, several row groups and pages, each compression: what
// Shoal's reader reads back equals what was written.
TEST_F(ParquetWriterTest, RoundTripsThroughTheReader) {
  std::vector<Field> fields = {
      {"id", DataType::Int32(), false},
      {"flag", DataType::Boolean()},
      {"i8", DataType::Int8()},
      {"i16", DataType::Int16()},
      {"i64", DataType::Int64()},
      {"u8", DataType::UInt8()},
      {"u32", DataType::UInt32()},
      {"u64", DataType::UInt64()},
      {"f32", DataType::Float32()},
      {"f64", DataType::Float64()},
      {"d9", DataType::Decimal(9, 2)},
      {"d18", DataType::Decimal(18, 4)},
      {"d38", DataType::Decimal(38, 10)},
      {"day", DataType::Date32()},
      {"ts", DataType::Timestamp(TimeUnit::kMicro)},
      {"ts_ms", DataType::Timestamp(TimeUnit::kMilli, "UTC")},
      {"ts_ns", DataType::Timestamp(TimeUnit::kNano)},
      {"s", DataType::Utf8()},
      {"b", DataType::Binary()},
      {"city", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())},
  };
  const char* kCities[] = {"Oslo", "Lima", "Pune", "Kyiv"};
  std::vector<RecordBatchPtr> batches;
  std::vector<TextRow> all;
  for (int b = 0; b < 3; ++b) {
    std::vector<TextRow> rows;
    for (int r = 0; r < 400; ++r) {
      const int n = b * 400 + r;
      auto maybe = [&](std::string v, int every) { return n % every == 0 ? "NULL" : v; };
      rows.push_back(
          {std::to_string(n),
           maybe(n % 2 ? "t" : "f", 5),
           maybe(std::to_string(n % 256 - 128), 7),
           maybe(std::to_string(n * 13 % 65536 - 32768), 11),
           maybe(std::to_string(static_cast<int64_t>(n) * -3037000499LL), 3),
           maybe(std::to_string(n % 256), 13),
           maybe(std::to_string(4294967295U - n), 4),
           maybe(std::to_string(18446744073709551615ULL - n), 6),
           maybe(std::to_string(n * 0.25), 9),
           maybe(n % 17 ? std::to_string(n / 3.0) : "NaN", 8),
           maybe(std::to_string(n - 600) + ".25", 10),
           maybe(std::to_string(n * 1000003LL) + ".1234", 12),
           maybe("-12345678901234567890123456." + std::to_string(1000000000 + n), 14),
           maybe(n % 50 == 1 ? "0044-03-15 BC" : "2024-02-" + std::to_string(n % 18 + 10), 15),
           maybe("2024-03-01 12:00:" + std::to_string(10 + n % 50) + ".123456", 16),
           maybe("1999-12-31 23:59:59.5Z", 17),
           maybe("2001-01-01 00:00:00.000000001", 18),
           maybe(n % 29 == 0 ? "" : "text " + std::to_string(n) + " Ωmega", 19),
           maybe(n % 2 ? "\\x00ff10" : "\\x", 20),
           maybe(kCities[n % 4], 21)});
    }
    all.insert(all.end(), rows.begin(), rows.end());
    batches.push_back(MakeBatch(fields, rows));
  }
  for (auto compression :
       {ParquetCompression::kNone, ParquetCompression::kSnappy, ParquetCompression::kGzip,
        ParquetCompression::kZstd, ParquetCompression::kLz4Raw}) {
    SCOPED_TRACE(ParquetCompressionName(compression));
    ParquetWriteOptions options;
    options.row_group_size = 500;
    options.encoding.compression = compression;
    options.encoding.page_size = 1024;  // many pages per chunk
    const std::string name = std::string("all_") + ParquetCompressionName(compression) + ".parquet";
    auto meta = Write(name, batches, options);
    ASSERT_EQ(meta.row_groups.size(), 3U);
    ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(Path(name), nullptr, {}));
    ScanRequest request;
    for (int c = 0; c < static_cast<int>(fields.size()); ++c) {
      request.projection.push_back(c);
    }
    ScanContext context;
    context.pool = DefaultMemoryPool();
    ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
    int64_t row = 0;
    auto expected = MakeBatch(fields, all);
    for (const auto& unit : units) {
      ASSERT_OK_AND_ASSIGN(auto reader, table->OpenUnit(unit, request, context));
      for (;;) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
        if (!batch) {
          break;
        }
        for (int64_t r = 0; r < batch->num_rows(); ++r, ++row) {
          for (int c = 0; c < batch->num_columns(); ++c) {
            const auto& want = *expected->column(c);
            const auto& got = *batch->column(c);
            ASSERT_EQ(want.IsNull(row), got.IsNull(r)) << fields[c].name << " row " << row;
            if (!want.IsNull(row)) {
              ASSERT_EQ(columnar::FormatValue(want, row), columnar::FormatValue(got, r))
                  << fields[c].name << " row " << row;
            }
          }
        }
      }
    }
    EXPECT_EQ(row, 1200);
  }
}

}  // namespace
}  // namespace shoal::io::parquet

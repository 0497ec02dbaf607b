// The Parquet reader end to end over files DuckDB wrote (tests/data/parquet, made by
// make_files.mjs): every column type with NULLs, each compression codec, v1 and v2 data pages with
// DuckDB's dictionary / delta / byte-stream-split encodings; footer errors; row-group pruning.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

// A path of its own under the temporary directory: ctest runs tests in parallel processes, and a
// fixed name lets one test delete another's file.
std::string UniqueTempPath(const std::string& stem) {
  return (std::filesystem::temp_directory_path() /
          (stem + "_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name()))
      .string();
}

using columnar::ArrayPtr;
using columnar::int128_t;
using columnar::RecordBatchPtr;
using columnar::Scalar;
using columnar::TypeId;

const std::string kDataDir = SHOAL_PARQUET_TEST_DATA_DIR;

// All rows of a table, one batch per unit concatenated column by column.
struct Rows {
  std::vector<std::vector<ArrayPtr>> columns;  // [column][chunk]
  int64_t num_rows = 0;
};

Result<Rows> ReadAll(const ParquetTable& table, std::vector<int> projection = {},
                     std::vector<ColumnPredicate> predicates = {},
                     std::map<std::string, int64_t>* metrics = nullptr) {
  ScanRequest request;
  if (projection.empty())
    for (int i = 0; i < table.schema()->num_fields(); ++i)
      projection.push_back(i);
  request.projection = projection;
  request.predicates = std::move(predicates);
  request.batch_size = 37;  // odd, so row groups are sliced unevenly
  ScanContext context;
  context.pool = DefaultMemoryPool();
  if (metrics != nullptr)
    context.add_metric = [metrics](const std::string& name, int64_t v) { (*metrics)[name] += v; };
  SHOAL_ASSIGN_OR_RETURN(auto units, table.PlanScan(request));
  Rows rows;
  rows.columns.resize(projection.size());
  for (const auto& unit : units) {
    SHOAL_ASSIGN_OR_RETURN(auto reader, table.OpenUnit(unit, request, context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
      if (!batch)
        break;
      for (size_t c = 0; c < projection.size(); ++c)
        rows.columns[c].push_back(batch->column(static_cast<int>(c)));
      rows.num_rows += batch->num_rows();
    }
  }
  return rows;
}

// Element `row` of a chunked column: the chunk and the index in it.
std::pair<const columnar::Array*, int64_t> At(const std::vector<ArrayPtr>& chunks, int64_t row) {
  for (const auto& a : chunks) {
    if (row < a->length())
      return {a.get(), row};
    row -= a->length();
  }
  return {nullptr, 0};
}

int128_t Dec38(int64_t i) {
  int128_t v = static_cast<int128_t>(i - 150) * 123456789012345678LL;
  for (int k = 0; k < 10; ++k)
    v *= 10;
  return v + i;
}

std::string S(int64_t i) {
  if (i % 13 == 0)
    return "\xC3\xA9" + std::to_string(i);
  return "s" + std::to_string(i) + std::string(static_cast<size_t>(i % 5), 'x');
}

void CheckTypesFile(const std::string& name) {
  SCOPED_TRACE(name);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(kDataDir + "/" + name, nullptr, {}));
  const auto& schema = *table->schema();
  ASSERT_EQ(schema.num_fields(), 23);
  EXPECT_EQ(schema.field(1).type, columnar::DataType::Boolean());
  EXPECT_EQ(schema.field(2).type, columnar::DataType::Int8());
  EXPECT_EQ(schema.field(9).type, columnar::DataType::UInt64());
  EXPECT_EQ(schema.field(12).type, columnar::DataType::Decimal(9, 2));
  EXPECT_EQ(schema.field(14).type, columnar::DataType::Decimal(38, 10));
  EXPECT_EQ(schema.field(15).type, columnar::DataType::Date32());
  EXPECT_EQ(schema.field(16).type, columnar::DataType::Timestamp(columnar::TimeUnit::kMicro));
  EXPECT_EQ(schema.field(17).type, columnar::DataType::Timestamp(columnar::TimeUnit::kMilli));
  EXPECT_EQ(schema.field(18).type, columnar::DataType::Timestamp(columnar::TimeUnit::kNano));
  EXPECT_EQ(schema.field(19).type,
            columnar::DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC"));
  EXPECT_EQ(schema.field(20).type, columnar::DataType::Utf8());
  EXPECT_EQ(schema.field(22).type, columnar::DataType::Binary());
  EXPECT_EQ(table->statistics().num_rows, 100);
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table));
  ASSERT_EQ(rows.num_rows, 100);
  for (int64_t i = 0; i < 100; ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const bool null = i % 10 == 3;
    for (int c = 1; c < 23; ++c) {
      auto [a, k] = At(rows.columns[static_cast<size_t>(c)], i);
      ASSERT_NE(a, nullptr);
      ASSERT_EQ(a->IsNull(k), null) << "column " << schema.field(c).name;
    }
    auto [id, ki] = At(rows.columns[0], i);
    EXPECT_EQ(id->Value<int32_t>(ki), i);
    if (null)
      continue;
    auto v = [&](int c) { return At(rows.columns[static_cast<size_t>(c)], i); };
    EXPECT_EQ(v(1).first->BoolValue(v(1).second), i % 3 == 0);
    EXPECT_EQ(v(2).first->Value<int8_t>(v(2).second), (i % 200) - 100);
    EXPECT_EQ(v(3).first->Value<int16_t>(v(3).second), i * 13 - 2000);
    EXPECT_EQ(v(4).first->Value<int32_t>(v(4).second), ((i * 1000003) % 2000000) - 1000000);
    EXPECT_EQ(v(5).first->Value<int64_t>(v(5).second), i * 123456789012LL - 5000000000000LL);
    EXPECT_EQ(v(6).first->Value<uint8_t>(v(6).second), i % 256);
    EXPECT_EQ(v(7).first->Value<uint16_t>(v(7).second), (i * 200) % 65536);
    EXPECT_EQ(v(8).first->Value<uint32_t>(v(8).second), (i * 16777259LL) % 4294967296LL);
    EXPECT_EQ(v(9).first->Value<uint64_t>(v(9).second),
              static_cast<uint64_t>(i) * 61000000000000000ULL);
    EXPECT_EQ(v(10).first->Value<float>(v(10).second), static_cast<float>(i * 0.25 - 10));
    EXPECT_EQ(v(11).first->Value<double>(v(11).second), i * 1.5 - 100.125);
    EXPECT_EQ(v(12).first->Value<int64_t>(v(12).second), i * 123 - 5000);
    EXPECT_EQ(v(13).first->Value<int64_t>(v(13).second), i * 1000000007LL - 100000000000LL);
    EXPECT_TRUE(v(14).first->Value<int128_t>(v(14).second) == Dec38(i));
    EXPECT_EQ(v(15).first->Value<int32_t>(v(15).second), -3653 + i * 37);
    const int64_t micros = 631152000000000LL + i * 12345678901LL;
    EXPECT_EQ(v(16).first->Value<int64_t>(v(16).second), micros);
    // DuckDB rounds to the nearest millisecond when it casts to TIMESTAMP_MS.
    EXPECT_EQ(v(17).first->Value<int64_t>(v(17).second), (micros + 500) / 1000);
    EXPECT_EQ(v(18).first->Value<int64_t>(v(18).second), micros * 1000);
    EXPECT_EQ(v(19).first->Value<int64_t>(v(19).second), micros);
    EXPECT_EQ(v(20).first->StringValue(v(20).second), S(i));
    EXPECT_EQ(v(21).first->StringValue(v(21).second), "cat" + std::to_string(i % 4));
    EXPECT_EQ(v(22).first->StringValue(v(22).second), "b" + std::to_string(i));
  }
}

TEST(ParquetReaderTest, DuckDbDefaultSnappy) {
  CheckTypesFile("types_snappy.parquet");
}
TEST(ParquetReaderTest, DuckDbGzip) {
  CheckTypesFile("types_gzip.parquet");
}
TEST(ParquetReaderTest, DuckDbZstd) {
  CheckTypesFile("types_zstd.parquet");
}
TEST(ParquetReaderTest, DuckDbLz4Raw) {
  CheckTypesFile("types_lz4.parquet");
}
TEST(ParquetReaderTest, DuckDbUncompressed) {
  CheckTypesFile("types_uncompressed.parquet");
}
TEST(ParquetReaderTest, DuckDbV2PagesDeltaAndByteStreamSplit) {
  CheckTypesFile("types_v2_zstd.parquet");
}
TEST(ParquetReaderTest, DuckDbV2PagesSnappy) {
  CheckTypesFile("types_v2_snappy.parquet");
}

TEST(ParquetReaderTest, StatisticsFromFooters) {
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(kDataDir + "/sorted.parquet", nullptr, {}));
  const TableStatistics stats = table->statistics();
  EXPECT_EQ(stats.num_rows, 10000);
  ASSERT_EQ(stats.columns.size(), 2u);
  ASSERT_TRUE(stats.columns[0].min.has_value());
  EXPECT_EQ(*stats.columns[0].min, Scalar::Int32(0));
  EXPECT_EQ(*stats.columns[0].max, Scalar::Int32(9999));
  EXPECT_EQ(*stats.columns[1].max, Scalar::Int64(19998));
  EXPECT_EQ(stats.columns[0].null_count, 0);
}

TEST(ParquetReaderTest, PrunesRowGroupsBySortedColumn) {
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(kDataDir + "/sorted.parquet", nullptr, {}));
  std::map<std::string, int64_t> metrics;
  ASSERT_OK_AND_ASSIGN(
      Rows rows, ReadAll(*table, {0, 1}, {{0, PredicateOp::kGe, {Scalar::Int32(9000)}}}, &metrics));
  // Only the last row group (8192..9999) can hold k >= 9000.
  EXPECT_EQ(rows.num_rows, 1808);
  EXPECT_EQ(metrics["row_groups_total"], 5);
  EXPECT_EQ(metrics["row_groups_pruned"], 4);
  auto [a, k] = At(rows.columns[1], 0);
  EXPECT_EQ(a->Value<int64_t>(k), 16384);

  metrics.clear();
  ASSERT_OK_AND_ASSIGN(
      rows, ReadAll(*table, {0}, {{0, PredicateOp::kEq, {Scalar::Int32(-5)}}}, &metrics));
  EXPECT_EQ(rows.num_rows, 0);
  EXPECT_EQ(metrics["row_groups_pruned"], 5);

  metrics.clear();
  ASSERT_OK_AND_ASSIGN(
      rows, ReadAll(*table, {0}, {{0, PredicateOp::kIn, {Scalar::Int32(10), Scalar::Int32(5000)}}},
                    &metrics));
  EXPECT_EQ(rows.num_rows, 2048 * 2);
  EXPECT_EQ(metrics["row_groups_pruned"], 3);

  metrics.clear();
  ASSERT_OK_AND_ASSIGN(rows, ReadAll(*table, {0}, {{0, PredicateOp::kIsNull, {}}}, &metrics));
  EXPECT_EQ(metrics["row_groups_pruned"], 5);
}

TEST(ParquetReaderTest, CountWithoutColumns) {
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(kDataDir + "/sorted.parquet", nullptr, {}));
  ScanRequest request;
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  EXPECT_EQ(units.size(), 5u);
  int64_t rows = 0;
  for (const auto& unit : units) {
    ASSERT_OK_AND_ASSIGN(auto reader, table->OpenUnit(unit, request, {}));
    for (;;) {
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
      if (!batch)
        break;
      EXPECT_EQ(batch->num_columns(), 0);
      rows += batch->num_rows();
    }
  }
  EXPECT_EQ(rows, 10000);
}

TEST(ParquetReaderTest, DirectoryOfFilesIsOneTable) {
  const auto dir = std::filesystem::path(UniqueTempPath("shoal_parquet_dir_test"));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"types_snappy.parquet", "types_v2_zstd.parquet"})
    std::filesystem::copy_file(kDataDir + "/" + f, dir / f);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(dir.string(), nullptr, {}));
  EXPECT_EQ(table->statistics().num_rows, 200);
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, {0}));
  EXPECT_EQ(rows.num_rows, 200);
  // A file with other columns is an error naming it.
  std::filesystem::copy_file(kDataDir + "/sorted.parquet", dir / "zz_other.parquet");
  auto bad = ParquetTable::Make(dir.string(), nullptr, {});
  ASSERT_STATUS_CODE(StatusCode::kInvalidData, bad);
  EXPECT_NE(bad.status().message().find("zz_other.parquet"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ParquetReaderTest, ColumnListMustMatch) {
  auto good =
      columnar::Schema({{"k", columnar::DataType::Int32()}, {"v", columnar::DataType::Int64()}});
  EXPECT_OK(ParquetTable::Make(kDataDir + "/sorted.parquet",
                               std::make_shared<const columnar::Schema>(good), {})
                .status());
  auto bad =
      columnar::Schema({{"k", columnar::DataType::Int64()}, {"v", columnar::DataType::Int64()}});
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     ParquetTable::Make(kDataDir + "/sorted.parquet",
                                        std::make_shared<const columnar::Schema>(bad), {}));
}

// A file assembled by hand from our own thrift structs: one REQUIRED INT32 column (DuckDB marks
// every column OPTIONAL), one PLAIN data page carrying a CRC.
std::string HandMadeFile(const std::vector<int32_t>& values, bool good_crc) {
  namespace f = format;
  std::string data(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  f::PageHeader page;
  page.type = f::PageType::DATA_PAGE;
  page.uncompressed_page_size = static_cast<int32_t>(data.size());
  page.compressed_page_size = static_cast<int32_t>(data.size());
  uint32_t crc =
      static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.data()),
                                  static_cast<uInt>(data.size())));
  page.__set_crc(static_cast<int32_t>(good_crc ? crc : crc ^ 1));
  f::DataPageHeader dp;
  dp.num_values = static_cast<int32_t>(values.size());
  dp.encoding = f::Encoding::PLAIN;
  dp.definition_level_encoding = f::Encoding::RLE;
  dp.repetition_level_encoding = f::Encoding::RLE;
  page.__set_data_page_header(dp);
  const std::string header = SerializeThrift(page).value();
  f::FileMetaData meta;
  meta.version = 1;
  meta.num_rows = static_cast<int64_t>(values.size());
  f::SchemaElement root;
  root.name = "schema";
  root.__set_num_children(1);
  f::SchemaElement x;
  x.name = "x";
  x.__set_type(f::Type::INT32);
  x.__set_repetition_type(f::FieldRepetitionType::REQUIRED);
  meta.schema = {root, x};
  f::ColumnMetaData cm;
  cm.type = f::Type::INT32;
  cm.encodings = {f::Encoding::PLAIN};
  cm.path_in_schema = {"x"};
  cm.codec = f::CompressionCodec::UNCOMPRESSED;
  cm.num_values = meta.num_rows;
  cm.total_uncompressed_size = static_cast<int64_t>(header.size() + data.size());
  cm.total_compressed_size = cm.total_uncompressed_size;
  cm.data_page_offset = 4;
  f::ColumnChunk chunk;
  chunk.__set_meta_data(cm);
  f::RowGroup rg;
  rg.columns = {chunk};
  rg.num_rows = meta.num_rows;
  rg.total_byte_size = cm.total_uncompressed_size;
  meta.row_groups = {rg};
  const std::string footer = SerializeThrift(meta).value();
  const auto len = static_cast<uint32_t>(footer.size());
  return "PAR1" + header + data + footer + std::string(reinterpret_cast<const char*>(&len), 4) +
         "PAR1";
}

TEST(ParquetReaderTest, RequiredColumnAndPageChecksum) {
  const auto path = UniqueTempPath("shoal_parquet_handmade") + ".parquet";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << HandMadeFile({7, -1, 42}, true);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(path, nullptr, {}));
  EXPECT_FALSE(table->schema()->field(0).nullable);
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table));
  ASSERT_EQ(rows.num_rows, 3);
  EXPECT_EQ(rows.columns[0][0]->Value<int32_t>(2), 42);
  EXPECT_EQ(rows.columns[0][0]->null_count(), 0);

  std::ofstream(path, std::ios::binary | std::ios::trunc) << HandMadeFile({7, -1, 42}, false);
  ASSERT_OK_AND_ASSIGN(table, ParquetTable::Make(path, nullptr, {}));
  auto bad = ReadAll(*table);
  ASSERT_STATUS_CODE(StatusCode::kInvalidData, bad);
  EXPECT_NE(bad.status().ToString().find("checksum"), std::string::npos) << bad.status();
  std::remove(path.c_str());
}

TEST(ParquetReaderTest, UnsupportedColumnsNameTheColumn) {
  auto time = ParquetTable::Make(kDataDir + "/time_of_day.parquet", nullptr, {});
  ASSERT_STATUS_CODE(StatusCode::kNotImplemented, time);
  EXPECT_NE(time.status().message().find("'t'"), std::string::npos) << time.status();
}

// DuckDB's LIST column (three-level form): pair = [i, i + 1].
TEST(ParquetReaderTest, ReadsDuckDbListColumns) {
  ASSERT_OK_AND_ASSIGN(auto table,
                       ParquetTable::Make(kDataDir + "/nested_list.parquet", nullptr, {}));
  EXPECT_EQ(table->schema()->field(1).type, columnar::DataType::List(columnar::DataType::Int64()));
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table));
  ASSERT_EQ(rows.num_rows, 3);
  for (int64_t i = 0; i < 3; ++i) {
    auto [a, k] = At(rows.columns[1], i);
    EXPECT_EQ(columnar::FormatValue(*a, k), fmt::format("{{{},{}}}", i, i + 1));
  }
}

// A projection of the flat column reads none of the nested columns' chunks: the unit's cost is
// the flat column's bytes, and a nested column's cost is the sum of its leaves'.
TEST(ParquetReaderTest, ProjectionCostsOnlyTheProjectedLeaves) {
  ASSERT_OK_AND_ASSIGN(auto table,
                       ParquetTable::Make(kDataDir + "/nested_shapes.parquet", nullptr, {}));
  const auto& file = table->files().front();
  const auto& group = file.metadata->row_groups[0];
  ScanRequest request;
  request.projection = {0};
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  EXPECT_EQ(units.front().bytes, group.columns[0].meta_data.total_compressed_size);
  request.projection = {2};  // ls: leaves a and b
  ASSERT_OK_AND_ASSIGN(units, table->PlanScan(request));
  const SchemaNode& ls = file.nodes[2];
  ASSERT_EQ(ls.num_leaves, 2);
  EXPECT_EQ(
      units.front().bytes,
      group.columns[static_cast<size_t>(ls.first_leaf)].meta_data.total_compressed_size +
          group.columns[static_cast<size_t>(ls.first_leaf + 1)].meta_data.total_compressed_size);
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, {2}));
  EXPECT_EQ(rows.num_rows, 200);
}

// Footer errors: each names the file and says what is wrong.
class ParquetFooterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kDataDir + "/sorted.parquet", std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
    path_ = UniqueTempPath("shoal_parquet_footer_test") + ".parquet";
  }
  void TearDown() override { std::remove(path_.c_str()); }

  Status Open(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary) << bytes;
    auto table = ParquetTable::Make(path_, nullptr, {});
    if (table.ok()) {
      auto rows = ReadAll(**table);
      return rows.status();
    }
    return table.status();
  }

  std::string bytes_;
  std::string path_;
};

TEST_F(ParquetFooterTest, TooSmall) {
  Status st = Open("PAR1");
  EXPECT_EQ(st.code(), StatusCode::kInvalidData);
  EXPECT_NE(st.message().find("too small"), std::string::npos) << st;
  EXPECT_NE(st.message().find(path_), std::string::npos) << st;
}

TEST_F(ParquetFooterTest, BadMagic) {
  std::string b = bytes_;
  b[b.size() - 1] = 'X';
  Status st = Open(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidData);
  EXPECT_NE(st.message().find("PAR1"), std::string::npos) << st;
}

TEST_F(ParquetFooterTest, Truncated) {
  Status st = Open(bytes_.substr(0, bytes_.size() / 2));
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
}

TEST_F(ParquetFooterTest, FooterLengthBeyondFile) {
  std::string b = bytes_;
  b[b.size() - 6] = 0x7F;  // footer length byte 2
  Status st = Open(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidData);
  EXPECT_NE(st.message().find("footer length"), std::string::npos) << st;
}

TEST_F(ParquetFooterTest, CorruptedFooterThrift) {
  std::string b = bytes_;
  uint32_t len;
  std::memcpy(&len, b.data() + b.size() - 8, 4);
  const size_t start = b.size() - 8 - len;
  for (size_t i = start; i < start + len / 2; ++i)
    b[i] = static_cast<char>(0xFF);
  Status st = Open(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_NE(st.ToString().find("footer"), std::string::npos) << st;
}

TEST_F(ParquetFooterTest, CorruptedPageNamesRowGroupAndColumn) {
  // Zero the first page header of the first chunk (file offset 4): the page cannot be parsed.
  std::string b = bytes_;
  for (size_t i = 4; i < 12; ++i)
    b[i] = static_cast<char>(0xFF);
  Status st = Open(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_NE(st.ToString().find("row group 0"), std::string::npos) << st;
  EXPECT_NE(st.ToString().find("page 0"), std::string::npos) << st;
}

}  // namespace
}  // namespace shoal::io::parquet

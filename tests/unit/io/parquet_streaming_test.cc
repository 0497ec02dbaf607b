// The streaming Parquet scan: a row group is read batch by batch, each flat column decoding only
// the pages its batch's rows lie in (chunk_decoder_internal.h, parquet_table.cc). Hand-made
// chunks cut pages in the middle of batches, mix dictionary and PLAIN pages and put NULLs across
// page boundaries; files of our writer and DuckDB's read the same at every batch size; a row
// filter drops rows per batch, the other columns decoding only the rows it kept; and reading a
// large row group holds about its compressed chunks plus a batch, not the decoded row group.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/io/parquet/chunk_decoder_internal.h"
#include "shoal/io/parquet/column_chunk_reader.h"
#include "shoal/io/parquet/parquet_table.h"
#include "shoal/io/parquet/parquet_writer.h"
#include "shoal/io/parquet/rle_encoder.h"
#include "shoal/io/parquet/thrift_codec.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;
using columnar::RecordBatchPtr;

const std::string kDataDir = SHOAL_PARQUET_TEST_DATA_DIR;

std::string UniqueTempPath(const std::string& stem) {
  return (std::filesystem::temp_directory_path() /
          (stem + "_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name()))
      .string();
}

// The text of element i of `a` ("NULL" for null), to compare columns read in different ways.
std::string Text(const columnar::Array& a, int64_t i) {
  return a.IsNull(i) ? "NULL" : columnar::FormatValue(a, i);
}

// ---- Hand-made column chunks -------------------------------------------------------------------

using Row = std::optional<std::string>;  // a value's text; nullopt: NULL

// Builds the pages of one column chunk (v1 pages, uncompressed) of an INT64 or a UTF-8 column.
class ChunkBuilder {
 public:
  explicit ChunkBuilder(bool strings, bool optional) : strings_(strings), optional_(optional) {}

  void Dictionary(const std::vector<std::string>& values) {
    std::string body;
    for (const auto& v : values)
      AppendPlain(v, &body);
    format::PageHeader h;
    h.type = format::PageType::DICTIONARY_PAGE;
    h.__set_dictionary_page_header(format::DictionaryPageHeader());
    h.dictionary_page_header.num_values = static_cast<int32_t>(values.size());
    h.dictionary_page_header.encoding = format::Encoding::PLAIN;
    Append(h, body);
    dictionary_ = values;
  }

  // A data page of `rows`, PLAIN or with indices into the dictionary; its definition levels RLE
  // or (deprecated) BIT_PACKED.
  void Page(const std::vector<Row>& rows, bool dictionary, bool bit_packed_levels = false) {
    std::string values;
    std::vector<uint32_t> indices;
    for (const Row& r : rows) {
      if (!r)
        continue;
      if (dictionary) {
        const auto it = std::find(dictionary_.begin(), dictionary_.end(), *r);
        indices.push_back(static_cast<uint32_t>(it - dictionary_.begin()));
      } else {
        AppendPlain(*r, &values);
      }
    }
    if (dictionary) {
      const int width = 5;
      values.push_back(static_cast<char>(width));
      RleEncoder::Encode(indices.data(), static_cast<int64_t>(indices.size()), width, &values);
    }
    std::string body;
    if (optional_ && bit_packed_levels) {
      std::string levels((rows.size() + 7) / 8, '\0');
      for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i])
          levels[i / 8] = static_cast<char>(levels[i / 8] | (0x80 >> (i % 8)));
      body += levels;
    } else if (optional_) {
      std::vector<uint32_t> defs;
      for (const Row& r : rows)
        defs.push_back(r ? 1 : 0);
      std::string levels;
      RleEncoder::Encode(defs.data(), static_cast<int64_t>(defs.size()), 1, &levels);
      const auto len = static_cast<uint32_t>(levels.size());
      body.append(reinterpret_cast<const char*>(&len), 4);
      body += levels;
    }
    body += values;
    format::PageHeader h;
    h.type = format::PageType::DATA_PAGE;
    h.__set_data_page_header(format::DataPageHeader());
    h.data_page_header.num_values = static_cast<int32_t>(rows.size());
    h.data_page_header.encoding =
        dictionary ? format::Encoding::RLE_DICTIONARY : format::Encoding::PLAIN;
    h.data_page_header.definition_level_encoding =
        bit_packed_levels ? format::Encoding::BIT_PACKED : format::Encoding::RLE;
    h.data_page_header.repetition_level_encoding = format::Encoding::RLE;
    Append(h, body);
    rows_.insert(rows_.end(), rows.begin(), rows.end());
  }

  ColumnDescriptor descriptor() const {
    ColumnDescriptor c;
    c.name = "c";
    c.physical = strings_ ? format::Type::BYTE_ARRAY : format::Type::INT64;
    c.type = strings_ ? DataType::Utf8() : DataType::Int64();
    c.optional = optional_;
    c.max_def = optional_ ? 1 : 0;
    return c;
  }
  format::ColumnMetaData meta() const {
    format::ColumnMetaData m;
    m.type = strings_ ? format::Type::BYTE_ARRAY : format::Type::INT64;
    m.codec = format::CompressionCodec::UNCOMPRESSED;
    m.num_values = static_cast<int64_t>(rows_.size());
    return m;
  }
  // The chunk's bytes followed by the decoders' padding.
  std::vector<uint8_t> Padded() const {
    std::vector<uint8_t> out(bytes_.begin(), bytes_.end());
    out.resize(bytes_.size() + kDecodePadding, 0);
    return out;
  }
  int64_t size() const { return static_cast<int64_t>(bytes_.size()); }
  const std::vector<Row>& rows() const { return rows_; }
  std::string& bytes() { return bytes_; }

 private:
  void AppendPlain(const std::string& v, std::string* out) const {
    if (strings_) {
      const auto len = static_cast<uint32_t>(v.size());
      out->append(reinterpret_cast<const char*>(&len), 4);
      *out += v;
    } else {
      const int64_t x = std::stoll(v);
      out->append(reinterpret_cast<const char*>(&x), 8);
    }
  }
  void Append(format::PageHeader h, const std::string& body) {
    h.compressed_page_size = static_cast<int32_t>(body.size());
    h.uncompressed_page_size = static_cast<int32_t>(body.size());
    Result<std::string> header = SerializeThrift(h);
    ASSERT_TRUE(header.ok());
    bytes_ += *header;
    bytes_ += body;
  }

  bool strings_;
  bool optional_;
  std::vector<std::string> dictionary_;
  std::vector<Row> rows_;
  std::string bytes_;
};

// Reads the chunk of `b` in batches of `batch` rows (streaming) and checks every row.
void CheckStreamed(const ChunkBuilder& b, int64_t batch) {
  SCOPED_TRACE("batch " + std::to_string(batch));
  const ColumnDescriptor column = b.descriptor();
  const std::vector<uint8_t> bytes = b.Padded();
  const auto rows = static_cast<int64_t>(b.rows().size());
  ASSERT_OK_AND_ASSIGN(auto decoder, OpenLeafChunk(column, b.meta(), rows, bytes.data(), b.size(),
                                                   4, DefaultMemoryPool(), "test"));
  int64_t row = 0;
  while (row < rows) {
    const int64_t n = std::min(batch, rows - row);
    ASSERT_OK(decoder->BeginOutput(n));
    ASSERT_OK(decoder->ReadRows(n));
    ASSERT_OK_AND_ASSIGN(ArrayPtr array, decoder->Finish());
    ASSERT_EQ(array->length(), n);
    for (int64_t i = 0; i < n; ++i) {
      const Row& want = b.rows()[static_cast<size_t>(row + i)];
      ASSERT_EQ(Text(*array, i), want ? *want : "NULL") << "row " << row + i;
    }
    row += n;
  }
  EXPECT_EQ(decoder->position(), rows);
}

// Pages of 5, 1, 17, 3 and 10 rows; NULLs at page edges; dictionary and PLAIN pages mixed (a
// writer that gives up its dictionary mid-chunk writes both); the 17-row page's definition levels
// in the deprecated BIT_PACKED form.
ChunkBuilder MixedChunk(bool strings) {
  ChunkBuilder b(strings, /*optional=*/true);
  auto v = [&](int i) -> Row { return strings ? "s" + std::to_string(i) : std::to_string(i); };
  std::vector<std::string> dict;
  for (int i = 0; i < 20; ++i)
    dict.push_back(*v(i * 7));
  b.Dictionary(dict);
  b.Page({v(0), v(7), std::nullopt, v(14), std::nullopt}, true);
  b.Page({std::nullopt}, false);
  std::vector<Row> plain;
  for (int i = 0; i < 17; ++i)
    plain.push_back(i % 4 == 0 ? std::nullopt : v(1000 + i));
  b.Page(plain, false, /*bit_packed_levels=*/true);
  b.Page({std::nullopt, v(21), v(28)}, true);
  std::vector<Row> dense;
  for (int i = 0; i < 10; ++i)
    dense.push_back(v((i % 20) * 7));
  b.Page(dense, true);
  return b;
}

TEST(ParquetStreamingTest, BatchesCutPagesAnywhere) {
  for (bool strings : {false, true}) {
    SCOPED_TRACE(strings ? "utf8" : "int64");
    const ChunkBuilder b = MixedChunk(strings);
    for (int64_t batch : {1, 2, 3, 4, 6, 7, 13, 35, 36, 1000})
      CheckStreamed(b, batch);
  }
}

TEST(ParquetStreamingTest, SkippedRowsAreNotReturned) {
  const ChunkBuilder b = MixedChunk(false);
  const std::vector<uint8_t> bytes = b.Padded();
  const ColumnDescriptor column = b.descriptor();
  // Skip 3 (mid page), read 4, skip 14 (passes the 1-row page and into the 17-row one), read the
  // rest; then the same with a first skip of whole pages (5 + 1 rows: never decoded).
  for (const auto& plan : std::vector<std::vector<int64_t>>{{3, 4, 14, 15}, {6, 2, 0, 28}}) {
    ASSERT_OK_AND_ASSIGN(auto decoder, OpenLeafChunk(column, b.meta(), 36, bytes.data(), b.size(),
                                                     4, DefaultMemoryPool(), "test"));
    int64_t row = 0;
    for (size_t k = 0; k < plan.size(); ++k) {
      const int64_t n = plan[k];
      if (k % 2 == 0) {
        ASSERT_OK(decoder->SkipRows(n));
      } else {
        ASSERT_OK(decoder->BeginOutput(n));
        ASSERT_OK(decoder->ReadRows(n));
        ASSERT_OK_AND_ASSIGN(ArrayPtr array, decoder->Finish());
        for (int64_t i = 0; i < n; ++i) {
          const Row& want = b.rows()[static_cast<size_t>(row + i)];
          ASSERT_EQ(Text(*array, i), want ? *want : "NULL") << "row " << row + i;
        }
      }
      row += n;
    }
    EXPECT_EQ(decoder->position(), 36);
  }
}

// ReadSelected decodes only the rows a filter kept: PLAIN and dictionary values of the others are
// never converted or gathered (values_decoded counts the kept rows alone), pages without a kept
// row are passed over, and the rows line up with a whole read whatever the batches and the
// selection (runs, single rows, rows at page edges, NULLs, none).
TEST(ParquetStreamingTest, ReadSelectedDecodesOnlyTheRowsKept) {
  for (bool strings : {false, true}) {
    SCOPED_TRACE(strings ? "utf8" : "int64");
    const ChunkBuilder b = MixedChunk(strings);
    const std::vector<uint8_t> bytes = b.Padded();
    const ColumnDescriptor column = b.descriptor();
    const auto rows = static_cast<int64_t>(b.rows().size());
    using Keep = bool (*)(int64_t);
    const std::vector<std::pair<const char*, Keep>> patterns = {
        {"every third", [](int64_t r) { return r % 3 == 0; }},
        {"runs", [](int64_t r) { return (r / 4) % 2 == 1; }},
        {"page edges", [](int64_t r) { return r == 4 || r == 5 || r == 6 || r == 23 || r == 26; }},
        {"last only", [](int64_t r) { return r == 35; }},
        {"none", [](int64_t) { return false; }},
        {"all but one", [](int64_t r) { return r != 17; }}};
    for (const auto& [name, keep] : patterns) {
      for (int64_t batch : {1, 4, 7, 13, 36}) {
        SCOPED_TRACE(std::string(name) + ", batch " + std::to_string(batch));
        ASSERT_OK_AND_ASSIGN(auto decoder, OpenLeafChunk(column, b.meta(), rows, bytes.data(),
                                                         b.size(), 4, DefaultMemoryPool(), "test"));
        int64_t kept_total = 0;
        for (int64_t row = 0; row < rows; row += batch) {
          const int64_t n = std::min(batch, rows - row);
          std::vector<int32_t> selection;
          for (int64_t i = 0; i < n; ++i)
            if (keep(row + i))
              selection.push_back(static_cast<int32_t>(i));
          const auto kept = static_cast<int64_t>(selection.size());
          ASSERT_OK(decoder->BeginOutput(kept));
          ASSERT_OK(decoder->ReadSelected(n, selection.data(), kept));
          ASSERT_OK_AND_ASSIGN(ArrayPtr array, decoder->Finish());
          ASSERT_EQ(array->length(), kept);
          for (int64_t k = 0; k < kept; ++k) {
            const Row& want =
                b.rows()[static_cast<size_t>(row + selection[static_cast<size_t>(k)])];
            ASSERT_EQ(Text(*array, k), want ? *want : "NULL") << "row " << row + selection[k];
          }
          kept_total += kept;
        }
        EXPECT_EQ(decoder->position(), rows);
        EXPECT_EQ(decoder->values_decoded(), kept_total);
        EXPECT_EQ(decoder->values_skipped(), rows - kept_total);
      }
    }
  }
}

TEST(ParquetStreamingTest, BadChunksAreErrors) {
  const ChunkBuilder good = MixedChunk(true);
  const ColumnDescriptor column = good.descriptor();
  auto read_all = [&](const std::vector<uint8_t>& bytes, int64_t size, int64_t rows,
                      int64_t batch) -> Status {
    SHOAL_ASSIGN_OR_RETURN(auto decoder, OpenLeafChunk(column, good.meta(), rows, bytes.data(),
                                                       size, 4, DefaultMemoryPool(), "test"));
    for (int64_t row = 0; row < rows; row += batch) {
      const int64_t n = std::min(batch, rows - row);
      SHOAL_RETURN_IF_ERROR(decoder->BeginOutput(n));
      SHOAL_RETURN_IF_ERROR(decoder->ReadRows(n));
      SHOAL_RETURN_IF_ERROR(decoder->Finish().status());
    }
    return Status::OK();
  };
  const std::vector<uint8_t> bytes = good.Padded();
  for (int64_t batch : {1, 7, 100}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    ASSERT_OK(read_all(bytes, good.size(), 36, batch));
    // The row group claims more rows than the pages hold.
    Status more = read_all(bytes, good.size(), 40, batch);
    EXPECT_EQ(more.code(), StatusCode::kInvalidData);
    EXPECT_NE(more.message().find("holds 36 values but 40 the row group has expected"),
              std::string::npos)
        << more.message();
    // A page claims more rows than remain in the row group.
    Status fewer = read_all(bytes, good.size(), 30, batch);
    EXPECT_EQ(fewer.code(), StatusCode::kInvalidData);
    EXPECT_NE(fewer.message().find("the page holds 10 values but only 4"), std::string::npos)
        << fewer.message();
    // The chunk cut off in its last page.
    std::vector<uint8_t> cut = bytes;
    const int64_t cut_size = good.size() - 6;
    std::memset(cut.data() + cut_size, 0, kDecodePadding);
    Status truncated = read_all(cut, cut_size, 36, batch);
    EXPECT_EQ(truncated.code(), StatusCode::kInvalidData);
    EXPECT_NE(truncated.ToString().find("page 5 at file offset"), std::string::npos)
        << truncated.ToString();
  }
}

// ---- Whole files --------------------------------------------------------------------------------

// Every row of `table` as text, read in batches of `batch_size` rows (optionally under `pool`).
Result<std::vector<std::string>> ReadRows(const ParquetTable& table, int64_t batch_size,
                                          std::shared_ptr<MemoryPool> pool = nullptr,
                                          ScanRowFilter* filter = nullptr,
                                          int64_t* max_batch = nullptr,
                                          std::map<std::string, int64_t>* metrics = nullptr) {
  ScanRequest request;
  for (int i = 0; i < table.schema()->num_fields(); ++i)
    request.projection.push_back(i);
  request.batch_size = batch_size;
  ScanContext context;
  context.pool = pool ? pool : DefaultMemoryPool();
  context.row_filter = filter;
  if (metrics != nullptr)
    context.add_metric = [metrics](const std::string& name, int64_t v) { (*metrics)[name] += v; };
  SHOAL_ASSIGN_OR_RETURN(auto units, table.PlanScan(request));
  std::vector<std::string> rows;
  for (const auto& unit : units) {
    SHOAL_ASSIGN_OR_RETURN(auto reader, table.OpenUnit(unit, request, context));
    for (;;) {
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
      if (!batch)
        break;
      if (max_batch != nullptr)
        *max_batch = std::max(*max_batch, batch->num_rows());
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        std::string line;
        for (int c = 0; c < batch->num_columns(); ++c)
          line += Text(*batch->column(c), r) + "|";
        rows.push_back(std::move(line));
      }
    }
  }
  return rows;
}

TEST(ParquetStreamingTest, DuckDbFilesReadTheSameAtEveryBatchSize) {
  for (const char* name : {"types_snappy.parquet", "types_v2_snappy.parquet",
                           "types_v2_zstd.parquet", "types_uncompressed.parquet", "sorted.parquet",
                           "nested_shapes.parquet", "struct_fields.parquet"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(kDataDir + "/" + name, nullptr, {}));
    // One batch per row group: what the reader returned before it streamed.
    ASSERT_OK_AND_ASSIGN(auto whole, ReadRows(*table, int64_t{1} << 30));
    ASSERT_FALSE(whole.empty());
    for (int64_t batch : {1, 3, 64, 1000}) {
      ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(*table, batch));
      ASSERT_EQ(rows, whole) << "batch " << batch;
    }
  }
}

// A file of our writer with small pages: several pages per batch and pages cut by batches. Row i
// holds values of i % `modulo` (so a small modulo makes every column dictionary-encoded).
std::string WriteFile(const std::string& stem, int64_t rows, int64_t row_group_size,
                      int64_t page_size, bool with_strings, int64_t modulo = INT64_MAX) {
  std::vector<columnar::Field> fields = {{"id", DataType::Int64(), false},
                                         {"x", DataType::Int32(), true},
                                         {"d", DataType::Float64(), true},
                                         {"b", DataType::Boolean(), true}};
  if (with_strings) {
    fields.emplace_back("s", DataType::Utf8(), true);
    fields.emplace_back("k", DataType::Utf8(), false);
  }
  auto schema = std::make_shared<const columnar::Schema>(fields);
  const std::string path = UniqueTempPath(stem) + ".parquet";
  ParquetWriteOptions options;
  options.row_group_size = row_group_size;
  options.encoding.page_size = page_size;
  options.threads = 1;
  auto writer = ParquetWriter::Open(path, schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  const int64_t chunk = 10000;
  for (int64_t start = 0; start < rows; start += chunk) {
    const int64_t n = std::min(chunk, rows - start);
    columnar::Int64Builder id(DataType::Int64(), DefaultMemoryPool());
    columnar::Int32Builder x(DataType::Int32(), DefaultMemoryPool());
    columnar::Float64Builder d(DataType::Float64(), DefaultMemoryPool());
    columnar::BooleanBuilder flag(DefaultMemoryPool());
    columnar::BinaryBuilder s(DataType::Utf8(), DefaultMemoryPool());
    columnar::BinaryBuilder k(DataType::Utf8(), DefaultMemoryPool());
    for (int64_t row = start; row < start + n; ++row) {
      const int64_t i = row % modulo;
      EXPECT_TRUE(id.Append(i).ok());
      EXPECT_TRUE((i % 7 == 3 ? x.AppendNull() : x.Append(static_cast<int32_t>(i % 100))).ok());
      EXPECT_TRUE((i % 11 == 5 ? d.AppendNull() : d.Append(static_cast<double>(i) / 4)).ok());
      EXPECT_TRUE((i % 13 == 0 ? flag.AppendNull() : flag.Append(i % 3 == 1)).ok());
      if (with_strings) {
        EXPECT_TRUE(
            (i % 5 == 2 ? s.AppendNull() : s.Append("v" + std::to_string(i * 31 % 1000))).ok());
        EXPECT_TRUE(k.Append("key-" + std::to_string(i)).ok());
      }
    }
    std::vector<columnar::ArrayBuilder*> builders = {&id, &x, &d, &flag};
    if (with_strings) {
      builders.push_back(&s);
      builders.push_back(&k);
    }
    std::vector<ArrayPtr> columns;
    for (auto* b : builders) {
      auto a = b->Finish();
      EXPECT_TRUE(a.ok());
      columns.push_back(*a);
    }
    EXPECT_TRUE((*writer)->WriteBatch(columnar::RecordBatch::Make(schema, n, columns)).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return path;
}

TEST(ParquetStreamingTest, OurFilesReadTheSameAtEveryBatchSize) {
  const std::string path = WriteFile("stream_small_pages", 5000, 3000, 512, true);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(path, nullptr, {}));
  ASSERT_OK_AND_ASSIGN(auto whole, ReadRows(*table, int64_t{1} << 30));
  ASSERT_EQ(whole.size(), 5000u);
  EXPECT_EQ(whole[10], "10|NULL|2.5|t|v310|key-10|");
  EXPECT_EQ(whole[3], "3|NULL|0.75|f|v93|key-3|");
  for (int64_t batch : {1, 2, 37, 100, 2999, 3000, 3001, 8192}) {
    int64_t max_batch = 0;
    ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(*table, batch, nullptr, nullptr, &max_batch));
    ASSERT_EQ(rows, whole) << "batch " << batch;
    EXPECT_EQ(max_batch, std::min<int64_t>(batch, 3000));
  }
  std::filesystem::remove(path);
}

// Columns added after a file was written (ALTER TABLE ... ADD COLUMN on a table Shoal stores) read
// as constants, batch by batch like the others.
TEST(ParquetStreamingTest, MissingColumnsAreConstantsPerBatch) {
  const std::string path = WriteFile("stream_missing", 5000, 3000, 512, false);
  ASSERT_OK_AND_ASSIGN(auto written, ParquetTable::Make(path, nullptr, {}));
  ASSERT_OK_AND_ASSIGN(auto whole, ReadRows(*written, int64_t{1} << 30));
  std::vector<columnar::Field> fields = written->schema()->fields();
  fields.emplace_back("seven", DataType::Int64(), true);
  fields.emplace_back("nothing", DataType::Utf8(), true);
  std::vector<columnar::Scalar> missing;
  for (const auto& f : written->schema()->fields())
    missing.emplace_back(f.type);
  missing.push_back(columnar::Scalar::Int64(7));
  missing.emplace_back(DataType::Utf8());
  ParquetTable table(written->files(), std::make_shared<const columnar::Schema>(fields), missing);
  for (int64_t batch : {1, 37, 2999, 3001, 8192}) {
    ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(table, batch));
    ASSERT_EQ(rows.size(), whole.size());
    for (size_t i = 0; i < rows.size(); ++i)
      ASSERT_EQ(rows[i], whole[i] + "7|NULL|") << "batch " << batch << " row " << i;
  }
  std::filesystem::remove(path);
}

// A runtime filter on column 0 keeping ids that are multiples of `keep_every` (none in some
// batches), with the projection's other columns taken for the survivors.
class EveryNthFilter final : public ScanRowFilter {
 public:
  explicit EveryNthFilter(int64_t keep_every, int64_t keep_below)
      : keep_every_(keep_every), keep_below_(keep_below) {}
  bool BlockRuledOut(const std::function<bool(const ColumnPredicate&)>&) override { return false; }
  const std::vector<int>& columns() override { return columns_; }
  Result<int64_t> Select(const std::vector<ArrayPtr>& columns, int64_t num_rows,
                         std::vector<int32_t>* selection) override {
    selection->clear();
    ++calls;
    for (int64_t i = 0; i < num_rows; ++i) {
      const int64_t id = columns[0]->Value<int64_t>(i);
      if (id % keep_every_ == 0 && id < keep_below_)
        selection->push_back(static_cast<int32_t>(i));
    }
    return static_cast<int64_t>(selection->size());
  }
  Result<RecordBatchPtr> Take(const columnar::RecordBatch& batch,
                              const std::vector<int32_t>& selection) override {
    return TakeRows(batch, selection);
  }
  static Result<RecordBatchPtr> TakeRows(const columnar::RecordBatch& batch,
                                         const std::vector<int32_t>& selection) {
    std::vector<ArrayPtr> columns;
    for (int c = 0; c < batch.num_columns(); ++c) {
      auto builder = columnar::MakeBuilder(batch.column(c)->type(), DefaultMemoryPool());
      for (int32_t i : selection)
        SHOAL_RETURN_IF_ERROR(builder->AppendFrom(*batch.column(c), i));
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr a, builder->Finish());
      columns.push_back(a);
    }
    return columnar::RecordBatch::Make(batch.schema(), static_cast<int64_t>(selection.size()),
                                       columns);
  }
  int64_t calls = 0;

 private:
  int64_t keep_every_;
  int64_t keep_below_;
  std::vector<int> columns_ = {0};
};

TEST(ParquetStreamingTest, RuntimeFilterPerBatch) {
  const std::string path = WriteFile("stream_filter", 5000, 3000, 512, true);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(path, nullptr, {}));
  ASSERT_OK_AND_ASSIGN(auto whole, ReadRows(*table, int64_t{1} << 30));
  // Keeps every 9th id below 700 and nothing after: most batches have no survivor, so the other
  // columns pass over them (whole pages undecoded), and later batches must still line up.
  for (int64_t batch : {1, 50, 333, 4096}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    EveryNthFilter filter(9, 700);
    ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(*table, batch, nullptr, &filter));
    std::vector<std::string> want;
    for (int64_t i = 0; i < 700; i += 9)
      want.push_back(whole[static_cast<size_t>(i)]);
    EXPECT_EQ(rows, want);
    EXPECT_GT(filter.calls, 1);
  }
  // Survivors late in the row group: the other columns skip many rows before their first read.
  {
    EveryNthFilter filter(2500, 5000);
    ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(*table, 100, nullptr, &filter));
    EXPECT_EQ(rows, (std::vector<std::string>{whole[0], whole[2500]}));
  }
  std::filesystem::remove(path);
}

// A row filter keeping rows by their position in the scan (whatever their values), reading
// column 0 only to be called per batch.
class PositionFilter final : public ScanRowFilter {
 public:
  explicit PositionFilter(bool (*keep)(int64_t)) : keep_(keep) {}
  bool BlockRuledOut(const std::function<bool(const ColumnPredicate&)>&) override { return false; }
  const std::vector<int>& columns() override { return columns_; }
  Result<int64_t> Select(const std::vector<ArrayPtr>&, int64_t num_rows,
                         std::vector<int32_t>* selection) override {
    selection->clear();
    for (int64_t i = 0; i < num_rows; ++i)
      if (keep_(row_ + i))
        selection->push_back(static_cast<int32_t>(i));
    row_ += num_rows;
    if (static_cast<int64_t>(selection->size()) == num_rows)
      return int64_t{-1};
    return static_cast<int64_t>(selection->size());
  }
  Result<RecordBatchPtr> Take(const columnar::RecordBatch& batch,
                              const std::vector<int32_t>& selection) override {
    return EveryNthFilter::TakeRows(batch, selection);
  }

 private:
  bool (*keep_)(int64_t);
  int64_t row_ = 0;
  std::vector<int> columns_ = {0};
};

// With a row filter the other flat columns decode only the rows kept (in batches keeping fewer
// than half their rows): the scan's values_decoded metric counts the filter's column whole and
// the others for the kept rows alone, and the rows
// equal a whole read's, for our files (PLAIN, dictionary, RLE booleans) and DuckDB's (v2 pages,
// DELTA_*, BYTE_STREAM_SPLIT, nested columns, which are cut after decoding).
TEST(ParquetStreamingTest, RowFilterDecodesOtherColumnsOnlyForKeptRows) {
  const std::string path = WriteFile("stream_late", 5000, 3000, 512, true);
  std::vector<std::string> files = {path};
  for (const char* name : {"types_v2_zstd.parquet", "types_snappy.parquet", "nested_shapes.parquet",
                           "struct_fields.parquet"})
    files.push_back(kDataDir + "/" + name);
  using Keep = bool (*)(int64_t);
  for (Keep keep : {Keep{[](int64_t r) { return r % 3 == 0 || r % 11 == 5; }},
                    Keep{[](int64_t r) { return r / 40 % 3 == 1; }},
                    Keep{[](int64_t r) { return r == 2 || r == 4700; }}}) {
    for (const std::string& file : files) {
      SCOPED_TRACE(file);
      ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(file, nullptr, {}));
      ASSERT_OK_AND_ASSIGN(auto whole, ReadRows(*table, int64_t{1} << 30));
      std::vector<std::string> want;
      for (size_t i = 0; i < whole.size(); ++i)
        if (keep(static_cast<int64_t>(i)))
          want.push_back(whole[i]);
      for (int64_t batch : {7, 100, 4096}) {
        SCOPED_TRACE("batch " + std::to_string(batch));
        PositionFilter filter(keep);
        std::map<std::string, int64_t> metrics;
        ASSERT_OK_AND_ASSIGN(auto rows,
                             ReadRows(*table, batch, nullptr, &filter, nullptr, &metrics));
        EXPECT_EQ(rows, want);
        if (file == path) {
          // Six flat columns: id whole, the other five for the kept rows only when a batch keeps
          // fewer than half its rows (otherwise they decode the batch whole and cut it).
          // Batches restart at each row group (3,000 rows).
          const auto n = static_cast<int64_t>(whole.size());
          int64_t decoded = n;
          int64_t skipped = 0;
          for (int64_t group = 0; group < n; group += 3000) {
            const int64_t end = std::min(n, group + 3000);
            for (int64_t start = group; start < end; start += batch) {
              const int64_t rows = std::min(batch, end - start);
              int64_t kept = 0;
              for (int64_t r = start; r < start + rows; ++r)
                kept += keep(r) ? 1 : 0;
              const bool picked = kept == 0 || kept * 2 < rows;
              decoded += 5 * (picked ? kept : rows);
              skipped += 5 * (picked ? rows - kept : 0);
            }
          }
          EXPECT_EQ(metrics["values_decoded"], decoded);
          EXPECT_EQ(metrics["values_skipped"], skipped);
        }
      }
    }
  }
  std::filesystem::remove(path);
}

// One large row group (600,000 rows, compressed by dictionaries and snappy to little) read
// under a pool: the peak is about the compressed chunks plus a batch and a page per column, far
// below the decoded row group, which a single-batch read needs.
// The units of one scan stream hand their chunks' and pages' buffers on to the next row group
// (scan_buffers.h): the rows read are the same, and the buffers are kept between units.
TEST(ParquetStreamingTest, UnitsOfAStreamReuseTheirChunkAndPageBuffers) {
  const std::string path = WriteFile("stream_reuse", 5000, 1000, 512, true);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(path, nullptr, {}));
  ASSERT_OK_AND_ASSIGN(auto expected, ReadRows(*table, 300));
  ScanRequest request;
  for (int i = 0; i < table->schema()->num_fields(); ++i)
    request.projection.push_back(i);
  request.batch_size = 300;
  ScanContext context;
  context.pool = DefaultMemoryPool();
  context.buffers = std::make_shared<ScanBuffers>(context.pool);
  ASSERT_OK_AND_ASSIGN(auto units, table->PlanScan(request));
  ASSERT_EQ(units.size(), 5U);
  std::vector<std::string> rows;
  for (const auto& unit : units) {
    ASSERT_OK_AND_ASSIGN(auto reader, table->OpenUnit(unit, request, context));
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
      if (!batch)
        break;
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        std::string line;
        for (int c = 0; c < batch->num_columns(); ++c)
          line += Text(*batch->column(c), r) + "|";
        rows.push_back(std::move(line));
      }
    }
    // Each row group's buffers were handed back for the next one.
    EXPECT_GT(context.buffers->kept(), 0U);
  }
  EXPECT_EQ(rows, expected);
  std::filesystem::remove(path);
}

TEST(ParquetStreamingTest, PeakMemoryIsAboutOneBatchPlusTheCompressedChunks) {
  const int64_t kRows = 600000;
  const std::string path = WriteFile("stream_memory", kRows, kRows, 64 << 10, false, 1000);
  ASSERT_OK_AND_ASSIGN(auto table, ParquetTable::Make(path, nullptr, {}));
  const auto& rg = table->files()[0].metadata->row_groups[0];
  int64_t compressed = 0;
  for (const auto& chunk : rg.columns)
    compressed += chunk.meta_data.total_compressed_size;
  // Decoded: 8 + 4 + 8 + 1/8 bytes a row plus validity.
  const int64_t decoded = kRows * 20;
  ASSERT_LT(compressed * 3, decoded);
  const int64_t batch = 8192;
  // The batch in flight (20 bytes a row), one decompressed page per column (64 KiB asked for, a
  // bit more with headers and a dictionary page) and the decoders' scratch.
  const int64_t bound = compressed + batch * 20 + 4 * (256 << 10) + (1 << 20);
  auto pool = MemoryPool::MakeRoot("scan", bound);
  ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(*table, batch, pool));
  EXPECT_EQ(rows.size(), static_cast<size_t>(kRows));
  RecordProperty("compressed_bytes", std::to_string(compressed));
  RecordProperty("decoded_bytes", std::to_string(decoded));
  RecordProperty("peak_bytes", std::to_string(pool->peak_bytes()));
  EXPECT_LE(pool->peak_bytes(), bound);
  EXPECT_LT(pool->peak_bytes(), decoded / 2);
  // The whole row group at once does not fit.
  auto small = MemoryPool::MakeRoot("scan", bound);
  Result<std::vector<std::string>> whole = ReadRows(*table, kRows, small);
  EXPECT_EQ(whole.status().code(), StatusCode::kOutOfMemory) << whole.status().ToString();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace shoal::io::parquet

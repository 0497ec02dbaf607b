// Round trips through Shoal's Arrow IPC writer and reader: every type, both formats, every
// compression, slices, empty batches, dictionaries (deltas and replacement), metadata, zero-copy.
#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::columnar::ipc {
namespace {

using testing::AllTypesSchema;
using testing::RandomData;
using testing::WriteIpc;

#define ASSERT_OK(expr)                                      \
  do {                                                       \
    const Status& _st = ::shoal::internal::ToStatus((expr)); \
    ASSERT_TRUE(_st.ok()) << _st.ToString();                 \
  } while (false)

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                  \
  auto SHOAL_CONCAT(_r_, __LINE__) = (rexpr);             \
  ASSERT_TRUE(SHOAL_CONCAT(_r_, __LINE__).ok())           \
      << SHOAL_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(SHOAL_CONCAT(_r_, __LINE__)).MoveValueUnsafe()

std::shared_ptr<const std::string> Share(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

// Compares what was written with what was read: same schema, same values batch by batch.
void ExpectSameBatches(const std::vector<RecordBatchPtr>& expected, const ReadAllResult& actual) {
  ASSERT_EQ(actual.batches.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const RecordBatch& e = *expected[i];
    const RecordBatch& a = *actual.batches[i];
    ASSERT_EQ(a.num_rows(), e.num_rows()) << "batch " << i;
    ASSERT_EQ(a.num_columns(), e.num_columns());
    ASSERT_OK(a.Validate());
    for (int c = 0; c < e.num_columns(); ++c) {
      EXPECT_TRUE(ArraysEqual(*a.column(c), *e.column(c)))
          << "batch " << i << " column " << e.schema()->field(c).name << " ("
          << e.column(c)->type().ToString() << ")";
    }
  }
}

class RoundTripTest : public ::testing::TestWithParam<std::tuple<bool, Compression>> {};

TEST_P(RoundTripTest, AllTypesWithNulls) {
  const auto [file_format, compression] = GetParam();
  RandomData data(42);
  auto schema = AllTypesSchema();
  std::vector<RecordBatchPtr> batches = {data.Batch(schema, 100), data.Batch(schema, 1),
                                         data.Batch(schema, 0), data.Batch(schema, 333, 0.0),
                                         data.Batch(schema, 64, 1.0)};
  // Every batch carries its own dictionaries: the file format needs one dictionary per column,
  // so it gets a batch list whose dictionaries are shared.
  if (file_format) {
    for (size_t i = 1; i < batches.size(); ++i) {
      std::vector<ArrayPtr> columns = batches[i]->columns();
      for (int c = 0; c < schema->num_fields(); ++c) {
        if (schema->field(c).type.id() != TypeId::kDictionary)
          continue;
        columns[static_cast<size_t>(c)] =
            data.DictionaryArray(schema->field(c).type, batches[0]->column(c)->dictionary(),
                                 batches[i]->num_rows(), schema->field(c).nullable ? 0.2 : 0.0);
      }
      batches[i] = RecordBatch::Make(schema, batches[i]->num_rows(), std::move(columns));
    }
  }
  WriteOptions options;
  options.compression = compression;
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, batches, file_format, options));
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
  EXPECT_EQ(*read.schema, *schema) << read.schema->ToString();
  ExpectSameBatches(batches, read);
}

std::string ParamName(const ::testing::TestParamInfo<std::tuple<bool, Compression>>& info) {
  static const char* const kCodec[] = {"none", "lz4", "zstd"};
  return std::string(std::get<0>(info.param) ? "file_" : "stream_") +
         kCodec[static_cast<int>(std::get<1>(info.param))];
}

INSTANTIATE_TEST_SUITE_P(FormatsAndCodecs, RoundTripTest,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Compression::kNone,
                                                              Compression::kLz4Frame,
                                                              Compression::kZstd)),
                         ParamName);

TEST(IpcRoundTrip, SlicesAtEveryBitOffset) {
  RandomData data(7);
  auto schema = AllTypesSchema();
  auto whole = data.Batch(schema, 300);
  for (Compression compression : {Compression::kNone, Compression::kZstd}) {
    for (int64_t offset : {0, 1, 3, 7, 8, 9, 63, 64, 65, 130}) {
      for (int64_t length : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{70}, 300 - offset}) {
        if (offset + length > 300)
          continue;
        auto slice = whole->Slice(offset, length);
        WriteOptions options;
        options.compression = compression;
        ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {slice}, false, options));
        ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
        SCOPED_TRACE(fmt::format("offset {} length {}", offset, length));
        ExpectSameBatches({slice}, read);
      }
    }
  }
}

TEST_P(RoundTripTest, NestedTypesWithNullsAtEveryLevel) {
  const auto [file_format, compression] = GetParam();
  RandomData data(43);
  auto schema = testing::NestedSchema();
  std::vector<RecordBatchPtr> batches = {data.Batch(schema, 60), data.Batch(schema, 0),
                                         data.Batch(schema, 17, 0.0), data.Batch(schema, 9, 1.0)};
  batches.push_back(batches[0]->Slice(7, 31));
  WriteOptions options;
  options.compression = compression;
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, batches, file_format, options));
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
  EXPECT_EQ(*read.schema, *schema) << read.schema->ToString();
  // Child field names and metadata survive, not only what type equality compares.
  EXPECT_EQ(read.schema->field(1).type.item_field().name, "element");
  EXPECT_FALSE(read.schema->field(1).type.item_field().nullable);
  ExpectSameBatches(batches, read);
}

TEST(IpcRoundTrip, NestedSlicesAtEveryOffset) {
  RandomData data(9);
  auto schema = testing::NestedSchema();
  auto whole = data.Batch(schema, 100);
  for (int64_t offset : {0, 1, 3, 8, 9, 63, 99}) {
    for (int64_t length : {int64_t{0}, int64_t{1}, int64_t{5}, 100 - offset}) {
      if (offset + length > 100)
        continue;
      auto slice = whole->Slice(offset, length);
      ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {slice}, false));
      ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
      SCOPED_TRACE(fmt::format("offset {} length {}", offset, length));
      ExpectSameBatches({slice}, read);
    }
  }
}

TEST(IpcRoundTrip, WidenedDecimalsInsideNestedTypes) {
  RandomData data(10);
  auto schema = testing::NestedSchema();
  auto batch = data.Batch(schema, 40);
  WriteOptions options;
  options.widen_decimal64 = true;
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {batch}, true, options));
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
  ExpectSameBatches({batch}, read);
}

TEST(IpcRoundTrip, DictionaryInsideNestedTypeIsRefused) {
  auto schema =
      testing::SchemaOf({DataType::List(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()))});
  auto written = WriteIpc(schema, {}, false);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(written.status().message().find("dictionary"), std::string::npos)
      << written.status().ToString();
}

TEST(IpcRoundTrip, SlicedWritesAreCompact) {
  RandomData data(8);
  auto schema = testing::SchemaOf({DataType::Int64(), DataType::Utf8()});
  auto whole = data.Batch(schema, 10000);
  ASSERT_OK_AND_ASSIGN(std::string all, WriteIpc(schema, {whole}, false));
  ASSERT_OK_AND_ASSIGN(std::string part, WriteIpc(schema, {whole->Slice(5000, 10)}, false));
  // Slices carry only their own values, not the parent's buffers.
  EXPECT_LT(part.size() * 50, all.size());
}

TEST(IpcRoundTrip, ZeroColumnsAndZeroRows) {
  auto empty_schema = std::make_shared<const Schema>(std::vector<Field>{});
  auto no_columns = RecordBatch::Make(empty_schema, 17, {});
  for (bool file_format : {false, true}) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(empty_schema, {no_columns}, file_format));
    ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
    EXPECT_EQ(read.schema->num_fields(), 0);
    ASSERT_EQ(read.batches.size(), 1u);
    EXPECT_EQ(read.batches[0]->num_rows(), 17);

    // A stream or file without any batch.
    ASSERT_OK_AND_ASSIGN(std::string none, WriteIpc(AllTypesSchema(), {}, file_format));
    ASSERT_OK_AND_ASSIGN(auto read_none, ReadAllFromBytes(Share(none)));
    EXPECT_EQ(*read_none.schema, *AllTypesSchema());
    EXPECT_TRUE(read_none.batches.empty());
  }
}

TEST(IpcRoundTrip, SchemaAndFieldMetadataAndNullability) {
  auto schema = AllTypesSchema();
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {}, false));
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
  const Schema& s = *read.schema;
  EXPECT_EQ(s.metadata(), (KeyValueMetadata{{"origin", "shoal ipc test"}, {"empty", ""}}));
  EXPECT_FALSE(s.field(*s.FieldIndex("i32")).nullable);
  EXPECT_TRUE(s.field(*s.FieldIndex("i64")).nullable);
  EXPECT_EQ(s.field(*s.FieldIndex("dec15_2")).metadata,
            (KeyValueMetadata{{"sql_type", "numeric(15,2)"}, {"k2", ""}}));
  EXPECT_EQ(s.field(*s.FieldIndex("ts_ns_tz")).type,
            DataType::Timestamp(TimeUnit::kNano, "America/New_York"));
  EXPECT_TRUE(s.field(*s.FieldIndex("dict8_utf8")).type.ordered());
  EXPECT_EQ(s.field(*s.FieldIndex("dict_u16_i64")).type.index_type(), TypeId::kUInt16);
}

TEST(IpcRoundTrip, WidenedDecimal64) {
  RandomData data(9);
  auto schema = testing::SchemaOf({DataType::Decimal(15, 2), DataType::Decimal(18, 18),
                                   DataType::Dictionary(TypeId::kInt32, DataType::Decimal(9, 1))});
  auto batch = data.Batch(schema, 500);
  WriteOptions options;
  ASSERT_OK_AND_ASSIGN(std::string narrow, WriteIpc(schema, {batch}, true, options));
  options.widen_decimal64 = true;
  ASSERT_OK_AND_ASSIGN(std::string wide, WriteIpc(schema, {batch}, true, options));
  // 8 more bytes per value for the two plain columns, and the dictionary values too.
  EXPECT_GE(wide.size(), narrow.size() + 2 * 500 * 8);
  for (const std::string* bytes : {&narrow, &wide}) {
    ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(*bytes)));
    EXPECT_EQ(*read.schema, *schema);
    ExpectSameBatches({batch}, read);
  }
}

// Dictionary batches: a stream replaces a changed dictionary, sends only the new tail of a grown
// one, and a file refuses replacement but accepts growth.
TEST(IpcRoundTrip, DictionaryReplacementAndDeltas) {
  RandomData data(10);
  const DataType type = DataType::Dictionary(TypeId::kInt16, DataType::Utf8());
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{{"d", type}, {"x", DataType::Int32()}});
  auto pool = DefaultMemoryPool();
  auto dict_of = [&](std::vector<std::string> values) {
    BinaryBuilder b(DataType::Utf8(), pool);
    for (const auto& v : values)
      EXPECT_TRUE(b.Append(v).ok());
    return *b.Finish();
  };
  auto batch_of = [&](const ArrayPtr& dictionary) {
    return RecordBatch::Make(
        schema, 50,
        {data.DictionaryArray(type, dictionary, 50, 0.1), data.Array(DataType::Int32(), 50, 0.1)});
  };
  ArrayPtr d1 = dict_of({"apple", "pear"});
  ArrayPtr d2 = dict_of({"apple", "pear", "plum", "fig"});  // grows d1: a delta
  ArrayPtr d3 = dict_of({"kiwi", "lime"});                  // replaces it
  ArrayPtr d1_copy = dict_of({"apple", "pear"});            // equal to d1: nothing sent
  std::vector<RecordBatchPtr> grow = {batch_of(d1), batch_of(d1), batch_of(d1_copy), batch_of(d2)};
  std::vector<RecordBatchPtr> replace = {batch_of(d1), batch_of(d2), batch_of(d3), batch_of(d1)};

  for (Compression compression : {Compression::kNone, Compression::kLz4Frame}) {
    WriteOptions options;
    options.compression = compression;
    ASSERT_OK_AND_ASSIGN(std::string stream, WriteIpc(schema, replace, false, options));
    ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(stream)));
    ExpectSameBatches(replace, read);
    EXPECT_EQ(testing::MessageKinds(stream),
              (std::vector<std::string>{"schema", "dictionary", "batch", "delta", "batch",
                                        "dictionary", "batch", "dictionary", "batch"}));
    EXPECT_TRUE(ArraysEqual(*read.batches[2]->column(0)->dictionary(), *d3));

    for (bool file_format : {false, true}) {
      ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, grow, file_format, options));
      ASSERT_OK_AND_ASSIGN(auto read_grow, ReadAllFromBytes(Share(bytes)));
      ExpectSameBatches(grow, read_grow);
      // The reader assembles the grown dictionary from the base and the delta.
      EXPECT_TRUE(ArraysEqual(*read_grow.batches[3]->column(0)->dictionary(), *d2));
      // Without deltas a stream replaces the dictionary and a file refuses the change.
      options.emit_dictionary_deltas = false;
      auto no_delta = WriteIpc(schema, grow, file_format, options);
      options.emit_dictionary_deltas = true;
      if (file_format) {
        ASSERT_FALSE(no_delta.ok());
        EXPECT_EQ(no_delta.status().code(), StatusCode::kInvalidArgument);
      } else {
        ASSERT_OK(no_delta.status());
        EXPECT_GT(no_delta->size(), bytes.size());  // the whole dictionary went again
        ASSERT_OK_AND_ASSIGN(auto read_no_delta, ReadAllFromBytes(Share(*no_delta)));
        ExpectSameBatches(grow, read_no_delta);
      }
    }
  }
}

// The writer sends a delta when a dictionary only grew (here: a slice of the final dictionary
// first); the reader appends it. Covers every value type, nulls inside dictionaries included.
TEST(IpcRoundTrip, DeltaDictionariesOfEveryValueType) {
  RandomData data(16);
  const std::vector<DataType> value_types = {
      DataType::Int64(),        DataType::Boolean(),
      DataType::Utf8(),         DataType::Binary(),
      DataType::Decimal(20, 2), DataType::Decimal(9, 2),
      DataType::Float64(),      DataType::Interval(),
      DataType::Date32(),       DataType::Timestamp(TimeUnit::kNano, "UTC"),
      DataType::Null(),         DataType::UInt8()};
  for (const DataType& value_type : value_types) {
    SCOPED_TRACE(value_type.ToString());
    const DataType type = DataType::Dictionary(TypeId::kInt32, value_type);
    auto schema = testing::SchemaOf({type});
    ArrayPtr full = data.Array(value_type, 11, 0.3);
    ArrayPtr start = full->Slice(0, 5);
    ArrayPtr middle = full->Slice(0, 8);
    std::vector<RecordBatchPtr> batches;
    for (const ArrayPtr& d : {start, start, middle, full}) {
      batches.push_back(RecordBatch::Make(schema, 20, {data.DictionaryArray(type, d, 20, 0.2)}));
    }
    for (bool file_format : {false, true}) {
      WriteOptions options;
      options.compression = file_format ? Compression::kLz4Frame : Compression::kNone;
      ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, batches, file_format, options));
      ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(bytes)));
      ExpectSameBatches(batches, read);
      const ArrayPtr& last = read.batches.back()->column(0)->dictionary();
      EXPECT_TRUE(ArraysEqual(*last, *full)) << "file " << file_format;
      EXPECT_EQ(last->null_count(), full->null_count());
      // One dictionary, two deltas (the repeated start sends nothing).
      EXPECT_EQ(testing::MessageKinds(bytes),
                (std::vector<std::string>{"schema", "dictionary", "batch", "batch", "delta",
                                          "batch", "delta", "batch"}));
      // Without deltas a file refuses the batches and a stream replaces the dictionary.
      options.emit_dictionary_deltas = false;
      auto without = WriteIpc(schema, batches, file_format, options);
      if (file_format) {
        EXPECT_EQ(without.status().code(), StatusCode::kInvalidArgument);
      } else {
        ASSERT_OK(without.status());
        EXPECT_EQ(testing::MessageKinds(*without),
                  (std::vector<std::string>{"schema", "dictionary", "batch", "batch", "dictionary",
                                            "batch", "dictionary", "batch"}));
      }
    }
  }
}

// An input stream that hands out a few bytes per call and has no zero-copy path.
class TrickleStream : public InputStream {
 public:
  explicit TrickleStream(std::string bytes) : bytes_(std::move(bytes)) {}
  Result<int64_t> Read(uint8_t* out, int64_t size) override {
    const int64_t n = std::min<int64_t>({size, 5, static_cast<int64_t>(bytes_.size()) - pos_});
    std::memcpy(out, bytes_.data() + pos_, static_cast<size_t>(n));
    pos_ += n;
    return n;
  }

 private:
  std::string bytes_;
  int64_t pos_ = 0;
};

TEST(IpcRoundTrip, SequentialInputInSmallPieces) {
  RandomData data(17);
  auto schema = AllTypesSchema();
  auto batch = data.Batch(schema, 100);
  for (Compression compression : {Compression::kNone, Compression::kZstd}) {
    WriteOptions options;
    options.compression = compression;
    ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {batch, batch}, false, options));
    ASSERT_OK_AND_ASSIGN(auto reader, OpenStreamReader(std::make_unique<TrickleStream>(bytes)));
    ReadAllResult read{reader->schema(), {}};
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto b, reader->Next());
      if (b == nullptr)
        break;
      read.batches.push_back(b);
    }
    ExpectSameBatches({batch, batch}, read);
    // Truncated in the middle of a body, the trickle reports it.
    ASSERT_OK_AND_ASSIGN(
        auto cut,
        OpenStreamReader(std::make_unique<TrickleStream>(bytes.substr(0, bytes.size() - 100))));
    Status st;
    while (st.ok()) {
      auto b = cut->Next();
      st = b.status();
      if (b.ok() && *b == nullptr)
        break;
    }
    EXPECT_EQ(st.code(), StatusCode::kInvalidData);
    EXPECT_NE(st.ToString().find("truncated"), std::string::npos) << st.ToString();
  }
}

TEST(IpcRoundTrip, ZeroCopyFromMemory) {
  RandomData data(11);
  auto schema = testing::SchemaOf({DataType::Int64(), DataType::Utf8(), DataType::Float64()});
  auto batch = data.Batch(schema, 1000);
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {batch}, false));
  auto shared = Share(bytes);
  const auto* begin = reinterpret_cast<const uint8_t*>(shared->data());
  const auto* end = begin + shared->size();
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(shared));
  ASSERT_EQ(read.batches.size(), 1u);
  std::weak_ptr<const std::string> weak = shared;
  shared.reset();
  for (const ArrayPtr& column : read.batches[0]->columns()) {
    for (const BufferPtr& buffer : column->buffers()) {
      if (buffer == nullptr || buffer->size() == 0)
        continue;
      EXPECT_FALSE(buffer->is_owned());
      EXPECT_TRUE(buffer->data() >= begin && buffer->data() < end);
    }
  }
  // The arrays keep the input alive.
  EXPECT_FALSE(weak.expired());
  ExpectSameBatches({batch}, read);
  read.batches.clear();
  EXPECT_TRUE(weak.expired());
}

TEST(IpcRoundTrip, MisalignedInputIsCopied) {
  RandomData data(12);
  auto schema = testing::SchemaOf(
      {DataType::Int64(), DataType::Decimal(30, 3), DataType::Interval(), DataType::Utf8()});
  auto batch = data.Batch(schema, 77);
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {batch}, false));
  auto shifted = std::make_shared<std::string>(bytes.size() + 3, '\0');
  std::memcpy(shifted->data() + 3, bytes.data(), bytes.size());
  ASSERT_OK_AND_ASSIGN(auto reader, OpenStreamReader(std::make_unique<BufferInputStream>(
                                        reinterpret_cast<const uint8_t*>(shifted->data()) + 3,
                                        static_cast<int64_t>(bytes.size()), shifted)));
  ASSERT_OK_AND_ASSIGN(auto read_batch, reader->Next());
  ASSERT_NE(read_batch, nullptr);
  EXPECT_TRUE(read_batch->Equals(
      *RecordBatch::Make(reader->schema(), batch->num_rows(), batch->columns())));
  for (const ArrayPtr& column : read_batch->columns()) {
    const BufferPtr& values = column->buffer(1);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values->data()) % 4, 0u) << column->type().ToString();
  }
  ASSERT_OK_AND_ASSIGN(auto end, reader->Next());
  EXPECT_EQ(end, nullptr);
  ASSERT_OK_AND_ASSIGN(auto still_end, reader->Next());
  EXPECT_EQ(still_end, nullptr);
}

TEST(IpcRoundTrip, CopiesWhenNothingOwnsTheInput) {
  RandomData data(13);
  auto schema = testing::SchemaOf({DataType::Int32()});
  auto batch = data.Batch(schema, 10);
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteIpc(schema, {batch}, false));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenStreamReader(std::make_unique<BufferInputStream>(
                                        reinterpret_cast<const uint8_t*>(bytes.data()),
                                        static_cast<int64_t>(bytes.size()))));
  ASSERT_OK_AND_ASSIGN(auto read_batch, reader->Next());
  bytes.assign(bytes.size(), 'x');  // the batch must not depend on the input any more
  EXPECT_TRUE(ArraysEqual(*read_batch->column(0), *batch->column(0)));
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/shoal_ipc_test_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }

  ~TempDir() { std::system(fmt::format("rm -rf '{}'", path_).c_str()); }

  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

TEST(IpcRoundTrip, FilesOnDisk) {
  TempDir dir;
  RandomData data(14);
  auto schema = AllTypesSchema();
  auto batch = data.Batch(schema, 200);
  for (bool file_format : {false, true}) {
    for (Compression compression : {Compression::kNone, Compression::kZstd}) {
      const std::string path =
          dir.File(fmt::format("t_{}_{}.arrow", file_format, static_cast<int>(compression)));
      {
        ASSERT_OK_AND_ASSIGN(auto sink, FileSink::Open(path));
        WriteOptions options;
        options.compression = compression;
        ASSERT_OK_AND_ASSIGN(auto writer, file_format
                                              ? MakeFileWriter(sink.get(), schema, options)
                                              : MakeStreamWriter(sink.get(), schema, options));
        ASSERT_OK(writer->WriteBatch(*batch));
        ASSERT_OK(writer->WriteBatch(*batch->Slice(3, 50)));
        ASSERT_OK(writer->Close());
        EXPECT_FALSE(writer->WriteBatch(*batch).ok());
      }
      ASSERT_OK_AND_ASSIGN(auto read, ReadAll(path));
      ExpectSameBatches({batch, batch->Slice(3, 50)}, read);
      if (file_format) {
        // Memory-mapped: batches stay valid after the reader is gone.
        RecordBatchPtr second;
        {
          ASSERT_OK_AND_ASSIGN(auto reader, OpenFileReader(path));
          EXPECT_EQ(reader->num_batches(), 2);
          ASSERT_OK_AND_ASSIGN(second, reader->ReadBatch(1));
          EXPECT_EQ(reader->ReadBatch(2).status().code(), StatusCode::kInvalidArgument);
          EXPECT_EQ(reader->ReadBatch(-1).status().code(), StatusCode::kInvalidArgument);
        }
        EXPECT_TRUE(second->Equals(
            *RecordBatch::Make(second->schema(), 50, batch->Slice(3, 50)->columns())));
      } else {
        // Sequential reading through a file descriptor.
        ASSERT_OK_AND_ASSIGN(auto input, FileInputStream::Open(path));
        ASSERT_OK_AND_ASSIGN(auto reader, OpenStreamReader(std::move(input)));
        int n = 0;
        while (true) {
          ASSERT_OK_AND_ASSIGN(auto b, reader->Next());
          if (b == nullptr)
            break;
          ++n;
        }
        EXPECT_EQ(n, 2);
      }
    }
  }
  EXPECT_EQ(ReadAll(dir.File("missing.arrow")).status().code(), StatusCode::kNotFound);
}

TEST(IpcRoundTrip, CompressionShrinksRepetitiveData) {
  auto schema = testing::SchemaOf({DataType::Int64(), DataType::Utf8()});
  auto pool = DefaultMemoryPool();
  Int64Builder ints(DataType::Int64(), pool);
  BinaryBuilder strings(DataType::Utf8(), pool);
  for (int i = 0; i < 100000; ++i) {
    ASSERT_OK(ints.Append(i % 10));
    ASSERT_OK(strings.Append("the same words again and again"));
  }
  auto batch = RecordBatch::Make(schema, 100000, {*ints.Finish(), *strings.Finish()});
  WriteOptions options;
  ASSERT_OK_AND_ASSIGN(std::string plain, WriteIpc(schema, {batch}, false, options));
  for (Compression c : {Compression::kLz4Frame, Compression::kZstd}) {
    options.compression = c;
    ASSERT_OK_AND_ASSIGN(std::string packed, WriteIpc(schema, {batch}, false, options));
    EXPECT_LT(packed.size() * 10, plain.size());
    ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(packed)));
    ExpectSameBatches({batch}, read);
  }
}

TEST(IpcRoundTrip, IncompressibleBuffersAreStoredRaw) {
  RandomData data(15);
  auto schema = testing::SchemaOf({DataType::Binary()});
  auto batch = data.Batch(schema, 2000, 0.0);
  WriteOptions options;
  ASSERT_OK_AND_ASSIGN(std::string plain, WriteIpc(schema, {batch}, false, options));
  options.compression = Compression::kZstd;
  ASSERT_OK_AND_ASSIGN(std::string packed, WriteIpc(schema, {batch}, false, options));
  // Random bytes do not compress: at most the 8-byte prefixes and the BodyCompression table.
  EXPECT_LE(packed.size(), plain.size() + 64);
  ASSERT_OK_AND_ASSIGN(auto read, ReadAllFromBytes(Share(packed)));
  ExpectSameBatches({batch}, read);
}

}  // namespace
}  // namespace shoal::columnar::ipc

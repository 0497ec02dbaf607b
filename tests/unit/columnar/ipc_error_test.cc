// Arrow IPC error handling on whole inputs and on writer misuse: bad magic, truncation at every
// byte, batches that do not match the writer's schema, dictionary replacement in files.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/ipc/writer.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::columnar::ipc {
namespace {

using ::testing::HasSubstr;
using testing::RandomData;
using testing::WriteIpc;

std::shared_ptr<const std::string> Share(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

std::string ValidInput(bool file_format, Compression compression = Compression::kNone,
                       int64_t rows = 40) {
  RandomData data(21);
  auto schema = testing::AllTypesSchema();
  auto batch = data.Batch(schema, rows);
  WriteOptions options;
  options.compression = compression;
  auto bytes = WriteIpc(schema, {batch, batch->Slice(rows / 4, rows / 2)}, file_format, options);
  SHOAL_CHECK(bytes.ok(), "{}", bytes.status().ToString());
  return *bytes;
}

TEST(IpcErrors, BadMagic) {
  std::string bytes = ValidInput(true);
  bytes[0] = 'X';
  auto reader = OpenFileReader(Share(bytes));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kInvalidData);
  EXPECT_THAT(reader.status().ToString(), HasSubstr("ARROW1"));

  std::string tail = ValidInput(true);
  tail[tail.size() - 1] = '2';
  reader = OpenFileReader(Share(tail));
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().ToString(), HasSubstr("truncated"));

  // A stream is not a file.
  reader = OpenFileReader(Share(ValidInput(false)));
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().ToString(), HasSubstr("stream reader"));

  auto empty = ReadAllFromBytes(Share(""));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidData);
  EXPECT_THAT(empty.status().ToString(), HasSubstr("empty or truncated"));

  auto garbage = ReadAllFromBytes(Share("this is certainly not arrow data"));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidData);
}

// A file cut anywhere loses its footer, so every proper prefix must be refused as truncated.
TEST(IpcErrors, TruncatedFileAtEveryLength) {
  for (Compression c : {Compression::kNone, Compression::kLz4Frame}) {
    const std::string bytes = ValidInput(true, c, 8);
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto result = OpenFileReader(Share(bytes.substr(0, n)));
      ASSERT_FALSE(result.ok()) << n;
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidData) << n;
      if (n >= 6) {
        EXPECT_THAT(result.status().ToString(), HasSubstr("truncated")) << n;
      }
    }
  }
}

// A stream cut inside a message says "truncated"; cut between messages it is a shorter stream.
TEST(IpcErrors, TruncatedStreamAtEveryLength) {
  for (Compression c : {Compression::kNone, Compression::kZstd}) {
    const std::string bytes = ValidInput(false, c, 8);
    auto full = ReadAllFromBytes(Share(bytes));
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    int whole_prefixes = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto result = ReadAllFromBytes(Share(bytes.substr(0, n)));
      if (result.ok()) {
        ++whole_prefixes;
        EXPECT_LE(result->batches.size(), full->batches.size());
        continue;
      }
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidData) << n;
      EXPECT_THAT(result.status().ToString(), HasSubstr("truncated")) << n;
    }
    // The message boundaries: after the schema, after each dictionary batch, after each
    // record batch (4 dictionaries + 2 batches), and after the end marker's first half is not one.
    EXPECT_EQ(whole_prefixes, 7) << "compression " << static_cast<int>(c);
  }
}

TEST(IpcErrors, WriterRefusesMismatchedBatches) {
  RandomData data(22);
  auto schema = testing::SchemaOf({DataType::Int32(), DataType::Utf8()});
  auto other = testing::SchemaOf({DataType::Int64(), DataType::Utf8()});
  BufferSink sink;
  auto writer = MakeStreamWriter(&sink, schema);
  ASSERT_TRUE(writer.ok());
  Status st = (*writer)->WriteBatch(*data.Batch(other, 3));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.ToString(), HasSubstr("does not match"));
  st = (*writer)->WriteBatch(*data.Batch(testing::SchemaOf({DataType::Int32()}), 3));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // A schema equal in content but not the same object is fine.
  EXPECT_TRUE(
      (*writer)
          ->WriteBatch(*data.Batch(testing::SchemaOf({DataType::Int32(), DataType::Utf8()}), 3))
          .ok());

  auto not_null =
      std::make_shared<const Schema>(std::vector<Field>{{"x", DataType::Int32(), false}});
  auto nullable_batch = RecordBatch::Make(not_null, 10, {data.Array(DataType::Int32(), 10, 0.5)});
  BufferSink sink2;
  auto writer2 = MakeFileWriter(&sink2, not_null);
  ASSERT_TRUE(writer2.ok());
  st = (*writer2)->WriteBatch(*nullable_batch);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.ToString(), HasSubstr("NOT NULL"));

  WriteOptions bad_level;
  bad_level.compression = Compression::kZstd;
  bad_level.zstd_level = 1000;
  EXPECT_EQ(MakeStreamWriter(&sink, schema, bad_level).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(IpcErrors, FileFormatRefusesDictionaryReplacement) {
  RandomData data(23);
  const DataType type = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  auto schema = testing::SchemaOf({type});
  auto b1 = RecordBatch::Make(schema, 10, {data.Array(type, 10, 0.0)});
  auto b2 = RecordBatch::Make(schema, 10, {data.Array(type, 10, 0.0)});
  ASSERT_FALSE(ArraysEqual(*b1->column(0)->dictionary(), *b2->column(0)->dictionary()));
  BufferSink sink;
  auto writer = MakeFileWriter(&sink, schema);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteBatch(*b1).ok());
  Status st = (*writer)->WriteBatch(*b2);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.ToString(), HasSubstr("one dictionary per column"));
  // The refused batch left nothing behind: the file still closes and reads as one batch.
  ASSERT_TRUE((*writer)->Close().ok());
  auto read = ReadAllFromBytes(Share(sink.TakeBytes()));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->batches.size(), 1u);
  EXPECT_TRUE(read->batches[0]->Equals(*b1));

  // The same batches are fine as a stream.
  auto stream = WriteIpc(schema, {b1, b2}, false);
  ASSERT_TRUE(stream.ok());
  auto read_stream = ReadAllFromBytes(Share(*stream));
  ASSERT_TRUE(read_stream.ok());
  EXPECT_TRUE(read_stream->batches[1]->Equals(*b2));
}

TEST(IpcErrors, ErrorsEndTheStream) {
  std::string bytes = ValidInput(false);
  // Corrupt the last record batch's body length prefix region: cut the stream inside it.
  bytes.resize(bytes.size() - 40);
  auto reader = OpenStreamReader(std::make_unique<BufferInputStream>(
      reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int64_t>(bytes.size())));
  ASSERT_TRUE(reader.ok());
  Status first;
  while (true) {
    auto next = (*reader)->Next();
    if (!next.ok()) {
      first = next.status();
      break;
    }
    ASSERT_NE(*next, nullptr) << "the cut stream ended cleanly";
  }
  EXPECT_THAT(first.ToString(), HasSubstr("truncated"));
  auto again = (*reader)->Next();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status(), first);
}

// Nested arrays the writer sends as they are (it rebases offsets but does not validate) and the
// reader must refuse: what a hostile or broken writer would produce.
BufferPtr NestedBytes(std::vector<int32_t> values) {
  auto owner = std::make_shared<std::vector<int32_t>>(std::move(values));
  return Buffer::Wrap(reinterpret_cast<const uint8_t*>(owner->data()),
                      static_cast<int64_t>(owner->size() * sizeof(int32_t)), owner);
}

ArrayPtr NestedInts(std::vector<int32_t> values, BufferPtr validity = nullptr) {
  const auto n = static_cast<int64_t>(values.size());
  return Array::Make(DataType::Int32(), n, {std::move(validity), NestedBytes(std::move(values))});
}

void ExpectNestedRefused(const DataType& type, const ArrayPtr& column, const std::string& text) {
  auto schema = testing::SchemaOf({type});
  auto batch = RecordBatch::Make(schema, column->length(), {column});
  for (bool file_format : {false, true}) {
    auto bytes = WriteIpc(schema, {batch}, file_format);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto read = ReadAllFromBytes(Share(*bytes));
    ASSERT_FALSE(read.ok()) << text;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidData);
    EXPECT_THAT(read.status().ToString(), HasSubstr(text));
    EXPECT_THAT(read.status().ToString(), HasSubstr("column 0 'c0'"));
  }
}

TEST(IpcErrors, NestedArraysFromBrokenWriters) {
  const DataType list = DataType::List(DataType::Int32());
  ExpectNestedRefused(
      list, Array::MakeNested(list, 2, {nullptr, NestedBytes({0, 3, 1})}, {NestedInts({1, 2, 3})}),
      "offsets decrease at row 1");
  const DataType map = DataType::Map(DataType::Int32(), DataType::Int32());
  auto keys = NestedInts({1, 2}, NestedBytes({0b01}));
  auto entries = Array::MakeNested(map.item_type(), 2, {nullptr}, {keys, NestedInts({5, 6})});
  ExpectNestedRefused(map, Array::MakeNested(map, 1, {nullptr, NestedBytes({0, 2})}, {entries}),
                      "null key");
}

}  // namespace
}  // namespace shoal::columnar::ipc

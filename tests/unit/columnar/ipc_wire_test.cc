// Arrow IPC messages crafted by hand with the flatbuffers API, for what Shoal's writer never
// produces: other writers' choices (date64, Decimal32/128 widths, legacy framing, omitted
// buffers), types Shoal refuses, and structurally broken messages. Every case checks the reader's
// answer: converted values, or the error code and what the message names.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shoal/columnar/ipc/reader.h"
#include "shoal/columnar/pretty_print.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::columnar::ipc {
namespace {

namespace fbs = ::shoal::columnar::ipc::flatbuf;
using flatbuffers::FlatBufferBuilder;
using testing::BatchSpec;
using testing::Bits;
using testing::Bytes;
using testing::Date64Type;
using testing::DecimalType;
using testing::FieldSpec;
using ::testing::HasSubstr;
using testing::IntType;
using testing::RawStream;
using testing::TypeMaker;
using testing::Utf8Type;

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                  \
  auto SHOAL_CONCAT(_r_, __LINE__) = (rexpr);             \
  ASSERT_TRUE(SHOAL_CONCAT(_r_, __LINE__).ok())           \
      << SHOAL_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(SHOAL_CONCAT(_r_, __LINE__)).MoveValueUnsafe()

void ExpectError(const Result<ReadAllResult>& result, StatusCode code, const std::string& text) {
  ASSERT_FALSE(result.ok()) << "expected an error containing '" << text << "'";
  EXPECT_EQ(result.status().code(), code) << result.status().ToString();
  EXPECT_THAT(result.status().ToString(), HasSubstr(text));
}

std::vector<std::string> Column(const ReadAllResult& read, int column) {
  std::vector<std::string> out;
  for (const auto& batch : read.batches) {
    const Array& a = *batch->column(column);
    for (int64_t i = 0; i < a.length(); ++i)
      out.push_back(a.IsValid(i) ? FormatValue(a, i) : "NULL");
  }
  return out;
}

TEST(IpcWire, Date64IsReadAsDate32) {
  RawStream s;
  s.Schema({{"d", Date64Type()}});
  const int64_t day = 86'400'000;
  s.Batch({5, {{5, 1}}, {Bits({1, 1, 1, 0, 1}), Bytes<int64_t>({0, day, -day, 0, 365 * day})}});
  s.End();
  ASSERT_OK_AND_ASSIGN(auto read, s.Read());
  EXPECT_EQ(read.schema->field(0).type, DataType::Date32());
  EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("1970-01-01", "1970-01-02", "1969-12-31",
                                                      "NULL", "1971-01-01"));

  RawStream bad;
  bad.Schema({{"d", Date64Type()}});
  bad.Batch({1, {{1, 0}}, {"", Bytes<int64_t>({std::numeric_limits<int64_t>::max()})}});
  ExpectError(bad.Read(), StatusCode::kInvalidData, "outside the date32 range");
}

TEST(IpcWire, DecimalWidthsAreConverted) {
  {
    RawStream s;
    s.Schema({{"d32", DecimalType(7, 2, 32)}});
    s.Batch({3, {{3, 0}}, {"", Bytes<int32_t>({12345, -1, 9999999})}});
    s.End();
    ASSERT_OK_AND_ASSIGN(auto read, s.Read());
    EXPECT_EQ(read.schema->field(0).type, DataType::Decimal(7, 2));
    EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("123.45", "-0.01", "99999.99"));
  }
  {
    RawStream s;
    s.Schema({{"d128", DecimalType(18, 3, 128)}, {"d64", DecimalType(18, 3, 64)}});
    std::vector<int64_t> wide = {-5, -1, 7, 0};  // two 128-bit values: -5 and 7
    s.Batch({2, {{2, 0}, {2, 0}}, {"", Bytes(wide), "", Bytes<int64_t>({1, -2})}});
    s.End();
    ASSERT_OK_AND_ASSIGN(auto read, s.Read());
    EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("-0.005", "0.007"));
    EXPECT_THAT(Column(read, 1), ::testing::ElementsAre("0.001", "-0.002"));
  }
  {
    // A 128-bit value that does not fit the declared precision (and int64) is corrupt.
    RawStream s;
    s.Schema({{"d128", DecimalType(10, 0, 128)}});
    s.Batch({1, {{1, 0}}, {"", Bytes<int64_t>({0, 1})}});
    ExpectError(s.Read(), StatusCode::kInvalidData, "needs more than the declared precision");
  }
  {
    RawStream s;
    s.Schema({{"d", DecimalType(40, 0, 256)}});
    ExpectError(s.Read(), StatusCode::kNotImplemented, "'d'");
  }
  {
    RawStream s;
    s.Schema({{"d", DecimalType(20, 0, 64)}});
    ExpectError(s.Read(), StatusCode::kInvalidData, "precision 20");
  }
}

TEST(IpcWire, LegacyFramingAndMissingEndMarker) {
  RawStream s;
  s.legacy_framing = true;
  s.Schema({{"x", IntType(16, false)}});
  s.Batch({2, {{2, 0}}, {"", Bytes<uint16_t>({65535, 7})}});
  // No end-of-stream marker: the input simply ends after a whole message.
  ASSERT_OK_AND_ASSIGN(auto read, s.Read());
  EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("65535", "7"));
}

TEST(IpcWire, OmittedBuffersAreAccepted) {
  RawStream s;
  s.Schema({{"s", Utf8Type()}, {"i", IntType(32, true)}});
  // No validity bitmap when nothing is null; an empty string column may omit its offsets.
  s.Batch({0, {{0, 0}, {0, 0}}, {"", "", "", "", ""}});
  s.Batch(
      {2, {{2, 0}, {2, 0}}, {"", Bytes<int32_t>({0, 1, 3}), "abc", "", Bytes<int32_t>({4, 5})}});
  s.End();
  ASSERT_OK_AND_ASSIGN(auto read, s.Read());
  ASSERT_EQ(read.batches.size(), 2u);
  EXPECT_EQ(read.batches[0]->num_rows(), 0);
  EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("a", "bc"));
}

TEST(IpcWire, UnsupportedTypesNameTheField) {
  struct Case {
    const char* arrow;
    TypeMaker type;
  };

  auto simple = [](fbs::Type t, auto create) -> TypeMaker {
    return [=](FlatBufferBuilder& b) { return std::make_pair(t, create(b).Union()); };
  };
  std::vector<Case> cases = {
      {"ListView",
       simple(fbs::Type::ListView, [](FlatBufferBuilder& b) { return fbs::CreateListView(b); })},
      {"LargeListView", simple(fbs::Type::LargeListView,
                               [](FlatBufferBuilder& b) { return fbs::CreateLargeListView(b); })},
      {"LargeUtf8",
       simple(fbs::Type::LargeUtf8, [](FlatBufferBuilder& b) { return fbs::CreateLargeUtf8(b); })},
      {"Utf8View",
       simple(fbs::Type::Utf8View, [](FlatBufferBuilder& b) { return fbs::CreateUtf8View(b); })},
      {"Time", simple(fbs::Type::Time, [](FlatBufferBuilder& b) { return fbs::CreateTime(b); })},
      {"Duration",
       simple(fbs::Type::Duration, [](FlatBufferBuilder& b) { return fbs::CreateDuration(b); })},
      {"16-bit floats", simple(fbs::Type::FloatingPoint,
                               [](FlatBufferBuilder& b) {
                                 return fbs::CreateFloatingPoint(b, fbs::Precision::HALF);
                               })},
      {"YEAR_MONTH", simple(fbs::Type::Interval,
                            [](FlatBufferBuilder& b) {
                              return fbs::CreateInterval(b, fbs::IntervalUnit::YEAR_MONTH);
                            })},
  };
  for (const Case& c : cases) {
    RawStream s;
    s.Schema({{"fine", IntType(8, true)}, {"odd_one", c.type}});
    auto result = s.Read();
    ExpectError(result, StatusCode::kNotImplemented, "'odd_one'");
    EXPECT_THAT(result.status().ToString(), HasSubstr(c.arrow));
  }
  // Nested types are supported, but a list must have its one child (RawStream writes none).
  RawStream childless;
  childless.Schema(
      {{"l", simple(fbs::Type::List, [](FlatBufferBuilder& b) { return fbs::CreateList(b); })}});
  ExpectError(childless.Read(), StatusCode::kInvalidData, "needs exactly one child, not 0");

  RawStream unknown;
  unknown.Schema({{"x", [](FlatBufferBuilder& b) {
                     return std::make_pair(static_cast<fbs::Type>(99), fbs::CreateNull(b).Union());
                   }}});
  ExpectError(unknown.Read(), StatusCode::kInvalidData, "unknown Arrow type tag 99");

  RawStream big;
  big.Schema({{"x", IntType(32, true)}}, fbs::Endianness::Big);
  ExpectError(big.Read(), StatusCode::kNotImplemented, "big-endian");
}

TEST(IpcWire, DictionaryMessages) {
  std::vector<FieldSpec> fields = {{"d", Utf8Type(), true, true, 7}};
  auto dictionary = [](std::vector<std::string> values) {
    std::vector<int32_t> offsets = {0};
    std::string data;
    for (const auto& v : values) {
      data += v;
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    const auto n = static_cast<int64_t>(values.size());
    return BatchSpec{n, {{n, 0}}, {"", Bytes(offsets), data}};
  };
  {
    RawStream s;
    s.Schema(fields);
    s.Dictionary(7, dictionary({"a", "b"}), false);
    s.Dictionary(7, dictionary({"c"}), true);  // delta: a, b, c
    s.Batch({3, {{3, 1}}, {Bits({1, 0, 1}), Bytes<int32_t>({2, 99, 0})}});
    s.Dictionary(7, dictionary({"x"}), false);  // replacement
    s.Batch({1, {{1, 0}}, {"", Bytes<int32_t>({0})}});
    s.End();
    ASSERT_OK_AND_ASSIGN(auto read, s.Read());
    EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("c", "NULL", "a", "x"));
  }
  {
    RawStream s;
    s.Schema(fields);
    s.Dictionary(8, dictionary({"a"}), false);
    ExpectError(s.Read(), StatusCode::kInvalidData, "id 8");
  }
  {
    RawStream s;
    s.Schema(fields);
    s.Batch({1, {{1, 0}}, {"", Bytes<int32_t>({0})}});
    ExpectError(s.Read(), StatusCode::kInvalidData, "no dictionary batch has defined it");
  }
  {
    RawStream s;
    s.Schema(fields);
    s.Dictionary(7, dictionary({"a", "b"}), false);
    s.Batch({1, {{1, 0}}, {"", Bytes<int32_t>({2})}});
    ExpectError(s.Read(), StatusCode::kInvalidData, "outside the dictionary");
  }
}

// Many small deltas cost time linear in what they add (a naive append copies the dictionary
// every time: here 20000 copies of a 100000-entry dictionary).
TEST(IpcWire, ManyDeltasAreLinear) {
  RawStream s;
  s.Schema({{"d", Utf8Type(), true, true, 1}});
  const int64_t base = 100000;
  std::vector<int32_t> offsets = {0};
  std::string data;
  std::vector<bool> valid;
  for (int64_t i = 0; i < base; ++i) {
    data += fmt::format("value-{:010}", i);
    offsets.push_back(static_cast<int32_t>(data.size()));
    valid.push_back(i % 7 != 0);
  }
  s.Dictionary(1, {base, {{base, (base + 6) / 7}}, {Bits(valid), Bytes(offsets), data}}, false);
  const int64_t deltas = 20000;
  for (int64_t i = 0; i < deltas; ++i)
    s.Dictionary(1, {1, {{1, 0}}, {"", Bytes<int32_t>({0, 2}), "ok"}}, true);
  s.Batch({3, {{3, 0}}, {"", Bytes<int32_t>({1, static_cast<int32_t>(base + deltas - 1), 0})}});
  s.End();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto read, s.Read());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("value-0000000001", "ok", ""));
  EXPECT_EQ(read.batches[0]->column(0)->dictionary()->length(), base + deltas);
  EXPECT_LT(seconds, 10.0);  // quadratic copying would take minutes
}

// Bitmaps are copied per delta; a stream of deltas against a huge boolean dictionary is refused
// once the copying is out of all proportion to the data received.
TEST(IpcWire, HostileDeltasAreRefused) {
  RawStream s;
  s.Schema({{"d",
             [](FlatBufferBuilder& b) {
               return std::make_pair(fbs::Type::Bool, fbs::CreateBool(b).Union());
             },
             true, true, 1}});
  const int64_t base = int64_t{64} << 20;  // 64 Mi booleans, 8 MiB
  s.Dictionary(1, {base, {{base, 0}}, {"", std::string(static_cast<size_t>(base / 8), '\x55')}},
               false);
  for (int i = 0; i < 400; ++i)
    s.Dictionary(1, {1, {{1, 0}}, {"", "\x01"}}, true);
  ExpectError(s.Read(), StatusCode::kInvalidData, "looks corrupted or hostile");
}

TEST(IpcWire, StructuralErrors) {
  std::vector<FieldSpec> fields = {{"i", IntType(32, true)}, {"s", Utf8Type(), false}};
  auto good = [] {
    return BatchSpec{2,
                     {{2, 1}, {2, 0}},
                     {Bits({1, 0}), Bytes<int32_t>({1, 2}), "", Bytes<int32_t>({0, 1, 2}), "ab"}};
  };
  {
    RawStream s;
    s.Schema(fields);
    s.Batch(good());
    s.End();
    ASSERT_OK_AND_ASSIGN(auto read, s.Read());
    EXPECT_THAT(Column(read, 1), ::testing::ElementsAre("a", "b"));
  }
  auto expect = [&](BatchSpec spec, StatusCode code, const std::string& text,
                    ReadOptions options = {}) {
    RawStream s;
    s.Schema(fields);
    s.Batch(spec);
    s.End();
    SCOPED_TRACE(text);
    ExpectError(s.Read(options), code, text);
  };
  BatchSpec b = good();
  b.nodes.pop_back();
  expect(b, StatusCode::kInvalidData, "1 field nodes where its 2 columns need 2");
  b = good();
  b.buffers.pop_back();
  expect(b, StatusCode::kInvalidData, "4 buffers where its 2 columns need 5");
  b = good();
  b.nodes[0] = fbs::FieldNode(2, 2);
  expect(b, StatusCode::kInvalidData, "the field node says 2 nulls but the validity bitmap has 1");
  b = good();
  b.nodes[0] = fbs::FieldNode(3, 0);
  expect(b, StatusCode::kInvalidData, "3 rows but the batch 2");
  b = good();
  b.nodes[1] = fbs::FieldNode(2, 1);
  expect(b, StatusCode::kInvalidData, "declared NOT NULL");
  b = good();
  b.buffers[3] = Bytes<int32_t>({0, 2, 1});
  expect(b, StatusCode::kInvalidData, "offsets decrease");
  b = good();
  b.buffers[4] = "\xff\xfe";
  expect(b, StatusCode::kInvalidData, "invalid UTF-8");
  ReadOptions no_utf8_check;
  no_utf8_check.check_utf8 = false;
  {
    RawStream s;
    s.Schema(fields);
    s.Batch(b);
    s.End();
    EXPECT_TRUE(s.Read(no_utf8_check).ok());
  }
  b = good();
  b.buffers[1] = Bytes<int32_t>({1});
  expect(b, StatusCode::kInvalidData, "too short");
  b = good();
  b.length = -1;
  expect(b, StatusCode::kInvalidData, "impossible record batch length -1");
  {
    RawStream s;
    s.Schema(fields);
    s.body_length_delta = 64;  // declares more body than follows
    s.Batch(good());
    ExpectError(s.Read(), StatusCode::kInvalidData, "truncated");
  }
  {
    RawStream s;
    s.Schema(fields);
    s.Schema(fields);
    ExpectError(s.Read(), StatusCode::kInvalidData, "second schema");
  }
  {
    RawStream s;
    s.Batch(good());
    ExpectError(s.Read(), StatusCode::kInvalidData, "not a schema");
  }
}

TEST(IpcWire, CompressedBufferChecks) {
  std::vector<FieldSpec> fields = {{"i", IntType(64, true)}};
  fbs::CompressionType zstd = fbs::CompressionType::ZSTD;
  auto prefixed = [](int64_t prefix, const std::string& payload) {
    std::string s(reinterpret_cast<const char*>(&prefix), 8);
    return s + payload;
  };
  // A limited pool: a reader that trusted a corrupted size would fail with OutOfMemory instead.
  ReadOptions limited;
  limited.pool = MemoryPool::MakeRoot("limited", 1 << 20);
  auto expect = [&](const std::string& values, StatusCode code, const std::string& text) {
    RawStream s;
    s.Schema(fields);
    s.Batch({2, {{2, 0}}, {"", values}, &zstd});
    s.End();
    SCOPED_TRACE(text);
    ExpectError(s.Read(limited), code, text);
  };
  // Uncompressed (-1) framing is fine.
  {
    RawStream s;
    s.Schema(fields);
    s.Batch({2, {{2, 0}}, {"", prefixed(-1, Bytes<int64_t>({5, 6}))}, &zstd});
    s.End();
    ASSERT_OK_AND_ASSIGN(auto read, s.Read(limited));
    EXPECT_THAT(Column(read, 0), ::testing::ElementsAre("5", "6"));
  }
  expect("abc", StatusCode::kInvalidData, "fewer than its 8-byte");
  expect(prefixed(-7, "xxxx"), StatusCode::kInvalidData, "negative size");
  expect(prefixed(int64_t{1} << 40, "0123456789"), StatusCode::kInvalidData, "can hold at most");
  expect(prefixed(16, "not zstd at all"), StatusCode::kInvalidData, "zstd");
}

}  // namespace
}  // namespace shoal::columnar::ipc

#include "shoal/columnar/builder.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "tests/support/batch_builder.h"

namespace shoal::columnar {
namespace {

using ::shoal::testing::ArrayToStrings;
using ::shoal::testing::MakeArray;
using Strings = std::vector<std::string>;

class BuilderTest : public ::testing::Test {
 protected:
  // Every test's buffers come from this pool, so TearDown can prove nothing leaked.
  void TearDown() override { EXPECT_EQ(pool_->bytes_used(), 0) << "bytes leaked by the test"; }

  std::shared_ptr<MemoryPool> pool_ = MemoryPool::MakeRoot("builder-test");
};

TEST_F(BuilderTest, Int32WithNulls) {
  Int32Builder b(DataType::Int32(), pool_);
  ASSERT_OK(b.Append(1));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.Append(3));
  EXPECT_EQ(b.length(), 3);
  EXPECT_EQ(b.null_count(), 1);
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), DataType::Int32());
  EXPECT_EQ(a->length(), 3);
  EXPECT_EQ(a->null_count(), 1);
  EXPECT_TRUE(a->IsValid(0));
  EXPECT_TRUE(a->IsNull(1));
  EXPECT_EQ(a->Value<int32_t>(0), 1);
  EXPECT_EQ(a->Value<int32_t>(2), 3);
  EXPECT_OK(a->Validate());
}

TEST_F(BuilderTest, NullBuilder) {
  NullBuilder b(pool_);
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.AppendNulls(4));
  ASSERT_OK(b.Reserve(100));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), DataType::Null());
  EXPECT_EQ(a->length(), 5);
  EXPECT_EQ(a->null_count(), 5);
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_TRUE(a->IsNull(i));
  EXPECT_OK(a->Validate());
  EXPECT_EQ(a->BufferBytes(), 0);
  // Reuse starts from empty.
  ASSERT_OK(b.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr again, b.Finish());
  EXPECT_EQ(again->length(), 1);
  EXPECT_EQ(a->length(), 5);
}

TEST_F(BuilderTest, BooleanValuesNullsAndGrowth) {
  BooleanBuilder b(pool_);
  std::vector<int> expected;  // 1 true, 0 false, -1 null
  for (int i = 0; i < 300; ++i) {
    if (i % 7 == 3) {
      ASSERT_OK(b.AppendNull());
      expected.push_back(-1);
    } else {
      bool v = (i * 37) % 5 < 2;
      ASSERT_OK(b.Append(v));
      expected.push_back(v);
    }
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  ASSERT_EQ(a->length(), 300);
  EXPECT_OK(a->Validate());
  int64_t nulls = 0;
  for (int64_t i = 0; i < 300; ++i) {
    if (expected[static_cast<size_t>(i)] < 0) {
      EXPECT_TRUE(a->IsNull(i)) << i;
      // Null slots hold false so value bitmaps compare and compress deterministically.
      EXPECT_FALSE(a->BoolValue(i)) << i;
      ++nulls;
    } else {
      ASSERT_TRUE(a->IsValid(i)) << i;
      EXPECT_EQ(a->BoolValue(i), expected[static_cast<size_t>(i)] == 1) << i;
    }
  }
  EXPECT_EQ(a->null_count(), nulls);
  EXPECT_EQ(FormatValue(*a, 0), "t");
  EXPECT_EQ(FormatValue(*a, 2), "f");
}

template <typename T>
class IntegerBuilderTest : public ::testing::Test {};

template <typename T, TypeId kId>
struct IntCase {
  using Type = T;

  static DataType Of() {
    switch (kId) {
      case TypeId::kInt8: return DataType::Int8();
      case TypeId::kInt16: return DataType::Int16();
      case TypeId::kInt32: return DataType::Int32();
      case TypeId::kInt64: return DataType::Int64();
      case TypeId::kUInt8: return DataType::UInt8();
      case TypeId::kUInt16: return DataType::UInt16();
      case TypeId::kUInt32: return DataType::UInt32();
      default: return DataType::UInt64();
    }
  }
};

using IntCases =
    ::testing::Types<IntCase<int8_t, TypeId::kInt8>, IntCase<int16_t, TypeId::kInt16>,
                     IntCase<int32_t, TypeId::kInt32>, IntCase<int64_t, TypeId::kInt64>,
                     IntCase<uint8_t, TypeId::kUInt8>, IntCase<uint16_t, TypeId::kUInt16>,
                     IntCase<uint32_t, TypeId::kUInt32>, IntCase<uint64_t, TypeId::kUInt64>>;
TYPED_TEST_SUITE(IntegerBuilderTest, IntCases);

TYPED_TEST(IntegerBuilderTest, ExtremesRoundTripAndPrint) {
  using T = typename TypeParam::Type;
  auto pool = MemoryPool::MakeRoot("int-test");
  {
    const DataType type = TypeParam::Of();
    FixedWidthBuilder<T> b(type, pool);
    const T lo = std::numeric_limits<T>::min();
    const T hi = std::numeric_limits<T>::max();
    ASSERT_OK(b.Append(lo));
    ASSERT_OK(b.AppendNull());
    ASSERT_OK(b.Append(hi));
    ASSERT_OK(b.Append(T{0}));
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
    EXPECT_EQ(a->type(), type);
    EXPECT_OK(a->Validate());
    EXPECT_EQ(a->template Value<T>(0), lo);
    EXPECT_EQ(a->template Value<T>(2), hi);
    EXPECT_EQ(a->template Value<T>(3), T{0});
    EXPECT_EQ(FormatValue(*a, 0), std::to_string(lo));
    EXPECT_EQ(FormatValue(*a, 2), std::to_string(hi));
    // The generic builder from MakeBuilder produces the same array.
    auto generic = MakeBuilder(type, pool);
    ASSERT_OK(generic->AppendFrom(*a, 0));
    ASSERT_OK(generic->AppendFrom(*a, 1));
    ASSERT_OK(generic->AppendFrom(*a, 2));
    ASSERT_OK(generic->AppendFrom(*a, 3));
    ASSERT_OK_AND_ASSIGN(ArrayPtr copy, generic->Finish());
    EXPECT_ARRAYS_EQUAL(a, copy);
    // And so does the text helper.
    EXPECT_ARRAYS_EQUAL(
        a, MakeArray(type, {std::to_string(lo), "NULL", std::to_string(hi), "0"}, pool));
  }
  EXPECT_EQ(pool->bytes_used(), 0);
}

TEST_F(BuilderTest, FloatsKeepNaNInfinityAndNegativeZero) {
  Float64Builder d(DataType::Float64(), pool_);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {1.5, nan, inf, -inf, -0.0, std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::max()}) {
    ASSERT_OK(d.Append(v));
  }
  ASSERT_OK(d.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, d.Finish());
  EXPECT_TRUE(std::isnan(a->Value<double>(1)));
  EXPECT_EQ(a->Value<double>(2), inf);
  EXPECT_EQ(a->Value<double>(3), -inf);
  EXPECT_TRUE(std::signbit(a->Value<double>(4)));
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"1.5", "NaN", "Infinity", "-Infinity", "-0", "5e-324",
                                         "1.7976931348623157e+308", "NULL"}));
  // NaN equals NaN for array equality (a column compared with its copy must be equal).
  EXPECT_ARRAYS_EQUAL(a, MakeArray(DataType::Float64(),
                                   {"1.5", "NaN", "Infinity", "-Infinity", "-0", "5e-324",
                                    "1.7976931348623157e+308", "NULL"},
                                   pool_));

  Float32Builder f(DataType::Float32(), pool_);
  ASSERT_OK(f.Append(0.1f));
  ASSERT_OK(f.Append(std::numeric_limits<float>::quiet_NaN()));
  ASSERT_OK(f.Append(-std::numeric_limits<float>::infinity()));
  ASSERT_OK(f.Append(std::numeric_limits<float>::max()));
  ASSERT_OK_AND_ASSIGN(ArrayPtr b, f.Finish());
  EXPECT_EQ(b->type(), DataType::Float32());
  EXPECT_EQ(ArrayToStrings(*b), (Strings{"0.1", "NaN", "-Infinity", "3.4028235e+38"}));
}

TEST_F(BuilderTest, Decimal64StoresUnscaledValues) {
  const DataType type = DataType::Decimal(18, 2);
  Decimal64Builder b(type, pool_);
  const int64_t max18 = static_cast<int64_t>(MaxUnscaled(18));
  ASSERT_OK(b.Append(12345));
  ASSERT_OK(b.Append(-5));
  ASSERT_OK(b.Append(max18));
  ASSERT_OK(b.Append(-max18));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), type);
  EXPECT_EQ(a->type().byte_width(), 8);
  EXPECT_EQ(ArrayToStrings(*a),
            (Strings{"123.45", "-0.05", "9999999999999999.99", "-9999999999999999.99", "NULL"}));
  EXPECT_ARRAYS_EQUAL(
      a, MakeArray(type, {"123.45", "-0.05", "9999999999999999.99", "-9999999999999999.99", "NULL"},
                   pool_));
}

TEST_F(BuilderTest, Decimal128ExtremesAndInt128Edges) {
  const DataType type = DataType::Decimal(38, 0);
  Decimal128Builder b(type, pool_);
  const int128_t max38 = MaxUnscaled(38);
  const int128_t int128_max = ~static_cast<int128_t>(0) ^ (static_cast<int128_t>(1) << 127);
  const int128_t int128_min = -int128_max - 1;
  ASSERT_OK(b.Append(max38));
  ASSERT_OK(b.Append(-max38));
  ASSERT_OK(b.Append(0));
  ASSERT_OK(b.AppendNull());
  // Values past 10^38 - 1 cannot come from ParseDecimal, but the storage and the printer must
  // not break on them (they can arrive from a foreign IPC file).
  ASSERT_OK(b.Append(int128_max));
  ASSERT_OK(b.Append(int128_min));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type().byte_width(), 16);
  EXPECT_EQ(a->Value<int128_t>(0), max38);
  EXPECT_EQ(a->Value<int128_t>(5), int128_min);
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"99999999999999999999999999999999999999",
                                         "-99999999999999999999999999999999999999", "0", "NULL",
                                         "170141183460469231731687303715884105727",
                                         "-170141183460469231731687303715884105728"}));
  EXPECT_ARRAYS_EQUAL(a->Slice(0, 4),
                      MakeArray(type,
                                {"99999999999999999999999999999999999999",
                                 "-99999999999999999999999999999999999999", "0", "NULL"},
                                pool_));

  const DataType scaled = DataType::Decimal(38, 38);
  Decimal128Builder s(scaled, pool_);
  ASSERT_OK(s.Append(max38));
  ASSERT_OK(s.Append(-1));
  ASSERT_OK_AND_ASSIGN(ArrayPtr fractions, s.Finish());
  EXPECT_EQ(ArrayToStrings(*fractions), (Strings{"0.99999999999999999999999999999999999999",
                                                 "-0.00000000000000000000000000000000000001"}));
}

TEST_F(BuilderTest, MakeBuilderPicksDecimalWidthByPrecision) {
  EXPECT_EQ(MakeBuilder(DataType::Decimal(18, 3), pool_)->type(), DataType::Decimal(18, 3));
  EXPECT_NE(dynamic_cast<Decimal64Builder*>(MakeBuilder(DataType::Decimal(18, 3), pool_).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<Decimal128Builder*>(MakeBuilder(DataType::Decimal(19, 3), pool_).get()),
            nullptr);
}

TEST_F(BuilderTest, Date32IncludingBeforeTheEpochAndBC) {
  auto builder = MakeBuilder(DataType::Date32(), pool_);
  auto* b = static_cast<Int32Builder*>(builder.get());
  ASSERT_OK(b->Append(0));
  ASSERT_OK(b->Append(-1));
  ASSERT_OK(b->Append(-719162));  // 0001-01-01
  ASSERT_OK(b->Append(-719163));  // the day before: 1 BC
  ASSERT_OK(b->Append(19782));    // 2024-02-29
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b->Finish());
  EXPECT_EQ(a->type(), DataType::Date32());
  EXPECT_EQ(ArrayToStrings(*a),
            (Strings{"1970-01-01", "1969-12-31", "0001-01-01", "0001-12-31 BC", "2024-02-29"}));
  EXPECT_ARRAYS_EQUAL(
      a,
      MakeArray(DataType::Date32(),
                {"1970-01-01", "1969-12-31", "0001-01-01", "0001-12-31 BC", "2024-02-29"}, pool_));
}

TEST_F(BuilderTest, TimestampUnitsAndZones) {
  struct Case {
    DataType type;
    int64_t value;
    const char* text;
  };

  const Case cases[] = {
      {DataType::Timestamp(TimeUnit::kSecond), 1, "1970-01-01 00:00:01"},
      {DataType::Timestamp(TimeUnit::kMilli), -1, "1969-12-31 23:59:59.999"},
      {DataType::Timestamp(TimeUnit::kMicro), 1709251199123456, "2024-02-29 23:59:59.123456"},
      {DataType::Timestamp(TimeUnit::kNano), 1500, "1970-01-01 00:00:00.000001"},
      {DataType::Timestamp(TimeUnit::kMicro, "UTC"), 0, "1970-01-01 00:00:00+00"},
      {DataType::Timestamp(TimeUnit::kSecond, "Asia/Tokyo"), 86400, "1970-01-02 00:00:00+00"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type.ToString());
    auto builder = MakeBuilder(c.type, pool_);
    EXPECT_EQ(builder->type(), c.type);
    ASSERT_OK(static_cast<Int64Builder*>(builder.get())->Append(c.value));
    ASSERT_OK(builder->AppendNull());
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, builder->Finish());
    EXPECT_EQ(a->type(), c.type);
    EXPECT_EQ(a->Value<int64_t>(0), c.value);
    EXPECT_EQ(FormatValue(*a, 0), c.text);
    EXPECT_TRUE(a->IsNull(1));
  }
}

TEST_F(BuilderTest, IntervalMonthDayNano) {
  IntervalBuilder b(DataType::Interval(), pool_);
  ASSERT_OK(b.Append({14, 3, 4 * 3600'000'000'000LL + 5 * 60'000'000'000LL + 6'000'000'000LL}));
  ASSERT_OK(b.Append({0, 0, 0}));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.Append({-1, -2, -500'000'000}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), DataType::Interval());
  EXPECT_EQ(a->Value<MonthDayNano>(0), (MonthDayNano{14, 3, 14706000000000}));
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"1 year 2 mons 3 days 04:05:06", "00:00:00", "NULL",
                                         "-1 mons -2 days -00:00:00.5"}));
}

TEST_F(BuilderTest, Utf8MultibyteAndEmpty) {
  BinaryBuilder b(DataType::Utf8(), pool_);
  const Strings values = {"héllo", "", "日本語", "😀", "plain ascii text longer than eight"};
  for (const auto& v : values)
    ASSERT_OK(b.Append(v));
  ASSERT_OK(b.AppendNull());
  EXPECT_EQ(b.data_length(), 6 + 0 + 9 + 4 + 34);
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), DataType::Utf8());
  EXPECT_OK(a->Validate());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(a->StringValue(static_cast<int64_t>(i)), values[i]);
  EXPECT_TRUE(a->IsNull(5));
  EXPECT_EQ(a->offsets()[5], a->offsets()[6]) << "a null occupies no bytes";
  EXPECT_EQ(a->StringValue(5), "");
}

TEST_F(BuilderTest, BinaryHoldsArbitraryBytes) {
  BinaryBuilder b(DataType::Binary(), pool_);
  const std::string bytes("\0\xff\x80 a", 5);
  ASSERT_OK(b.Append(bytes));
  ASSERT_OK(b.Append(""));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->StringValue(0), bytes);
  EXPECT_OK(a->Validate()) << "binary is never checked as UTF-8";
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"\\x00ff802061", "\\x"}));
  EXPECT_ARRAYS_EQUAL(a, MakeArray(DataType::Binary(), {"\\x00ff802061", "\\x"}, pool_));
}

TEST_F(BuilderTest, DictionaryBuilderDeduplicates) {
  DictionaryBuilder b(DataType::Utf8(), pool_);
  for (const char* v : {"red", "green", "red", "blue", "green", "red"})
    ASSERT_OK(b.Append(v));
  ASSERT_OK(b.AppendNull());
  EXPECT_EQ(b.length(), 7);
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->type(), DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  EXPECT_OK(a->Validate());
  EXPECT_EQ(a->length(), 7);
  EXPECT_EQ(a->null_count(), 1);
  ASSERT_EQ(a->dictionary()->length(), 3);
  EXPECT_EQ(ArrayToStrings(*a->dictionary()), (Strings{"red", "green", "blue"}));
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < 6; ++i)
    indices.push_back(a->DictionaryIndex(i));
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 1, 0, 2, 1, 0}));
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"red", "green", "red", "blue", "green", "red", "NULL"}));

  // Reuse: a fresh dictionary, not the old one.
  ASSERT_OK(b.Append("blue"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr again, b.Finish());
  EXPECT_EQ(again->dictionary()->length(), 1);
  EXPECT_EQ(again->DictionaryIndex(0), 0);
  EXPECT_EQ(ArrayToStrings(*a->dictionary()), (Strings{"red", "green", "blue"}));
}

TEST_F(BuilderTest, DictionaryBuilderOfFixedWidthValues) {
  DictionaryBuilder b(DataType::Decimal(10, 2), pool_);
  ArrayPtr values =
      MakeArray(DataType::Decimal(10, 2), {"1.50", "2.00", "1.50", "NULL", "2.00"}, pool_);
  for (int64_t i = 0; i < values->length(); ++i)
    ASSERT_OK(b.AppendFrom(*values, i));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->dictionary()->length(), 2);
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"1.50", "2.00", "1.50", "NULL", "2.00"}));
  // Appending from a dictionary array decodes it and re-encodes into this builder's dictionary.
  DictionaryBuilder c(DataType::Decimal(10, 2), pool_);
  ASSERT_OK(c.AppendFrom(*a, 1));
  ASSERT_OK(c.AppendFrom(*a, 3));
  ASSERT_OK(c.AppendFrom(*a, 0));
  ASSERT_OK_AND_ASSIGN(ArrayPtr d, c.Finish());
  EXPECT_EQ(ArrayToStrings(*d), (Strings{"2.00", "NULL", "1.50"}));
  EXPECT_EQ(d->DictionaryIndex(0), 0);
  EXPECT_EQ(d->DictionaryIndex(2), 1);
}

TEST_F(BuilderTest, MakeBuilderHonoursTheDictionaryIndexType) {
  // A generic reader builds columns with MakeBuilder(field.type); the result must have that type
  // or the batch it goes into does not validate.
  const DataType type = DataType::Dictionary(TypeId::kInt8, DataType::Utf8(), /*ordered=*/true);
  auto builder = MakeBuilder(type, pool_);
  EXPECT_EQ(builder->type(), type);
  ArrayPtr values = MakeArray(DataType::Utf8(), {"x", "y", "x"}, pool_);
  for (int64_t i = 0; i < 3; ++i)
    ASSERT_OK(builder->AppendFrom(*values, i));
  ASSERT_OK(builder->AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, builder->Finish());
  EXPECT_EQ(a->type(), type);
  EXPECT_OK(a->Validate());
  EXPECT_EQ(a->buffer(1)->size(), 4) << "one byte per int8 index";
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"x", "y", "x", "NULL"}));
}

TEST_F(BuilderTest, DictionaryWithNarrowIndexRefusesTooManyValues) {
  auto builder = MakeBuilder(DataType::Dictionary(TypeId::kInt8, DataType::Int32()), pool_);
  Int32Builder values(DataType::Int32(), pool_);
  for (int32_t i = 0; i < 200; ++i)
    ASSERT_OK(values.Append(i));
  ASSERT_OK_AND_ASSIGN(ArrayPtr v, values.Finish());
  Status st;
  for (int64_t i = 0; i < v->length() && st.ok(); ++i)
    st = builder->AppendFrom(*v, i);
  if (st.ok())
    st = builder->Finish().status();
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange) << st;
}

TEST_F(BuilderTest, MakeDictionaryArrayChecksIndices) {
  ArrayPtr dictionary = MakeArray(DataType::Utf8(), {"a", "b", "c"}, pool_);
  ArrayPtr indices = MakeArray(DataType::Int16(), {"2", "0", "NULL", "1"}, pool_);
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, MakeDictionaryArray(indices, dictionary));
  EXPECT_EQ(a->type(), DataType::Dictionary(TypeId::kInt16, DataType::Utf8()));
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"c", "a", "NULL", "b"}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr ordered, MakeDictionaryArray(indices, dictionary, true));
  EXPECT_TRUE(ordered->type().ordered());

  // A sliced index array keeps its offset.
  ASSERT_OK_AND_ASSIGN(ArrayPtr sliced, MakeDictionaryArray(indices->Slice(1, 3), dictionary));
  EXPECT_EQ(ArrayToStrings(*sliced), (Strings{"a", "NULL", "b"}));

  EXPECT_STATUS_CODE(
      StatusCode::kInvalidData,
      MakeDictionaryArray(MakeArray(DataType::Int32(), {"0", "3"}, pool_), dictionary));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     MakeDictionaryArray(MakeArray(DataType::Int8(), {"-1"}, pool_), dictionary));
  // A null slot may hold any index: it is never looked up.
  Int32Builder junk(DataType::Int32(), pool_);
  int32_t raw[] = {99, 1};
  uint8_t valid[] = {0, 1};
  ASSERT_OK(junk.AppendValues(raw, 2, valid));
  ASSERT_OK_AND_ASSIGN(ArrayPtr junk_indices, junk.Finish());
  EXPECT_OK(MakeDictionaryArray(junk_indices, dictionary));
  EXPECT_STATUS_CODE(StatusCode::kTypeError,
                     MakeDictionaryArray(MakeArray(DataType::Utf8(), {"0"}, pool_), dictionary));
  EXPECT_STATUS_CODE(StatusCode::kTypeError,
                     MakeDictionaryArray(MakeArray(DataType::Float64(), {"0"}, pool_), dictionary));
}

TEST_F(BuilderTest, MakeDictionaryArrayRefusesNestedDictionaries) {
  // Bad input to a Result-returning function must come back as a Status, not an abort.
  ArrayPtr inner = MakeArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), {"a"}, pool_);
  ArrayPtr indices = MakeArray(DataType::Int32(), {"0"}, pool_);
  EXPECT_STATUS_CODE(StatusCode::kTypeError, MakeDictionaryArray(indices, inner));
}

TEST_F(BuilderTest, AppendNullsOfEveryKind) {
  const DataType types[] = {
      DataType::Boolean(),      DataType::Int64(),
      DataType::Float32(),      DataType::Utf8(),
      DataType::Binary(),       DataType::Interval(),
      DataType::Decimal(30, 5), DataType::Dictionary(TypeId::kInt32, DataType::Utf8())};
  for (const auto& type : types) {
    SCOPED_TRACE(type.ToString());
    auto b = MakeBuilder(type, pool_);
    ASSERT_OK(b->AppendNulls(0));
    ASSERT_OK(b->AppendNulls(100));
    ASSERT_OK(b->AppendNull());
    EXPECT_EQ(b->length(), 101);
    EXPECT_EQ(b->null_count(), 101);
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b->Finish());
    EXPECT_EQ(a->type(), type);
    EXPECT_EQ(a->length(), 101);
    EXPECT_EQ(a->null_count(), 101);
    EXPECT_OK(a->Validate());
    for (int64_t i = 0; i < 101; ++i)
      ASSERT_TRUE(a->IsNull(i)) << i;
  }
}

TEST_F(BuilderTest, AppendValuesWithValidityBytes) {
  Int64Builder b(DataType::Int64(), pool_);
  const int64_t first[] = {10, 20, 30};
  ASSERT_OK(b.AppendValues(first, 3));  // all valid, no bitmap yet
  const int64_t second[] = {40, 50, 60, 70, 80};
  const uint8_t valid[] = {1, 0, 2, 0, 255};  // any nonzero byte means valid
  ASSERT_OK(b.AppendValues(second, 5, valid));
  EXPECT_EQ(b.null_count(), 2);
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"10", "20", "30", "40", "NULL", "60", "NULL", "80"}));
  EXPECT_OK(a->Validate());
}

TEST_F(BuilderTest, AppendValuesOfNothingIsANoOp) {
  // An empty input (an empty batch, the tail of a loop) must not touch unallocated buffers.
  Int32Builder b(DataType::Int32(), pool_);
  ASSERT_OK(b.AppendValues(nullptr, 0));
  const int32_t one[] = {7};
  ASSERT_OK(b.AppendValues(one, 0, nullptr));
  EXPECT_EQ(b.length(), 0);
  ASSERT_OK(b.AppendValues(one, 1));
  ASSERT_OK(b.AppendValues(one, 0));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(ArrayToStrings(*a), (Strings{"7"}));
}

// The bitmap appears with the first null and must mark every earlier value valid, whether the
// first null lands inside the first byte, after it, or past a whole 64-bit word.
class LazyValidityTest : public BuilderTest, public ::testing::WithParamInterface<int> {};

TEST_P(LazyValidityTest, FirstNullAfterManyValues) {
  const int valid_before = GetParam();
  Int32Builder ints(DataType::Int32(), pool_);
  BooleanBuilder bools(pool_);
  BinaryBuilder strings(DataType::Utf8(), pool_);
  for (int i = 0; i < valid_before; ++i) {
    ASSERT_OK(ints.Append(i));
    ASSERT_OK(bools.Append(i % 2 == 0));
    ASSERT_OK(strings.Append(std::to_string(i)));
  }
  ASSERT_OK(ints.AppendNull());
  ASSERT_OK(bools.AppendNull());
  ASSERT_OK(strings.AppendNull());
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK(ints.Append(i));
    ASSERT_OK(bools.Append(true));
    ASSERT_OK(strings.Append("x"));
  }
  for (ArrayBuilder* b : std::vector<ArrayBuilder*>{&ints, &bools, &strings}) {
    SCOPED_TRACE(b->type().ToString());
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b->Finish());
    ASSERT_NE(a->validity(), nullptr);
    EXPECT_EQ(a->null_count(), 1);
    EXPECT_OK(a->Validate());
    for (int64_t i = 0; i < a->length(); ++i)
      ASSERT_EQ(a->IsNull(i), i == valid_before) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Positions, LazyValidityTest,
                         ::testing::Values(0, 1, 7, 8, 9, 15, 31, 32, 33, 63, 64, 65, 100, 1000));

TEST_F(BuilderTest, NoBitmapWithoutNulls) {
  Int32Builder b(DataType::Int32(), pool_);
  for (int i = 0; i < 100; ++i)
    ASSERT_OK(b.Append(i));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->validity(), nullptr);
  EXPECT_EQ(a->buffer(0), nullptr);
  EXPECT_EQ(a->null_count(), 0);
}

TEST_F(BuilderTest, ReserveThenUnsafeAppend) {
  Int16Builder ints(DataType::Int16(), pool_);
  ASSERT_OK(ints.Reserve(1000));
  for (int i = 0; i < 1000; ++i)
    ints.UnsafeAppend(static_cast<int16_t>(i - 500));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ints.Finish());
  ASSERT_EQ(a->length(), 1000);
  EXPECT_EQ(a->Value<int16_t>(0), -500);
  EXPECT_EQ(a->Value<int16_t>(999), 499);
  EXPECT_EQ(a->buffer(1)->size(), 2000);

  BooleanBuilder bools(pool_);
  ASSERT_OK(bools.Reserve(77));
  for (int i = 0; i < 77; ++i)
    bools.UnsafeAppend(i % 3 == 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr b, bools.Finish());
  EXPECT_EQ(b->length(), 77);
  EXPECT_TRUE(b->BoolValue(75));
  EXPECT_FALSE(b->BoolValue(76));

  BinaryBuilder strings(DataType::Utf8(), pool_);
  ASSERT_OK(strings.Reserve(50));
  ASSERT_OK(strings.ReserveData(50 * 3));
  for (int i = 0; i < 50; ++i)
    strings.UnsafeAppend("abc");
  ASSERT_OK_AND_ASSIGN(ArrayPtr s, strings.Finish());
  EXPECT_EQ(s->length(), 50);
  EXPECT_EQ(s->StringValue(49), "abc");
  EXPECT_EQ(s->buffer(2)->size(), 150);
  EXPECT_OK(s->Validate());
}

TEST_F(BuilderTest, UnsafeAppendAfterANullKeepsTheBitmapRight) {
  Int32Builder b(DataType::Int32(), pool_);
  ASSERT_OK(b.Reserve(200));
  for (int i = 0; i < 200; ++i) {
    if (i == 10)
      ASSERT_OK(b.AppendNull());
    else
      b.UnsafeAppend(i);
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(a->null_count(), 1);
  for (int64_t i = 0; i < 200; ++i)
    ASSERT_EQ(a->IsNull(i), i == 10) << i;
}

TEST_F(BuilderTest, EmptyFinishOfEveryKind) {
  for (const auto& type : {DataType::Null(), DataType::Boolean(), DataType::Int8(),
                           DataType::Utf8(), DataType::Decimal(20, 2), DataType::Interval(),
                           DataType::Dictionary(TypeId::kInt32, DataType::Binary())}) {
    SCOPED_TRACE(type.ToString());
    auto b = MakeBuilder(type, pool_);
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b->Finish());
    EXPECT_EQ(a->length(), 0);
    EXPECT_EQ(a->type(), type);
    EXPECT_OK(a->Validate());
  }
}

TEST_F(BuilderTest, ReuseAfterFinishLeavesEarlierArraysAlone) {
  BinaryBuilder b(DataType::Utf8(), pool_);
  ASSERT_OK(b.Append("first"));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr one, b.Finish());
  EXPECT_EQ(b.length(), 0);
  EXPECT_EQ(b.null_count(), 0);
  EXPECT_EQ(b.data_length(), 0);
  ASSERT_OK(b.Append("second"));
  ASSERT_OK(b.Append("third"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr two, b.Finish());
  EXPECT_EQ(ArrayToStrings(*one), (Strings{"first", "NULL"}));
  EXPECT_EQ(ArrayToStrings(*two), (Strings{"second", "third"}));
  EXPECT_EQ(two->null_count(), 0);
  EXPECT_EQ(two->validity(), nullptr) << "the bitmap of the first array must not carry over";

  Int32Builder ints(DataType::Int32(), pool_);
  ASSERT_OK(ints.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr n, ints.Finish());
  ASSERT_OK(ints.Append(5));
  ASSERT_OK_AND_ASSIGN(ArrayPtr five, ints.Finish());
  EXPECT_EQ(ArrayToStrings(*n), (Strings{"NULL"}));
  EXPECT_EQ(ArrayToStrings(*five), (Strings{"5"}));

  BooleanBuilder bools(pool_);
  ASSERT_OK(bools.Append(true));
  ASSERT_OK_AND_ASSIGN(ArrayPtr t, bools.Finish());
  ASSERT_OK(bools.Append(false));
  ASSERT_OK(bools.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr f, bools.Finish());
  EXPECT_EQ(ArrayToStrings(*t), (Strings{"t"}));
  EXPECT_EQ(ArrayToStrings(*f), (Strings{"f", "NULL"}));
}

TEST_F(BuilderTest, AppendFromCopiesValuesNullsAndSlices) {
  ArrayPtr source = MakeArray(DataType::Utf8(), {"a", "NULL", "ccc", "dd"}, pool_);
  ArrayPtr slice = source->Slice(1, 3);
  auto b = MakeBuilder(DataType::Utf8(), pool_);
  for (int64_t i = 0; i < slice->length(); ++i)
    ASSERT_OK(b->AppendFrom(*slice, i));
  ASSERT_OK_AND_ASSIGN(ArrayPtr copy, b->Finish());
  EXPECT_EQ(ArrayToStrings(*copy), (Strings{"NULL", "ccc", "dd"}));
  // A plain builder decodes a dictionary source.
  ArrayPtr dict = MakeArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()),
                            {"p", "q", "NULL", "p"}, pool_);
  auto plain = MakeBuilder(DataType::Utf8(), pool_);
  for (int64_t i = 0; i < dict->length(); ++i)
    ASSERT_OK(plain->AppendFrom(*dict, i));
  ASSERT_OK_AND_ASSIGN(ArrayPtr decoded, plain->Finish());
  EXPECT_EQ(decoded->type(), DataType::Utf8());
  EXPECT_EQ(ArrayToStrings(*decoded), (Strings{"p", "q", "NULL", "p"}));
}

TEST(BuilderMemoryTest, PoolReturnsToZeroWhenArraysDie) {
  auto pool = MemoryPool::MakeRoot("accounting");
  ArrayPtr kept;
  {
    Int64Builder b(DataType::Int64(), pool);
    for (int i = 0; i < 10000; ++i)
      ASSERT_OK(i % 10 == 0 ? b.AppendNull() : b.Append(i));
    EXPECT_GT(pool->bytes_used(), 80000);
    ASSERT_OK_AND_ASSIGN(kept, b.Finish());
  }
  // The finished array holds exactly its (padded) buffers: 80000 value bytes, 1250 bitmap bytes.
  EXPECT_EQ(pool->bytes_used(), MemoryPool::PaddedSize(80000) + MemoryPool::PaddedSize(1250));
  ArrayPtr slice = kept->Slice(5, 10);
  kept.reset();
  EXPECT_GT(pool->bytes_used(), 0) << "a slice keeps its parent's buffers alive";
  slice.reset();
  EXPECT_EQ(pool->bytes_used(), 0);

  // A builder dropped without Finish gives everything back too.
  {
    BinaryBuilder b(DataType::Utf8(), pool);
    for (int i = 0; i < 1000; ++i)
      ASSERT_OK(b.Append("some text"));
    ASSERT_OK(b.AppendNull());
    DictionaryBuilder d(DataType::Utf8(), pool);
    ASSERT_OK(d.Append("x"));
    EXPECT_GT(pool->bytes_used(), 0);
  }
  EXPECT_EQ(pool->bytes_used(), 0);
}

TEST(BuilderMemoryTest, FailsCleanlyUnderASmallLimit) {
  auto root = MemoryPool::MakeRoot("query", 4096);
  auto pool = root->MakeChild("builder");
  {
    Int64Builder b(DataType::Int64(), pool);
    Status st;
    int appended = 0;
    for (int i = 0; i < 100000 && st.ok(); ++i) {
      st = b.Append(i);
      if (st.ok())
        ++appended;
    }
    ASSERT_EQ(st.code(), StatusCode::kOutOfMemory) << st;
    EXPECT_NE(st.UserMessage().find("query"), std::string::npos) << st;
    EXPECT_GT(appended, 0);
    EXPECT_LE(root->bytes_used(), 4096);
    // The builder is intact: what was appended before the failure can still be finished.
    EXPECT_EQ(b.length(), appended);
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
    EXPECT_EQ(a->length(), appended);
    EXPECT_EQ(a->Value<int64_t>(appended - 1), appended - 1);
  }
  EXPECT_EQ(root->bytes_used(), 0);
  {
    BinaryBuilder b(DataType::Utf8(), pool);
    EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, b.Append(std::string(10000, 'x')));
    EXPECT_EQ(b.length(), 0);
    ASSERT_OK(b.Append("fits"));
    EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, b.Reserve(1 << 20));
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
    EXPECT_EQ(ArrayToStrings(*a), (Strings{"fits"}));
  }
  EXPECT_EQ(root->bytes_used(), 0);
  {
    // The lazily allocated bitmap is an allocation too: fill the pool, then ask for a null.
    Int8Builder b(DataType::Int8(), pool);
    ASSERT_OK(b.Reserve(3000));
    for (int i = 0; i < 3000; ++i)
      b.UnsafeAppend(1);
    Status st = b.AppendNull();
    EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st;
    EXPECT_EQ(b.null_count(), 0);
  }
  EXPECT_EQ(root->bytes_used(), 0);
  {
    BooleanBuilder b(pool);
    EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, b.Reserve(1 << 20));
    DictionaryBuilder d(DataType::Utf8(), pool);
    EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, d.Append(std::string(5000, 'y')));
    auto any = MakeBuilder(DataType::Interval(), pool);
    EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, any->AppendNulls(1000));
  }
  EXPECT_EQ(root->bytes_used(), 0);
}

}  // namespace
}  // namespace shoal::columnar

namespace shoal::columnar {
namespace {

#define NESTED_OK(expr)                      \
  do {                                       \
    const Status _st = (expr);               \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (false)

// {1,2,NULL}, NULL, {}, {4}
ArrayPtr SmallIntList(const DataType& type) {
  ListBuilder b(type, DefaultMemoryPool());
  auto* items = static_cast<Int32Builder*>(b.value_builder());
  auto check = [](Status st) { SHOAL_CHECK(st.ok(), "{}", st.ToString()); };
  check(b.Append());
  check(items->Append(1));
  check(items->Append(2));
  check(items->AppendNull());
  check(b.AppendNull());
  check(b.Append());
  check(b.Append());
  check(items->Append(4));
  auto r = b.Finish();
  SHOAL_CHECK(r.ok(), "{}", r.status().ToString());
  return *r;
}

TEST(NestedBuilder, ListsAndLargeLists) {
  for (const DataType& type :
       {DataType::List(DataType::Int32()), DataType::LargeList(DataType::Int32())}) {
    ArrayPtr a = SmallIntList(type);
    NESTED_OK(a->Validate());
    ASSERT_EQ(a->length(), 4);
    EXPECT_EQ(a->null_count(), 1);
    EXPECT_EQ(a->ListLength(0), 3);
    EXPECT_TRUE(a->IsNull(1));
    EXPECT_EQ(a->ListLength(2), 0);
    EXPECT_EQ(a->child(0)->length(), 4);
    EXPECT_EQ(FormatValue(*a, 0), "{1,2,NULL}");
    EXPECT_EQ(FormatValue(*a, 2), "{}");
    EXPECT_EQ(FormatValue(*a, 3), "{4}");
    // Slicing moves the offset; the children stay whole.
    ArrayPtr s = a->Slice(2, 2);
    NESTED_OK(s->Validate());
    EXPECT_EQ(s->null_count(), 0);
    EXPECT_EQ(FormatValue(*s, 1), "{4}");
    EXPECT_TRUE(ArraysEqual(*s, *a->Slice(2, 2)));
    EXPECT_FALSE(ArraysEqual(*s, *a->Slice(1, 2)));
    // CompactCopy goes through AppendFrom.
    auto copy = CompactCopy(*s, DefaultMemoryPool());
    ASSERT_TRUE(copy.ok());
    EXPECT_EQ((*copy)->offset(), 0);
    EXPECT_EQ((*copy)->child(0)->length(), 1);
    EXPECT_TRUE(ArraysEqual(**copy, *s));
  }
}

TEST(NestedBuilder, StructsAppendNullsToTheirFields) {
  const DataType type = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  StructBuilder b(type, DefaultMemoryPool());
  auto* a = static_cast<Int32Builder*>(b.field_builder(0));
  auto* s = static_cast<BinaryBuilder*>(b.field_builder(1));
  NESTED_OK(b.Append());
  NESTED_OK(a->Append(1));
  NESTED_OK(s->Append("a b"));
  NESTED_OK(b.AppendNull());
  NESTED_OK(b.Append());
  NESTED_OK(a->AppendNull());
  NESTED_OK(s->Append(""));
  auto r = b.Finish();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Array& arr = **r;
  NESTED_OK(arr.Validate());
  EXPECT_EQ(arr.null_count(), 1);
  EXPECT_EQ(arr.child(0)->length(), 3);
  EXPECT_EQ(FormatValue(arr, 0), "(1,\"a b\")");
  EXPECT_EQ(FormatValue(arr, 2), "(,\"\")");
  ArrayPtr tail = arr.Slice(1, 2);
  EXPECT_EQ(FormatValue(*tail, 1), "(,\"\")");
  // A row missing from a field is reported, not published.
  NESTED_OK(b.Append());
  NESTED_OK(a->Append(5));
  auto bad = b.Finish();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("field 'b' holds 0 values for 1 rows"), std::string::npos)
      << bad.status().ToString();
}

TEST(NestedBuilder, FixedSizeLists) {
  const DataType type = DataType::FixedSizeList(DataType::Int64(), 2);
  FixedSizeListBuilder b(type, DefaultMemoryPool());
  auto* items = static_cast<Int64Builder*>(b.value_builder());
  NESTED_OK(b.Append());
  NESTED_OK(items->Append(1));
  NESTED_OK(items->Append(2));
  NESTED_OK(b.AppendNull());
  NESTED_OK(b.Append());
  NESTED_OK(items->AppendNull());
  NESTED_OK(items->Append(6));
  auto r = b.Finish();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  NESTED_OK((*r)->Validate());
  EXPECT_EQ((*r)->child(0)->length(), 6);
  EXPECT_EQ(FormatValue(**r, 0), "{1,2}");
  EXPECT_EQ(FormatValue(**r, 2), "{NULL,6}");
  EXPECT_EQ(FormatValue(*(*r)->Slice(2, 1), 0), "{NULL,6}");
  NESTED_OK(b.Append());
  NESTED_OK(items->Append(1));
  EXPECT_FALSE(b.Finish().ok());
}

TEST(NestedBuilder, MapsAndNestedBuildersViaMakeBuilder) {
  const DataType type = DataType::Map(DataType::Utf8(), DataType::List(DataType::Int32()));
  auto any = MakeBuilder(type, DefaultMemoryPool());
  auto* b = static_cast<ListBuilder*>(any.get());
  StructBuilder* entries = b->entries_builder();
  auto* keys = static_cast<BinaryBuilder*>(entries->field_builder(0));
  auto* values = static_cast<ListBuilder*>(entries->field_builder(1));
  auto* ints = static_cast<Int32Builder*>(values->value_builder());
  NESTED_OK(b->Append());
  NESTED_OK(entries->Append());
  NESTED_OK(keys->Append("k"));
  NESTED_OK(values->Append());
  NESTED_OK(ints->Append(1));
  NESTED_OK(ints->Append(2));
  NESTED_OK(entries->Append());
  NESTED_OK(keys->Append("x y"));
  NESTED_OK(values->AppendNull());
  NESTED_OK(b->AppendNull());
  NESTED_OK(b->Append());
  auto r = b->Finish();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  NESTED_OK((*r)->Validate());
  EXPECT_EQ(FormatValue(**r, 0), "{k={1,2}, x y=NULL}");
  EXPECT_TRUE((*r)->IsNull(1));
  EXPECT_EQ(FormatValue(**r, 2), "{}");
  // Round trip through AppendFrom (what CompactCopy and the generic paths use).
  auto copy = CompactCopy(*(*r)->Slice(0, 3), DefaultMemoryPool());
  ASSERT_TRUE(copy.ok());
  EXPECT_TRUE(ArraysEqual(**copy, **r));
}

TEST(NestedBuilder, AllNullArraysOfNestedTypes) {
  for (const DataType& type :
       {DataType::List(DataType::Int32()), DataType::LargeList(DataType::Utf8()),
        DataType::FixedSizeList(DataType::Int16(), 3),
        DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::List(DataType::Utf8())}}),
        DataType::Map(DataType::Utf8(), DataType::Int32())}) {
    auto a = Array::MakeAllNull(type, 5, DefaultMemoryPool());
    ASSERT_TRUE(a.ok());
    NESTED_OK((*a)->Validate());
    EXPECT_EQ((*a)->null_count(), 5) << type.ToString();
  }
}

}  // namespace
}  // namespace shoal::columnar

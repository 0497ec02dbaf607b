#include "shoal/columnar/array.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "tests/support/batch_builder.h"

namespace shoal::columnar {
namespace {

using ::shoal::testing::ArrayToStrings;
using ::shoal::testing::MakeArray;
using Strings = std::vector<std::string>;

// A buffer over bytes that the test controls exactly, for building corrupted arrays.
BufferPtr Bytes(std::vector<uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  return Buffer::Wrap(owner->data(), static_cast<int64_t>(owner->size()), owner);
}

template <typename T>
BufferPtr Values(std::vector<T> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return Bytes(std::move(bytes));
}

// A utf8 array of one value holding exactly `bytes`.
ArrayPtr Utf8Of(std::string_view bytes) {
  return Array::Make(DataType::Utf8(), 1,
                     {nullptr, Values<int32_t>({0, static_cast<int32_t>(bytes.size())}),
                      Bytes(std::vector<uint8_t>(bytes.begin(), bytes.end()))});
}

void ExpectInvalid(const Array& a, std::string_view message_part) {
  Status st = a.Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_NE(st.message().find(message_part), std::string::npos)
      << "message \"" << st.message() << "\" lacks \"" << message_part << "\"";
}

class ArrayTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(pool_->bytes_used(), 0) << "bytes leaked by the test"; }

  std::shared_ptr<MemoryPool> pool_ = MemoryPool::MakeRoot("array-test");
};

// --- slicing -------------------------------------------------------------------------------------

TEST_F(ArrayTest, SliceIsZeroCopyAndCountsItsNulls) {
  std::vector<std::string> text;
  for (int i = 0; i < 100; ++i)
    text.push_back(i % 3 == 0 ? "NULL" : std::to_string(i));
  ArrayPtr a = MakeArray(DataType::Int32(), text, pool_);
  EXPECT_EQ(a->null_count(), 34);
  const int64_t bytes_before = pool_->bytes_used();
  ArrayPtr s = a->Slice(5, 20);  // starts mid-byte of the bitmap
  EXPECT_EQ(pool_->bytes_used(), bytes_before) << "slicing allocates nothing";
  EXPECT_EQ(s->buffer(1), a->buffer(1));
  EXPECT_EQ(s->offset(), 5);
  EXPECT_EQ(s->length(), 20);
  EXPECT_EQ(s->null_count(), 7);  // 6, 9, ..., 24
  EXPECT_EQ(s->Value<int32_t>(0), 5);
  EXPECT_TRUE(s->IsNull(1));
  EXPECT_OK(s->Validate());

  ArrayPtr ss = s->Slice(3, 10);  // a slice of a slice: offsets add up
  EXPECT_EQ(ss->offset(), 8);
  EXPECT_EQ(ss->null_count(), 3);  // 9, 12, 15
  EXPECT_EQ(ss->Value<int32_t>(0), 8);
  EXPECT_EQ(ArrayToStrings(*ss),
            (Strings{"8", "NULL", "10", "11", "NULL", "13", "14", "NULL", "16", "17"}));
  ArrayPtr sss = ss->Slice(1, 1);
  EXPECT_EQ(sss->null_count(), 1);
  EXPECT_EQ(sss->offset(), 9);

  EXPECT_EQ(a->Slice(0, 0)->length(), 0);
  EXPECT_EQ(a->Slice(0, 0)->null_count(), 0);
  EXPECT_EQ(a->Slice(100, 0)->length(), 0);
  EXPECT_OK(a->Slice(100, 0)->Validate());
  EXPECT_EQ(a->Slice(1, 2)->null_count(), 0);
  EXPECT_EQ(a->Slice(64, 36)->null_count(), 12);  // crosses no word boundary, starts on one
}

TEST_F(ArrayTest, SliceOfArrayWithoutNullsHasNoNulls) {
  ArrayPtr a = MakeArray(DataType::Float64(), {"1", "2", "3"}, pool_);
  ArrayPtr s = a->Slice(1, 2);
  EXPECT_EQ(s->null_count(), 0);
  EXPECT_EQ(s->validity(), nullptr);
  EXPECT_EQ(s->Value<double>(1), 3.0);
}

TEST_F(ArrayTest, SliceOfStringsAndBooleans) {
  ArrayPtr s = MakeArray(DataType::Utf8(), {"zero", "NULL", "två", "three", "", "fünf"}, pool_);
  ArrayPtr slice = s->Slice(2, 3)->Slice(1, 2);
  EXPECT_EQ(ArrayToStrings(*slice), (Strings{"three", ""}));
  EXPECT_EQ(slice->offsets()[0], 8) << "offsets are not rebased by slicing";
  EXPECT_OK(slice->Validate());

  std::vector<std::string> bits;
  for (int i = 0; i < 20; ++i)
    bits.push_back(i == 13 ? "NULL" : (i % 3 == 0 ? "t" : "f"));
  ArrayPtr b = MakeArray(DataType::Boolean(), bits, pool_);
  ArrayPtr bs = b->Slice(11, 5);
  EXPECT_EQ(ArrayToStrings(*bs), (Strings{"f", "t", "NULL", "f", "t"}));
  EXPECT_EQ(bs->null_count(), 1);
  EXPECT_OK(bs->Validate());
}

TEST_F(ArrayTest, SliceOfNullArray) {
  ArrayPtr a = MakeArray(DataType::Null(), {"NULL", "NULL", "NULL"}, pool_);
  ArrayPtr s = a->Slice(1, 2);
  EXPECT_EQ(s->null_count(), 2);
  EXPECT_TRUE(s->IsNull(0));
  EXPECT_OK(s->Validate());
}

TEST_F(ArrayTest, SliceOfDictionaryArraySharesTheDictionary) {
  ArrayPtr a = MakeArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()),
                         {"a", "b", "NULL", "a", "c", "b"}, pool_);
  ArrayPtr s = a->Slice(1, 4);
  EXPECT_EQ(s->dictionary(), a->dictionary());
  EXPECT_EQ(s->type(), a->type());
  EXPECT_EQ(s->null_count(), 1);
  EXPECT_EQ(s->DictionaryIndex(0), 1);
  EXPECT_EQ(ArrayToStrings(*s), (Strings{"b", "NULL", "a", "c"}));
  EXPECT_OK(s->Validate());
  EXPECT_EQ(ArrayToStrings(*s->Slice(3, 1)), (Strings{"c"}));
}

TEST_F(ArrayTest, SliceOutsideTheArrayIsABug) {
  ArrayPtr a = MakeArray(DataType::Int8(), {"1", "2"}, pool_);
  EXPECT_DEATH((void)a->Slice(1, 2), "slice");
  EXPECT_DEATH((void)a->Slice(-1, 1), "slice");
}

// --- MakeAllNull, BufferBytes
// ---------------------------------------------------------------------

TEST_F(ArrayTest, MakeAllNullOfEveryType) {
  for (const auto& type :
       {DataType::Null(), DataType::Boolean(), DataType::UInt16(), DataType::Float64(),
        DataType::Decimal(12, 2), DataType::Decimal(30, 2), DataType::Date32(),
        DataType::Timestamp(TimeUnit::kNano, "UTC"), DataType::Interval(), DataType::Utf8(),
        DataType::Binary(), DataType::Dictionary(TypeId::kInt16, DataType::Utf8())}) {
    SCOPED_TRACE(type.ToString());
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, Array::MakeAllNull(type, 70, pool_));
    EXPECT_EQ(a->type(), type);
    EXPECT_EQ(a->length(), 70);
    EXPECT_EQ(a->null_count(), 70);
    EXPECT_OK(a->Validate());
    EXPECT_TRUE(a->IsNull(0));
    EXPECT_TRUE(a->IsNull(69));
    EXPECT_EQ(a->Slice(10, 20)->null_count(), 20);
  }
}

TEST_F(ArrayTest, MakeAllNullFailsCleanlyOverTheLimit) {
  auto small = MemoryPool::MakeRoot("small", 1024);
  EXPECT_STATUS_CODE(StatusCode::kOutOfMemory,
                     Array::MakeAllNull(DataType::Int64(), 100000, small));
  EXPECT_EQ(small->bytes_used(), 0);
}

TEST_F(ArrayTest, BufferBytesCountsWholeBuffersAndTheDictionary) {
  ArrayPtr a = MakeArray(DataType::Utf8(), {"abc", "NULL", "de"}, pool_);
  // bitmap 1 byte, offsets 4 * 4, data 5
  EXPECT_EQ(a->BufferBytes(), 1 + 16 + 5);
  EXPECT_EQ(a->Slice(0, 1)->BufferBytes(), a->BufferBytes());
  ArrayPtr d = MakeArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), {"x", "x"}, pool_);
  EXPECT_EQ(d->BufferBytes(), 2 * 4 + (2 * 4 + 1));
}

// --- Validate ------------------------------------------------------------------------------------

TEST_F(ArrayTest, ValidArraysPass) {
  EXPECT_OK(Array::Make(DataType::Int32(), 3, {nullptr, Values<int32_t>({1, 2, 3})})->Validate());
  EXPECT_OK(
      Array::Make(DataType::Int32(), 2, {Bytes({0b01}), Values<int32_t>({1, 2})})->Validate());
  EXPECT_OK(
      Array::Make(DataType::Int32(), 2, {nullptr, Values<int32_t>({1, 2, 3})}, 0, 1)->Validate());
  EXPECT_OK(Utf8Of("plain")->Validate());
  EXPECT_OK(Array::Make(DataType::Utf8(), 0, {nullptr, nullptr, nullptr})->Validate());
  EXPECT_OK(Array::Make(DataType::Null(), 5, {})->Validate());
}

TEST_F(ArrayTest, ValidateCatchesShortValueBuffers) {
  ExpectInvalid(*Array::Make(DataType::Int32(), 4, {nullptr, Bytes(std::vector<uint8_t>(12))}),
                "too short");
  ExpectInvalid(*Array::Make(DataType::Int64(), 1, {nullptr, nullptr}), "too short");
  // A slice is checked up to its end, not just its length.
  ExpectInvalid(*Array::Make(DataType::Int16(), 2, {nullptr, Values<int16_t>({1, 2, 3})}, 0, 2),
                "too short");
  ExpectInvalid(*Array::Make(DataType::Boolean(), 9, {nullptr, Bytes({0xFF})}), "too short");
  ExpectInvalid(
      *Array::Make(DataType::Decimal(20, 2), 1, {nullptr, Bytes(std::vector<uint8_t>(8))}),
      "too short");
  ExpectInvalid(*Array::Make(DataType::Interval(), 2, {nullptr, Bytes(std::vector<uint8_t>(31))}),
                "too short");
}

TEST_F(ArrayTest, ValidateCatchesShortBitmaps) {
  ExpectInvalid(*Array::Make(DataType::Int8(), 9, {Bytes({0xFF}), Bytes(std::vector<uint8_t>(9))}),
                "validity bitmap");
  ExpectInvalid(
      *Array::Make(DataType::Utf8(), 9,
                   {Bytes({0xFF}), Values<int32_t>(std::vector<int32_t>(10, 0)), Bytes({})}),
      "validity bitmap");
}

TEST_F(ArrayTest, ValidateCatchesImpossibleNullCounts) {
  ExpectInvalid(*Array::Make(DataType::Int8(), 2, {nullptr, Bytes({1, 2})}, 1), "null count");
  ExpectInvalid(*Array::Make(DataType::Int8(), 2, {Bytes({0}), Bytes({1, 2})}, 3), "null count");
  ExpectInvalid(*Array::Make(DataType::Int8(), 2, {Bytes({0}), Bytes({1, 2})}, -5), "null count");
  // A count that disagrees with the bitmap would make every null-skipping fast path wrong.
  ExpectInvalid(*Array::Make(DataType::Int8(), 2, {Bytes({0b10}), Bytes({1, 2})}, 0), "null count");
  ExpectInvalid(
      *Array::Make(DataType::Int8(), 8, {Bytes({0xFF}), Bytes(std::vector<uint8_t>(8))}, 2),
      "null count");
  EXPECT_OK(Array::Make(DataType::Int8(), 2, {Bytes({0b10}), Bytes({1, 2})}, 1)->Validate());
}

TEST_F(ArrayTest, ValidateCatchesBadLengthsAndBufferCounts) {
  ExpectInvalid(*Array::Make(DataType::Int8(), -1, {nullptr, Bytes({1})}, 0), "length");
  ExpectInvalid(*Array::Make(DataType::Int8(), 1, {nullptr, Bytes({1, 2})}, 0, -1), "offset");
  ExpectInvalid(*Array::Make(DataType::Int8(), 1, {nullptr, Bytes({1}), Bytes({1})}), "buffers");
}

TEST_F(ArrayTest, ValidateCatchesBadOffsets) {
  // Offsets buffer shorter than length + 1 entries.
  ExpectInvalid(*Array::Make(DataType::Utf8(), 2, {nullptr, Values<int32_t>({0, 1}), Bytes({'a'})}),
                "offsets buffer");
  ExpectInvalid(*Array::Make(DataType::Binary(), 1, {nullptr, nullptr, Bytes({'a'})}),
                "offsets buffer");
  // Decreasing.
  ExpectInvalid(*Array::Make(DataType::Utf8(), 3,
                             {nullptr, Values<int32_t>({0, 2, 1, 3}), Bytes({'a', 'b', 'c'})}),
                "decrease");
  // Past the data.
  ExpectInvalid(*Array::Make(DataType::Binary(), 2,
                             {nullptr, Values<int32_t>({0, 1, 4}), Bytes({'a', 'b', 'c'})}),
                "past");
  ExpectInvalid(*Array::Make(DataType::Binary(), 1, {nullptr, Values<int32_t>({0, 1}), nullptr}),
                "past");
  // Negative start.
  ExpectInvalid(
      *Array::Make(DataType::Binary(), 1, {nullptr, Values<int32_t>({-1, 1}), Bytes({'a', 'b'})}),
      "negative");
  // A slice validates the offsets it covers.
  ArrayPtr sliced = Array::Make(DataType::Utf8(), 1,
                                {nullptr, Values<int32_t>({0, 5, 1}), Bytes({'a', 'b'})}, 0, 1);
  ExpectInvalid(*sliced, "decrease");
}

TEST_F(ArrayTest, ValidateCatchesBadDictionaries) {
  ArrayPtr dictionary = MakeArray(DataType::Utf8(), {"a", "b"}, pool_);
  const DataType type = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  EXPECT_OK(Array::Make(type, 2, {nullptr, Values<int32_t>({1, 0})}, 0, 0, dictionary)->Validate());
  ExpectInvalid(*Array::Make(type, 2, {nullptr, Values<int32_t>({1, 2})}, 0, 0, dictionary),
                "dictionary index 2");
  ExpectInvalid(*Array::Make(type, 1, {nullptr, Values<int32_t>({-7})}, 0, 0, dictionary),
                "dictionary index -7");
  ExpectInvalid(*Array::Make(DataType::Dictionary(TypeId::kUInt64, DataType::Utf8()), 1,
                             {nullptr, Values<uint64_t>({~uint64_t{0}})}, 0, 0, dictionary),
                "outside the dictionary");
  ExpectInvalid(*Array::Make(type, 1, {nullptr, Values<int32_t>({0})}), "without a dictionary");
  ExpectInvalid(*Array::Make(type, 1, {nullptr, Values<int32_t>({0})}, 0, 0,
                             MakeArray(DataType::Binary(), {"a"}, pool_)),
                "declared");
  // The dictionary itself is validated.
  ExpectInvalid(*Array::Make(type, 1, {nullptr, Values<int32_t>({0})}, 0, 0, Utf8Of("\xff")),
                "UTF-8");
  // A bad index under a null is never looked up, so it is allowed.
  EXPECT_OK(Array::Make(type, 2, {Bytes({0b01}), Values<int32_t>({0, 99})}, 1, 0, dictionary)
                ->Validate());
  // A slice only checks its own indices.
  EXPECT_OK(
      Array::Make(type, 1, {nullptr, Values<int32_t>({99, 1})}, 0, 1, dictionary)->Validate());
}

struct Utf8Case {
  const char* name;
  std::string bytes;
  bool valid;
};

class Utf8ValidationTest : public ::testing::TestWithParam<Utf8Case> {};

TEST_P(Utf8ValidationTest, MatchesTheUnicodeRules) {
  const Utf8Case& c = GetParam();
  const auto* data = reinterpret_cast<const uint8_t*>(c.bytes.data());
  EXPECT_EQ(IsValidUtf8(data, static_cast<int64_t>(c.bytes.size())), c.valid);
  // The same bytes after eight ASCII bytes, so the word-at-a-time fast path hands over to the
  // byte path, and before eight ASCII bytes, so it resumes after the sequence.
  const std::string after = "abcdefgh" + c.bytes;
  EXPECT_EQ(IsValidUtf8(reinterpret_cast<const uint8_t*>(after.data()),
                        static_cast<int64_t>(after.size())),
            c.valid);
  const std::string before = c.bytes + "abcdefgh";
  EXPECT_EQ(IsValidUtf8(reinterpret_cast<const uint8_t*>(before.data()),
                        static_cast<int64_t>(before.size())),
            c.valid);
  ArrayPtr a = Utf8Of(c.bytes);
  if (c.valid) {
    EXPECT_OK(a->Validate());
  } else {
    ExpectInvalid(*a, "UTF-8");
    EXPECT_OK(a->Validate(/*check_utf8=*/false));
  }
  // Binary never cares.
  ArrayPtr b = Array::Make(DataType::Binary(), 1, a->buffers());
  EXPECT_OK(b->Validate());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Utf8ValidationTest,
    ::testing::Values(
        Utf8Case{"Empty", "", true}, Utf8Case{"Ascii", "hello", true},
        Utf8Case{"Del", "\x7f", true}, Utf8Case{"TwoByteMin", "\xc2\x80", true},
        Utf8Case{"TwoByteMax", "\xdf\xbf", true}, Utf8Case{"ThreeByteMin", "\xe0\xa0\x80", true},
        Utf8Case{"BeforeSurrogates", "\xed\x9f\xbf", true},
        Utf8Case{"AfterSurrogates", "\xee\x80\x80", true},
        Utf8Case{"ThreeByteMax", "\xef\xbf\xbf", true},
        Utf8Case{"FourByteMin", "\xf0\x90\x80\x80", true},
        Utf8Case{"MaxCodePoint", "\xf4\x8f\xbf\xbf", true},
        Utf8Case{"Mixed", "héllo 日本語 😀", true}, Utf8Case{"OverlongSlash2", "\xc0\xaf", false},
        Utf8Case{"OverlongNul", "\xc0\x80", false}, Utf8Case{"OverlongC1", "\xc1\xbf", false},
        Utf8Case{"Overlong3", "\xe0\x80\xaf", false},
        Utf8Case{"Overlong3Max", "\xe0\x9f\xbf", false},
        Utf8Case{"Overlong4", "\xf0\x80\x80\xaf", false},
        Utf8Case{"Overlong4Max", "\xf0\x8f\xbf\xbf", false},
        Utf8Case{"SurrogateLow", "\xed\xa0\x80", false},
        Utf8Case{"SurrogateHigh", "\xed\xbf\xbf", false},
        Utf8Case{"SurrogatePair", "\xed\xa0\xbd\xed\xb8\x80", false},
        Utf8Case{"AboveMax", "\xf4\x90\x80\x80", false},
        Utf8Case{"F5Lead", "\xf5\x80\x80\x80", false},
        Utf8Case{"FiveByte", "\xf8\x88\x80\x80\x80", false}, Utf8Case{"FF", "\xff", false},
        Utf8Case{"FE", "\xfe", false}, Utf8Case{"LoneContinuation", "\x80", false},
        Utf8Case{"ContinuationAfterAscii", "a\xbf", false}, Utf8Case{"TruncatedTwo", "\xc3", false},
        Utf8Case{"TruncatedThree", "\xe6\x97", false},
        Utf8Case{"TruncatedFour", "\xf0\x9f\x98", false},
        Utf8Case{"TruncatedThenAscii", "\xe6\x41\x41", false},
        Utf8Case{"BadSecondContinuation", "\xe6\x97\x41", false}),
    [](const ::testing::TestParamInfo<Utf8Case>& info) { return std::string(info.param.name); });

TEST_F(ArrayTest, ValidateNamesTheRowWithBadUtf8) {
  ArrayPtr a = Array::Make(DataType::Utf8(), 3,
                           {nullptr, Values<int32_t>({0, 1, 2, 4}), Bytes({'a', 'b', 0xe6, 0x97})});
  ExpectInvalid(*a, "row 2");
  // Only the slice's own values are checked.
  EXPECT_OK(a->Slice(0, 2)->Validate());
}

// --- ArraysEqual ---------------------------------------------------------------------------------

TEST_F(ArrayTest, ArraysEqualComparesTypesLengthsNullsAndValues) {
  ArrayPtr a = MakeArray(DataType::Int32(), {"1", "NULL", "3"}, pool_);
  EXPECT_TRUE(ArraysEqual(*a, *MakeArray(DataType::Int32(), {"1", "NULL", "3"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*a, *MakeArray(DataType::Int32(), {"1", "NULL", "4"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*a, *MakeArray(DataType::Int32(), {"1", "2", "3"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*a, *MakeArray(DataType::Int32(), {"1", "NULL"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*a, *MakeArray(DataType::Int64(), {"1", "NULL", "3"}, pool_)));
  EXPECT_FALSE(
      ArraysEqual(*a, *MakeArray(DataType::Date32(), {"1970-01-02", "NULL", "1970-01-04"}, pool_)));
  // Whatever a null slot holds does not matter.
  Int32Builder b(DataType::Int32(), pool_);
  int32_t raw[] = {1, 12345, 3};
  uint8_t valid[] = {1, 0, 1};
  ASSERT_OK(b.AppendValues(raw, 3, valid));
  ASSERT_OK_AND_ASSIGN(ArrayPtr junk, b.Finish());
  EXPECT_TRUE(ArraysEqual(*a, *junk));
}

TEST_F(ArrayTest, ArraysEqualComparesSlicesLogically) {
  ArrayPtr a = MakeArray(DataType::Utf8(), {"x", "y", "NULL", "z", "w"}, pool_);
  ArrayPtr b = MakeArray(DataType::Utf8(), {"y", "NULL", "z"}, pool_);
  EXPECT_TRUE(ArraysEqual(*a->Slice(1, 3), *b));
  EXPECT_FALSE(ArraysEqual(*a->Slice(0, 3), *b));
  ArrayPtr bools =
      MakeArray(DataType::Boolean(), {"t", "f", "t", "t", "f", "f", "t", "f", "t"}, pool_);
  EXPECT_TRUE(ArraysEqual(*bools->Slice(2, 3), *MakeArray(DataType::Boolean(), {"t", "t", "f"})));
  EXPECT_TRUE(ArraysEqual(*bools->Slice(8, 1), *bools->Slice(0, 1)));
}

TEST_F(ArrayTest, ArraysEqualFloatsAndDecimalsAndIntervals) {
  EXPECT_TRUE(ArraysEqual(*MakeArray(DataType::Float64(), {"NaN", "1"}, pool_),
                          *MakeArray(DataType::Float64(), {"NaN", "1"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*MakeArray(DataType::Float32(), {"NaN"}, pool_),
                           *MakeArray(DataType::Float32(), {"1"}, pool_)));
  EXPECT_TRUE(ArraysEqual(*MakeArray(DataType::Decimal(30, 2), {"-1.5", "NULL"}, pool_),
                          *MakeArray(DataType::Decimal(30, 2), {"-1.50", "NULL"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*MakeArray(DataType::Decimal(30, 2), {"-1.5"}, pool_),
                           *MakeArray(DataType::Decimal(30, 3), {"-1.5"}, pool_)));
  EXPECT_TRUE(ArraysEqual(*MakeArray(DataType::Interval(), {"1 mon 2 days 00:00:01"}, pool_),
                          *MakeArray(DataType::Interval(), {"1 mon 2 days 00:00:01"}, pool_)));
  EXPECT_FALSE(ArraysEqual(*MakeArray(DataType::Interval(), {"1 mon"}, pool_),
                           *MakeArray(DataType::Interval(), {"30 days"}, pool_)))
      << "a month is not 30 days";
}

TEST_F(ArrayTest, ArraysEqualDecodesDictionaries) {
  ArrayPtr a = MakeArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()),
                         {"b", "a", "NULL", "b"}, pool_);
  // Same values through a different dictionary order.
  ArrayPtr dictionary = MakeArray(DataType::Utf8(), {"a", "b"}, pool_);
  ASSERT_OK_AND_ASSIGN(
      ArrayPtr b, MakeDictionaryArray(MakeArray(DataType::Int32(), {"1", "0", "NULL", "1"}, pool_),
                                      dictionary));
  EXPECT_TRUE(ArraysEqual(*a, *b));
  ASSERT_OK_AND_ASSIGN(
      ArrayPtr c, MakeDictionaryArray(MakeArray(DataType::Int32(), {"1", "0", "NULL", "0"}, pool_),
                                      dictionary));
  EXPECT_FALSE(ArraysEqual(*a, *c));
  // A dictionary-encoded column does not equal its decoded form: the types differ.
  EXPECT_FALSE(ArraysEqual(*a, *MakeArray(DataType::Utf8(), {"b", "a", "NULL", "b"}, pool_)));
}

// --- CompactCopy ---------------------------------------------------------------------------------

TEST_F(ArrayTest, CompactCopyOfSlices) {
  std::vector<std::string> text;
  for (int i = 0; i < 50; ++i)
    text.push_back(i % 4 == 1 ? "NULL" : std::to_string(i * 1000));
  ArrayPtr ints = MakeArray(DataType::Int64(), text, pool_);
  ArrayPtr slice = ints->Slice(13, 20);
  ASSERT_OK_AND_ASSIGN(ArrayPtr copy, CompactCopy(*slice, pool_));
  EXPECT_EQ(copy->offset(), 0);
  EXPECT_EQ(copy->buffer(1)->size(), 20 * 8);
  EXPECT_NE(copy->buffer(1), ints->buffer(1));
  EXPECT_EQ(copy->null_count(), slice->null_count());
  EXPECT_ARRAYS_EQUAL(copy, slice);
  EXPECT_OK(copy->Validate());

  ArrayPtr strings = MakeArray(DataType::Utf8(), {"alpha", "NULL", "γάμμα", "delta", ""}, pool_);
  ASSERT_OK_AND_ASSIGN(ArrayPtr scopy, CompactCopy(*strings->Slice(2, 3), pool_));
  EXPECT_EQ(scopy->offsets()[0], 0) << "offsets rebased";
  EXPECT_EQ(scopy->buffer(2)->size(), static_cast<int64_t>(std::string("γάμμαdelta").size()));
  EXPECT_EQ(ArrayToStrings(*scopy), (Strings{"γάμμα", "delta", ""}));

  ArrayPtr bools = MakeArray(DataType::Boolean(), {"t", "f", "NULL", "t", "t", "f", "t"}, pool_);
  ASSERT_OK_AND_ASSIGN(ArrayPtr bcopy, CompactCopy(*bools->Slice(1, 5), pool_));
  EXPECT_EQ(bcopy->offset(), 0);
  EXPECT_EQ(ArrayToStrings(*bcopy), (Strings{"f", "NULL", "t", "t", "f"}));

  ArrayPtr nulls = MakeArray(DataType::Null(), {"NULL", "NULL", "NULL"}, pool_);
  ASSERT_OK_AND_ASSIGN(ArrayPtr ncopy, CompactCopy(*nulls->Slice(1, 2), pool_));
  EXPECT_EQ(ncopy->length(), 2);
  EXPECT_EQ(ncopy->null_count(), 2);

  for (const auto& type : {DataType::Decimal(30, 4), DataType::Interval(),
                           DataType::Timestamp(TimeUnit::kNano, "UTC"), DataType::Float32()}) {
    SCOPED_TRACE(type.ToString());
    ASSERT_OK_AND_ASSIGN(ArrayPtr all_null, Array::MakeAllNull(type, 10, pool_));
    ASSERT_OK_AND_ASSIGN(ArrayPtr c, CompactCopy(*all_null->Slice(3, 4), pool_));
    EXPECT_EQ(c->type(), type);
    EXPECT_EQ(c->null_count(), 4);
  }
}

TEST_F(ArrayTest, CompactCopyOfDictionarySliceKeepsTheDictionary) {
  for (TypeId index : {TypeId::kInt8, TypeId::kInt32, TypeId::kUInt16, TypeId::kInt64}) {
    const DataType type = DataType::Dictionary(index, DataType::Utf8());
    SCOPED_TRACE(type.ToString());
    ArrayPtr a = MakeArray(type, {"p", "q", "NULL", "r", "p", "q"}, pool_);
    ASSERT_OK_AND_ASSIGN(ArrayPtr c, CompactCopy(*a->Slice(1, 4), pool_));
    EXPECT_EQ(c->type(), type);
    EXPECT_EQ(c->offset(), 0);
    EXPECT_EQ(c->dictionary(), a->dictionary());
    EXPECT_EQ(c->buffer(1)->size(), 4 * type.byte_width());
    EXPECT_EQ(ArrayToStrings(*c), (Strings{"q", "NULL", "r", "p"}));
    EXPECT_OK(c->Validate());
  }
}

TEST_F(ArrayTest, CompactCopyFailsCleanlyOverTheLimit) {
  ArrayPtr big =
      MakeArray(DataType::Utf8(), std::vector<std::string>(100, std::string(100, 'x')), pool_);
  auto small = MemoryPool::MakeRoot("small", 2048);
  EXPECT_STATUS_CODE(StatusCode::kOutOfMemory, CompactCopy(*big->Slice(10, 80), small));
  EXPECT_EQ(small->bytes_used(), 0);
}

// ---- nested arrays from outside bytes

ArrayPtr Ints(std::vector<int32_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return Array::Make(DataType::Int32(), n, {nullptr, Values<int32_t>(std::move(v))});
}

TEST(NestedArrayValidate, ListOffsets) {
  const DataType type = DataType::List(DataType::Int32());
  ArrayPtr items = Ints({1, 2, 3});
  EXPECT_TRUE(
      Array::MakeNested(type, 2, {nullptr, Values<int32_t>({0, 1, 3})}, {items})->Validate().ok());
  ExpectInvalid(*Array::MakeNested(type, 2, {nullptr, Values<int32_t>({0, 2, 1})}, {items}),
                "offsets decrease at row 1");
  ExpectInvalid(*Array::MakeNested(type, 2, {nullptr, Values<int32_t>({0, 1, 4})}, {items}),
                "points past the 3 items");
  ExpectInvalid(*Array::MakeNested(type, 2, {nullptr, Values<int32_t>({-1, 1, 2})}, {items}),
                "negative first offset");
  ExpectInvalid(*Array::MakeNested(type, 2, {nullptr, Values<int32_t>({0, 1})}, {items}),
                "offsets buffer of 8 bytes is too short");
  ExpectInvalid(*Array::MakeNested(type, 2, {nullptr, Values<int32_t>({0, 1, 3})}, {}),
                "has 0 children, expected 1");
  ExpectInvalid(
      *Array::MakeNested(type, 1, {nullptr, Values<int32_t>({0, 1})},
                         {Array::Make(DataType::Int64(), 1, {nullptr, Values<int64_t>({1})})}),
      "child 0 of int32[] has type int64");
  // A slice is checked over its own offsets only.
  ArrayPtr bad_tail = Array::MakeNested(type, 3, {nullptr, Values<int32_t>({0, 1, 3, 2})}, {items});
  EXPECT_TRUE(bad_tail->Slice(0, 2)->Validate().ok());
  ExpectInvalid(*bad_tail->Slice(1, 2), "offsets decrease");
  const DataType large = DataType::LargeList(DataType::Int32());
  ExpectInvalid(
      *Array::MakeNested(large, 1, {nullptr, Values<int64_t>({0, int64_t{1} << 40})}, {items}),
      "points past");
}

TEST(NestedArrayValidate, ChildErrorsNameTheField) {
  const DataType type = DataType::List(DataType::Utf8());
  ArrayPtr bad_utf8 = Utf8Of("\xff");
  Status st =
      Array::MakeNested(type, 1, {nullptr, Values<int32_t>({0, 1})}, {bad_utf8})->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData);
  EXPECT_NE(st.ToString().find("invalid UTF-8"), std::string::npos) << st;
  EXPECT_NE(st.ToString().find("field 'item'"), std::string::npos) << st;
}

TEST(NestedArrayValidate, FixedSizeAndStructLengths) {
  const DataType fixed = DataType::FixedSizeList(DataType::Int32(), 2);
  EXPECT_TRUE(Array::MakeNested(fixed, 1, {nullptr}, {Ints({1, 2, 3})})->Validate().ok());
  ExpectInvalid(*Array::MakeNested(fixed, 2, {nullptr}, {Ints({1, 2, 3})}),
                "child of 3 items is too short for 2 lists of 2");
  // An offset that would overflow size * rows is refused, not wrapped.
  const DataType huge = DataType::FixedSizeList(DataType::Int32(), 1 << 30);
  ExpectInvalid(*Array::MakeNested(huge, 1 << 20, {nullptr}, {Ints({1})}), "too short");
  const DataType st = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Int32()}});
  EXPECT_TRUE(
      Array::MakeNested(st, 2, {nullptr}, {Ints({1, 2}), Ints({3, 4, 5})})->Validate().ok());
  ExpectInvalid(*Array::MakeNested(st, 3, {nullptr}, {Ints({1, 2, 3}), Ints({3, 4})}),
                "field 'b' has 2 rows, fewer than the 3");
  EXPECT_TRUE(Array::MakeNested(st, 2, {nullptr}, {Ints({1, 2}), Ints({3, 4})})
                  ->Slice(1, 1)
                  ->Validate()
                  .ok());
}

TEST(NestedArrayValidate, MapKeysAreNeverNull) {
  const DataType type = DataType::Map(DataType::Int32(), DataType::Int32());
  auto keys_with_null = Array::Make(DataType::Int32(), 2, {Bytes({0b01}), Values<int32_t>({1, 2})});
  auto entries = Array::MakeNested(type.item_type(), 2, {nullptr}, {keys_with_null, Ints({5, 6})});
  // Only the first entry is reached: valid.
  EXPECT_TRUE(
      Array::MakeNested(type, 1, {nullptr, Values<int32_t>({0, 1})}, {entries})->Validate().ok());
  ExpectInvalid(*Array::MakeNested(type, 1, {nullptr, Values<int32_t>({0, 2})}, {entries}),
                "null key");
}

}  // namespace
}  // namespace shoal::columnar

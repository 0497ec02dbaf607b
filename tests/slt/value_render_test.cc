#include "tests/slt/value_render.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/slt/fake_engine.h"
#include "tests/slt/result_compare.h"
#include "tests/support/batch_builder.h"

namespace shoal::slt {
namespace {

using columnar::DataType;
using columnar::TimeUnit;
using columnar::TypeId;

std::vector<std::string> Render(const DataType& type, const std::vector<std::string>& values) {
  columnar::ArrayPtr array = testing::MakeArray(type, values);
  std::vector<std::string> out;
  for (int64_t i = 0; i < array->length(); ++i)
    out.push_back(RenderValue(*array, i));
  return out;
}

using Strings = std::vector<std::string>;

TEST(SltRenderTest, NullsEmptyStringsAndBooleans) {
  EXPECT_EQ(Render(DataType::Int32(), {"NULL", "-7"}), (Strings{"NULL", "-7"}));
  EXPECT_EQ(Render(DataType::Utf8(), {"NULL", "", "x y", "NULL "}),
            (Strings{"NULL", "(empty)", "x y", "NULL "}));
  EXPECT_EQ(Render(DataType::Boolean(), {"t", "f", "NULL"}), (Strings{"true", "false", "NULL"}));
  EXPECT_EQ(Render(DataType::Null(), {"NULL"}), (Strings{"NULL"}));
}

TEST(SltRenderTest, ControlCharactersInTextAreEscaped) {
  EXPECT_EQ(Render(DataType::Utf8(), {"a\tb\nc\rd"}), (Strings{"a\\tb\\nc\\rd"}));
}

TEST(SltRenderTest, IntegersAndDecimals) {
  EXPECT_EQ(Render(DataType::UInt64(), {"18446744073709551615"}),
            (Strings{"18446744073709551615"}));
  EXPECT_EQ(Render(DataType::Decimal(10, 2), {"1.5", "-0.05", "0", "NULL"}),
            (Strings{"1.50", "-0.05", "0.00", "NULL"}));
  EXPECT_EQ(Render(DataType::Decimal(38, 0), {"12345678901234567890123"}),
            (Strings{"12345678901234567890123"}));
}

TEST(SltRenderTest, FloatsAreRounded) {
  EXPECT_EQ(Render(DataType::Float64(), {"0.30000000000000004", "0.1", "100", "-0.0", "2.5e-7"}),
            (Strings{"0.3", "0.1", "100", "0", "2.5e-07"}));
  EXPECT_EQ(Render(DataType::Float64(), {"NaN", "Infinity", "-Infinity", "1e20"}),
            (Strings{"NaN", "Infinity", "-Infinity", "1e+20"}));
  EXPECT_EQ(RenderFloat(1.0 / 3.0, 12), "0.333333333333");
  EXPECT_EQ(RenderFloat(123456789.123456789, 12), "123456789.123");
  EXPECT_EQ(RenderFloat(0.1 + 0.2, 12), RenderFloat(0.3, 12));
  // float32 keeps 6 significant digits, so 0.1f does not show as 0.100000001490116.
  EXPECT_EQ(Render(DataType::Float32(), {"0.1", "1.5", "NULL"}), (Strings{"0.1", "1.5", "NULL"}));
}

TEST(SltRenderTest, TemporalBinaryAndDictionary) {
  EXPECT_EQ(Render(DataType::Date32(), {"2024-02-29"}), (Strings{"2024-02-29"}));
  EXPECT_EQ(Render(DataType::Timestamp(TimeUnit::kMicro), {"2024-01-02 03:04:05.5"}),
            (Strings{"2024-01-02 03:04:05.5"}));
  EXPECT_EQ(Render(DataType::Binary(), {"\\x00ff"}), (Strings{"\\x00ff"}));
  EXPECT_EQ(Render(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), {"a", "NULL", "", "a"}),
            (Strings{"a", "NULL", "(empty)", "a"}));
}

TEST(SltRenderTest, TypeCharacters) {
  EXPECT_TRUE(TypeCharAccepts('I', DataType::Int8()));
  EXPECT_TRUE(TypeCharAccepts('I', DataType::UInt64()));
  EXPECT_FALSE(TypeCharAccepts('I', DataType::Float64()));
  EXPECT_FALSE(TypeCharAccepts('I', DataType::Utf8()));
  EXPECT_TRUE(TypeCharAccepts('R', DataType::Float32()));
  EXPECT_TRUE(TypeCharAccepts('R', DataType::Decimal(15, 2)));
  EXPECT_FALSE(TypeCharAccepts('R', DataType::Int64()));
  EXPECT_TRUE(TypeCharAccepts('T', DataType::Utf8()));
  EXPECT_TRUE(TypeCharAccepts('T', DataType::Dictionary(TypeId::kInt32, DataType::Utf8())));
  EXPECT_FALSE(TypeCharAccepts('T', DataType::Int64()));
  EXPECT_TRUE(TypeCharAccepts('B', DataType::Boolean()));
  EXPECT_FALSE(TypeCharAccepts('B', DataType::Int8()));
  EXPECT_TRUE(TypeCharAccepts('D', DataType::Date32()));
  EXPECT_TRUE(TypeCharAccepts('D', DataType::Timestamp()));
  EXPECT_TRUE(TypeCharAccepts('P', DataType::Timestamp()));
  EXPECT_FALSE(TypeCharAccepts('P', DataType::Date32()));
  EXPECT_TRUE(TypeCharAccepts('?', DataType::Interval()));
  EXPECT_TRUE(TypeCharAccepts('I', DataType::Null()));  // NULL literals fit any column
  EXPECT_EQ(CanonicalTypeChar(DataType::Int16()), 'I');
  EXPECT_EQ(CanonicalTypeChar(DataType::Decimal(15, 2)), 'R');
  EXPECT_EQ(CanonicalTypeChar(DataType::Utf8()), 'T');
  EXPECT_EQ(CanonicalTypeChar(DataType::Boolean()), 'B');
  EXPECT_EQ(CanonicalTypeChar(DataType::Date32()), 'D');
  EXPECT_EQ(CanonicalTypeChar(DataType::Null()), '?');
}

TEST(SltRenderTest, RenderRowsChecksBatchesAgainstSchema) {
  QueryResult ok =
      MakeResult({{"a", DataType::Int32()}, {"b", DataType::Utf8()}}, {{"1", "x"}, {"NULL", ""}});
  ok.batches.push_back(ok.batches[0]->Slice(1, 1));
  Result<std::vector<Row>> rows = RenderRows(ok);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<Row>{{"1", "x"}, {"NULL", "(empty)"}, {"NULL", "(empty)"}}));

  QueryResult wrong = MakeResult({{"a", DataType::Int32()}}, {{"1"}});
  wrong.schema = std::make_shared<columnar::Schema>(
      std::vector<columnar::Field>{{"a", DataType::Int32()}, {"b", DataType::Int32()}});
  EXPECT_FALSE(RenderRows(wrong).ok());
  wrong.schema =
      std::make_shared<columnar::Schema>(std::vector<columnar::Field>{{"a", DataType::Int64()}});
  EXPECT_FALSE(RenderRows(wrong).ok());
  wrong.schema = nullptr;
  EXPECT_FALSE(RenderRows(wrong).ok());
  EXPECT_TRUE(RenderRows(QueryResult{}).ok());
}

TEST(SltCompareTest, SeparatorRule) {
  EXPECT_EQ(ParseExpectedLine("1  a   2.5", 3), (Row{"1", "a", "2.5"}));
  EXPECT_EQ(ParseExpectedLine("1\thello world\tx", 3), (Row{"1", "hello world", "x"}));
  EXPECT_EQ(ParseExpectedLine("hello  world ", 1), (Row{"hello  world "}));
  EXPECT_EQ(ParseExpectedLine("hello world", 2), (Row{"hello", "world"}));
  EXPECT_EQ(ParseExpectedLine("a\t\tb", 3), (Row{"a", "", "b"}));
  EXPECT_EQ(ParseExpectedLine("a\tb", 1), (Row{"a", "b"}));  // never equals a 1-value row
  EXPECT_EQ(FormatRow({"1", "a"}), "1 a");
  EXPECT_EQ(FormatRow({"1", "a b"}), "1\ta b");
  EXPECT_EQ(FormatRow({"a b"}), "a b");
  // What FormatRow writes reads back as the same values.
  for (const Row& row : std::vector<Row>{{"1", "a b", " c"}, {"x"}, {"x y"}, {"1", "2", "3"}})
    EXPECT_EQ(ParseExpectedLine(FormatRow(row), row.size()), row);
}

TEST(SltCompareTest, SortModes) {
  std::vector<Row> rows = {{"b", "1"}, {"a", "2"}, {"a", "10"}};
  std::vector<Row> nosort = rows;
  ApplySortMode(SortMode::kNoSort, &nosort);
  EXPECT_EQ(nosort, rows);
  std::vector<Row> rowsort = rows;
  ApplySortMode(SortMode::kRowSort, &rowsort);
  EXPECT_EQ(rowsort, (std::vector<Row>{{"a", "10"}, {"a", "2"}, {"b", "1"}}));
  std::vector<Row> valuesort = rows;
  ApplySortMode(SortMode::kValueSort, &valuesort);
  EXPECT_EQ(valuesort, (std::vector<Row>{{"1"}, {"10"}, {"2"}, {"a"}, {"a"}, {"b"}}));
}

TEST(SltCompareTest, HashLines) {
  // md5("1\n2\n") as sqllogictest computes it.
  EXPECT_EQ(HashLine({{"1"}, {"2"}}), "2 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0");
  EXPECT_EQ(HashLine({{"1", "2"}}), HashLine({{"1"}, {"2"}}));
  EXPECT_NE(HashLine({{"2"}, {"1"}}), HashLine({{"1"}, {"2"}}));
  EXPECT_TRUE(IsHashLine("12 values hashing to 0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(IsHashLine("12 values hashing to 0123456789abcdef"));
  EXPECT_FALSE(IsHashLine("x values hashing to 0123456789abcdef0123456789abcdef"));
}

TEST(SltCompareTest, DiffShowsContextAndChanges) {
  std::vector<Row> expected = {{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"7"}};
  std::vector<Row> actual = {{"1"}, {"2"}, {"3"}, {"4"}, {"five"}, {"6"}, {"7"}, {"8"}};
  EXPECT_EQ(DiffRows(expected, actual, "> "),
            "> --- expected\n"
            "> +++ actual\n"
            ">  ... 1 matching rows\n"
            ">  2\n"
            ">  3\n"
            ">  4\n"
            "> -5\n"
            "> -6\n"
            "> -7\n"
            "> +five\n"
            "> +6\n"
            "> +7\n"
            "> +8\n");
  EXPECT_EQ(DiffRows({}, {{"1", "a b"}}, ""),
            "--- expected\n+++ actual\n+1\ta b\n(no rows expected)\n");
  std::string capped = DiffRows({}, std::vector<Row>(50, Row{"x"}), "", 3);
  EXPECT_NE(capped.find("+x\n+x\n+x\n+... 47 more\n"), std::string::npos) << capped;
}

}  // namespace
}  // namespace shoal::slt

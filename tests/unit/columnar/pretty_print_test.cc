// The expected tables below are what psql 15 printed (`psql -X`, aligned format, default
// \pset null '', TimeZone UTC, IntervalStyle postgres) for the same data, e.g.
//   SELECT * FROM (VALUES (1::int, 12.50::numeric(10,2), ...)) AS t(id, price, ...);
// psql ends every result with an extra empty line that separates it from the next command's
// output; that line belongs to psql's command loop, not to the table, so FormatTable omits it.
#include "shoal/columnar/pretty_print.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "tests/support/batch_builder.h"

namespace shoal::columnar {
namespace {

using ::shoal::testing::MakeArray;
using ::shoal::testing::MakeBatch;

std::string Table(const RecordBatchPtr& batch, const PrintOptions& options = {}) {
  return FormatTable(*batch->schema(), {batch}, options);
}

std::string One(const DataType& type, const std::string& text) {
  return FormatValue(*MakeArray(type, {text}), 0);
}

// --- values --------------------------------------------------------------------------------------

TEST(FormatValueTest, Integers) {
  EXPECT_EQ(One(DataType::Int8(), "-128"), "-128");
  EXPECT_EQ(One(DataType::UInt8(), "255"), "255");
  EXPECT_EQ(One(DataType::Int64(), "-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(One(DataType::UInt64(), "18446744073709551615"), "18446744073709551615");
}

TEST(FormatValueTest, Float64LikePostgres) {
  // float8out: shortest round-trip digits, exponent form below 1e-4 and from 1e15 (DBL_DIG) on.
  auto f = [](double v) {
    Float64Builder b(DataType::Float64(), DefaultMemoryPool());
    EXPECT_OK(b.Append(v));
    return FormatValue(**b.Finish(), 0);
  };
  EXPECT_EQ(f(1.5), "1.5");
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(1e14), "100000000000000");
  EXPECT_EQ(f(123456789012345.0), "123456789012345");
  EXPECT_EQ(f(1e15), "1e+15");
  EXPECT_EQ(f(1234567890123456.0), "1.234567890123456e+15");
  EXPECT_EQ(f(0.0001), "0.0001");
  EXPECT_EQ(f(0.00001), "1e-05");
  EXPECT_EQ(f(0.000123), "0.000123");
  EXPECT_EQ(f(1.5e-7), "1.5e-07");
  EXPECT_EQ(f(1e300), "1e+300");
  EXPECT_EQ(f(-2.5e100), "-2.5e+100");
  EXPECT_EQ(f(-0.0), "-0");
  EXPECT_EQ(f(0.0), "0");
  EXPECT_EQ(f(100.0), "100");
  EXPECT_EQ(f(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(f(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(f(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(f(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(f(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(FormatValueTest, Float32LikePostgres) {
  // float4out: the same with FLT_DIG = 6.
  auto f = [](float v) {
    Float32Builder b(DataType::Float32(), DefaultMemoryPool());
    EXPECT_OK(b.Append(v));
    return FormatValue(**b.Finish(), 0);
  };
  EXPECT_EQ(f(0.1f), "0.1");
  EXPECT_EQ(f(123456.0f), "123456");
  EXPECT_EQ(f(1e6f), "1e+06");
  EXPECT_EQ(f(1234567.0f), "1.234567e+06");
  EXPECT_EQ(f(0.0001f), "0.0001");
  EXPECT_EQ(f(0.00001f), "1e-05");
  EXPECT_EQ(f(std::numeric_limits<float>::max()), "3.4028235e+38");
  EXPECT_EQ(f(-std::numeric_limits<float>::infinity()), "-Infinity");
  EXPECT_EQ(f(std::numeric_limits<float>::quiet_NaN()), "NaN");
}

TEST(FormatValueTest, DecimalsKeepTheirScale) {
  EXPECT_EQ(One(DataType::Decimal(10, 2), "12.5"), "12.50");
  EXPECT_EQ(One(DataType::Decimal(10, 2), "-0.05"), "-0.05");
  EXPECT_EQ(One(DataType::Decimal(38, 10), "12300000000"), "12300000000.0000000000");
  EXPECT_EQ(One(DataType::Decimal(38, 0), "-99999999999999999999999999999999999999"),
            "-99999999999999999999999999999999999999");
}

TEST(FormatDateTest, EpochLeapYearsAndEras) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(11016), "2000-02-29");  // divisible by 400: leap
  EXPECT_EQ(FormatDate(11017), "2000-03-01");
  EXPECT_EQ(FormatDate(-25508), "1900-03-01");  // divisible by 100 only: 1900-02-28 + 1
  EXPECT_EQ(FormatDate(-25509), "1900-02-28");
  EXPECT_EQ(FormatDate(19782), "2024-02-29");
  EXPECT_EQ(FormatDate(19417), "2023-03-01");
  EXPECT_EQ(FormatDate(-719162), "0001-01-01");
  EXPECT_EQ(FormatDate(-719163), "0001-12-31 BC");  // there is no year 0
  EXPECT_EQ(FormatDate(-719528), "0001-01-01 BC");  // 1 BC is a leap year: 366 days
  EXPECT_EQ(FormatDate(-735160), "0044-03-15 BC");
  EXPECT_EQ(FormatDate(2932896), "9999-12-31");
  EXPECT_EQ(FormatDate(2932897), "10000-01-01");
  // The extremes of date32 print without overflow.
  EXPECT_EQ(FormatDate(std::numeric_limits<int32_t>::max()), "5881580-07-11");
  EXPECT_EQ(FormatDate(std::numeric_limits<int32_t>::min()), "5877642-06-23 BC");
}

TEST(FormatDateTest, CivilRoundTrip) {
  for (int64_t days = -800000; days <= 3000000; days += 997) {
    int64_t y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    ASSERT_EQ(DaysFromCivil(y, m, d), days) << y << "-" << m << "-" << d;
  }
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(0, 12, 31), -719163);
}

TEST(FormatValueTest, Timestamps) {
  const DataType us = DataType::Timestamp();
  const DataType tz = DataType::Timestamp(TimeUnit::kMicro, "UTC");
  EXPECT_EQ(One(us, "2024-02-29 13:45:00.25"), "2024-02-29 13:45:00.25");
  EXPECT_EQ(One(us, "1969-12-31 23:59:59.999999"), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(One(us, "1970-01-01"), "1970-01-01 00:00:00");
  EXPECT_EQ(One(tz, "2024-01-01 00:00:00"), "2024-01-01 00:00:00+00");
  EXPECT_EQ(One(tz, "2024-01-01 02:00:00+02"), "2024-01-01 00:00:00+00");
  // BC goes after the time (and after the zone), as PostgreSQL writes it.
  EXPECT_EQ(One(us, "0001-01-01 00:00:00 BC"), "0001-01-01 00:00:00 BC");
  EXPECT_EQ(One(tz, "0044-03-15 12:00:00+00 BC"), "0044-03-15 12:00:00+00 BC");
  EXPECT_EQ(One(DataType::Timestamp(TimeUnit::kSecond), "2038-01-19 03:14:08"),
            "2038-01-19 03:14:08");
  EXPECT_EQ(One(DataType::Timestamp(TimeUnit::kMilli), "1969-12-31 23:59:59.5"),
            "1969-12-31 23:59:59.5");
  EXPECT_EQ(One(DataType::Timestamp(TimeUnit::kNano), "1677-09-21 00:12:43.145224192"),
            "1677-09-21 00:12:43.145224");
}

TEST(FormatValueTest, TimestampsInSecondsFarFromTheEpoch) {
  // Seconds since the epoch are representable far beyond the microsecond range; printing must
  // not overflow converting to microseconds first.
  Int64Builder b(DataType::Timestamp(TimeUnit::kSecond), DefaultMemoryPool());
  ASSERT_OK(b.Append(253402300799));          // 9999-12-31 23:59:59
  ASSERT_OK(b.Append(-62135596800 - 86400));  // 0001-12-31 BC
  ASSERT_OK(b.Append(std::numeric_limits<int64_t>::max() / 1000));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, b.Finish());
  EXPECT_EQ(FormatValue(*a, 0), "9999-12-31 23:59:59");
  EXPECT_EQ(FormatValue(*a, 1), "0001-12-31 00:00:00 BC");
  // 9223372036854775 seconds is about 292 million years: the exact text matters less than that
  // the computation stays defined (UBSan) and yields a date with a time.
  EXPECT_NE(FormatValue(*a, 2).find(':'), std::string::npos);
}

TEST(FormatValueTest, IntervalsLikePostgres) {
  const DataType t = DataType::Interval();
  EXPECT_EQ(One(t, "1 year 2 mons 3 days 04:05:06"), "1 year 2 mons 3 days 04:05:06");
  EXPECT_EQ(One(t, "0 days"), "00:00:00");
  EXPECT_EQ(One(t, "1 mon 1 day"), "1 mon 1 day");
  EXPECT_EQ(One(t, "100:00:00.5"), "100:00:00.5");
  // Outputs of psql for interval '-1 day', '-1 month', '-14 months', '-1 day +2 hours',
  // '1 day -2 hours', '-1 sec': PostgreSQL pluralises every value but +1, and marks a time part
  // whose sign differs from the preceding negative field with '+'.
  EXPECT_EQ(One(t, "-1 days"), "-1 days");
  EXPECT_EQ(One(t, "-1 mons"), "-1 mons");
  EXPECT_EQ(One(t, "-14 mons"), "-1 years -2 mons");
  EXPECT_EQ(One(t, "-1 days 02:00:00"), "-1 days +02:00:00");
  EXPECT_EQ(One(t, "1 day -02:00:00"), "1 day -02:00:00");
  EXPECT_EQ(One(t, "-00:00:01"), "-00:00:01");
  EXPECT_EQ(One(t, "-1 years 2 mons"), "-10 mons");
  EXPECT_EQ(One(t, "1 year -1 mons"), "11 mons");
  EXPECT_EQ(One(t, "-2 mons 3 days"), "-2 mons +3 days");
  EXPECT_EQ(One(t, "-3 days 00:00:01"), "-3 days +00:00:01");
  EXPECT_EQ(One(t, "1 mon -1 days 01:00:00"), "1 mon -1 days +01:00:00");
  EXPECT_EQ(One(t, "-1 mons 1 day -01:00:00"), "-1 mons +1 day -01:00:00");
}

TEST(FormatValueTest, TextBinaryBooleanAndDictionary) {
  EXPECT_EQ(One(DataType::Utf8(), "日本語"), "日本語");
  EXPECT_EQ(One(DataType::Binary(), "\\xdeadbeef"), "\\xdeadbeef");
  EXPECT_EQ(One(DataType::Binary(), "\\x"), "\\x");
  EXPECT_EQ(One(DataType::Boolean(), "true"), "t");
  EXPECT_EQ(One(DataType::Boolean(), "F"), "f");
  EXPECT_EQ(One(DataType::Dictionary(TypeId::kInt32, DataType::Decimal(5, 1)), "2.25"), "2.3");
}

// --- tables --------------------------------------------------------------------------------------

TEST(FormatTableTest, TheBriefExample) {
  auto batch = MakeBatch({{"a", DataType::Int32()}, {"bb", DataType::Utf8()}}, {{"1", "x"}});
  EXPECT_EQ(Table(batch), " a | bb \n---+----\n 1 | x\n(1 row)\n");
}

TEST(FormatTableTest, EveryCommonTypeWithNulls) {
  auto batch =
      MakeBatch({{"id", DataType::Int32()},
                 {"price", DataType::Decimal(10, 2)},
                 {"fruit", DataType::Utf8()},
                 {"day", DataType::Date32()},
                 {"ts", DataType::Timestamp()},
                 {"ok", DataType::Boolean()},
                 {"f", DataType::Float64()}},
                {{"1", "12.50", "apple", "2024-02-29", "2024-02-29 13:45:00.25", "t", "1.5"},
                 {"NULL", "-0.05", "kiwi", "1969-12-31", "NULL", "f", "NaN"},
                 {"-42", "NULL", "NULL", "NULL", "1970-01-01 00:00:00", "NULL", "-Infinity"}});
  EXPECT_EQ(Table(batch),
            " id  | price | fruit |    day     |           ts           | ok |     f     \n"
            "-----+-------+-------+------------+------------------------+----+-----------\n"
            "   1 | 12.50 | apple | 2024-02-29 | 2024-02-29 13:45:00.25 | t  |       1.5\n"
            "     | -0.05 | kiwi  | 1969-12-31 |                        | f  |       NaN\n"
            " -42 |       |       |            | 1970-01-01 00:00:00    |    | -Infinity\n"
            "(3 rows)\n");
}

TEST(FormatTableTest, WideCharactersTakeTwoColumns) {
  // psql measures East Asian wide characters and emoji as two terminal columns.
  auto batch = MakeBatch({{"word", DataType::Utf8()}, {"n", DataType::Int32()}},
                         {{"héllo", "1"}, {"日本語", "22"}, {"😀", "333"}, {"a", "NULL"}});
  EXPECT_EQ(Table(batch),
            "  word  |  n  \n"
            "--------+-----\n"
            " héllo  |   1\n"
            " 日本語 |  22\n"
            " 😀     | 333\n"
            " a      |    \n"
            "(4 rows)\n");
}

TEST(FormatTableTest, WideCharactersInHeaders) {
  auto batch = MakeBatch({{"α", DataType::Int32()}, {"日本", DataType::Utf8()}}, {{"1", "ab"}});
  EXPECT_EQ(Table(batch),
            " α | 日本 \n"
            "---+------\n"
            " 1 | ab\n"
            "(1 row)\n");
}

TEST(FormatTableTest, IntervalsBinaryAndZonedTimestamps) {
  auto batch =
      MakeBatch({{"iv", DataType::Interval()},
                 {"bin", DataType::Binary()},
                 {"tstz", DataType::Timestamp(TimeUnit::kMicro, "UTC")}},
                {{"1 year 2 mons 3 days 04:05:06", "\\xdeadbeef", "2024-01-01 00:00:00+00"},
                 {"-1 days +02:00:00", "\\x", "NULL"},
                 {"NULL", "NULL", "0044-03-15 12:00:00+00 BC"}});
  EXPECT_EQ(Table(batch),
            "              iv               |    bin     |           tstz            \n"
            "-------------------------------+------------+---------------------------\n"
            " 1 year 2 mons 3 days 04:05:06 | \\xdeadbeef | 2024-01-01 00:00:00+00\n"
            " -1 days +02:00:00             | \\x         | \n"
            "                               |            | 0044-03-15 12:00:00+00 BC\n"
            "(3 rows)\n");
}

TEST(FormatTableTest, NoRows) {
  auto batch = MakeBatch({{"a_long_column_name", DataType::Int32()}, {"b", DataType::Utf8()}}, {});
  EXPECT_EQ(Table(batch),
            " a_long_column_name | b \n"
            "--------------------+---\n"
            "(0 rows)\n");
  // No batches at all prints the same.
  EXPECT_EQ(FormatTable(*batch->schema(), {}), Table(batch));
}

TEST(FormatTableTest, NoColumns) {
  // SELECT FROM generate_series(1, 2)
  auto schema = std::make_shared<const Schema>();
  auto batch = RecordBatch::Make(schema, 2, {});
  EXPECT_EQ(FormatTable(*schema, {batch}), "--\n(2 rows)\n");
}

TEST(FormatTableTest, MultiLineValues) {
  // psql prints each line of a value on its own row, with '+' where a value continues.
  auto batch = MakeBatch({{"s", DataType::Utf8()},
                          {"n", DataType::Int32()},
                          {"t", DataType::Utf8()},
                          {"u", DataType::Utf8()}},
                         {{"a\nbc", "1", "x\ny\nz", "q"}, {"", "22", "w", "1\n2"}});
  EXPECT_EQ(Table(batch),
            " s  | n  | t | u \n"
            "----+----+---+---\n"
            " a +|  1 | x+| q\n"
            " bc |    | y+| \n"
            "    |    | z | \n"
            "    | 22 | w | 1+\n"
            "    |    |   | 2\n"
            "(2 rows)\n");
}

TEST(FormatTableTest, HeadersAreCentredWithTheSpareSpaceOnTheRight) {
  auto batch = MakeBatch(
      {{"ab", DataType::Decimal(3, 1)}, {"abcd", DataType::Utf8()}, {"abc", DataType::Int32()}},
      {{"1.5", "x", "123"}});
  EXPECT_EQ(Table(batch),
            " ab  | abcd | abc \n"
            "-----+------+-----\n"
            " 1.5 | x    | 123\n"
            "(1 row)\n");
}

TEST(FormatTableTest, NumericColumnsAlignRightEvenWhenLast) {
  auto batch = MakeBatch({{"abcdefgh", DataType::Int32()}, {"s", DataType::Utf8()}},
                         {{"1", "x"}, {"NULL", "yyyyy"}, {"-22", "NULL"}});
  EXPECT_EQ(Table(batch),
            " abcdefgh |   s   \n"
            "----------+-------\n"
            "        1 | x\n"
            "          | yyyyy\n"
            "      -22 | \n"
            "(3 rows)\n");
  auto last =
      MakeBatch({{"n", DataType::Int64()}, {"s", DataType::Utf8()}, {"z", DataType::Int32()}},
                {{"12345", "ab", "NULL"}});
  EXPECT_EQ(Table(last),
            "   n   | s  | z \n"
            "-------+----+---\n"
            " 12345 | ab |  \n"
            "(1 row)\n");
}

TEST(FormatTableTest, DictionaryColumnsPrintTheirValues) {
  auto batch = MakeBatch({{"city", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())},
                          {"code", DataType::Dictionary(TypeId::kInt8, DataType::Int32())}},
                         {{"Oslo", "47"}, {"NULL", "NULL"}, {"Oslo", "1"}});
  EXPECT_EQ(Table(batch),
            " city | code \n"
            "------+------\n"
            " Oslo |   47\n"
            "      |     \n"
            " Oslo |    1\n"
            "(3 rows)\n");
}

TEST(FormatTableTest, SeveralBatchesAndOptions) {
  auto a =
      MakeBatch({{"k", DataType::Int32()}, {"v", DataType::Utf8()}}, {{"1", "one"}, {"2", "NULL"}});
  auto b = MakeBatch({{"k", DataType::Int32()}, {"v", DataType::Utf8()}}, {{"300", "three"}});
  EXPECT_EQ(FormatTable(*a->schema(), {a, b}),
            "  k  |   v   \n"
            "-----+-------\n"
            "   1 | one\n"
            "   2 | \n"
            " 300 | three\n"
            "(3 rows)\n");
  PrintOptions options;
  options.null_text = "NULL";  // \pset null 'NULL'
  options.show_row_count = false;
  EXPECT_EQ(FormatTable(*a->schema(), {a->Slice(1, 1)}, options),
            " k |  v   \n"
            "---+------\n"
            " 2 | NULL\n");
  PrintOptions limited;
  limited.max_rows = 1;
  const std::string text = FormatTable(*a->schema(), {a, b}, limited);
  EXPECT_NE(text.find(" 1 | one"), std::string::npos) << text;
  EXPECT_EQ(text.find("three"), std::string::npos) << text;
}

}  // namespace
}  // namespace shoal::columnar

namespace shoal::columnar {
namespace {

// The expected texts are what PostgreSQL 15 prints, e.g.
//   SELECT ARRAY['a b', 'c', NULL, '', 'NULL', 'x"y', 'back\slash', '{}'];
//   SELECT ROW(1, 'a b', NULL, '', 'x"y', 'p(q)');
// and maps as DuckDB prints them: SELECT MAP {'k': 1, 'x y': NULL};
ArrayPtr StringList(const std::vector<std::optional<std::string>>& values) {
  ListBuilder b(DataType::List(DataType::Utf8()), DefaultMemoryPool());
  auto* items = static_cast<BinaryBuilder*>(b.value_builder());
  SHOAL_CHECK(b.Append().ok(), "");
  for (const auto& v : values)
    SHOAL_CHECK((v ? items->Append(*v) : items->AppendNull()).ok(), "");
  return *b.Finish();
}

TEST(NestedPrettyPrint, ArraysQuoteAsArrayOut) {
  EXPECT_EQ(FormatValue(*StringList({"a b", "c", std::nullopt, ""}), 0), R"({"a b",c,NULL,""})");
  EXPECT_EQ(FormatValue(*StringList({"NULL", "null", "nul", "x\"y", "back\\slash"}), 0),
            R"({"NULL","null",nul,"x\"y","back\\slash"})");
  EXPECT_EQ(FormatValue(*StringList({"{}", "a,b", "tab\there", "é"}), 0),
            R"({"{}","a,b","tab	here",é})");
  EXPECT_EQ(FormatValue(*StringList({}), 0), "{}");
}

TEST(NestedPrettyPrint, ListsOfListsNestBraces) {
  ListBuilder b(DataType::List(DataType::List(DataType::Int32())), DefaultMemoryPool());
  auto* inner = static_cast<ListBuilder*>(b.value_builder());
  auto* ints = static_cast<Int32Builder*>(inner->value_builder());
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(inner->Append().ok());
  ASSERT_TRUE(ints->Append(1).ok());
  ASSERT_TRUE(ints->Append(2).ok());
  ASSERT_TRUE(inner->Append().ok());
  ASSERT_TRUE(ints->Append(3).ok());
  ASSERT_TRUE(inner->AppendNull().ok());
  auto a = b.Finish();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(FormatValue(**a, 0), "{{1,2},{3},NULL}");
}

TEST(NestedPrettyPrint, RecordsQuoteAsRecordOut) {
  const DataType type = DataType::Struct({{"i", DataType::Int32()},
                                          {"s", DataType::Utf8()},
                                          {"n", DataType::Utf8()},
                                          {"e", DataType::Utf8()},
                                          {"q", DataType::Utf8()},
                                          {"p", DataType::Utf8()},
                                          {"l", DataType::List(DataType::Int32())},
                                          {"b", DataType::Boolean()}});
  StructBuilder b(type, DefaultMemoryPool());
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(static_cast<Int32Builder*>(b.field_builder(0))->Append(1).ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(b.field_builder(1))->Append("a b").ok());
  ASSERT_TRUE(b.field_builder(2)->AppendNull().ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(b.field_builder(3))->Append("").ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(b.field_builder(4))->Append("x\"y\\").ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(b.field_builder(5))->Append("p(q)").ok());
  auto* list = static_cast<ListBuilder*>(b.field_builder(6));
  ASSERT_TRUE(list->Append().ok());
  ASSERT_TRUE(static_cast<Int32Builder*>(list->value_builder())->Append(1).ok());
  ASSERT_TRUE(static_cast<Int32Builder*>(list->value_builder())->Append(2).ok());
  ASSERT_TRUE(static_cast<BooleanBuilder*>(b.field_builder(7))->Append(true).ok());
  auto a = b.Finish();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  // SELECT ROW(1, 'a b', NULL, '', 'x"y\', 'p(q)', ARRAY[1,2], true);
  EXPECT_EQ(FormatValue(**a, 0), R"x((1,"a b",,"","x""y\\","p(q)","{1,2}",t))x");
}

TEST(NestedPrettyPrint, ArraysOfRecordsQuoteTheRecordText) {
  const DataType point = DataType::Struct({{"x", DataType::Int32()}, {"s", DataType::Utf8()}});
  ListBuilder b(DataType::List(point), DefaultMemoryPool());
  auto* rows = static_cast<StructBuilder*>(b.value_builder());
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(rows->Append().ok());
  ASSERT_TRUE(static_cast<Int32Builder*>(rows->field_builder(0))->Append(1).ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(rows->field_builder(1))->Append("a").ok());
  ASSERT_TRUE(rows->AppendNull().ok());
  ASSERT_TRUE(rows->Append().ok());
  ASSERT_TRUE(rows->field_builder(0)->AppendNull().ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(rows->field_builder(1))->Append("b c").ok());
  auto a = b.Finish();
  ASSERT_TRUE(a.ok());
  // SELECT ARRAY[ROW(1,'a'), NULL, ROW(NULL,'b c')]::record[];
  EXPECT_EQ(FormatValue(**a, 0), R"x({"(1,a)",NULL,"(,\"b c\")"})x");
}

TEST(NestedPrettyPrint, MapsAsDuckDb) {
  ListBuilder b(DataType::Map(DataType::Utf8(), DataType::Int32()), DefaultMemoryPool());
  StructBuilder* e = b.entries_builder();
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(e->Append().ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(e->field_builder(0))->Append("k").ok());
  ASSERT_TRUE(static_cast<Int32Builder*>(e->field_builder(1))->Append(1).ok());
  ASSERT_TRUE(e->Append().ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(e->field_builder(0))->Append("x y").ok());
  ASSERT_TRUE(e->field_builder(1)->AppendNull().ok());
  auto a = b.Finish();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(FormatValue(**a, 0), "{k=1, x y=NULL}");
}

}  // namespace
}  // namespace shoal::columnar

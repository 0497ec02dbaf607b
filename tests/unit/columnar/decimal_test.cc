#include "shoal/columnar/decimal.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/support/gtest_util.h"

namespace shoal::columnar {
namespace {

// Strict C++20 has no numeric_limits<__int128>, so the extremes are spelled out.
const int128_t kInt128Max = static_cast<int128_t>(~static_cast<unsigned __int128>(0) >> 1);
const int128_t kInt128Min = -kInt128Max - 1;

// ParseDecimal's result as text, so expectations read like the values they are.
std::string Parsed(std::string_view text, int precision, int scale) {
  auto r = ParseDecimal(text, precision, scale);
  if (!r.ok())
    return r.status().ToString();
  return FormatDecimal(*r, scale);
}

TEST(DecimalTest, PowersOfTen) {
  EXPECT_EQ(PowerOfTen(0), 1);
  EXPECT_EQ(PowerOfTen(1), 10);
  EXPECT_EQ(PowerOfTen(18), 1000000000000000000LL);
  EXPECT_EQ(Int128ToString(PowerOfTen(38)), "1" + std::string(38, '0'));
  EXPECT_EQ(Int128ToString(MaxUnscaled(38)), std::string(38, '9'));
  EXPECT_EQ(MaxUnscaled(1), 9);
  EXPECT_EQ(MaxUnscaled(18), 999999999999999999LL);
}

TEST(DecimalTest, Int128ToStringAtTheEdges) {
  EXPECT_EQ(Int128ToString(0), "0");
  EXPECT_EQ(Int128ToString(-1), "-1");
  EXPECT_EQ(Int128ToString(1234567890), "1234567890");
  EXPECT_EQ(Int128ToString(kInt128Max), "170141183460469231731687303715884105727");
  EXPECT_EQ(Int128ToString(kInt128Min), "-170141183460469231731687303715884105728");
  EXPECT_EQ(Int128ToString(kInt128Min + 1), "-170141183460469231731687303715884105727");
}

TEST(DecimalTest, FormatDecimal) {
  EXPECT_EQ(FormatDecimal(12345, 2), "123.45");
  EXPECT_EQ(FormatDecimal(-12345, 2), "-123.45");
  EXPECT_EQ(FormatDecimal(5, 2), "0.05");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(0, 2), "0.00");
  EXPECT_EQ(FormatDecimal(0, 0), "0");
  EXPECT_EQ(FormatDecimal(100, 2), "1.00");
  EXPECT_EQ(FormatDecimal(-100, 0), "-100");
  EXPECT_EQ(FormatDecimal(MaxUnscaled(38), 38), "0." + std::string(38, '9'));
  EXPECT_EQ(FormatDecimal(-MaxUnscaled(38), 0), "-" + std::string(38, '9'));
  EXPECT_EQ(FormatDecimal(MaxUnscaled(38), 10), std::string(28, '9') + "." + std::string(10, '9'));
  EXPECT_EQ(FormatDecimal(kInt128Min, 3), "-170141183460469231731687303715884105.728");
  EXPECT_EQ(FormatDecimal(kInt128Max, 38), "1.70141183460469231731687303715884105727");
}

TEST(DecimalTest, ParsePlainValues) {
  EXPECT_EQ(Parsed("12.5", 5, 2), "12.50");
  EXPECT_EQ(Parsed("-0.01", 5, 2), "-0.01");
  EXPECT_EQ(Parsed("+3", 5, 2), "3.00");
  EXPECT_EQ(Parsed("7", 1, 0), "7");
  EXPECT_EQ(Parsed(".5", 3, 1), "0.5");
  EXPECT_EQ(Parsed("5.", 3, 1), "5.0");
  EXPECT_EQ(Parsed("  42.10\t", 6, 2), "42.10") << "surrounding blanks are ignored";
  ASSERT_OK_AND_ASSIGN(int128_t v, ParseDecimal("123.45", 10, 2));
  EXPECT_EQ(v, 12345);
}

TEST(DecimalTest, NegativeZeroAndHalves) {
  EXPECT_EQ(Parsed("-0.5", 3, 1), "-0.5");
  EXPECT_EQ(Parsed("-0.5", 3, 0), "-1") << "half rounds away from zero";
  EXPECT_EQ(Parsed("0.5", 3, 0), "1");
  EXPECT_EQ(Parsed("-0", 3, 0), "0");
  EXPECT_EQ(Parsed("-0.00", 3, 2), "0.00");
  EXPECT_EQ(Parsed("-0.004", 3, 2), "0.00");
  ASSERT_OK_AND_ASSIGN(int128_t zero, ParseDecimal("-0.0", 5, 2));
  EXPECT_EQ(zero, 0);
}

TEST(DecimalTest, RoundsHalfAwayFromZero) {
  EXPECT_EQ(Parsed("0.125", 5, 2), "0.13");
  EXPECT_EQ(Parsed("-0.125", 5, 2), "-0.13");
  EXPECT_EQ(Parsed("0.1249999", 5, 2), "0.12");
  EXPECT_EQ(Parsed("-0.1249999", 5, 2), "-0.12");
  EXPECT_EQ(Parsed("2.5", 5, 0), "3");
  EXPECT_EQ(Parsed("-2.5", 5, 0), "-3");
  EXPECT_EQ(Parsed("3.5", 5, 0), "4") << "not banker's rounding";
  EXPECT_EQ(Parsed("0.49999999999999999999999999999999999999999", 5, 0), "0");
  EXPECT_EQ(Parsed("1.99999", 5, 2), "2.00");
  EXPECT_EQ(Parsed("0.995", 3, 2), "1.00");
}

TEST(DecimalTest, RoundingThatOverflowsThePrecisionIsOutOfRange) {
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("9.995", 3, 2));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("-9.995", 3, 2));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal(std::string(38, '9') + ".5", 38, 0));
  EXPECT_EQ(Parsed("9.994", 3, 2), "9.99");
}

TEST(DecimalTest, LeadingZerosDoNotCountAsDigits) {
  EXPECT_EQ(Parsed("000123.40", 5, 2), "123.40");
  EXPECT_EQ(Parsed("-0000000000000000000000000000000000000000000001", 1, 0), "-1");
  EXPECT_EQ(Parsed("00.001", 3, 3), "0.001");
  EXPECT_EQ(Parsed(std::string(60, '0'), 1, 0), "0");
}

TEST(DecimalTest, ExtremesOfDecimal38) {
  const std::string nines(38, '9');
  EXPECT_EQ(Parsed(nines, 38, 0), nines);
  EXPECT_EQ(Parsed("-" + nines, 38, 0), "-" + nines);
  ASSERT_OK_AND_ASSIGN(int128_t max, ParseDecimal(nines, 38, 0));
  EXPECT_EQ(max, MaxUnscaled(38));
  ASSERT_OK_AND_ASSIGN(int128_t min, ParseDecimal("-" + nines, 38, 0));
  EXPECT_EQ(min, -MaxUnscaled(38));
  EXPECT_EQ(Parsed("0." + nines, 38, 38), "0." + nines);
  EXPECT_EQ(Parsed("-0." + nines, 38, 38), "-0." + nines);
  EXPECT_EQ(Parsed(nines.substr(0, 28) + "." + nines.substr(0, 10), 38, 10),
            nines.substr(0, 28) + "." + nines.substr(0, 10));
  // 10^38 and 39 digits: beyond decimal(38) and beyond what the parser accumulates.
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("1" + std::string(38, '0'), 38, 0));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal(std::string(39, '9'), 38, 0));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("-" + std::string(39, '9'), 38, 0));
  // INT128 itself (39 digits) is not a decimal(38).
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     ParseDecimal("170141183460469231731687303715884105727", 38, 0));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     ParseDecimal("-170141183460469231731687303715884105728", 38, 0));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal(std::string(80, '9'), 38, 0));
}

TEST(DecimalTest, IntegerDigitsBeyondPrecisionMinusScaleAreOutOfRange) {
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("1000", 5, 2));
  EXPECT_EQ(Parsed("999", 5, 2), "999.00");
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("1", 2, 2));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("10", 1, 0));
  // Many integer digits and a long fraction: must be refused without ever holding more digits
  // than an int128 can (UBSan flags the overflow if the parser accumulates first and checks
  // after).
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     ParseDecimal(std::string(37, '9') + "." + std::string(10, '9'), 38, 10));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     ParseDecimal(std::string(38, '9') + "." + std::string(38, '9'), 38, 38));
}

TEST(DecimalTest, Decimal64Range) {
  const std::string nines(18, '9');
  ASSERT_OK_AND_ASSIGN(int128_t v, ParseDecimal(nines, 18, 0));
  EXPECT_EQ(v, 999999999999999999LL);
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, ParseDecimal("1" + std::string(18, '0'), 18, 0));
  EXPECT_EQ(Parsed("-9999999999999999.99", 18, 2), "-9999999999999999.99");
}

TEST(DecimalTest, GarbageIsInvalidArgument) {
  for (const char* text : {"", " ", "-", "+", ".", "-.", "abc", "1.2.3", "1e3", "1E3", "--1", "+-1",
                           "1 2", "0x10", "1,5", "12a", "NaN", "Infinity", "١"}) {
    SCOPED_TRACE(text);
    EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal(text, 10, 2));
  }
  auto r = ParseDecimal("12x", 10, 2);
  EXPECT_NE(r.status().message().find("12x"), std::string::npos) << r.status();
  // Garbage is garbage even after more digits than the type holds.
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("123456x", 3, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("123456.7.8", 3, 0));
}

TEST(DecimalTest, ErrorMessagesStayValidUtf8) {
  // Messages reach clients (the PostgreSQL protocol requires UTF-8); a stray byte of a multibyte
  // character must be named, not copied.
  auto r = ParseDecimal("1\xd9\xa1", 10, 2);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("0xd9"), std::string::npos) << r.status();
  EXPECT_EQ(r.status().message().find("'\xd9'"), std::string::npos) << r.status();
}

TEST(DecimalTest, BadPrecisionOrScaleIsInvalidArgument) {
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("1", 0, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("1", 39, 0));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("1", 10, 11));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, ParseDecimal("1", 10, -1));
}

TEST(DecimalTest, RoundTripThroughText) {
  for (int scale : {0, 2, 9, 18, 37}) {
    for (int128_t v : {int128_t{0}, int128_t{1}, int128_t{-1}, int128_t{123456789}, MaxUnscaled(38),
                       -MaxUnscaled(38), PowerOfTen(20) + 7}) {
      const std::string text = FormatDecimal(v, scale);
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(int128_t back, ParseDecimal(text, 38, scale));
      EXPECT_EQ(back, v);
    }
  }
}

}  // namespace
}  // namespace shoal::columnar

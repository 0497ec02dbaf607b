#include "shoal/common/calendar.h"

#include <gtest/gtest.h>

namespace shoal {
namespace {

// Compile-time use (io/tpch/dates.cc builds its table this way).
static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(DaysFromCivil(1992, 1, 1) == 8035);
static_assert(CivilFromDays(-1).year == 1969 && CivilFromDays(-1).day == 31);

TEST(CalendarTest, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(2000));   // divisible by 400
  EXPECT_FALSE(IsLeapYear(1900));  // by 100 only
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_TRUE(IsLeapYear(0));    // 1 BC
  EXPECT_TRUE(IsLeapYear(-4));   // 5 BC
  EXPECT_FALSE(IsLeapYear(-1));  // 2 BC
  EXPECT_FALSE(IsLeapYear(-100));
  EXPECT_TRUE(IsLeapYear(-400));
}

TEST(CalendarTest, MonthLengths) {
  const unsigned expected[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (unsigned m = 1; m <= 12; ++m)
    EXPECT_EQ(DaysInMonth(2023, m), expected[m - 1]) << m;
  EXPECT_EQ(DaysInMonth(2024, 2), 29u);
  EXPECT_EQ(DaysInMonth(1900, 2), 28u);
  EXPECT_EQ(DaysInMonth(2024, 0), 0u);
  EXPECT_EQ(DaysInMonth(2024, 13), 0u);
  EXPECT_TRUE(IsValidCivil(2024, 2, 29));
  EXPECT_FALSE(IsValidCivil(2023, 2, 29));
  EXPECT_FALSE(IsValidCivil(2023, 4, 31));
  EXPECT_FALSE(IsValidCivil(2023, 0, 1));
  EXPECT_FALSE(IsValidCivil(2023, 1, 0));
  EXPECT_FALSE(IsValidCivil(2023, 13, 1));
}

TEST(CalendarTest, KnownDays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 2, 29), 11016);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1900, 3, 1), -25508);
  EXPECT_EQ(DaysFromCivil(1998, 12, 1), 10561);
  // 44 BC (astronomical -43), the ides of March; and 1 BC / AD 1 are adjacent years.
  EXPECT_EQ(DaysFromCivil(1, 1, 1) - DaysFromCivil(0, 12, 31), 1);
  const CivilDate ides = CivilFromDays(DaysFromCivil(-43, 3, 15));
  EXPECT_EQ(ides.year, -43);
  EXPECT_EQ(ides.month, 3u);
  EXPECT_EQ(ides.day, 15u);
}

TEST(CalendarTest, RoundTripsAndCountsEveryDay) {
  // From 4714 BC to AD 3000 every day number follows the previous one.
  int64_t y = 0;
  unsigned m = 0, d = 0;
  const int64_t first = DaysFromCivil(-4713, 1, 1);
  const int64_t last = DaysFromCivil(3000, 12, 31);
  CivilFromDays(first, &y, &m, &d);
  ASSERT_EQ(y, -4713);
  for (int64_t day = first; day <= last; ++day) {
    const CivilDate c = CivilFromDays(day);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), day);
    ASSERT_TRUE(IsValidCivil(c.year, c.month, c.day));
    if (c.day > 1)
      continue;
    // The first of a month: the previous day closed the previous month.
    const CivilDate before = CivilFromDays(day - 1);
    ASSERT_EQ(before.day, DaysInMonth(before.year, before.month));
  }
}

TEST(CalendarTest, Bounds) {
  // PostgreSQL's ends, as Julian day numbers (datetime.h): JD 0 is 4714-11-24 BC, the day after
  // the last date is JD 2147483494; the Unix epoch is JD 2440588.
  constexpr int64_t kEpochJulian = 2440588;
  EXPECT_EQ(DaysFromCivil(-4713, 11, 24), -kEpochJulian);
  EXPECT_EQ(DaysFromCivil(5874898, 1, 1), 2147483494 - kEpochJulian);
  // The whole int32 range of date32 maps to dates and back.
  const CivilDate c = CivilFromDays(INT32_MAX);
  EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), INT32_MAX);
  const CivilDate n = CivilFromDays(INT32_MIN);
  EXPECT_EQ(DaysFromCivil(n.year, n.month, n.day), INT32_MIN);
  EXPECT_EQ(FloorDiv(-1, 400), -1);
  EXPECT_EQ(FloorDiv(-400, 400), -1);
  EXPECT_EQ(FloorDiv(399, 400), 0);
}

}  // namespace
}  // namespace shoal

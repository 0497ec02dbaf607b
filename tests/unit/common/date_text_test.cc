#include "shoal/common/date_text.h"

#include <gtest/gtest.h>

#include "shoal/common/calendar.h"

namespace shoal {
namespace {

int32_t Date(std::string_view text) {
  auto r = ParseDate(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : INT32_MIN;
}

int32_t Day(int64_t y, unsigned m, unsigned d) {
  return static_cast<int32_t>(DaysFromCivil(y, m, d));
}

void ExpectRefused(std::string_view text, const char* sqlstate = "22007") {
  auto r = ParseDate(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.status().sqlstate(), sqlstate) << text;
}

TEST(DateTextTest, IsoDates) {
  EXPECT_EQ(Date("1970-01-01"), 0);
  EXPECT_EQ(Date("1998-12-01"), Day(1998, 12, 1));
  EXPECT_EQ(Date("2000-02-29"), Day(2000, 2, 29));
  EXPECT_EQ(Date("  1999-01-08\t\n"), Day(1999, 1, 8));  // blanks around are ignored
  EXPECT_EQ(Date("1999-1-8"), Day(1999, 1, 8));
  EXPECT_EQ(Date("1999/01/08"), Day(1999, 1, 8));
  EXPECT_EQ(Date("19990108"), Day(1999, 1, 8));      // ISO 8601 concatenated
  EXPECT_EQ(Date("990108"), Day(1999, 1, 8));        // with a two-digit year
  EXPECT_EQ(Date("0099-01-08"), Day(99, 1, 8));      // leading zeros keep AD 99
  EXPECT_EQ(Date("999-01-08"), Day(999, 1, 8));      // three digits: a year, as written
  EXPECT_EQ(Date("12345-06-07"), Day(12345, 6, 7));  // more than four digits
}

TEST(DateTextTest, MonthDayYearWhenTheFirstFieldIsShort) {
  // PostgreSQL's default DateStyle is 'ISO, MDY': a first field of one or two digits is the month.
  EXPECT_EQ(Date("1/8/1999"), Day(1999, 1, 8));
  EXPECT_EQ(Date("01-08-1999"), Day(1999, 1, 8));
  EXPECT_EQ(Date("12/31/99"), Day(1999, 12, 31));  // two-digit years: 70..99 are 19xx
  EXPECT_EQ(Date("01/02/03"), Day(2003, 1, 2));    // 00..69 are 20xx
  EXPECT_EQ(Date("1-2-3"), Day(2003, 1, 2));
  EXPECT_EQ(Date("1/2/0003"), Day(3, 1, 2));  // four digits: as written
  ExpectRefused("13/01/1999", "22008");       // no month 13 (DMY is not the style)
}

TEST(DateTextTest, Eras) {
  EXPECT_EQ(Date("0044-03-15 BC"), Day(-43, 3, 15));  // 1 BC is astronomical year 0
  EXPECT_EQ(Date("0001-12-31 bc"), Day(0, 12, 31));
  EXPECT_EQ(Date("0001-01-01 BC") + 366, Date("0001-01-01 AD"));  // 1 BC was a leap year
  EXPECT_EQ(Date("2000-01-01 AD"), Day(2000, 1, 1));
  EXPECT_EQ(Date("01/02/03 BC"), Day(-2, 1, 2));  // no 20xx shift with BC
  ExpectRefused("0000-01-01", "22008");           // there is no year 0
  ExpectRefused("0000-01-01 BC", "22008");
  ExpectRefused("2000-01-01 BCE");
  ExpectRefused("2000-01-01 BC BC");
}

TEST(DateTextTest, Bounds) {
  // Julian day 0, 4714-11-24 BC (4713 BC in the Julian calendar), is the first day.
  EXPECT_EQ(Date("4714-11-24 BC"), Day(-4713, 11, 24));
  EXPECT_EQ(Date("5874897-12-31"), Day(5874897, 12, 31));
  ExpectRefused("4714-11-23 BC", "22008");
  ExpectRefused("4715-01-01 BC", "22008");
  ExpectRefused("5874898-01-01", "22008");
  ExpectRefused("9999999-01-01", "22008");
  ExpectRefused("12345678-01-01");  // a year of eight digits is no year PostgreSQL reads
  auto r = ParseDate("5874898-01-01");
  EXPECT_EQ(r.status().message(), "date out of range: \"5874898-01-01\"");
}

TEST(DateTextTest, RefusedForms) {
  for (const char* text : {"",
                           "   ",
                           "abc",
                           "1999",
                           "1999-01",
                           "1999-01-",
                           "1999-01-08x",
                           "x1999-01-08",
                           "-1999-01-01",
                           "+1999-01-01",
                           "1999-01/08",
                           "1999.01.08",
                           "1999-001-08",
                           "1999-01-008",
                           "January 8, 1999",
                           "1999-Jan-08",
                           "J2451187",
                           "epoch",
                           "1999 01 08",
                           "1999--01-08",
                           "9901080",
                           "1234567",
                           "1999-01-08 ",
                           "\xEF\xBC\x91"}) {
    auto r = ParseDate(text);
    if (std::string_view(text) == "1999-01-08 ") {
      EXPECT_TRUE(r.ok());  // trailing blanks are fine; listed to keep the loop honest
      continue;
    }
    ASSERT_FALSE(r.ok()) << "'" << text << "'";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(r.status().sqlstate(), "22007") << text;
  }
  // Fields out of range are PostgreSQL's 22008, not a syntax error.
  for (const char* text :
       {"1995-13-01", "1999-00-10", "1999-02-29", "1999-04-31", "1999-01-00", "1999-01-32"}) {
    auto r = ParseDate(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().sqlstate(), "22008") << text;
    EXPECT_EQ(r.status().message(),
              std::string("date/time field value out of range: \"") + text + "\"");
  }
}

// As PostgreSQL's date input: a time of day (and zone, and era after it) may follow the date; it
// is checked and dropped.
TEST(DateTextTest, ATimeAfterTheDateIsCheckedAndDropped) {
  EXPECT_EQ(Date("2024-01-01 10:00"), Day(2024, 1, 1));
  EXPECT_EQ(Date("1999-01-08 04:05:06"), Day(1999, 1, 8));
  EXPECT_EQ(Date("1999-01-08T04:05:06Z"), Day(1999, 1, 8));
  EXPECT_EQ(Date("2024-01-01 23:59:59.9999999"), Day(2024, 1, 1));  // not rounded to the next day
  EXPECT_EQ(Date("2024-01-01 10:00 BC"), Day(-2023, 1, 1));
  ExpectRefused("1999-01-08 25:00");
  ExpectRefused("1999-01-08 04:05:06 and more");
}

int64_t Micros(int64_t y, unsigned m, unsigned d, int64_t h, int64_t mi, int64_t s,
               int64_t us = 0) {
  return ((DaysFromCivil(y, m, d) * 24 + h) * 60 + mi) * 60 * 1000000 + s * 1000000 + us;
}

int64_t Ts(std::string_view text, int digits = 6, bool zoned = false) {
  auto r = ParseTimestamp(text, digits, zoned);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : INT64_MIN;
}

TEST(DateTextTest, Timestamps) {
  EXPECT_EQ(Ts("1999-01-08 04:05:06"), Micros(1999, 1, 8, 4, 5, 6));
  EXPECT_EQ(Ts("1999-01-08T04:05:06"), Micros(1999, 1, 8, 4, 5, 6));
  EXPECT_EQ(Ts("1999-01-08   4:05"), Micros(1999, 1, 8, 4, 5, 0));
  EXPECT_EQ(Ts("1999-01-08"), Micros(1999, 1, 8, 0, 0, 0));
  EXPECT_EQ(Ts(" 1999-01-08 04:05:06.789 "), Micros(1999, 1, 8, 4, 5, 6, 789000));
  EXPECT_EQ(Ts("1/8/1999 23:59:59"), Micros(1999, 1, 8, 23, 59, 59));
  EXPECT_EQ(Ts("1998-12-31 23:59:60"), Micros(1999, 1, 1, 0, 0, 0));  // a leap second rolls over
  EXPECT_EQ(Ts("0001-01-01 00:00:00 BC"), Micros(0, 1, 1, 0, 0, 0));
  EXPECT_EQ(Ts("1969-12-31 23:59:59.5"), -500000);
  EXPECT_EQ(Ts("1999-01-08 04:05:06", 0), Micros(1999, 1, 8, 4, 5, 6) / 1000000);
  EXPECT_EQ(Ts("1999-01-08 04:05:06.123456789", 9), Micros(1999, 1, 8, 4, 5, 6) * 1000 + 123456789);
  EXPECT_EQ(Ts("1999-01-08 04:05:06.12", 3), Micros(1999, 1, 8, 4, 5, 6) / 1000 + 120);
}

TEST(DateTextTest, FractionsRoundHalfToEven) {
  const int64_t base = Micros(2024, 5, 17, 13, 45, 12);
  EXPECT_EQ(Ts("2024-05-17 13:45:12.1234564"), base + 123456);
  EXPECT_EQ(Ts("2024-05-17 13:45:12.1234566"), base + 123457);
  EXPECT_EQ(Ts("2024-05-17 13:45:12.1234565"), base + 123456);  // tie, 6 is even
  EXPECT_EQ(Ts("2024-05-17 13:45:12.1234575"), base + 123458);  // tie, 7 is odd
  EXPECT_EQ(Ts("2024-05-17 13:45:12.12345650001"), base + 123457);
  EXPECT_EQ(Ts("2024-05-17 13:45:12.9999996"), base + 1000000);   // carries into the second
  EXPECT_EQ(Ts("2024-05-17 13:45:12.5", 0), base / 1000000);      // tie, 12 is even
  EXPECT_EQ(Ts("2024-05-17 13:45:13.5", 0), base / 1000000 + 2);  // tie, 13 is odd
}

TEST(DateTextTest, TimeZones) {
  const int64_t local = Micros(1999, 1, 8, 4, 5, 6);
  const int64_t hour = 3600LL * 1000000;
  // Without time zone the zone is ignored, as PostgreSQL's timestamp does.
  EXPECT_EQ(Ts("1999-01-08 04:05:06+02"), local);
  EXPECT_EQ(Ts("1999-01-08 04:05:06Z"), local);
  // With time zone the value is moved to UTC.
  EXPECT_EQ(Ts("1999-01-08 04:05:06+02", 6, true), local - 2 * hour);
  EXPECT_EQ(Ts("1999-01-08 04:05:06 -08:00", 6, true), local + 8 * hour);
  EXPECT_EQ(Ts("1999-01-08 04:05:06+0530", 6, true), local - 5 * hour - 30 * 60 * 1000000LL);
  EXPECT_EQ(Ts("1999-01-08 04:05:06 UTC", 6, true), local);
  EXPECT_EQ(Ts("1999-01-08 04:05:06z", 6, true), local);
  EXPECT_EQ(Ts("1999-01-08 04:05:06 GMT BC", 6, true), Micros(-1998, 1, 8, 4, 5, 6));
}

TEST(DateTextTest, RefusedTimestamps) {
  for (const char* text :
       {"", "abc", "1999-01-08 12", "1999-01-08 12:", "1999-01-08 12:00:", "1999-01-08 12:00:00.",
        "1999-01-08T", "1999-01-08 12:00 +16", "1999-01-08 12:00 +02:5", "1999-01-08 12:00 PST",
        "1999-01-08 12:00:00.5x", "1999-01-08 T12:00"}) {
    auto r = ParseTimestamp(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "'";
    EXPECT_EQ(r.status().sqlstate(), "22007") << text;
  }
  for (const char* text : {"1999-01-08 24:00:01", "1999-01-08 25:00", "1999-01-08 12:60",
                           "1999-01-08 12:00:61", "1999-02-30 00:00", "0000-01-01 00:00"}) {
    auto r = ParseTimestamp(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "'";
    EXPECT_EQ(r.status().sqlstate(), "22008") << text;
  }
  EXPECT_EQ(ParseTimestamp("1999-01-08 24:00").value(), Micros(1999, 1, 9, 0, 0, 0));
  EXPECT_EQ(ParseTimestamp("x").status().message(),
            "invalid input syntax for type timestamp: \"x\"");
  EXPECT_EQ(ParseTimestamp("x", 6, true).status().message(),
            "invalid input syntax for type timestamp with time zone: \"x\"");
}

TEST(DateTextTest, TimestampBounds) {
  // PostgreSQL ends at 294276 AD counting from 2000; microseconds from 1970 in an int64 end in
  // 294247, and that limit is checked as well.
  EXPECT_EQ(Ts("294247-01-01 00:00:00"), Micros(294247, 1, 1, 0, 0, 0));
  EXPECT_EQ(ParseTimestamp("294276-12-31 23:59:59").status().sqlstate(), "22008");
  EXPECT_EQ(Ts("4714-11-24 00:00:00 BC"), Micros(-4713, 11, 24, 0, 0, 0));
  for (const char* text : {"294277-01-01", "4714-11-23 BC", "5874897-01-01"}) {
    auto r = ParseTimestamp(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().sqlstate(), "22008") << text;
  }
  EXPECT_EQ(ParseTimestamp("294277-01-01").status().message(),
            "timestamp out of range: \"294277-01-01\"");
  // Nanoseconds reach only 1677..2262: the unit's range is checked too.
  EXPECT_EQ(ParseTimestamp("2300-01-01", 9).status().sqlstate(), "22008");
  EXPECT_EQ(Ts("2262-01-01", 9), Micros(2262, 1, 1, 0, 0, 0) * 1000);
}

TEST(DateTextTest, Formatting) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(Day(99, 1, 8)), "0099-01-08");
  EXPECT_EQ(FormatDate(Day(-43, 3, 15)), "0044-03-15 BC");
  EXPECT_EQ(FormatDate(Day(0, 12, 31)), "0001-12-31 BC");
  EXPECT_EQ(FormatDate(Day(12345, 6, 7)), "12345-06-07");
  std::string out;
  AppendTimeOfDay(25LL * 3600 * 1000000 + 500000, &out);
  EXPECT_EQ(out, "25:00:00.5");
  out.clear();
  AppendTimestamp(Day(1999, 1, 8), (4 * 3600 + 5 * 60 + 6) * 1000000LL + 120, false, &out);
  EXPECT_EQ(out, "1999-01-08 04:05:06.00012");
  out.clear();
  AppendTimestamp(Day(-43, 3, 15), 0, true, &out);
  EXPECT_EQ(out, "0044-03-15 00:00:00+00 BC");
}

TEST(DateTextTest, FormattedDatesParseBack) {
  for (int64_t day = DaysFromCivil(-4713, 11, 24); day < DaysFromCivil(10000, 1, 1); day += 997) {
    ASSERT_EQ(Date(FormatDate(day)), day) << FormatDate(day);
    std::string ts;
    AppendTimestamp(day, 3723000001, false, &ts);
    ASSERT_EQ(Ts(ts), day * 86400 * 1000000 + 3723000001) << ts;
  }
}

}  // namespace
}  // namespace shoal

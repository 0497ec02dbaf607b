#include "shoal/io/tpch/dates.h"

#include <array>
#include <cstddef>

#include "shoal/common/calendar.h"

namespace shoal::io::tpch::dates {
namespace {

using DateTable = std::array<std::array<char, 10>, kDayCount>;

constexpr DateTable MakeDateTable() {
  DateTable table{};
  int year = 1992;
  int month = 1;
  int day = 1;
  for (auto& text : table) {
    const int fields[3] = {year, month, day};
    const int widths[3] = {4, 2, 2};
    int pos = 0;
    for (int f = 0; f < 3; ++f) {
      if (f > 0)
        text[static_cast<std::size_t>(pos++)] = '-';
      int v = fields[f];
      for (int d = widths[f] - 1; d >= 0; --d) {
        const int at = pos + d;
        text[static_cast<std::size_t>(at)] = static_cast<char>('0' + v % 10);
        v /= 10;
      }
      pos += widths[f];
    }
    if (++day > static_cast<int>(DaysInMonth(year, static_cast<unsigned>(month)))) {
      day = 1;
      if (++month > 12) {
        month = 1;
        ++year;
      }
    }
  }
  return table;
}

constexpr DateTable kDateTable = MakeDateTable();

static_assert(kDateTable[0][0] == '1' && kDateTable[0][3] == '2' && kDateTable[0][9] == '1');
static_assert(DaysFromCivil(1992, 1, 1) == kStartDate);
static_assert(DaysFromCivil(1998, 12, 31) == kStartDate + kDayCount - 1);
static_assert(kDateTable[kDayCount - 1][3] == '8' && kDateTable[kDayCount - 1][5] == '1' &&
              kDateTable[kDayCount - 1][6] == '2' && kDateTable[kDayCount - 1][8] == '3');

}  // namespace

const char* DateText(int32_t epoch_day) {
  return kDateTable[static_cast<std::size_t>(epoch_day - kStartDate)].data();
}

}  // namespace shoal::io::tpch::dates

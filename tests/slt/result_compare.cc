#include "tests/slt/result_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "shoal/common/md5.h"

namespace shoal::slt {

Row ParseExpectedLine(std::string_view line, size_t num_columns) {
  Row values;
  if (line.find('\t') != std::string_view::npos) {
    size_t start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      values.emplace_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos)
        break;
      start = tab + 1;
    }
    return values;
  }
  if (num_columns == 1) {
    values.emplace_back(line);
    return values;
  }
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ')
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ')
      ++i;
    if (i > start)
      values.emplace_back(line.substr(start, i - start));
  }
  return values;
}

bool IsValuePerLine(const std::vector<std::string>& lines, size_t num_columns) {
  if (num_columns < 2 || lines.empty() || lines.size() % num_columns != 0)
    return false;
  bool some_line_is_not_a_row = false;
  for (const std::string& line : lines) {
    if (line.find('\t') != std::string::npos)
      return false;
    some_line_is_not_a_row |= ParseExpectedLine(line, num_columns).size() != num_columns;
  }
  return some_line_is_not_a_row;
}

void PrintAsSqliteTypes(std::string_view types, std::vector<Row>* rows) {
  for (Row& row : *rows) {
    for (size_t c = 0; c < row.size() && c < types.size(); ++c) {
      std::string& v = row[c];
      if (v == "NULL" || (types[c] != 'R' && types[c] != 'I'))
        continue;
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0')
        continue;  // not a number (text in a numeric column): compared as rendered
      if (types[c] == 'R') {
        v = fmt::format("{:.3f}", d);
      } else if (v.find_first_of(".eE") != std::string::npos) {
        v = fmt::format("{}", static_cast<int64_t>(std::trunc(d)));
      }
    }
  }
}

std::string FormatRow(const Row& row) {
  bool spaced = std::any_of(row.begin(), row.end(),
                            [](const std::string& v) { return v.find(' ') != std::string::npos; });
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0)
      line += spaced ? '\t' : ' ';
    line += row[i];
  }
  return line;
}

void ApplySortMode(SortMode mode, std::vector<Row>* rows) {
  if (mode == SortMode::kRowSort) {
    std::sort(rows->begin(), rows->end());
  } else if (mode == SortMode::kValueSort) {
    std::vector<Row> values;
    for (Row& row : *rows) {
      for (std::string& v : row)
        values.push_back(Row{std::move(v)});
    }
    std::sort(values.begin(), values.end());
    *rows = std::move(values);
  }
}

size_t ValueCount(const std::vector<Row>& rows) {
  size_t n = 0;
  for (const Row& row : rows)
    n += row.size();
  return n;
}

std::string HashLine(const std::vector<Row>& rows) {
  Md5 md5;
  for (const Row& row : rows) {
    for (const std::string& v : row) {
      md5.Update(v);
      md5.Update("\n");
    }
  }
  return fmt::format("{} values hashing to {}", ValueCount(rows), md5.HexDigest());
}

bool IsHashLine(std::string_view line) {
  static const std::regex kHash("[0-9]+ values hashing to [0-9a-f]{32}");
  return std::regex_match(line.begin(), line.end(), kHash);
}

std::string DiffRows(const std::vector<Row>& expected, const std::vector<Row>& actual,
                     std::string_view indent, size_t max_lines) {
  constexpr size_t kContext = 3;
  size_t prefix = 0;
  while (prefix < expected.size() && prefix < actual.size() && expected[prefix] == actual[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < expected.size() - prefix && suffix < actual.size() - prefix &&
         expected[expected.size() - 1 - suffix] == actual[actual.size() - 1 - suffix]) {
    ++suffix;
  }
  std::string out = fmt::format("{}--- expected\n{}+++ actual\n", indent, indent);
  auto line = [&](char mark, const Row& row) {
    out += fmt::format("{}{}{}\n", indent, mark, FormatRow(row));
  };
  auto block = [&](char mark, const std::vector<Row>& rows, size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < begin + max_lines; ++i)
      line(mark, rows[i]);
    if (end - begin > max_lines)
      out += fmt::format("{}{}... {} more\n", indent, mark, end - begin - max_lines);
  };
  size_t context_begin = prefix > kContext ? prefix - kContext : 0;
  if (context_begin > 0)
    out += fmt::format("{} ... {} matching rows\n", indent, context_begin);
  block(' ', actual, context_begin, prefix);
  block('-', expected, prefix, expected.size() - suffix);
  block('+', actual, prefix, actual.size() - suffix);
  size_t tail_begin = actual.size() - suffix;
  size_t tail_end = std::min(actual.size(), tail_begin + kContext);
  block(' ', actual, tail_begin, tail_end);
  if (tail_end < actual.size())
    out += fmt::format("{} ... {} matching rows\n", indent, actual.size() - tail_end);
  if (expected.empty())
    out += fmt::format("{}(no rows expected)\n", indent);
  if (actual.empty())
    out += fmt::format("{}(no rows returned)\n", indent);
  return out;
}

}  // namespace shoal::slt

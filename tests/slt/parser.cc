#include "tests/slt/parser.h"

#include <charconv>
#include <utility>

#include <fmt/format.h>

namespace shoal::slt {
namespace {

constexpr std::string_view kTypeChars = "IRTBDP?";

bool IsSpace(char c) {
  return c == ' ' || c == '\t';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

bool IsBlank(std::string_view s) {
  return Trim(s).empty();
}

// Words of a directive line; a word starting with '#' starts a trailing comment.
std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i]))
      ++i;
    size_t start = i;
    while (i < line.size() && !IsSpace(line[i]))
      ++i;
    if (start == i)
      break;
    if (line[start] == '#')
      break;
    words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

// The text after the first `n` words, trimmed: the error pattern of "statement error <pattern>",
// which may contain spaces and '#'.
std::string RestAfterWords(std::string_view line, int n) {
  size_t i = 0;
  for (int w = 0; w < n; ++w) {
    while (i < line.size() && IsSpace(line[i]))
      ++i;
    while (i < line.size() && !IsSpace(line[i]))
      ++i;
  }
  return std::string(Trim(line.substr(i)));
}

bool ParseInt(std::string_view s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view name) : name_(name) {
    script_.lines = SplitLines(text);
  }

  Result<SltScript> Parse() {
    const int n = static_cast<int>(script_.lines.size());
    int i = 0;
    while (i < n) {
      const std::string& line = script_.lines[static_cast<size_t>(i)];
      std::string_view trimmed = Trim(line);
      if (trimmed.empty() || trimmed.front() == '#') {
        if (trimmed.empty() && !conditions_.empty())
          return Error(i, "skipif/onlyif must directly precede its record");
        ++i;
        continue;
      }
      std::vector<std::string> words = Words(line);
      const std::string& verb = words[0];
      if (verb == "skipif" || verb == "onlyif") {
        if (words.size() != 2)
          return Error(i, "expected '{} <label>'", verb);
        conditions_.push_back({verb == "onlyif", words[1]});
        ++i;
        continue;
      }
      Record record;
      record.header_line = i;
      record.conditions = std::move(conditions_);
      conditions_.clear();
      bool conditional = !record.conditions.empty();
      int next = i + 1;
      if (verb == "statement" || verb == "query") {
        auto end = ParseStatementOrQuery(i, words, &record);
        if (!end.ok())
          return end.status();
        next = *end;
      } else if (verb == "halt" && words.size() == 1) {
        record.kind = RecordKind::kHalt;
      } else if (verb == "require" && words.size() == 2) {
        record.kind = RecordKind::kRequire;
        record.name = words[1];
      } else if (verb == "hash-threshold" && words.size() == 2) {
        record.kind = RecordKind::kHashThreshold;
        if (!ParseInt(words[1], &record.threshold) || record.threshold < 0)
          return Error(i, "hash-threshold needs a non-negative integer");
      } else if (verb == "mode" && words.size() == 2 &&
                 (words[1] == "skip" || words[1] == "unskip")) {
        record.kind = words[1] == "skip" ? RecordKind::kModeSkip : RecordKind::kModeUnskip;
      } else if (verb == "loop") {
        record.kind = RecordKind::kLoop;
        if (words.size() != 4 || !ParseInt(words[2], &record.loop_start) ||
            !ParseInt(words[3], &record.loop_end)) {
          return Error(i, "expected 'loop <var> <start> <end>' with integer bounds");
        }
        record.name = words[1];
        open_loops_.push_back(static_cast<int>(script_.records.size()));
      } else if (verb == "endloop" && words.size() == 1) {
        record.kind = RecordKind::kEndLoop;
        if (open_loops_.empty())
          return Error(i, "endloop without loop");
        int loop = open_loops_.back();
        open_loops_.pop_back();
        record.matching_index = loop;
        script_.records[static_cast<size_t>(loop)].matching_index =
            static_cast<int>(script_.records.size());
      } else {
        return Error(i, "unknown or malformed directive '{}'", std::string(trimmed));
      }
      if (conditional && record.kind != RecordKind::kStatement &&
          record.kind != RecordKind::kQuery && record.kind != RecordKind::kHalt &&
          record.kind != RecordKind::kRequire) {
        return Error(i, "skipif/onlyif cannot apply to '{}'", verb);
      }
      if (next == i + 1) {
        record.sql_begin = record.sql_end = record.expected_begin = record.end_line = next;
      }
      script_.records.push_back(std::move(record));
      i = next;
    }
    if (!conditions_.empty())
      return Error(n, "skipif/onlyif at the end of the file");
    if (!open_loops_.empty()) {
      const Record& loop = script_.records[static_cast<size_t>(open_loops_.back())];
      return Error(loop.header_line, "loop without endloop");
    }
    return std::move(script_);
  }

 private:
  template <typename... Args>
  Status Error(int line, fmt::format_string<Args...> format, Args&&... args) {
    return Status::InvalidArgument("{}:{}: parse error: {}", name_, line + 1,
                                   fmt::format(format, std::forward<Args>(args)...));
  }

  // Parses a statement or query record starting at header line `i`; returns the line after it.
  Result<int> ParseStatementOrQuery(int i, const std::vector<std::string>& words, Record* record) {
    const std::string& header = script_.lines[static_cast<size_t>(i)];
    const bool is_query = words[0] == "query";
    record->kind = is_query ? RecordKind::kQuery : RecordKind::kStatement;
    if (words.size() < 2)
      return Error(i, "'{}' needs an argument", words[0]);
    if (words[1] == "error") {
      record->expect_error = true;
      record->error_pattern = RestAfterWords(header, 2);
    } else if (!is_query) {
      if (words[1] != "ok" || words.size() != 2)
        return Error(i, "expected 'statement ok' or 'statement error [pattern]'");
    } else {
      record->types = words[1];
      for (char c : record->types) {
        if (kTypeChars.find(c) == std::string_view::npos)
          return Error(i, "unknown type character '{}' (expected one of {})", c, kTypeChars);
      }
      size_t w = 2;
      if (w < words.size()) {
        if (words[w] == "nosort") {
          ++w;
        } else if (words[w] == "rowsort") {
          record->sort_mode = SortMode::kRowSort;
          ++w;
        } else if (words[w] == "valuesort") {
          record->sort_mode = SortMode::kValueSort;
          ++w;
        }
      }
      if (w < words.size())
        record->label = words[w++];
      if (w < words.size())
        return Error(i, "unexpected '{}' after the query header", words[w]);
    }

    const int n = static_cast<int>(script_.lines.size());
    auto line = [&](int k) -> const std::string& { return script_.lines[static_cast<size_t>(k)]; };
    int j = i + 1;
    record->sql_begin = j;
    while (j < n && !IsBlank(line(j)) && Trim(line(j)) != "----")
      ++j;
    record->sql_end = j;
    if (record->sql_end == record->sql_begin)
      return Error(i, "{} without SQL", words[0]);
    for (int k = record->sql_begin; k < record->sql_end; ++k) {
      if (k > record->sql_begin)
        record->sql += '\n';
      record->sql += line(k);
    }
    if (j < n && Trim(line(j)) == "----") {
      if (!is_query && !record->expect_error)
        return Error(j, "'statement ok' takes no ---- section");
      record->has_separator = true;
      ++j;
      record->expected_begin = j;
      while (j < n && !IsBlank(line(j)))
        record->expected_lines.push_back(line(j++));
      if (record->expect_error) {
        if (!record->error_pattern.empty())
          return Error(i, "error pattern given both on the header and after ----");
        for (size_t k = 0; k < record->expected_lines.size(); ++k) {
          if (k > 0)
            record->error_pattern += '\n';
          record->error_pattern += record->expected_lines[k];
        }
        record->expected_lines.clear();
      }
    } else {
      record->expected_begin = j;
    }
    record->end_line = j;
    return j;
  }

  std::string_view name_;
  SltScript script_;
  std::vector<Condition> conditions_;
  std::vector<int> open_loops_;
};

}  // namespace

const char* SortModeName(SortMode mode) {
  switch (mode) {
    case SortMode::kNoSort: return "nosort";
    case SortMode::kRowSort: return "rowsort";
    case SortMode::kValueSort: return "valuesort";
  }
  return "nosort";
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t stop = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(start, stop - start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.emplace_back(line);
    start = stop + 1;
  }
  return lines;
}

Result<SltScript> ParseSlt(std::string_view text, std::string_view name) {
  return Parser(text, name).Parse();
}

}  // namespace shoal::slt

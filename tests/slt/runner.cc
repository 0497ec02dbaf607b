#include "tests/slt/runner.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "tests/slt/parser.h"
#include "tests/slt/result_compare.h"
#include "tests/slt/value_render.h"

namespace shoal::slt {
namespace {

bool IsSqlState(std::string_view p) {
  if (p.size() != 5)
    return false;
  bool digit = false;
  for (char c : p) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c < 'A' || c > 'Z')
      return false;
  }
  return digit;
}

bool IsRegexPattern(std::string_view p) {
  return p.size() >= 2 && p.front() == '/' && p.back() == '/';
}

// Whether `status` satisfies an error pattern (README.md): empty matches any error, a SQLSTATE
// matches the code exactly, /regex/ is searched in the message, anything else is a substring.
// Messages are tried both bare and as "Code: message (hint: ...)" so the code name can be matched.
Result<bool> ErrorMatches(const Status& status, std::string_view pattern) {
  if (pattern.empty())
    return true;
  if (IsSqlState(pattern))
    return status.sqlstate() == pattern;
  const std::string message = status.UserMessage();
  const std::string full = status.ToString();
  if (IsRegexPattern(pattern)) {
    std::regex re;
    try {
      re = std::regex(std::string(pattern.substr(1, pattern.size() - 2)));
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("invalid regex {}: {}", pattern, e.what());
    }
    return std::regex_search(message, re) || std::regex_search(full, re);
  }
  return full.find(pattern) != std::string::npos;
}

// The pattern --complete writes for an error: the first line of its message, as a substring unless
// it would read as a SQLSTATE or a regex, then as an escaped regex.
std::string PatternFor(const Status& status) {
  std::string line = status.UserMessage();
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
    line.pop_back();
  size_t start = line.find_first_not_of(" \t");
  line = start == std::string::npos ? "" : line.substr(start);
  if (!line.empty() && !IsSqlState(line) && line.front() != '/')
    return line;
  std::string escaped;
  for (char c : line) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos)
      escaped += '\\';
    escaped += c;
  }
  return "/" + escaped + "/";
}

std::string Indent(std::string_view text, std::string_view indent) {
  std::string out;
  for (const std::string& line : SplitLines(text))
    out += fmt::format("{}{}\n", indent, line);
  return out;
}

std::string DescribeError(const Status& status) {
  return fmt::format("[{}] {}", status.sqlstate(), status.ToString());
}

struct LoopFrame {
  std::string var;
  int64_t value;
  int64_t end;
  size_t loop_index;
};

// One execution of one script: the engine session, loop variables, mode and counters.
class ScriptRun {
 public:
  ScriptRun(std::string_view name, SltScript script, const SltEngineFactory& factory,
            const RunnerOptions& options, ScriptOutcome* out)
      : name_(name),
        script_(std::move(script)),
        factory_(factory),
        options_(options),
        out_(out),
        executions_(script_.records.size(), 0),
        rewritten_(script_.records.size(), false) {}

  void Run() {
    auto& records = script_.records;
    size_t i = 0;
    while (i < records.size()) {
      Record& r = records[i];
      switch (r.kind) {
        case RecordKind::kLoop:
          if (r.loop_start >= r.loop_end) {
            i = static_cast<size_t>(r.matching_index) + 1;
            continue;
          }
          loops_.push_back({r.name, r.loop_start, r.loop_end, i});
          break;
        case RecordKind::kEndLoop:
          if (++loops_.back().value < loops_.back().end) {
            i = loops_.back().loop_index + 1;
            continue;
          }
          loops_.pop_back();
          break;
        case RecordKind::kHalt:
        case RecordKind::kRequire: {
          if (skip_mode_)
            break;
          Result<bool> allowed = ConditionsAllow(r);
          if (!allowed.ok())
            return;
          if (!*allowed)
            break;
          if (r.kind == RecordKind::kRequire) {
            if (!EnsureEngine())
              return;
            if (engine_->HasFeature(r.name))
              break;
          }
          for (size_t k = i + 1; k < records.size(); ++k) {
            if (records[k].kind == RecordKind::kStatement || records[k].kind == RecordKind::kQuery)
              ++out_->skipped;
          }
          return;
        }
        case RecordKind::kHashThreshold: hash_threshold_ = r.threshold; break;
        case RecordKind::kModeSkip: skip_mode_ = true; break;
        case RecordKind::kModeUnskip: skip_mode_ = false; break;
        case RecordKind::kStatement:
        case RecordKind::kQuery: {
          if (skip_mode_) {
            ++out_->skipped;
            break;
          }
          Result<bool> allowed = ConditionsAllow(r);
          if (!allowed.ok())
            return;
          if (!*allowed) {
            ++out_->skipped;
            break;
          }
          if (!EnsureEngine())
            return;
          ++executions_[i];
          Execute(r, i);
          break;
        }
      }
      ++i;
    }
  }

  void Finish() {
    if (reports_ > options_.max_reports)
      out_->report +=
          fmt::format("{}: {} more failures not shown\n", name_, reports_ - options_.max_reports);
    if (!options_.complete)
      return;
    const auto& lines = script_.lines;
    int next = 0;
    for (size_t k = 0; k < script_.records.size(); ++k) {
      if (!rewritten_[k])
        continue;
      const Record& r = script_.records[k];
      for (; next < r.header_line; ++next)
        out_->completed_text += lines[static_cast<size_t>(next)] + "\n";
      out_->completed_text += RecordText(r);
      next = r.end_line;
      out_->rewritten = true;
    }
    for (; next < static_cast<int>(lines.size()); ++next)
      out_->completed_text += lines[static_cast<size_t>(next)] + "\n";
  }

 private:
  // Creates the engine on first use, so a file that runs nothing needs none.
  bool EnsureEngine() {
    if (engine_ != nullptr)
      return true;
    auto engine = factory_();
    if (!engine.ok()) {
      ++out_->failed;
      out_->report +=
          fmt::format("{}: cannot start an engine: {}\n", name_, engine.status().ToString());
      return false;
    }
    engine_ = std::move(engine).value();
    return true;
  }

  // Error: the engine could not be created (already reported); the script stops.
  Result<bool> ConditionsAllow(const Record& r) {
    if (!r.conditions.empty() && !EnsureEngine())
      return Status::Unavailable("no engine");
    for (const Condition& c : r.conditions) {
      if (engine_->MatchesCondition(c.label) != c.only_if)
        return false;
    }
    return true;
  }

  std::string Substitute(std::string_view text) const {
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
      size_t open = text.find("${", i);
      size_t close = open == std::string_view::npos ? open : text.find('}', open);
      if (close == std::string_view::npos) {
        out.append(text.substr(i));
        break;
      }
      out.append(text.substr(i, open - i));
      std::string_view var = text.substr(open + 2, close - open - 2);
      const LoopFrame* frame = nullptr;
      for (auto it = loops_.rbegin(); it != loops_.rend() && frame == nullptr; ++it) {
        if (it->var == var)
          frame = &*it;
      }
      if (frame != nullptr)
        out += std::to_string(frame->value);
      else
        out.append(text.substr(open, close - open + 1));
      i = close + 1;
    }
    return out;
  }

  void Execute(Record& r, size_t index) {
    const std::string sql = Substitute(r.sql);
    Result<QueryResult> result = engine_->Execute(sql);
    const bool can_complete = options_.complete && executions_[index] == 1;
    const char* what = r.kind == RecordKind::kQuery ? "query" : "statement";
    if (r.expect_error) {
      const std::string pattern = Substitute(r.error_pattern);
      if (result.ok()) {
        if (can_complete) {
          r.expect_error = false;
          r.error_pattern.clear();
          if (r.kind == RecordKind::kQuery)
            return CheckQuery(r, index, sql, *result, /*force_complete=*/true);
          return Completed(r, index);
        }
        return Fail(r, sql,
                    pattern.empty() ? fmt::format("expected an error, but the {} succeeded", what)
                                    : fmt::format("expected an error matching '{}', but the {} "
                                                  "succeeded",
                                                  pattern, what),
                    "");
      }
      Result<bool> matches = ErrorMatches(result.status(), pattern);
      if (!matches.ok())
        return Fail(r, sql, matches.status().message(), "");
      if (*matches)
        return Pass();
      if (can_complete) {
        r.error_pattern = PatternFor(result.status());
        return Completed(r, index);
      }
      return Fail(r, sql, fmt::format("the error does not match '{}'", pattern),
                  fmt::format("actual error: {}\n", DescribeError(result.status())));
    }
    if (!result.ok()) {
      if (can_complete) {
        r.expect_error = true;
        r.error_pattern = PatternFor(result.status());
        return Completed(r, index);
      }
      return Fail(r, sql, fmt::format("{} failed", what),
                  fmt::format("error: {}\n", DescribeError(result.status())));
    }
    if (r.kind == RecordKind::kStatement)
      return Pass();
    CheckQuery(r, index, sql, *result);
  }

  // `force_complete`: the record was `query error` and must be rewritten even if the (empty)
  // expected result happens to match.
  void CheckQuery(Record& r, size_t index, const std::string& sql, const QueryResult& result,
                  bool force_complete = false) {
    Result<std::vector<Row>> rendered = RenderRows(result);
    if (!rendered.ok())
      return Fail(r, sql, "the engine returned a malformed result",
                  rendered.status().ToString() + "\n");
    std::vector<Row> rows = std::move(rendered).value();
    const int num_columns = result.schema ? result.schema->num_fields() : 0;
    if (options_.sqlite_types)
      PrintAsSqliteTypes(r.types, &rows);

    std::string problems;
    std::string types;
    for (int c = 0; c < num_columns; ++c) {
      const columnar::Field& field = result.schema->field(c);
      const auto col = static_cast<size_t>(c);
      const char declared = col < r.types.size() ? r.types[col] : '\0';
      const bool ok = declared != '\0' && TypeCharAccepts(declared, field.type);
      types += ok ? declared : CanonicalTypeChar(field.type);
      if (!ok && declared != '\0' && !options_.sqlite_types)
        problems += fmt::format("column {} ({}) is {} but declared '{}'\n", c + 1, field.name,
                                field.type.ToString(), declared);
    }
    if (r.types.size() != static_cast<size_t>(num_columns))
      problems += fmt::format("the header declares {} column(s) but the result has {}\n",
                              r.types.size(), num_columns);

    std::vector<Row> sorted = rows;
    ApplySortMode(r.sort_mode, &sorted);
    std::vector<std::string> expected_lines;
    for (const std::string& line : r.expected_lines)
      expected_lines.push_back(Substitute(line));
    std::string details;
    bool match;
    if (expected_lines.size() == 1 && IsHashLine(expected_lines[0])) {
      const std::string actual = HashLine(sorted);
      match = actual == expected_lines[0];
      if (!match) {
        details =
            fmt::format("expected: {}\nactual:   {}\nactual rows:\n", expected_lines[0], actual);
        for (size_t k = 0; k < sorted.size() && k < 40; ++k)
          details += "  " + FormatRow(sorted[k]) + "\n";
      }
    } else {
      std::vector<Row> expected;
      // SQLite's corpus always writes one value per line, even where a line of text values
      // splits into as many words as there are columns ("table t29 row 6" under TTTT).
      const bool value_per_line = (options_.sqlite_types && num_columns > 1 &&
                                   expected_lines.size() % static_cast<size_t>(num_columns) == 0) ||
                                  IsValuePerLine(expected_lines, static_cast<size_t>(num_columns));
      for (size_t k = 0; k < expected_lines.size(); ++k) {
        if (value_per_line) {
          // SQLite's form: every value on a line of its own, row after row.
          if (k % static_cast<size_t>(num_columns) == 0)
            expected.emplace_back();
          expected.back().push_back(expected_lines[k]);
          continue;
        }
        expected.push_back(ParseExpectedLine(expected_lines[k], static_cast<size_t>(num_columns)));
        if (r.sort_mode != SortMode::kValueSort &&
            expected.back().size() != static_cast<size_t>(num_columns)) {
          problems += fmt::format(
              "expected line {} has {} value(s) for {} column(s) (separate values that contain "
              "spaces with tabs)\n",
              r.expected_begin + static_cast<int>(k) + 1, expected.back().size(), num_columns);
        }
      }
      ApplySortMode(r.sort_mode, &expected);
      match = expected == sorted;
      if (!match)
        details = DiffRows(expected, sorted, "");
    }
    if (match && problems.empty() && !force_complete)
      return Pass();
    if (options_.complete && executions_[index] == 1) {
      r.types = types;
      r.has_separator = true;
      r.expected_lines.clear();
      if (hash_threshold_ > 0 && ValueCount(rows) > static_cast<size_t>(hash_threshold_)) {
        r.expected_lines.push_back(HashLine(sorted));
      } else {
        if (r.sort_mode != SortMode::kNoSort)
          ApplySortMode(SortMode::kRowSort, &rows);
        for (const Row& row : rows)
          r.expected_lines.push_back(FormatRow(row));
      }
      return Completed(r, index);
    }
    if (options_.complete)
      problems += "--complete rewrites a record only on its first execution (loop iteration)\n";
    Fail(r, sql, match ? "query result has the wrong shape" : "query result mismatch",
         problems + details);
  }

  void Pass() { ++out_->passed; }

  void Completed(const Record& r, size_t index) {
    ++out_->passed;
    rewritten_[index] = true;
    out_->report += fmt::format("{}:{}: completed\n", name_, r.header_line + 1);
  }

  void Fail(const Record& r, const std::string& sql, const std::string& headline,
            const std::string& details) {
    ++out_->failed;
    if (++reports_ > options_.max_reports)
      return;
    std::string where;
    for (const LoopFrame& f : loops_)
      where += fmt::format("{}{}={}", where.empty() ? " [" : ", ", f.var, f.value);
    if (!where.empty())
      where += "]";
    out_->report += fmt::format("{}:{}: {}{}\n{}{}", name_, r.header_line + 1, headline, where,
                                Indent(sql, "    "), Indent(details, "  "));
  }

  std::string RecordText(const Record& r) const {
    std::string text;
    const char* verb = r.kind == RecordKind::kQuery ? "query" : "statement";
    if (r.expect_error) {
      text =
          fmt::format("{} error{}{}\n", verb, r.error_pattern.empty() ? "" : " ", r.error_pattern);
    } else if (r.kind == RecordKind::kStatement || r.types.empty()) {
      // A query of zero columns has no valid header; it is a statement that returns nothing.
      text = "statement ok\n";
    } else {
      text = "query " + r.types;
      if (r.sort_mode != SortMode::kNoSort)
        text += std::string(" ") + SortModeName(r.sort_mode);
      if (!r.label.empty())
        text += " " + r.label;
      text += "\n";
    }
    for (int k = r.sql_begin; k < r.sql_end; ++k)
      text += script_.lines[static_cast<size_t>(k)] + "\n";
    if (r.kind == RecordKind::kQuery && !r.expect_error && !r.types.empty()) {
      text += "----\n";
      for (const std::string& line : r.expected_lines)
        text += line + "\n";
    }
    return text;
  }

  std::string name_;
  SltScript script_;
  const SltEngineFactory& factory_;
  const RunnerOptions& options_;
  ScriptOutcome* out_;
  std::unique_ptr<SltEngine> engine_;
  std::vector<LoopFrame> loops_;
  std::vector<int> executions_;
  std::vector<bool> rewritten_;
  bool skip_mode_ = false;
  int64_t hash_threshold_ = 0;
  size_t reports_ = 0;
};

}  // namespace

SltRunner::SltRunner(SltEngineFactory factory, RunnerOptions options)
    : factory_(std::move(factory)), options_(options) {}

ScriptOutcome SltRunner::RunScript(std::string_view name, std::string_view text) const {
  ScriptOutcome out;
  Result<SltScript> script = ParseSlt(text, name);
  if (!script.ok()) {
    ++out.failed;
    out.report = script.status().message() + "\n";
    out.completed_text = std::string(text);
    return out;
  }
  ScriptRun run(name, std::move(script).value(), factory_, options_, &out);
  run.Run();
  run.Finish();
  if (!out.rewritten)
    out.completed_text = std::string(text);
  return out;
}

ScriptOutcome SltRunner::RunFile(const std::string& path) const {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    ScriptOutcome out;
    out.failed = 1;
    out.report = fmt::format("{}: cannot read the file\n", path);
    return out;
  }
  ScriptOutcome out = RunScript(path, buffer.str());
  if (out.rewritten) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << out.completed_text;
    file.close();
    if (!file) {
      ++out.failed;
      out.report += fmt::format("{}: cannot write the completed file\n", path);
    }
  }
  return out;
}

}  // namespace shoal::slt

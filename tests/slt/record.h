// The parsed form of an .slt file: one Record per directive, with the line numbers the runner needs
// for diagnostics and for rewriting expected results in place (--complete).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shoal::slt {

enum class RecordKind {
  kStatement,      // statement ok | statement error [pattern]
  kQuery,          // query <types> [sortmode] [label] | query error [pattern]
  kHalt,           // halt: stop running the file
  kRequire,        // require <feature>: skip the rest of the file if the engine lacks it
  kHashThreshold,  // hash-threshold N
  kModeSkip,       // mode skip: skip records until mode unskip
  kModeUnskip,
  kLoop,  // loop <var> <start> <end>: runs the records up to the matching endloop, end exclusive
  kEndLoop,
};

enum class SortMode { kNoSort, kRowSort, kValueSort };

const char* SortModeName(SortMode mode);

/// skipif / onlyif lines in front of a record.
struct Condition {
  bool only_if = false;
  std::string label;
};

struct Record {
  RecordKind kind = RecordKind::kStatement;
  std::vector<Condition> conditions;

  // Lines are 0-based indices into SltScript::lines. The record spans [header_line, end_line): the
  // header, the SQL [sql_begin, sql_end), then an optional "----" and the expected lines.
  int header_line = 0;
  int sql_begin = 0;
  int sql_end = 0;
  int expected_begin = 0;  // first line after "----" (== end_line when there is none)
  int end_line = 0;

  std::string sql;  // the SQL lines joined by '\n'

  // statement / query: when expect_error, `error_pattern` is the pattern (empty: any error) taken
  // from the header line or from the lines after "----".
  bool expect_error = false;
  std::string error_pattern;

  // query
  std::string types;  // one type character per column
  SortMode sort_mode = SortMode::kNoSort;
  std::string label;
  bool has_separator = false;               // a "----" line was present
  std::vector<std::string> expected_lines;  // as written, without the line terminator

  // require (feature), loop (variable)
  std::string name;
  int64_t loop_start = 0;
  int64_t loop_end = 0;
  int matching_index = -1;  // loop: index of its endloop; endloop: index of its loop
  int64_t threshold = 0;    // hash-threshold
};

struct SltScript {
  std::vector<std::string> lines;  // the file split at '\n', trailing '\r' removed
  std::vector<Record> records;
};

}  // namespace shoal::slt

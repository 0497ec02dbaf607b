// SltRunner: runs parsed .slt scripts against a fresh engine per script and reports each failing
// record with its file:line, SQL, and expected-versus-actual diff. With `complete` set it instead
// rewrites the expected results (and error patterns) of records that do not match, as DataFusion's
// --complete does; the caller writes the returned text back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/slt/engine.h"

namespace shoal::slt {

struct RunnerOptions {
  bool complete = false;
  /// Failure reports kept per script; later failures are only counted (a failing loop would
  /// otherwise print thousands).
  size_t max_reports = 20;
  /// SQLite's corpus: a query's type characters say how values are printed (I: integer, R: three
  /// decimals, T: text), not which type the engine must return, so a differing column type is no
  /// failure. Our own .slt files keep the strict check.
  bool sqlite_types = false;
};

/// Counts are of statement and query records, once per execution (a record in a loop counts once
/// per iteration). A script that cannot be read, parsed or given an engine counts as one failure.
struct ScriptOutcome {
  int64_t passed = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
  std::string report;          // failure reports and --complete notes, each line '\n'-terminated
  bool rewritten = false;      // --complete changed at least one record
  std::string completed_text;  // --complete: the script with updated records
};

class SltRunner {
 public:
  explicit SltRunner(SltEngineFactory factory, RunnerOptions options = {});

  /// Runs `text`; `name` (usually the path) prefixes every report line.
  ScriptOutcome RunScript(std::string_view name, std::string_view text) const;
  /// Reads and runs `path`; with `complete`, writes the file back if a record changed.
  ScriptOutcome RunFile(const std::string& path) const;

 private:
  SltEngineFactory factory_;
  RunnerOptions options_;
};

}  // namespace shoal::slt

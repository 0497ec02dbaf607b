// `shoal sql`: run SQL through the engine's session runner (engine/query_runner.h), on this node,
// on workers (--workers) or through the materialized shuffle (--shuffle-dir), as the flags set the
// session up (engine/session_setup.h). Statements come from -c (repeatable) and -f (a file, `-`
// for stdin) in command-line order, or from an interactive shell. Results print as psql's aligned
// table, CSV or JSON. The first error stops everything (exit status 1), as
// `psql -v ON_ERROR_STOP=1` would. With --host (or a postgresql:// URL) the statements run on a
// server instead (`shoal server` or PostgreSQL), through server::PgClient, and print the same.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "shoal/cli/progress_line.h"
#include "shoal/cli/sql_output.h"
#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"

namespace shoal::cli {

/// Where `shoal sql` runs its statements: the engine in this process (engine::QueryRunner) or
/// a server it connects to (server::PgClient, `--host` or a postgresql:// URL). Both run a
/// string of statements with one result each, and both cancel the running one from any thread.
class SqlTarget {
 public:
  virtual ~SqlTarget() = default;
  /// Runs every statement of `sql` in order, calling `on_result` after each; stops at the first
  /// error and returns it.
  virtual Status Run(std::string_view sql,
                     const std::function<Status(const engine::QueryResult&)>& on_result) = 0;
  /// The same, handing each statement's rows to `sink` as they arrive (ResultPrinter).
  virtual Status Run(std::string_view sql, engine::ResultSink& sink) = 0;
  /// Cancels the statement running now (Ctrl-C); nothing between statements.
  virtual void CancelRunning() = 0;
  /// How far the running statement has read its input, from any thread; nullopt when unknown.
  virtual std::optional<engine::QueryProgressSnapshot> Progress() { return std::nullopt; }
};

/// Runs a script (SQL statements and psql meta-commands such as `\timing on` and `\q` on lines of
/// their own) against `target`, writing results to `out` and timings to `err`. Returns the first
/// error; `*quit` is set when `\q` was read. `failed_sql` (optional) receives the SQL text an
/// error's position refers to. With `failed_line` (a file run by -f), statements run one at a
/// time and, as with psql, `failed_sql` is the failing statement alone and `*failed_line` the
/// script's line where it ends (1-based). With `progress`, a statement running longer than a
/// second shows it (progress_line.h).
Status RunSqlScript(SqlTarget& target, const std::string& script, SqlOutputFormat format,
                    bool* timing, bool* quit, std::ostream& out, std::ostream& err,
                    std::string* failed_sql = nullptr, int* failed_line = nullptr,
                    ProgressLine* progress = nullptr);
/// The same against a runner in this process.
Status RunSqlScript(engine::QueryRunner& runner, const std::string& script, SqlOutputFormat format,
                    bool* timing, bool* quit, std::ostream& out, std::ostream& err,
                    std::string* failed_sql = nullptr, int* failed_line = nullptr);

void RegisterSqlCommand(CLI::App& app);

}  // namespace shoal::cli

// How `shoal sql` prints: a statement's result as psql's aligned table, CSV or JSON, and an error
// as psql reports it (ERROR, LINE with a caret under the position, HINT). sql_command runs the
// statements; this only formats.
#pragma once

#include <string>

#include "shoal/common/status.h"
#include "shoal/engine/query_runner.h"

namespace shoal::cli {

/// kExpanded is psql's `\x`: one "-[ RECORD n ]" block per row, a line per column.
enum class SqlOutputFormat { kTable, kCsv, kJson, kExpanded };

/// Renders one statement's result as `format` (table mode: the table, or the command tag for
/// statements without rows; csv / json: nothing for those).
std::string RenderSqlResult(const engine::QueryResult& result, SqlOutputFormat format);

/// psql's error report: "ERROR:  message", then "LINE n: text" with a caret under the error's
/// position in `sql` (when known), then "HINT:  hint".
std::string FormatSqlError(const Status& status, const std::string& sql);

}  // namespace shoal::cli

// How `shoal sql` prints: a statement's result as psql's aligned table, CSV or JSON, and an error
// as psql reports it (ERROR, LINE with a caret under the position, HINT). sql_command runs the
// statements; this only formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/status.h"

namespace shoal::cli {

/// kExpanded is psql's `\x`: one "-[ RECORD n ]" block per row, a line per column.
enum class SqlOutputFormat { kTable, kCsv, kJson, kExpanded };

/// Some rows of a result as `format`, for ResultPrinter, which adds what comes before the first
/// row and after the last: the table's header and the CSV header line when `header`, no
/// "(N rows)" footer; expanded records and JSON objects numbered from `first_row` (the rows
/// printed before these), the table and expanded widths those of these rows alone.
std::string RenderSqlRows(const columnar::Schema& schema,
                          const std::vector<columnar::RecordBatchPtr>& batches,
                          SqlOutputFormat format, int64_t first_row, bool header);

/// psql's error report: "ERROR:  message", then "LINE n: text" with a caret under the error's
/// position in `sql` (when known), then "HINT:  hint".
std::string FormatSqlError(const Status& status, const std::string& sql);

}  // namespace shoal::cli

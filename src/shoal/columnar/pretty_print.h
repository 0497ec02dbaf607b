// Text rendering of values and batches, as PostgreSQL's psql shows them, so that Shoal's shell
// output, the SQL logic tests and `psql` against Shoal's server all agree on one spelling:
//   booleans t / f; decimals with their scale; dates YYYY-MM-DD ("0044-03-15 BC" before year 1);
//   timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" (with "+00" when zoned, shown in UTC; " BC" last);
//   intervals as PostgreSQL's "1 year 2 mons 3 days 04:05:06" / "-1 days +02:00:00"; floats as
//   float8out / float4out print them (shortest round-trip digits, exponent form below 1e-4 and
//   from 1e15, 1e6 for float32), Infinity, NaN; binary as \x followed by hex; NULL as an empty
//   string (the printer's null_text).
#pragma once

#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/calendar.h"
#include "shoal/common/date_text.h"

namespace shoal::columnar {

/// Text of element i (valid elements only; callers handle nulls).
std::string FormatValue(const Array& array, int64_t i);
/// Appends the text of element i to `out`; cheaper in loops.
void AppendValue(const Array& array, int64_t i, std::string* out);

// Dates are formatted by common/date_text.h and counted by common/calendar.h; these names stay
// reachable as columnar:: for the callers that spell them so.
using ::shoal::CivilFromDays;
using ::shoal::DaysFromCivil;
using ::shoal::FormatDate;

struct PrintOptions {
  std::string null_text;       // psql's default \pset null is empty
  bool show_row_count = true;  // the "(N rows)" footer
  bool show_header = true;     // the column names and the line under them
  int64_t max_rows = -1;       // -1: all
};

/// psql's aligned format: centred headers, a separator of dashes and '+', values right-aligned for
/// numeric columns and left-aligned otherwise, multi-line values continued with '+', widths in
/// terminal columns (CJK and emoji count two), and a "(N rows)" footer. psql's blank line after
/// the footer is not part of the table.
std::string FormatTable(const Schema& schema, const std::vector<RecordBatchPtr>& batches,
                        const PrintOptions& options = {});

}  // namespace shoal::columnar

// Expected-versus-actual result handling for `query` records: reading expected rows from their
// text, the sort modes, sqllogictest's "N values hashing to <md5>" form, the text --complete writes
// and the diff shown on a mismatch. The separator rule (README.md): a line containing a tab is
// split at every tab; otherwise a one-column line is one value, and a wider line splits at runs of
// spaces.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tests/slt/record.h"
#include "tests/slt/value_render.h"

namespace shoal::slt {

/// The values of one expected line for a result of `num_columns` columns.
Row ParseExpectedLine(std::string_view line, size_t num_columns);

/// Whether `lines` are SQLite's value-per-line form for a result of `num_columns` columns: more
/// than one column, no tabs, a multiple of `num_columns` lines, and some line that is no row.
bool IsValuePerLine(const std::vector<std::string>& lines, size_t num_columns);

/// Reprints numeric values as SQLite's runner prints its type characters: 'R' with three decimals,
/// 'I' as an integer (truncated toward zero); NULL and other characters stay as rendered.
void PrintAsSqliteTypes(std::string_view types, std::vector<Row>* rows);

/// How --complete writes a row: values joined by one space, or by tabs if any value has a space.
std::string FormatRow(const Row& row);

/// rowsort sorts rows; valuesort replaces the rows with one single-value row per value, sorted.
void ApplySortMode(SortMode mode, std::vector<Row>* rows);

/// "N values hashing to <md5>", hashing each value followed by '\n' as sqllogictest does.
std::string HashLine(const std::vector<Row>& rows);
size_t ValueCount(const std::vector<Row>& rows);
/// Whether `line` has the "N values hashing to <32 hex digits>" form.
bool IsHashLine(std::string_view line);

/// A unified-style diff of two row lists (unchanged context, "-" expected, "+" actual), at most
/// `max_lines` changed lines per side. Each line is indented by `indent`.
std::string DiffRows(const std::vector<Row>& expected, const std::vector<Row>& actual,
                     std::string_view indent, size_t max_lines = 40);

}  // namespace shoal::slt

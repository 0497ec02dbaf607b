// Parser for the sqllogictest dialect that DuckDB and DataFusion share (the subset documented in
// tests/slt/README.md). Parsing is separate from running so that a malformed file is reported once,
// with its line, before any statement runs.
#pragma once

#include <string_view>

#include "shoal/common/result.h"
#include "tests/slt/record.h"

namespace shoal::slt {

/// Parses a whole file. Errors are InvalidArgument "<name>:<line>: parse error: ..." (1-based).
Result<SltScript> ParseSlt(std::string_view text, std::string_view name = "<script>");

/// Splits text at '\n' and drops one trailing '\r' per line; a final newline adds no empty line.
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace shoal::slt

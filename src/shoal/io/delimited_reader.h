// Delimited-text reader: TBL (dbgen's `|`-separated rows with a trailing delimiter) and CSV
// (RFC 4180 quoting, configurable delimiter, quote, escape and null string), parsed straight into
// typed column builders, one byte range of one file at a time.
//
// Byte ranges make large files parallel: a range [begin, end) owns every line that *starts* inside
// it. A range with begin > 0 skips to the first line boundary at or after `begin` (unless the byte
// before `begin` is a newline); the last line it owns may run past `end`. Quoted fields may contain
// newlines, so a file is split into ranges only when no quote character is configured (TBL; CSV
// with quote ''): with quoting, each file is one range.
//
// NULL: an unquoted field equal to the null string ('' by default) is NULL, and so is an empty
// unquoted field of a non-text column; a quoted "" is an empty string. Blank lines are skipped.
// Lines may end in \n or \r\n. A UTF-8 byte-order mark at the start of a file is skipped.
//
// Errors name the file, the line (1-based, counted from the start of the file), the column
// (1-based, with its name) and the offending value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch_reader.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/memory_pool.h"
#include "shoal/io/delimited_options.h"

namespace shoal::io {

/// Types the reader can parse: integers, floats, decimal, date32, timestamp, boolean, utf8.
Status CheckDelimitedType(const columnar::Field& field);

/// Reads rows of `path` starting in [begin, end) (end < 0: to the end of the file). `schema` is
/// the whole table's; `projection` lists the columns to produce (empty: none, rows still counted).
Result<columnar::RecordBatchReaderPtr> OpenDelimitedReader(
    std::string path, columnar::SchemaPtr schema, DelimitedOptions options,
    std::vector<int> projection, int64_t begin, int64_t end, int64_t batch_size,
    std::shared_ptr<MemoryPool> pool);

/// Column names (header) or column1..N, and types sampled from up to `sample_rows` rows of the
/// start of `path`: int64; decimal(38, s) for integers beyond int64 and for decimals with more
/// significant digits than a double keeps exactly (15); float64; date32, timestamp, boolean; else
/// utf8. Numbers never become a type that loses digits: beyond 38 digits they stay text. As in
/// DuckDB's sniffer, text with a leading '+' or leading zeros ("007") is not a number.
Result<columnar::SchemaPtr> InferDelimitedSchema(const std::string& path,
                                                 const DelimitedOptions& options,
                                                 int sample_rows = 100);

}  // namespace shoal::io

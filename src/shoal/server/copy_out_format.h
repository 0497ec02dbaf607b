// COPY ... TO STDOUT's formats as PostgreSQL 15 writes them: the options the statement may
// carry; for text and csv the quoting or escaping of one field; for binary the file header, one
// tuple per row (a field count, then each value's length, -1 for NULL, and its bytes in the
// type's binary send format, pg_types.h) and the trailer. The connection sends the rows.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"

namespace shoal::server {

// COPY TO STDOUT's options, as PostgreSQL 15 takes them for text, csv and binary.
struct CopyOutOptions {
  bool csv = false;
  bool binary = false;
  char delimiter = '\t';
  std::string null_text = "\\N";
  bool header = false;
  char quote = '"';
  char escape = '"';
};

Result<CopyOutOptions> ParseCopyOutOptions(
    const std::vector<std::pair<std::string, std::string>>& options);

// Appends one field of a COPY row.
void AppendCopyField(const CopyOutOptions& o, std::string_view value, bool is_null,
                     std::string* out);
// Appends `column`'s value at `row` as a field of a COPY row (text or csv): the NULL text, or the
// value's text escaped or quoted as needed. `scratch` is reused between calls.
void AppendCopyValue(const CopyOutOptions& o, const columnar::Array& column, int64_t row,
                     std::string* out, std::string* scratch);

// Binary format: the signature "PGCOPY\n\377\r\n\0", the flags (0) and an empty header
// extension.
void AppendCopyBinaryHeader(std::string* out);
// Binary format: row `row` of `batch`.
void AppendCopyBinaryTuple(const columnar::RecordBatch& batch, int64_t row, std::string* out);
// Binary format: the trailer, a field count of -1.
void AppendCopyBinaryTrailer(std::string* out);

}  // namespace shoal::server

// CsvWriter: writes record batches as RFC 4180 CSV, for COPY ... TO (FORMAT csv) and
// `shoal tpchgen --format csv`. Values are spelled as PostgreSQL prints them (pretty_print.h:
// decimals with their scale, dates YYYY-MM-DD, booleans t / f), so a CSV export reads back into
// PostgreSQL or DuckDB with the same values; NULL is an empty field and an empty string is written
// as "" so the two stay apart (as PostgreSQL's COPY ... CSV does). A field is quoted when it holds
// the delimiter, a quote, CR or LF, or is empty; quotes inside are doubled. Lines end with LF.
//
// Output is buffered and goes to a temporary file renamed into place by Close()
// (temporary_path.h). Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/io/file_writer.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {

struct CsvWriteOptions {
  bool header = true;
  char delimiter = ',';
  char quote = '"';
};

class CsvWriter {
 public:
  /// Creates the temporary file and, with `header`, writes the column names.
  static Result<std::unique_ptr<CsvWriter>> Open(std::string path, columnar::SchemaPtr schema,
                                                 CsvWriteOptions options = {});
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  Status WriteBatch(const columnar::RecordBatch& batch);
  /// Flushes, closes and renames into place; on error the temporary file is removed.
  Status Close();
  /// Removes the temporary file. Safe to call more than once.
  void Abort();

  int64_t rows_written() const { return rows_written_; }

 private:
  CsvWriter(std::string path, columnar::SchemaPtr schema, CsvWriteOptions options);
  void AppendField(std::string_view text);

  std::string path_;
  std::unique_ptr<TemporaryPath> temporary_;
  columnar::SchemaPtr schema_;
  CsvWriteOptions options_;
  std::unique_ptr<FileWriter> file_;
  std::string buffer_;
  std::string value_;  // one value's text, reused
  int64_t rows_written_ = 0;
  bool closed_ = false;
};

}  // namespace shoal::io

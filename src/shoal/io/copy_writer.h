// CopyWriter: the file side of `COPY (query) TO 'path' (FORMAT parquet | csv | arrow, ...)` and
// `COPY table TO ...`. ParseCopyOptions turns COPY's option list into typed options (the binder
// calls it to reject bad options before anything runs; the executor calls it again to write), and
// OpenCopyWriter opens the writer of the chosen format: ParquetWriter (parquet/parquet_writer.h),
// CsvWriter (csv_writer.h) or the Arrow IPC file writer (columnar/ipc/writer.h). Every format
// writes to a temporary file renamed into place on Close(), so a failed COPY leaves no file.
//
// Options (names case-insensitive, as PostgreSQL's COPY lower-cases them):
//   FORMAT parquet | csv | arrow   default: from the extension (.parquet, .arrow / .ipc /
//   .feather),
//                                  otherwise csv
//   COMPRESSION c                  parquet: none | snappy (default) | gzip | zstd | lz4;
//                                  arrow: none (default) | lz4 | zstd; csv: none only
//   ROW_GROUP_SIZE n               parquet only; rows per row group (default 122880)
//   HEADER true | false            csv only (default true)
//   DELIMITER 'c'                  csv only; one character (default ',')
// Unknown options are SQLSTATE 42601 with a "did you mean" hint; bad values are 22023.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/io/csv_writer.h"
#include "shoal/io/parquet/parquet_writer.h"

namespace shoal::io {

enum class CopyFormat : uint8_t { kCsv, kParquet, kArrow };

struct CopyWriteOptions {
  CopyFormat format = CopyFormat::kCsv;
  CsvWriteOptions csv;
  parquet::ParquetWriteOptions parquet;
  columnar::ipc::Compression arrow_compression = columnar::ipc::Compression::kNone;
};

/// `options` are (lower-case name, value text) pairs as the statement wrote them.
Result<CopyWriteOptions> ParseCopyOptions(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& options);

/// A file being written by COPY; Close() publishes it, Abort() (or destruction) discards it.
class CopyWriter {
 public:
  virtual ~CopyWriter() = default;
  /// The batch's columns must have the schema's types (names are not looked at).
  virtual Status WriteBatch(const columnar::RecordBatchPtr& batch) = 0;
  virtual Status Close() = 0;
  virtual void Abort() = 0;
};

Result<std::unique_ptr<CopyWriter>> OpenCopyWriter(const std::string& path,
                                                   columnar::SchemaPtr schema,
                                                   const CopyWriteOptions& options);

}  // namespace shoal::io

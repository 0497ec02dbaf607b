// ParquetWriter: writes record batches as a Parquet file (parquet-format: README, Encodings.md,
// LogicalTypes.md, parquet.thrift), for COPY ... TO (FORMAT parquet) and `shoal tpchgen --format
// parquet`. Shoal's own implementation from the specification; DuckDB reads what it writes (the
// interop tests check it value by value).
//
// Streaming: batches are buffered (shared, zero-copy) until `row_group_size` rows are pending,
// then one row group is encoded column by column (column_chunk_writer.h: dictionary or PLAIN, RLE
// definition levels, v1 data pages, statistics) and written, so memory stays bounded by one row
// group whatever the file size. Close() writes the footer (FileMetaData with the schema as
// LogicalType plus legacy ConvertedType, per-column TYPE_ORDER column orders, created_by).
//
// The file is written under a hidden temporary name beside the target (temporary_path.h:
// "dir/.shoal-tmp-<pid>-<random>-name") and renamed to `path` only when Close() succeeds, so a
// failed or abandoned write never leaves a partial file, and readers never see one half written.
// Destroying a writer that was not closed removes the temporary file.
//
// Not thread-safe: one thread calls a writer; it encodes the columns of a row group on several
// threads of its own (ParquetWriteOptions::threads) and writes them in order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"
#include "shoal/io/file_writer.h"
#include "shoal/io/parquet/column_chunk_writer.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io::parquet {

struct ParquetWriteOptions {
  /// Rows per row group (the last one may be smaller). DuckDB's default.
  int64_t row_group_size = 122880;
  /// Page compression, level (0: the codec's default), page size, dictionary limits.
  ColumnEncodingOptions encoding;
  /// Threads that encode the columns of a row group concurrently; 0: one per hardware thread.
  int threads = 0;
  /// Pool the encoding scratch of a row group (gathered values, page buffers: about twice the row
  /// group's input bytes, held only while it is encoded) is accounted against with Reserve /
  /// Release; a refusal fails the write with OutOfMemory naming the pool. Null: not accounted.
  std::shared_ptr<MemoryPool> pool;
  /// fsync the file before it is renamed into place and its directory after (a table's data
  /// file, which a manifest will name: table_manifest.h).
  bool durable = false;
};

class ParquetWriter {
 public:
  /// Validates the schema (every column must have a Parquet type) and creates the temporary file.
  static Result<std::unique_ptr<ParquetWriter>> Open(std::string path, columnar::SchemaPtr schema,
                                                     ParquetWriteOptions options = {});

  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  /// Buffers `batch` (same column types as the schema; names may differ) and writes every full
  /// row group.
  Status WriteBatch(const columnar::RecordBatchPtr& batch);

  /// Writes the last row group and the footer, then renames the file into place. After an error
  /// the temporary file is removed and the target is untouched.
  Status Close();

  /// Removes the temporary file; the target is untouched. Safe to call more than once.
  void Abort();

  int64_t rows_written() const { return rows_written_; }

  int64_t num_row_groups() const { return static_cast<int64_t>(row_groups_.size()); }

  /// The temporary file's path (tests check that it disappears).
  const std::string& temporary_path() const { return temporary_path_; }

 private:
  ParquetWriter(std::string path, columnar::SchemaPtr schema, ParquetWriteOptions options)
      : path_(std::move(path)), schema_(std::move(schema)), options_(std::move(options)) {}

  Status Start();
  // Writes the first `rows` pending rows as one row group.
  Status FlushRowGroup(int64_t rows);
  Status Finish();

  std::string path_;
  std::unique_ptr<TemporaryPath> temporary_;
  std::string temporary_path_;  // temporary_'s path, still known after Abort()
  columnar::SchemaPtr schema_;
  ParquetWriteOptions options_;
  std::unique_ptr<FileWriter> file_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> columns_;
  std::vector<format::SchemaElement> schema_elements_;
  int num_leaves_ = 0;  // column chunks per row group
  std::vector<columnar::RecordBatchPtr> pending_;
  int64_t pending_rows_ = 0;
  int64_t rows_written_ = 0;
  std::vector<format::RowGroup> row_groups_;
  bool closed_ = false;
};

}  // namespace shoal::io::parquet

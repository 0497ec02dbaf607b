// ColumnChunkWriter: encodes one column of one row group into Parquet pages (parquet-format
// README "Column chunks", Encodings.md) and returns the chunk's metadata for the footer. Used by
// ParquetWriter (parquet_writer.h), one call per column per row group.
//
// How a chunk is written:
//  * The row group's pieces of the column (slices of the buffered batches) are first gathered into
//    one contiguous vector of physical values (Parquet's INT32 / INT64 / FLOAT / DOUBLE / BOOLEAN /
//    BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY) plus, for OPTIONAL columns, one definition level per row.
//    Dictionary arrays are written as their values. Every later step is a tight typed loop over
//    that vector: no per-value virtual call or type switch.
//  * Statistics (null_count, min_value / max_value in the column's sort order: signed or unsigned
//    integers by the logical type, decimals by value, floats ignoring NaN with -0/+0 widened as the
//    spec asks, strings and binary byte-wise unsigned) cover the whole chunk. The legacy min / max
//    fields are also set where their signed order agrees (signed integers, dates, timestamps,
//    floats, booleans). String bounds longer than 64 bytes are truncated (max rounded up).
//  * Dictionary encoding is tried for every type but booleans and wide decimals: a hash table
//    assigns indices in order of first appearance; it is abandoned when the dictionary's PLAIN size
//    passes `dictionary_page_limit` or when more than half of the first 8192 values are distinct
//    (building a dictionary that cannot pay costs more than PLAIN), and used only when dictionary
//    page + bit-packed indices are smaller than PLAIN (parquet-mr and DuckDB make the same trade).
//    Otherwise the chunk is PLAIN.
//  * Data pages are v1 pages of about `page_size` uncompressed bytes (split by rows), each with its
//    repetition and definition levels (RLE, 4-byte length prefix each) and values, compressed as
//    a whole.
//  * A nested column (struct, list, map) is first shredded into one set of levels and values per
//    leaf (column_shredder_internal.h); each leaf is then written as above, as its own chunk.
//
// Not thread-safe; a writer per thread (different columns can be encoded concurrently).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/io/parquet/compression_encoder.h"
#include "shoal/io/parquet/format/parquet_types.h"

namespace shoal::io::parquet {

/// Tunables of the encoding (ParquetWriteOptions carries them).
struct ColumnEncodingOptions {
  ParquetCompression compression = ParquetCompression::kSnappy;
  int compression_level = 0;
  /// Target uncompressed bytes of a data page.
  int64_t page_size = 1 << 20;
  /// A dictionary larger than this (PLAIN bytes) is abandoned for PLAIN.
  int64_t dictionary_page_limit = 1 << 20;
  bool use_dictionary = true;
};

/// The Parquet schema element for `field` (flat: REQUIRED or OPTIONAL primitive), with both the
/// LogicalType and, where one exists, the legacy ConvertedType. Types Parquet cannot hold
/// (interval) are NotImplemented naming the column.
Result<format::SchemaElement> MakeSchemaElement(const columnar::Field& field);

class ColumnChunkWriter {
 public:
  static Result<std::unique_ptr<ColumnChunkWriter>> Make(const columnar::Field& field,
                                                         const ColumnEncodingOptions& options);

  /// Encodes the rows of `pieces` (in order; all of the field's type) and appends the pages to
  /// `out`: one column chunk for a flat column, one per leaf of a nested one (in schema order,
  /// column_shredder_internal.h). `file_offset` is the file position at which `out` currently
  /// ends, so the page offsets in the returned metadata are absolute.
  Result<std::vector<format::ColumnChunk>> Write(const std::vector<columnar::ArrayPtr>& pieces,
                                                 int64_t file_offset, std::string* out);

  /// The column's schema elements (one for a flat column; a nested column's group and leaves
  /// depth first).
  const std::vector<format::SchemaElement>& schema_elements() const;

  /// The number of column chunks Write returns.
  int num_leaves() const;

  ~ColumnChunkWriter();
  ColumnChunkWriter(const ColumnChunkWriter&) = delete;
  ColumnChunkWriter& operator=(const ColumnChunkWriter&) = delete;

 private:
  struct Impl;
  explicit ColumnChunkWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shoal::io::parquet

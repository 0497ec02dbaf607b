// Decoding of one Parquet column chunk (all pages of one column in one row group) into one Shoal
// Array of the column's mapped type (see parquet_schema.h), or, for a flat column, into a stream
// of arrays of a few rows each (OpenLeafChunk).
//
// The chunk's bytes are read by the caller in one piece; this walks its pages (dictionary page,
// data pages v1 and v2, index pages skipped), decompresses each page body, decodes definition
// levels (RLE / bit-packed hybrid, or the deprecated BIT_PACKED) and values (PLAIN,
// PLAIN_DICTIONARY / RLE_DICTIONARY, RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), and converts physical values to the column type a page at
// a time: the per-page work is a switch on (encoding, physical type, column type) and then tight
// loops over the page's values.
//
// Everything read from the file is bounds-checked; errors are kInvalidData (or kNotImplemented for
// valid features Shoal lacks) and name the place: the caller's `where` ("file.parquet row group 2
// column 'x'") plus the page number and its byte offset in the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shoal/columnar/array.h"
#include "shoal/common/result.h"
#include "shoal/io/parquet/column_assembler_internal.h"
#include "shoal/io/parquet/parquet_schema.h"

namespace shoal::io::parquet {

namespace internal {
class ChunkDecoder;
}  // namespace internal

/// The file byte range [offset, offset + size) of a column chunk, checked against the file size.
struct ChunkRange {
  int64_t offset = 0;
  int64_t size = 0;
};

Result<ChunkRange> LocateColumnChunk(const format::ColumnChunk& chunk, int64_t file_size,
                                     const std::string& where);

/// Decodes `num_rows` values of `column` from the chunk bytes in `chunk` (which must extend at
/// least kDecodePadding bytes past `chunk_size`), read from file offset `chunk_offset`.
Result<columnar::ArrayPtr> DecodeColumnChunk(const ColumnDescriptor& column,
                                             const format::ColumnMetaData& meta, int64_t num_rows,
                                             const uint8_t* chunk, int64_t chunk_size,
                                             int64_t chunk_offset,
                                             const std::shared_ptr<MemoryPool>& pool,
                                             const std::string& where);

/// The same for any leaf: a nested leaf (ColumnDescriptor::nested) gives its slots and the
/// levels of every entry; a flat one its `num_rows` values and no levels.
Result<internal::DecodedLeaf> DecodeLeafChunk(const ColumnDescriptor& column,
                                              const format::ColumnMetaData& meta, int64_t num_rows,
                                              const uint8_t* chunk, int64_t chunk_size,
                                              int64_t chunk_offset,
                                              const std::shared_ptr<MemoryPool>& pool,
                                              const std::string& where);

/// A streaming decoder of a flat leaf's chunk (ChunkDecoder in chunk_decoder_internal.h: batches
/// of rows by BeginOutput / ReadRows / Finish, SkipRows), opened over `chunk`, which must stay
/// alive and readable kDecodePadding bytes past `chunk_size`. Its errors do not name `where`.
Result<std::unique_ptr<internal::ChunkDecoder>> OpenLeafChunk(
    const ColumnDescriptor& column, const format::ColumnMetaData& meta, int64_t num_rows,
    const uint8_t* chunk, int64_t chunk_size, int64_t chunk_offset,
    const std::shared_ptr<MemoryPool>& pool, const std::string& where);

}  // namespace shoal::io::parquet

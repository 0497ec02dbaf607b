// ChunkDecoder: decodes the pages of one Parquet column chunk into one Shoal Array (the engine
// behind DecodeColumnChunk, column_chunk_reader.h). Its two jobs live in two files:
//  * chunk_decoder.cc walks the chunk: page headers, decompression, the dictionary page,
//    definition levels, and the assembly of the output (validity, offsets, UTF-8 checks);
//  * page_values_decoder.cc decodes one page's values (PLAIN, dictionary indices, RLE booleans,
//    DELTA_*, BYTE_STREAM_SPLIT) and converts physical values to the column's type.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/buffer.h"
#include "shoal/common/memory_pool.h"
#include "shoal/io/parquet/format/parquet_types.h"
#include "shoal/io/parquet/parquet_schema.h"
#include "shoal/io/parquet/rle_decoder.h"

namespace shoal::io::parquet::internal {

using columnar::ArrayPtr;
using columnar::Buffer;
using columnar::BufferPtr;
using columnar::TypeId;
using format::CompressionCodec;
using format::Encoding;
using format::PageType;
using format::Type;

/// The spec's name of an encoding, for messages.
const char* EncodingName(Encoding::type e);

class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& column, const format::ColumnMetaData& meta, int64_t num_rows,
               std::shared_ptr<MemoryPool> pool)
      : c_(column),
        codec_(meta.codec),
        num_rows_(column.nested ? meta.num_values : num_rows),
        pool_(std::move(pool)) {}

  Status Init();

  Status Run(const uint8_t* chunk, int64_t size, int64_t file_offset);

  Result<ArrayPtr> Finish();

  /// Nested leaves: the definition and repetition levels of every entry of the chunk (one byte
  /// each; repetition levels null when max_rep is 0), and their count.
  const BufferPtr& def_levels() const { return def_levels_; }
  const BufferPtr& rep_levels() const { return rep_levels_; }
  int64_t num_levels() const { return levels_; }

 private:
  enum class Target { kBool, kFixed, kVar };

  // Page body bytes, decompressed into `out` when the codec asks for it; returns the readable
  // range (always followed by kDecodePadding readable bytes).
  Status Body(const uint8_t* src, int64_t src_size, int64_t raw_size, bool compressed,
              const BufferPtr& out, const uint8_t** data, int64_t* size);

  Status DecodePage(const uint8_t* chunk, int64_t size, int64_t* pos);

  Status DictionaryPage(const format::PageHeader& h, const uint8_t* src);

  Status CheckValueCount(int64_t num_values);

  // Nested leaves: decodes a page's `n` repetition and definition levels (RLE, without length
  // prefixes), appends them to the chunk's, and turns them into defs_ (1 for a present value,
  // 0 for a null slot) over the entries that have a slot; *slots is their number.
  Status NestedLevels(const uint8_t* rep, int64_t rep_size, const uint8_t* def, int64_t def_size,
                      int64_t n, int64_t* slots);

  Status DataPageV1(const format::PageHeader& h, const uint8_t* src);

  Status DataPageV2(const format::PageHeader& h, const uint8_t* src);

  // Decodes the values of a data page of `n` rows (definition levels in defs_ when optional) and
  // appends them to the output.
  Status Values(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n);

  // Values decoded from a page are built only from the page's bytes, so a page without a byte
  // >= 0x80 (lengths and headers included) holds only ASCII values: one fast scan instead of a
  // check per value, which is the common case.
  Status CheckUtf8(const std::vector<ByteView>& views, const uint8_t* page, int64_t page_size,
                   const char* what) const;

  Status AppendViews(const uint8_t* defs, int64_t n);

  // Physical values (fixed size, little-endian, contiguous) to the column type at dst.
  Status ConvertFixed(const uint8_t* src, int64_t n, uint8_t* dst);

  // views_ (BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY decimals) to the decimal storage at dst.
  Status ConvertViews(int64_t n, uint8_t* dst);

  // Decodes `n` non-null values. Fixed and boolean columns write to `dst` (booleans one byte
  // each); byte-array columns fill `views`.
  Status DecodeValues(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n,
                      uint8_t* dst, std::vector<ByteView>* views);

  Status Plain(const uint8_t* data, int64_t size, int64_t n, uint8_t* dst,
               std::vector<ByteView>* views);

  const ColumnDescriptor& c_;
  CompressionCodec::type codec_;
  // Flat columns: the row group's rows; nested leaves: the chunk's level entries (its num_values).
  int64_t num_rows_;
  std::shared_ptr<MemoryPool> pool_;
  Target target_ = Target::kFixed;
  int width_ = 0;

  BufferPtr validity_;
  BufferPtr values_;  // fixed values, boolean bits, or int32 offsets
  BufferPtr data_;    // byte-array data
  int64_t data_size_ = 0;
  int64_t rows_ = 0;    // slots (rows of the output array) so far
  int64_t levels_ = 0;  // level entries so far (rows_ for flat columns)
  int64_t null_count_ = 0;
  BufferPtr def_levels_;  // nested leaves only
  BufferPtr rep_levels_;

  BufferPtr page_;       // decompressed data page
  BufferPtr dict_page_;  // decompressed dictionary page, alive for the whole chunk
  bool have_dictionary_ = false;
  int64_t dict_size_ = 0;
  std::vector<uint8_t> dict_fixed_;
  std::vector<ByteView> dict_views_;

  // Per-page scratch, reused.
  std::vector<uint8_t> defs_;
  std::vector<uint8_t> bools_;
  std::vector<uint32_t> indices_;
  std::vector<int64_t> ints_;
  std::vector<int32_t> ints32_;
  std::vector<uint8_t> split_;
  std::vector<char> arena_;
  std::vector<ByteView> views_;
};

}  // namespace shoal::io::parquet::internal

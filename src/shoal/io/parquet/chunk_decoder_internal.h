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
#include "shoal/io/scan_buffers.h"

namespace shoal::io::parquet::internal {

using columnar::ArrayPtr;
using columnar::Buffer;
using columnar::BufferPtr;
using columnar::TypeId;
using format::CompressionCodec;
using format::Encoding;
using format::PageType;
using format::Type;
using io::ScanBuffers;

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

  /// Checks the row count and, with `allocate_all`, allocates the output for every row of the
  /// chunk (whole-chunk decoding); without it, outputs come from BeginOutput.
  Status Init(bool allocate_all = true);

  /// Decompresses pages into buffers of a scan's ScanBuffers instead of its own (after Init);
  /// GiveBuffers hands them back once the chunk is done.
  Status TakeBuffers(ScanBuffers* buffers);
  void GiveBuffers(ScanBuffers* buffers);

  /// Decodes the whole chunk into the output Init allocated.
  Status Run(const uint8_t* chunk, int64_t size, int64_t file_offset);

  /// Streaming (flat leaves): the chunk's bytes, which must stay alive and extend kDecodePadding
  /// readable bytes past `size`.
  void Open(const uint8_t* chunk, int64_t size, int64_t file_offset);
  /// A fresh output for up to `capacity` rows (the previous one belongs to the array Finish gave).
  Status BeginOutput(int64_t capacity);
  /// Decodes the next `n` rows of the chunk into the output.
  Status ReadRows(int64_t n);
  /// Passes over the next `n` rows of the chunk.
  Status SkipRows(int64_t n);
  /// Of the next `n` rows of the chunk, decodes only rows `selection[0, count)` (ascending
  /// offsets below `n`) into the output and passes over the others: pages without a selected
  /// row are not decompressed, and PLAIN fixed-width values, dictionary-encoded values and values
  /// decoded per page (DELTA_*_BYTE_ARRAY, BYTE_STREAM_SPLIT) of dropped rows are never
  /// converted, gathered or copied; other encodings (DELTA_BINARY_PACKED, booleans, PLAIN byte
  /// arrays) decode the runs of kept rows and pass over the gaps.
  Status ReadSelected(int64_t n, const int32_t* selection, int64_t count);
  /// Values (rows of flat columns) decoded into outputs so far, and passed over.
  int64_t values_decoded() const { return values_decoded_; }
  int64_t values_skipped() const { return values_skipped_; }
  /// Rows of the chunk read or skipped so far.
  int64_t position() const { return levels_; }

  /// The output so far as an array.
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

  // Parses the page header at *pos of the chunk and checks its sizes; *pos moves past the page,
  // *src is its body.
  static Status ReadPageHeader(const uint8_t* chunk, int64_t size, int64_t* pos,
                               format::PageHeader* h, const uint8_t** src);
  static Status CheckCrc(const format::PageHeader& h, const uint8_t* src);

  // Whole-page decoding of a nested leaf's pages (a flat leaf's stream through NextDataPage).
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

  // Streaming: the value source of the current data page.
  enum class Source { kPlainFixed, kPlainBool, kPlainBytes, kDictionary, kRleBool, kDelta, kPage };

  // Reads page headers until a data page with rows (decoding dictionary pages on the way) and
  // sets up its level and value sources; with `skip_up_to` > 0, a data page of at most that
  // many rows is passed over undecoded and its row count added to *skipped instead.
  Status NextDataPage(int64_t skip_up_to, int64_t* skipped);
  Status StartDataPage(const format::PageHeader& h, const uint8_t* src);
  Status StartValues(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n);
  // The next `n` definition levels of the page (0 or 1) into defs_; returns the number of 1s.
  Result<int64_t> NextLevels(int64_t n);
  // The next `dense` values of the page: fixed and boolean columns to `dst`, byte arrays to
  // `views`; with `skip`, only passed over.
  Status NextValues(int64_t dense, uint8_t* dst, std::vector<ByteView>* views, bool skip);
  // Decodes the next `n` rows of the current page (`n` <= its rows left) into the output.
  Status DecodeRows(int64_t n);
  // Appends `n` booleans whose `dense` present values are the first slots of bools_, placed by
  // their definition levels `defs` (unused when none is null).
  void AppendBools(const uint8_t* defs, int64_t n, int64_t dense);
  // Appends the validity of `n` rows from their definition levels (all valid when dense == n).
  void AppendValidity(const uint8_t* defs, int64_t n, int64_t dense);
  // Passes over the next `n` rows of the current page (`n` <= its rows left).
  Status SkipInPage(int64_t n);
  // Of the next `n` rows of the current page (`n` <= its rows left), decodes rows
  // `selection[0, count)` (offsets from `base`, each in [base, base + n)) into the output.
  Status DecodeSelected(int64_t n, const int32_t* selection, int64_t count, int64_t base);
  // The error context of the current page.
  Status PageContext(Status st) const;

  // Nested leaves: decodes the values of a data page of `n` slots (1 / 0 for present / null in
  // defs_ when optional) and appends them to the output.
  Status Values(Encoding::type encoding, const uint8_t* data, int64_t size, int64_t n);

  // Values decoded from a page are built only from the page's bytes, so a page without a byte
  // >= 0x80 (lengths and headers included) holds only ASCII values: one fast scan instead of a
  // check per value, which is the common case.
  Status CheckUtf8(const std::vector<ByteView>& views, const uint8_t* page, int64_t page_size,
                   const char* what) const;
  static bool AllAscii(const uint8_t* page, int64_t page_size);
  Status CheckUtf8Views(const std::vector<ByteView>& views, const char* what) const;

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

  // PLAIN fixed-size source: of the page's next `dense` values, converts values `picks[0, count)`
  // (ascending positions among them) to `dst` and passes over the rest.
  Status GatherPlainFixed(const int32_t* picks, int64_t count, int64_t dense, uint8_t* dst);
  // The same for a page whose values were decoded at its start (kPage): fixed values to `dst`,
  // byte arrays to views_.
  Status GatherPage(const int32_t* picks, int64_t count, int64_t dense, uint8_t* dst);

  // Dictionary values of indices_[0, n): to `dst` (fixed, booleans) or `views`.
  Status GatherDictionary(int64_t n, uint8_t* dst, std::vector<ByteView>* views);
  // DELTA_BINARY_PACKED values in ints_[0, n) to the column type at `dst`.
  Status ConvertInts(int64_t n, uint8_t* dst);

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
  int64_t values_decoded_ = 0;
  int64_t values_skipped_ = 0;
  BufferPtr def_levels_;  // nested leaves only
  BufferPtr rep_levels_;

  // Streaming state.
  const uint8_t* chunk_ = nullptr;
  int64_t chunk_size_ = 0;
  int64_t chunk_offset_ = 0;
  int64_t pos_ = 0;          // next page header in the chunk
  int page_number_ = -1;     // of the current page, for messages
  int64_t page_offset_ = 0;  // file offset of the current page
  int64_t capacity_ = 0;     // rows the output has room for
  int64_t page_left_ = 0;    // rows of the current data page not yet read
  // Definition levels of the current page: an RLE run decoder, or the deprecated BIT_PACKED bits.
  RleBitPackedDecoder levels_rle_{nullptr, 0, 1};
  const uint8_t* levels_bits_ = nullptr;
  int64_t levels_bit_ = 0;
  // Values of the current page.
  Source source_ = Source::kPlainFixed;
  const uint8_t* vdata_ = nullptr;
  int64_t vsize_ = 0;
  int64_t vpos_ = 0;  // bytes, bits (PLAIN booleans) or values (kPage, kDelta) consumed
  RleBitPackedDecoder values_rle_{nullptr, 0, 1};
  int index_width_ = -1;  // dictionary pages: the index bit width (-1: the page has no data)
  DeltaBinaryPackedDecoder delta_{nullptr, 0};
  bool page_ascii_ = false;  // every byte of the page's values is < 0x80 (UTF-8 check skipped)
  // kPage: the page's values, decoded at its start (fixed bytes, or views).
  std::vector<uint8_t> page_fixed_;
  std::vector<ByteView> page_views_;

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
  std::vector<uint8_t> selected_defs_;  // ReadSelected: the definition levels of the rows kept
  std::vector<uint8_t> gathered_;       // ReadSelected: the PLAIN values of the rows kept
};

}  // namespace shoal::io::parquet::internal

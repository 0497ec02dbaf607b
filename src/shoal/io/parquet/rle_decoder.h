// Decoders for the integer encodings inside Parquet pages: the RLE / bit-packed hybrid (definition
// levels, dictionary indices, booleans) and DELTA_BINARY_PACKED (and the two byte-array encodings
// built on it), per the Parquet format's Encodings.md.
//
// Contract shared by every decoder here: the input range [data, data + size) must be followed by
// at least kDecodePadding readable bytes (the reader's page buffers are allocated with that much
// slack), so bit unpacking can load whole words without a bounds branch per value. Every length
// the input claims is checked against `size` before it is used: malformed input gives kInvalidData,
// never a read past the padding. Decoders work a run or a miniblock at a time, never a virtual
// call or a Status per value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::io::parquet {

/// Readable bytes every decoder input must have after its end.
inline constexpr size_t kDecodePadding = 16;

/// Unpacks `count` little-endian bit-packed values of `bit_width` (0..64) bits starting at bit 0
/// of `src` into `out`. The caller has checked that ceil(count * bit_width / 8) bytes exist.
void UnpackBits(const uint8_t* src, int bit_width, int64_t count, uint64_t* out);
void UnpackBits32(const uint8_t* src, int bit_width, int64_t count, uint32_t* out);

/// The RLE / bit-packed hybrid of Encodings.md, without the 4-byte length prefix (callers strip it
/// where the format has one).
class RleBitPackedDecoder {
 public:
  /// `bit_width` 0..32.
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width)
      : data_(data), end_(data + size), bit_width_(bit_width) {}

  /// Decodes exactly `count` values into `out`; kInvalidData if the input ends first.
  Status Decode(uint32_t* out, int64_t count);
  /// Same, narrowed to bytes (definition levels, booleans); values must fit (bit_width <= 8).
  Status Decode(uint8_t* out, int64_t count);

 private:
  Status NextRun();

  const uint8_t* data_;
  const uint8_t* end_;
  int bit_width_;
  // Current run: a repeated value (rle_left_ > 0) or bit-packed values at packed_ (packed_left_).
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;
  const uint8_t* packed_ = nullptr;
  int64_t packed_index_ = 0;  // values of the current bit-packed run already consumed
};

/// DELTA_BINARY_PACKED for INT32 (values truncated to 32 bits) and INT64.
class DeltaBinaryPackedDecoder {
 public:
  DeltaBinaryPackedDecoder(const uint8_t* data, size_t size)
      : start_(data), data_(data), end_(data + size) {}

  /// Reads the header; total_values() is known afterwards.
  Status Init();
  int64_t total_values() const { return total_values_; }
  /// Decodes the next `count` values (count <= values left).
  Status Decode(int64_t* out, int64_t count);
  /// Bytes consumed so far; after all values are decoded, where the encoded block ends (the
  /// byte-array encodings continue with their data there).
  size_t consumed() const { return static_cast<size_t>(data_ - start_); }

 private:
  Status ReadBlockHeader();

  const uint8_t* start_;
  const uint8_t* data_;
  const uint8_t* end_;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;
  uint64_t per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t values_left_ = 0;
  uint64_t last_ = 0;
  bool first_pending_ = false;
  // Current block.
  uint64_t min_delta_ = 0;
  std::vector<uint8_t> widths_;
  uint64_t miniblock_ = 0;     // index in block
  uint64_t in_miniblock_ = 0;  // values consumed of the current miniblock
  std::vector<uint64_t> unpacked_;
  bool block_open_ = false;
};

/// A decoded byte-array value: a view into the page or into a decoder-owned arena.
using ByteView = std::string_view;

/// DELTA_LENGTH_BYTE_ARRAY: `count` values into `out` (views into `data`).
Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  std::vector<ByteView>* out);
/// DELTA_BYTE_ARRAY (incremental): values are rebuilt into `arena`, `out` views into it.
Status DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count,
                            std::vector<char>* arena, std::vector<ByteView>* out);

}  // namespace shoal::io::parquet

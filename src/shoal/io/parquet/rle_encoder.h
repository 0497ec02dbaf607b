// RleEncoder: Parquet's RLE / bit-packed hybrid encoding (parquet-format Encodings.md, "Run Length
// Encoding / Bit-Packing Hybrid"), the encoding of definition levels and of dictionary indices in
// data pages. The writer (parquet_writer.h) has every value of a page at hand, so the encoder works
// on a whole array at once instead of value by value: runs of 8 or more equal values become RLE
// runs, everything else is bit-packed in groups of 8 (LSB first), padded with zeros only at the
// very end, as the format allows because a reader knows how many values a page holds.
//
// Stateless; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>

namespace shoal::io::parquet {

class RleEncoder {
 public:
  /// Appends the hybrid encoding of `values[0 .. count)` to `out`, without the 4-byte length prefix
  /// that v1 data pages put before definition levels. Every value must be < 2^bit_width;
  /// bit_width is 0..32.
  static void Encode(const uint32_t* values, int64_t count, int bit_width, std::string* out);

  /// Appends `count` values, bit-packed LSB first with `bit_width` bits each (count may be any
  /// number; the last byte is zero-padded). The layout of a bit-packed run and of PLAIN booleans.
  static void BitPack(const uint32_t* values, int64_t count, int bit_width, std::string* out);

  /// Appends `value` as an unsigned LEB128 varint (the run headers' encoding).
  static void PutVarint(uint64_t value, std::string* out);

  /// The bits needed for values 0 .. max_value (0 for 0).
  static int BitWidth(uint64_t max_value);
};

}  // namespace shoal::io::parquet

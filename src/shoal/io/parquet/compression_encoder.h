// CompressionEncoder: compresses Parquet pages with the codecs of the format's CompressionCodec
// (parquet-format Compression.md): SNAPPY (raw snappy block), GZIP (a gzip member, RFC 1952), ZSTD
// (a zstd frame) and LZ4_RAW (a raw LZ4 block without framing). Hadoop-framed LZ4 (codec LZ4) is
// deliberately not offered: the spec deprecates it and readers disagree on its framing.
//
// One encoder per column chunk writer keeps the library contexts (zstd, zlib) for all the pages it
// compresses. Not thread-safe; use one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal::io::parquet {

/// The page compressions Shoal writes.
enum class ParquetCompression : uint8_t { kNone, kSnappy, kGzip, kZstd, kLz4Raw };

/// "none" | "uncompressed" | "snappy" | "gzip" | "zstd" | "lz4" | "lz4_raw" (case-insensitive);
/// "lz4" means LZ4_RAW. Anything else is InvalidArgument (SQLSTATE 22023) listing the choices.
Result<ParquetCompression> ParseParquetCompression(std::string_view name);

/// Lower-case name as ParseParquetCompression accepts it.
const char* ParquetCompressionName(ParquetCompression compression);

class CompressionEncoder {
 public:
  /// `level` applies to zstd (1..22) and gzip (1..9); 0 picks the codec's default.
  static Result<std::unique_ptr<CompressionEncoder>> Make(ParquetCompression compression,
                                                          int level = 0);
  ~CompressionEncoder();
  CompressionEncoder(const CompressionEncoder&) = delete;
  CompressionEncoder& operator=(const CompressionEncoder&) = delete;

  ParquetCompression compression() const { return compression_; }

  /// Replaces `*out` with the compressed form of `input` (a copy for kNone).
  Status Compress(std::string_view input, std::string* out);

 private:
  CompressionEncoder(ParquetCompression compression, int level)
      : compression_(compression), level_(level) {}

  ParquetCompression compression_;
  int level_;
  void* zstd_context_ = nullptr;  // ZSTD_CCtx*
  void* zlib_stream_ = nullptr;   // z_stream*
};

}  // namespace shoal::io::parquet

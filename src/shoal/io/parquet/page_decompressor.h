// Decompression of Parquet page bodies for every codec the format defines that Debian ships a
// library for: SNAPPY, GZIP (zlib), ZSTD, LZ4_RAW and the deprecated LZ4 (Hadoop framing, with a
// raw-block fallback as older writers produced). LZO and BROTLI give kNotImplemented.
//
// The output size is known from the page header; decompression must produce exactly that many
// bytes or the page is reported as corrupt (kInvalidData). Stateless and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shoal/common/status.h"
#include "shoal/io/parquet/format/parquet_types.h"

namespace shoal::io::parquet {

/// Decompresses [src, src + src_size) into exactly `dst_size` bytes at dst.
Status DecompressPage(format::CompressionCodec::type codec, const uint8_t* src, size_t src_size,
                      uint8_t* dst, size_t dst_size);

/// "SNAPPY", "ZSTD", ... for messages.
const char* CodecName(format::CompressionCodec::type codec);

}  // namespace shoal::io::parquet

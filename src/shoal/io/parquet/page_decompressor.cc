#include "shoal/io/parquet/page_decompressor.h"

#include <climits>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

namespace shoal::io::parquet {

namespace {

using format::CompressionCodec;

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | static_cast<uint32_t>(p[3]);
}

bool Lz4Raw(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size) {
  if (src_size > INT_MAX || dst_size > INT_MAX)
    return false;
  const int n =
      LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                          static_cast<int>(src_size), static_cast<int>(dst_size));
  return n >= 0 && static_cast<size_t>(n) == dst_size;
}

// Hadoop's framing: blocks of [uncompressed size BE32][compressed size BE32][LZ4 block].
bool Lz4Hadoop(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size) {
  size_t in = 0;
  size_t out = 0;
  while (in < src_size) {
    if (src_size - in < 8)
      return false;
    const uint32_t raw = LoadBigEndian32(src + in);
    const uint32_t packed = LoadBigEndian32(src + in + 4);
    in += 8;
    if (packed > src_size - in || raw > dst_size - out)
      return false;
    if (!Lz4Raw(src + in, packed, dst + out, raw))
      return false;
    in += packed;
    out += raw;
  }
  return out == dst_size;
}

bool Gzip(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size) {
  if (src_size > UINT_MAX || dst_size > UINT_MAX)
    return false;
  z_stream stream{};
  // 15 window bits + 32: accept a gzip or a zlib header.
  if (inflateInit2(&stream, 15 + 32) != Z_OK)
    return false;
  stream.next_in = const_cast<Bytef*>(src);
  stream.avail_in = static_cast<uInt>(src_size);
  stream.next_out = dst;
  stream.avail_out = static_cast<uInt>(dst_size);
  int rc = inflate(&stream, Z_FINISH);
  // Concatenated gzip members: keep inflating while input and room remain.
  while (rc == Z_STREAM_END && stream.avail_in > 0 && stream.avail_out > 0) {
    if (inflateReset(&stream) != Z_OK)
      break;
    rc = inflate(&stream, Z_FINISH);
  }
  const bool ok = (rc == Z_STREAM_END || rc == Z_OK) && stream.avail_out == 0;
  inflateEnd(&stream);
  return ok;
}

}  // namespace

const char* CodecName(CompressionCodec::type codec) {
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED: return "UNCOMPRESSED";
    case CompressionCodec::SNAPPY: return "SNAPPY";
    case CompressionCodec::GZIP: return "GZIP";
    case CompressionCodec::LZO: return "LZO";
    case CompressionCodec::BROTLI: return "BROTLI";
    case CompressionCodec::LZ4: return "LZ4";
    case CompressionCodec::ZSTD: return "ZSTD";
    case CompressionCodec::LZ4_RAW: return "LZ4_RAW";
  }
  return "unknown codec";
}

Status DecompressPage(CompressionCodec::type codec, const uint8_t* src, size_t src_size,
                      uint8_t* dst, size_t dst_size) {
  bool ok = false;
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED:
      return Status::Internal("DecompressPage called for an uncompressed page");
    case CompressionCodec::SNAPPY: {
      size_t expected = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(src), src_size, &expected) !=
              SNAPPY_OK ||
          expected != dst_size)
        break;
      size_t out = dst_size;
      ok = snappy_uncompress(reinterpret_cast<const char*>(src), src_size,
                             reinterpret_cast<char*>(dst), &out) == SNAPPY_OK &&
           out == dst_size;
      break;
    }
    case CompressionCodec::GZIP: ok = Gzip(src, src_size, dst, dst_size); break;
    case CompressionCodec::ZSTD: {
      const size_t n = ZSTD_decompress(dst, dst_size, src, src_size);
      ok = !ZSTD_isError(n) && n == dst_size;
      break;
    }
    case CompressionCodec::LZ4_RAW: ok = Lz4Raw(src, src_size, dst, dst_size); break;
    case CompressionCodec::LZ4:
      ok = Lz4Hadoop(src, src_size, dst, dst_size) || Lz4Raw(src, src_size, dst, dst_size);
      break;
    default:
      return Status::NotImplemented("Parquet compression codec {} is not supported",
                                    CodecName(codec));
  }
  if (!ok)
    return Status::InvalidData(
        "{} data of {} bytes does not decompress to the {} bytes the page "
        "header promises",
        CodecName(codec), src_size, dst_size);
  return Status::OK();
}

}  // namespace shoal::io::parquet

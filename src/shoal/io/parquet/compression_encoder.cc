#include "shoal/io/parquet/compression_encoder.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "shoal/common/status.h"
#include "shoal/common/text.h"

namespace shoal::io::parquet {

Result<ParquetCompression> ParseParquetCompression(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "none" || lower == "uncompressed") {
    return ParquetCompression::kNone;
  }
  if (lower == "snappy") {
    return ParquetCompression::kSnappy;
  }
  if (lower == "gzip") {
    return ParquetCompression::kGzip;
  }
  if (lower == "zstd") {
    return ParquetCompression::kZstd;
  }
  if (lower == "lz4" || lower == "lz4_raw") {
    return ParquetCompression::kLz4Raw;
  }
  return Status::InvalidArgument("unknown Parquet compression \"{}\"", name)
      .WithSqlState("22023")
      .WithHint("use one of none, snappy, gzip, zstd, lz4");
}

const char* ParquetCompressionName(ParquetCompression compression) {
  switch (compression) {
    case ParquetCompression::kNone: return "none";
    case ParquetCompression::kSnappy: return "snappy";
    case ParquetCompression::kGzip: return "gzip";
    case ParquetCompression::kZstd: return "zstd";
    case ParquetCompression::kLz4Raw: return "lz4";
  }
  return "?";
}

Result<std::unique_ptr<CompressionEncoder>> CompressionEncoder::Make(ParquetCompression compression,
                                                                     int level) {
  std::unique_ptr<CompressionEncoder> encoder(new CompressionEncoder(compression, level));
  if (compression == ParquetCompression::kZstd) {
    encoder->zstd_context_ = ZSTD_createCCtx();
    if (encoder->zstd_context_ == nullptr) {
      return Status::OutOfMemory("cannot create a zstd compression context");
    }
    if (encoder->level_ == 0) {
      encoder->level_ = 3;
    }
  } else if (compression == ParquetCompression::kGzip) {
    auto* stream = new z_stream{};
    encoder->zlib_stream_ = stream;
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
    if (deflateInit2(stream, level == 0 ? 6 : level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      return Status::Internal("deflateInit2 failed");
    }
  }
  return encoder;
}

CompressionEncoder::~CompressionEncoder() {
  if (zstd_context_ != nullptr) {
    ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_context_));
  }
  if (zlib_stream_ != nullptr) {
    auto* stream = static_cast<z_stream*>(zlib_stream_);
    deflateEnd(stream);
    delete stream;
  }
}

Status CompressionEncoder::Compress(std::string_view input, std::string* out) {
  if (input.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("a Parquet page of {} bytes is too large to compress",
                                   input.size());
  }
  switch (compression_) {
    case ParquetCompression::kNone: out->assign(input); return Status::OK();
    case ParquetCompression::kSnappy: {
      size_t size = snappy_max_compressed_length(input.size());
      out->resize(size);
      if (snappy_compress(input.data(), input.size(), out->data(), &size) != SNAPPY_OK) {
        return Status::Internal("snappy compression failed");
      }
      out->resize(size);
      return Status::OK();
    }
    case ParquetCompression::kZstd: {
      out->resize(ZSTD_compressBound(input.size()));
      size_t size = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_context_), out->data(),
                                      out->size(), input.data(), input.size(), level_);
      if (ZSTD_isError(size) != 0U) {
        return Status::Internal("zstd compression failed: {}", ZSTD_getErrorName(size));
      }
      out->resize(size);
      return Status::OK();
    }
    case ParquetCompression::kLz4Raw: {
      const int bound = LZ4_compressBound(static_cast<int>(input.size()));
      out->resize(static_cast<size_t>(bound));
      const int size =
          LZ4_compress_default(input.data(), out->data(), static_cast<int>(input.size()), bound);
      if (size <= 0 && !input.empty()) {
        return Status::Internal("lz4 compression failed");
      }
      out->resize(static_cast<size_t>(std::max(size, 0)));
      return Status::OK();
    }
    case ParquetCompression::kGzip: {
      auto* stream = static_cast<z_stream*>(zlib_stream_);
      if (deflateReset(stream) != Z_OK) {
        return Status::Internal("deflateReset failed");
      }
      out->resize(deflateBound(stream, static_cast<uLong>(input.size())));
      stream->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
      stream->avail_in = static_cast<uInt>(input.size());
      stream->next_out = reinterpret_cast<Bytef*>(out->data());
      stream->avail_out = static_cast<uInt>(out->size());
      if (deflate(stream, Z_FINISH) != Z_STREAM_END) {
        return Status::Internal("gzip compression failed");
      }
      out->resize(out->size() - stream->avail_out);
      return Status::OK();
    }
  }
  return Status::Internal("unknown compression {}", static_cast<int>(compression_));
}

}  // namespace shoal::io::parquet

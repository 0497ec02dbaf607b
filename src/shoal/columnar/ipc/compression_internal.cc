#include "shoal/columnar/ipc/compression_internal.h"

#include <cstring>
#include <limits>

#include <lz4frame.h>
#include <zstd.h>

namespace shoal::columnar::ipc::internal {
namespace {

// An LZ4 sequence token plus one 0xFF length byte adds at most 255 output bytes per input byte;
// 256 leaves room for frame and block headers.
constexpr int64_t kLz4MaxRatio = 256;
// A Zstandard RLE block spends 4 bytes (3-byte header, 1 byte value) on up to 128 KiB of output.
constexpr int64_t kZstdMaxRatio = (int64_t{128} << 10) / 4;
// Slack for tiny inputs whose headers dominate.
constexpr int64_t kDecompressSlack = 1 << 16;

LZ4F_preferences_t Lz4Preferences(int64_t size) {
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof(prefs));
  // Recording the content size lets a reader check it against the IPC length prefix before it
  // decodes a single block.
  prefs.frameInfo.contentSize = static_cast<unsigned long long>(size);
  prefs.frameInfo.blockSizeID = LZ4F_max256KB;
  return prefs;
}

}  // namespace

struct Codec::Contexts {
  LZ4F_cctx* lz4_c = nullptr;
  LZ4F_dctx* lz4_d = nullptr;
  ZSTD_CCtx* zstd_c = nullptr;
  ZSTD_DCtx* zstd_d = nullptr;

  ~Contexts() {
    LZ4F_freeCompressionContext(lz4_c);
    LZ4F_freeDecompressionContext(lz4_d);
    ZSTD_freeCCtx(zstd_c);
    ZSTD_freeDCtx(zstd_d);
  }
};

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone: return "none";
    case Compression::kLz4Frame: return "LZ4_FRAME";
    case Compression::kZstd: return "ZSTD";
  }
  return "unknown";
}

Codec::Codec(Compression compression, int zstd_level)
    : compression_(compression), zstd_level_(zstd_level), contexts_(new Contexts()) {}

Codec::~Codec() = default;

Result<std::unique_ptr<Codec>> Codec::Make(Compression compression, int zstd_level) {
  std::unique_ptr<Codec> codec(new Codec(compression, zstd_level));
  Contexts& c = *codec->contexts_;
  switch (compression) {
    case Compression::kLz4Frame:
      if (LZ4F_isError(LZ4F_createCompressionContext(&c.lz4_c, LZ4F_VERSION)) ||
          LZ4F_isError(LZ4F_createDecompressionContext(&c.lz4_d, LZ4F_VERSION))) {
        return Status::OutOfMemory("cannot create an LZ4 frame context");
      }
      return codec;
    case Compression::kZstd:
      if (zstd_level < ZSTD_minCLevel() || zstd_level > ZSTD_maxCLevel()) {
        return Status::InvalidArgument("zstd level {} is outside {}..{}", zstd_level,
                                       ZSTD_minCLevel(), ZSTD_maxCLevel());
      }
      c.zstd_c = ZSTD_createCCtx();
      c.zstd_d = ZSTD_createDCtx();
      if (c.zstd_c == nullptr || c.zstd_d == nullptr)
        return Status::OutOfMemory("cannot create a zstd context");
      return codec;
    case Compression::kNone: break;
  }
  return Status::InvalidArgument("no codec for compression '{}'", CompressionName(compression));
}

int64_t Codec::MaxCompressedSize(int64_t size) const {
  if (compression_ == Compression::kLz4Frame) {
    // One-shot frames (Compress) need only the frame bound; the streaming bound would add a
    // whole buffered block (256 KiB) to every buffer's scratch space.
    LZ4F_preferences_t prefs = Lz4Preferences(size);
    return static_cast<int64_t>(LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs));
  }
  return static_cast<int64_t>(ZSTD_compressBound(static_cast<size_t>(size)));
}

Result<int64_t> Codec::Compress(const uint8_t* data, int64_t size, uint8_t* out, int64_t capacity) {
  Contexts& c = *contexts_;
  if (compression_ == Compression::kLz4Frame) {
    LZ4F_preferences_t prefs = Lz4Preferences(size);
    size_t n = LZ4F_compressFrame(out, static_cast<size_t>(capacity), data,
                                  static_cast<size_t>(size), &prefs);
    if (LZ4F_isError(n))
      return Status::Internal("LZ4F_compressFrame: {}", LZ4F_getErrorName(n));
    return static_cast<int64_t>(n);
  }
  size_t n = ZSTD_compressCCtx(c.zstd_c, out, static_cast<size_t>(capacity), data,
                               static_cast<size_t>(size), zstd_level_);
  if (ZSTD_isError(n))
    return Status::Internal("ZSTD_compressCCtx: {}", ZSTD_getErrorName(n));
  return static_cast<int64_t>(n);
}

int64_t Codec::MaxDecompressedSize(int64_t compressed_size) const {
  int64_t ratio = compression_ == Compression::kLz4Frame ? kLz4MaxRatio : kZstdMaxRatio;
  if (compressed_size > (std::numeric_limits<int64_t>::max() - kDecompressSlack) / ratio)
    return std::numeric_limits<int64_t>::max();
  return compressed_size * ratio + kDecompressSlack;
}

Status Codec::CheckFrameHeader(const uint8_t* data, int64_t size, int64_t expected_size) {
  if (compression_ == Compression::kLz4Frame) {
    LZ4F_dctx* d = contexts_->lz4_d;
    LZ4F_resetDecompressionContext(d);
    LZ4F_frameInfo_t info;
    size_t consumed = static_cast<size_t>(size);
    size_t hint = LZ4F_getFrameInfo(d, &info, data, &consumed);
    LZ4F_resetDecompressionContext(d);
    if (LZ4F_isError(hint))
      return Status::InvalidData("LZ4 frame header is corrupt: {}", LZ4F_getErrorName(hint));
    // Zero means the writer did not record the size.
    if (info.contentSize != 0 && info.contentSize != static_cast<uint64_t>(expected_size)) {
      return Status::InvalidData(
          "LZ4 frame declares {} bytes of content but the buffer's length prefix says {}",
          info.contentSize, expected_size);
    }
    return Status::OK();
  }
  unsigned long long declared = ZSTD_getFrameContentSize(data, static_cast<size_t>(size));
  if (declared == ZSTD_CONTENTSIZE_ERROR)
    return Status::InvalidData("zstd frame header is corrupt");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != static_cast<uint64_t>(expected_size)) {
    return Status::InvalidData(
        "zstd frame declares {} bytes of content but the buffer's length prefix says {}", declared,
        expected_size);
  }
  return Status::OK();
}

Status Codec::Decompress(const uint8_t* data, int64_t size, uint8_t* out, int64_t expected_size) {
  SHOAL_RETURN_IF_ERROR(CheckFrameHeader(data, size, expected_size));
  Contexts& c = *contexts_;
  if (compression_ == Compression::kLz4Frame) {
    LZ4F_resetDecompressionContext(c.lz4_d);
    size_t in_pos = 0;
    auto in_size = static_cast<size_t>(size);
    size_t out_pos = 0;
    auto out_size = static_cast<size_t>(expected_size);
    while (true) {
      size_t dst_len = out_size - out_pos;
      size_t src_len = in_size - in_pos;
      size_t hint =
          LZ4F_decompress(c.lz4_d, out + out_pos, &dst_len, data + in_pos, &src_len, nullptr);
      if (LZ4F_isError(hint)) {
        LZ4F_resetDecompressionContext(c.lz4_d);
        return Status::InvalidData("LZ4 frame is corrupt: {}", LZ4F_getErrorName(hint));
      }
      in_pos += src_len;
      out_pos += dst_len;
      if (hint == 0)
        break;  // frame complete
      if (src_len == 0 && dst_len == 0) {
        LZ4F_resetDecompressionContext(c.lz4_d);
        if (in_pos == in_size) {
          return Status::InvalidData("LZ4 frame is truncated after {} of {} bytes", out_pos,
                                     expected_size);
        }
        return Status::InvalidData("LZ4 frame decodes to more than the declared {} bytes",
                                   expected_size);
      }
    }
    if (out_pos != out_size) {
      return Status::InvalidData("LZ4 frame decodes to {} bytes but the length prefix says {}",
                                 out_pos, expected_size);
    }
    if (in_pos != in_size) {
      return Status::InvalidData("{} bytes follow the LZ4 frame inside the compressed buffer",
                                 in_size - in_pos);
    }
    return Status::OK();
  }
  size_t n = ZSTD_decompressDCtx(c.zstd_d, out, static_cast<size_t>(expected_size), data,
                                 static_cast<size_t>(size));
  if (ZSTD_isError(n))
    return Status::InvalidData("zstd data is corrupt: {}", ZSTD_getErrorName(n));
  if (n != static_cast<size_t>(expected_size)) {
    return Status::InvalidData("zstd data decodes to {} bytes but the length prefix says {}", n,
                               expected_size);
  }
  return Status::OK();
}

}  // namespace shoal::columnar::ipc::internal

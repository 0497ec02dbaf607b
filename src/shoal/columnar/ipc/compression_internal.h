// Body compression codecs of Arrow IPC (LZ4 frame and Zstandard), as used by the writer and the
// reader for the per-buffer compression of record batch and dictionary bodies.
//
// A Codec owns the library contexts so that a writer or reader that compresses many buffers does
// not create and destroy a context per buffer. Decompression treats its input as hostile: the
// declared size must match exactly, frames must end where the buffer ends, and the caller bounds
// the declared size (MaxDecompressedSize) before allocating anything.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/common/result.h"

namespace shoal::columnar::ipc::internal {

class Codec {
 public:
  /// `compression` must not be kNone.
  static Result<std::unique_ptr<Codec>> Make(Compression compression, int zstd_level = 1);
  ~Codec();
  Codec(const Codec&) = delete;
  Codec& operator=(const Codec&) = delete;

  Compression compression() const { return compression_; }

  /// Worst-case compressed size of `size` input bytes.
  int64_t MaxCompressedSize(int64_t size) const;
  /// Compresses into `out` (capacity at least MaxCompressedSize(size)); returns the bytes written.
  Result<int64_t> Compress(const uint8_t* data, int64_t size, uint8_t* out, int64_t capacity);
  /// Checks what the frame header says about the content size against `expected_size`, so that a
  /// corrupted length prefix is caught before the output is allocated.
  Status CheckFrameHeader(const uint8_t* data, int64_t size, int64_t expected_size);
  /// Decompresses exactly `expected_size` bytes into `out`; anything else is InvalidData.
  Status Decompress(const uint8_t* data, int64_t size, uint8_t* out, int64_t expected_size);

  /// Largest output `compressed_size` bytes of this codec can legitimately decode to. Both
  /// formats have a bounded expansion per input byte (a run-length or match token can only
  /// describe so many output bytes), so a larger declared size is a corruption, and rejecting it
  /// keeps a flipped length prefix from allocating gigabytes.
  int64_t MaxDecompressedSize(int64_t compressed_size) const;

 private:
  struct Contexts;
  Codec(Compression compression, int zstd_level);

  Compression compression_;
  int zstd_level_;
  std::unique_ptr<Contexts> contexts_;
};

/// "LZ4_FRAME", "ZSTD", "none".
const char* CompressionName(Compression compression);

}  // namespace shoal::columnar::ipc::internal

#include "shoal/columnar/ipc/compression_name.h"

#include "shoal/common/text.h"

namespace shoal::columnar::ipc {

Result<Compression> ParseCompression(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "none" || lower == "uncompressed")
    return Compression::kNone;
  if (lower == "lz4" || lower == "lz4_frame")
    return Compression::kLz4Frame;
  if (lower == "zstd")
    return Compression::kZstd;
  return Status::InvalidArgument("unknown compression '{}' (valid: {})", name, kCompressionNames);
}

}  // namespace shoal::columnar::ipc

// The names of IPC body compressions as users write them: the `shoal demo --compression` flag,
// the dist_compression setting (which adds "auto", see distributed/transport/wire_stream.h) and
// COPY ... (FORMAT arrow, COMPRESSION ...). One parser so that every place takes the same names.
#pragma once

#include <string_view>

#include "shoal/columnar/ipc/ipc_options.h"
#include "shoal/common/result.h"

namespace shoal::columnar::ipc {

/// "none" (or "uncompressed"), "lz4" (or "lz4_frame"), "zstd"; case-insensitive. Anything else is
/// InvalidArgument "unknown compression 'x' (valid: none, lz4, zstd)".
Result<Compression> ParseCompression(std::string_view name);

/// The names ParseCompression lists as valid, for messages: "none, lz4, zstd".
inline constexpr std::string_view kCompressionNames = "none, lz4, zstd";

}  // namespace shoal::columnar::ipc

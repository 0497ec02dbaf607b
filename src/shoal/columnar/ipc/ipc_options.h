// Options shared by the Arrow IPC reader and writer (see writer.h, reader.h).
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/common/memory_pool.h"

namespace shoal::columnar::ipc {

/// Body compression of record batch and dictionary messages (Arrow's BodyCompression).
enum class Compression : uint8_t { kNone = 0, kLz4Frame = 1, kZstd = 2 };

struct WriteOptions {
  Compression compression = Compression::kNone;
  int zstd_level = 1;
  /// Decimals of precision <= 18 are 64-bit in memory. Arrow's Decimal64 (bitWidth 64) keeps them
  /// zero-copy; readers that predate it (older Arrow libraries) need the 128-bit form, at the cost
  /// of widening every value on write. See docs/architecture.md, "Decimals".
  bool widen_decimal64 = false;
  /// When a later batch's dictionary extends the one already sent (same leading values), send
  /// only the new values as a delta dictionary batch (allowed in both formats); otherwise the
  /// stream format replaces the dictionary and the file format refuses the batch.
  bool emit_dictionary_deltas = true;
  /// Pool for temporary buffers (compression, compaction of slices).
  std::shared_ptr<MemoryPool> pool = nullptr;  // null: DefaultMemoryPool()
};

struct ReadOptions {
  /// Check that utf8 columns hold valid UTF-8 (costs a pass over the string bytes).
  bool check_utf8 = true;
  /// Pool for decompressed bodies and converted columns.
  std::shared_ptr<MemoryPool> pool = nullptr;  // null: DefaultMemoryPool()
};

}  // namespace shoal::columnar::ipc

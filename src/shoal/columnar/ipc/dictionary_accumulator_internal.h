// DictionaryAccumulator: the current dictionary of one dictionary id while an IPC stream or file is
// read, with delta dictionary batches appended in amortised constant time per value.
//
// A naive append copies the whole dictionary for every delta, which makes a stream of many small
// deltas quadratic -- for hostile input, a hang. Instead the values (fixed-width values, or string
// offsets and bytes) live in storage with spare capacity that grows geometrically; each
// dictionary handed out views a prefix of it, and appends write only past every prefix handed out,
// so batches already returned (possibly being read by other threads) never see a byte change.
// Bitmaps (validity, boolean values) are small and simply copied; the bytes copied that way are
// bounded relative to the delta bytes received, so a crafted stream cannot make them quadratic.
#pragma once

#include <cstdint>
#include <memory>

#include "shoal/columnar/array.h"

namespace shoal::columnar::ipc::internal {

class DictionaryAccumulator {
 public:
  explicit DictionaryAccumulator(std::shared_ptr<MemoryPool> pool) : pool_(std::move(pool)) {}

  /// The current dictionary, or null before the first dictionary batch.
  const ArrayPtr& dictionary() const { return dictionary_; }

  /// A non-delta dictionary batch: replaces the dictionary.
  void Replace(ArrayPtr dictionary);
  /// A delta dictionary batch: appends `delta` (same type, not a dictionary type). Without a
  /// current dictionary, the delta becomes the dictionary.
  Status Append(const ArrayPtr& delta);

 private:
  // Makes room for `bytes` in `storage` (holding `used` valid bytes), growing geometrically.
  Status Reserve(BufferPtr* storage, int64_t used, int64_t bytes);

  std::shared_ptr<MemoryPool> pool_;
  ArrayPtr dictionary_;
  // Storage behind dictionary_'s values (or offsets) and string bytes when dictionary_ was built
  // here; null when dictionary_ came from a message and has not been appended to yet.
  BufferPtr values_;
  BufferPtr data_;
  int64_t delta_bytes_ = 0;   // value bytes received in deltas
  int64_t copied_bytes_ = 0;  // bitmap bytes copied by appends
};

}  // namespace shoal::columnar::ipc::internal

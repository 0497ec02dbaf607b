#include <functional>

#include "shoal/io/parquet/value_encoders_internal.h"

namespace shoal::io::parquet::internal {

bool BuildByteDictionary(const Values& values, int64_t limit, ByteDictionary* dictionary,
                         std::vector<uint32_t>* indices) {
  SlotTable table;
  const int64_t n = static_cast<int64_t>(values.offsets.size()) - 1;
  indices->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(i) == kDictionaryProbe && dictionary->size() > kDictionaryProbe / 2) {
      return false;
    }
    std::string_view v = values.Bytes(i);
    const uint64_t hash = Mix(std::hash<std::string_view>()(v));
    uint32_t* slot = table.Find(
        hash, [&](uint32_t k) { return dictionary->hashes[k] == hash && dictionary->Get(k) == v; });
    if (*slot == 0) {
      dictionary->bytes.append(v);
      dictionary->offsets.push_back(static_cast<int64_t>(dictionary->bytes.size()));
      dictionary->hashes.push_back(hash);
      const auto size = static_cast<uint32_t>(dictionary->size());
      // PLAIN bytes: a 4-byte length per value plus the bytes.
      if (static_cast<int64_t>(dictionary->bytes.size() + 4 * dictionary->size()) > limit) {
        return false;
      }
      *slot = size;
      // May rehash, which invalidates `slot`.
      table.Added(size, [&](uint32_t k) { return dictionary->hashes[k]; });
      (*indices)[static_cast<size_t>(i)] = size - 1;
      continue;
    }
    (*indices)[static_cast<size_t>(i)] = *slot - 1;
  }
  return true;
}

}  // namespace shoal::io::parquet::internal

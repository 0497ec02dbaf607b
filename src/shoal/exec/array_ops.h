// Array operations every operator needs: gather by row indices (filters, repartitioning, CASE,
// sorting), concatenation (coalescing small batches), broadcast of constants, and the bitmap and
// buffer helpers kernels use to build their outputs without per-value builder calls.
//
// All functions are vectorized over whole arrays: one switch on the type per call, then a typed
// loop. Outputs are new arrays at offset 0 allocated from the given pool.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/record_batch.h"

namespace shoal::exec {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::BufferPtr;
using columnar::DataType;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::TypeId;

/// Row positions within one batch, ascending when produced by a filter.
using SelectionVector = std::vector<int32_t>;

/// Element indices[i] of `array` for i in [0, count). With `allow_null_index`, a negative index
/// yields a null (outer joins, CASE without ELSE).
Result<ArrayPtr> Take(const Array& array, const int32_t* indices, int64_t count,
                      const std::shared_ptr<MemoryPool>& pool, bool allow_null_index = false);
Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch, const int32_t* indices, int64_t count,
                                 const std::shared_ptr<MemoryPool>& pool);
/// The arrays one after the other; all must have the same type (dictionary arrays with different
/// dictionaries are decoded).
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays,
                             const std::shared_ptr<MemoryPool>& pool);
Result<RecordBatchPtr> ConcatenateBatches(const columnar::SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches,
                                          const std::shared_ptr<MemoryPool>& pool);
/// `length` copies of element 0 of `one`.
Result<ArrayPtr> Broadcast(const Array& one, int64_t length,
                           const std::shared_ptr<MemoryPool>& pool);
/// Positions of the rows of a boolean array that are valid and true, appended to `out`; each is
/// offset by `base`.
void SelectTrue(const Array& predicate, SelectionVector* out, int32_t base = 0);
/// Sets `out` to the positions i in [0, n) for which keep(i) holds. Sized once and written by
/// index: an inner loop of push_back costs a capacity check and a branch per row.
template <typename Keep>
void SelectRows(int64_t n, SelectionVector* out, Keep&& keep) {
  out->resize(static_cast<size_t>(n));
  int32_t* dst = out->data();
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    dst[k] = static_cast<int32_t>(i);
    k += keep(i) ? 1 : 0;
  }
  out->resize(static_cast<size_t>(k));
}
/// Decodes a dictionary array into its value type (other arrays are returned as they are).
Result<ArrayPtr> DecodeDictionary(const ArrayPtr& array, const std::shared_ptr<MemoryPool>& pool);

namespace bits {

/// A zeroed or uninitialised bitmap of `length` bits.
Result<BufferPtr> Allocate(int64_t length, const std::shared_ptr<MemoryPool>& pool,
                           bool zeroed = false);
/// Copies bits [offset, offset + length) of `src` to `dst` starting at bit 0 (whole bytes).
void Extract(const uint8_t* src, int64_t offset, int64_t length, uint8_t* dst);
/// dst[0..length) &= src bits [offset, offset + length).
void AndInto(const uint8_t* src, int64_t offset, int64_t length, uint8_t* dst);
/// The validity of `array` as a fresh bitmap at offset 0, or null when it has no nulls.
Result<BufferPtr> CopyValidity(const Array& array, const std::shared_ptr<MemoryPool>& pool);
/// AND of the validity of `arrays` (each of `length` elements) at offset 0; null when none has
/// nulls.
Result<BufferPtr> AndValidity(const std::vector<const Array*>& arrays, int64_t length,
                              const std::shared_ptr<MemoryPool>& pool);
/// The validity of `arrays` laid end to end (`length` elements, `null_count` nulls in all) at
/// offset 0; null when there are no nulls. Concatenate's, flat and nested alike.
Result<BufferPtr> ConcatenateValidity(const std::vector<ArrayPtr>& arrays, int64_t length,
                                      int64_t null_count, const std::shared_ptr<MemoryPool>& pool);
/// The validity of Take(array, indices): null where the source is null or (with
/// `allow_null_index`) the index is negative; null when nothing is null. Sets `*null_count`.
Result<BufferPtr> TakeValidity(const Array& array, const int32_t* indices, int64_t count,
                               const std::shared_ptr<MemoryPool>& pool, bool allow_null_index,
                               int64_t* null_count);
/// Packs one byte per value (nonzero = set) into a bitmap at offset 0.
void PackBytes(const uint8_t* bytes, int64_t length, uint8_t* dst);

}  // namespace bits

/// An uninitialised values buffer for `length` values of T.
template <typename T>
Result<BufferPtr> AllocateValues(int64_t length, const std::shared_ptr<MemoryPool>& pool) {
  return columnar::Buffer::Allocate(length * static_cast<int64_t>(sizeof(T)), pool);
}

/// Sizes `bits` of physical storage of a fixed-width type (0 for others).
inline int PhysicalByteWidth(const DataType& type) {
  return type.bit_width() > 1 ? type.bit_width() / 8 : 0;
}

}  // namespace shoal::exec

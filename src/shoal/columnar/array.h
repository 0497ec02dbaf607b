// Array: one column of values in the Arrow memory layout (see data_type.h for the buffers of each
// type). Arrays are immutable and shared (ArrayPtr); slicing is zero-copy and only moves `offset`.
//
// Accessors take logical indices (0 .. length-1) and apply the offset themselves. Typed raw access
// for vectorized loops: values<T>() returns a pointer already advanced by the offset; validity bits
// are not advanced (bit_offset() tells where the array's first bit is), as in Arrow.
//
// Arrays built by Shoal are valid by construction. Arrays assembled from outside bytes (IPC,
// Parquet, the network) must pass Validate() before anyone reads them: it checks every buffer size,
// every offset and every dictionary index, so a corrupted file yields an InvalidData error, not a
// crash.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/buffer.h"
#include "shoal/columnar/data_type.h"
#include "shoal/common/check.h"

namespace shoal::columnar {

class Array;
using ArrayPtr = std::shared_ptr<const Array>;

class Array {
 public:
  static constexpr int64_t kUnknownNullCount = -1;

  /// `buffers` follow the Arrow layout of `type` (buffers[0], the validity bitmap, may be null when
  /// there are no nulls). A null count of kUnknownNullCount is computed from the bitmap.
  static ArrayPtr Make(DataType type, int64_t length, std::vector<BufferPtr> buffers,
                       int64_t null_count = kUnknownNullCount, int64_t offset = 0,
                       ArrayPtr dictionary = nullptr);
  /// A nested array (list kinds, struct, map): `buffers` as in Make, `children` one per child
  /// field of `type`, unsliced (the parent's offset indexes them; see data_type.h).
  static ArrayPtr MakeNested(DataType type, int64_t length, std::vector<BufferPtr> buffers,
                             std::vector<ArrayPtr> children, int64_t null_count = kUnknownNullCount,
                             int64_t offset = 0);
  /// An array of `length` nulls of any type (buffers allocated and zeroed).
  static Result<ArrayPtr> MakeAllNull(const DataType& type, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool);

  const DataType& type() const { return type_; }

  TypeId type_id() const { return type_.id(); }

  int64_t length() const { return length_; }

  int64_t offset() const { return offset_; }

  int64_t null_count() const { return null_count_; }

  const std::vector<BufferPtr>& buffers() const { return buffers_; }

  const BufferPtr& buffer(int i) const { return buffers_[static_cast<size_t>(i)]; }

  /// Nested arrays: the child arrays (unsliced).
  const std::vector<ArrayPtr>& children() const { return children_; }

  const ArrayPtr& child(int i) const { return children_[static_cast<size_t>(i)]; }

  int num_children() const { return static_cast<int>(children_.size()); }

  /// List kinds and maps: element i is rows [ListStart(i), ListEnd(i)) of child(0).
  int64_t ListStart(int64_t i) const {
    switch (type_.id()) {
      case TypeId::kLargeList: return buffers_[1]->data_as<int64_t>()[offset_ + i];
      case TypeId::kFixedSizeList: return (offset_ + i) * type_.list_size();
      default: return buffers_[1]->data_as<int32_t>()[offset_ + i];
    }
  }

  int64_t ListEnd(int64_t i) const { return ListStart(i + 1); }

  int64_t ListLength(int64_t i) const { return ListEnd(i) - ListStart(i); }

  /// Structs: the row of the children that element i is.
  int64_t ChildRow(int64_t i) const { return offset_ + i; }

  /// Dictionary arrays only: the values the indices refer to.
  const ArrayPtr& dictionary() const { return dictionary_; }

  /// Validity bitmap, or null when every value is valid. Index with bit_offset() + i.
  const uint8_t* validity() const { return validity_; }

  int64_t bit_offset() const { return offset_; }

  bool IsValid(int64_t i) const {
    if (type_.id() == TypeId::kNull)
      return false;
    return validity_ == nullptr || bitmap::GetBit(validity_, offset_ + i);
  }

  bool IsNull(int64_t i) const { return !IsValid(i); }

  /// Fixed-width values, advanced by the offset.
  template <typename T>
  const T* values() const {
    SHOAL_DCHECK(type_.is_fixed_width() && type_.id() != TypeId::kBoolean, "values<T> on {}",
                 type_.ToString());
    return reinterpret_cast<const T*>(buffers_[1]->data()) + offset_;
  }

  template <typename T>
  T Value(int64_t i) const {
    return values<T>()[i];
  }

  /// Boolean arrays: the value bit of element i.
  bool BoolValue(int64_t i) const { return bitmap::GetBit(buffers_[1]->data(), offset_ + i); }

  /// utf8 / binary: offsets advanced by the array offset (length + 1 entries).
  const int32_t* offsets() const { return buffers_[1]->data_as<int32_t>() + offset_; }

  const uint8_t* string_data() const { return buffers_[2] ? buffers_[2]->data() : nullptr; }

  std::string_view StringValue(int64_t i) const {
    const int32_t* o = offsets();
    return {reinterpret_cast<const char*>(string_data()) + o[i],
            static_cast<size_t>(o[i + 1] - o[i])};
  }

  /// Dictionary arrays: the index of element i, widened.
  int64_t DictionaryIndex(int64_t i) const;

  /// Zero-copy view of elements [offset, offset + length).
  ArrayPtr Slice(int64_t offset, int64_t length) const;

  /// Structural validation for arrays built from outside bytes. Checks buffer count and sizes,
  /// offsets (monotonic, within data), dictionary indices (within the dictionary) and, when
  /// `check_utf8` is set, that utf8 values are valid UTF-8. Nested arrays: the children's count
  /// and types, list offsets (monotonic, within the child), child lengths (a struct's children
  /// cover its rows, a fixed-size list's child holds size * rows items), map keys non-null, and
  /// every child recursively.
  Status Validate(bool check_utf8 = true) const;

  /// Bytes of memory the array's buffers hold (whole buffers, not just the slice).
  int64_t BufferBytes() const;

  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

 private:
  Array() = default;
  Status ValidateNested(bool check_utf8) const;

  DataType type_;
  int64_t length_ = 0;
  int64_t offset_ = 0;
  int64_t null_count_ = 0;
  std::vector<BufferPtr> buffers_;
  ArrayPtr dictionary_;
  std::vector<ArrayPtr> children_;
  const uint8_t* validity_ = nullptr;
};

/// True when the `n` bytes at `s` are valid UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
bool IsValidUtf8(const uint8_t* s, int64_t n);

/// Element-wise equality of two arrays (types, nulls and values; slices compared logically;
/// dictionary arrays compared by decoded value; nested arrays element by element, so the
/// contents of null lists and structs do not matter). For tests and validation, not hot paths.
bool ArraysEqual(const Array& a, const Array& b);

}  // namespace shoal::columnar

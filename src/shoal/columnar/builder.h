// Typed builders: the way Shoal code creates arrays. A builder owns growing buffers from a memory
// pool and turns them into an immutable Array on Finish() (which also resets it for reuse).
//
// Hot loops call Reserve(n) once and then UnsafeAppend (no capacity or status check per value);
// convenience paths call Append, which checks capacity and can fail only with OutOfMemory. The
// validity bitmap is materialised lazily on the first null, so all-valid columns carry none.
//
// MakeBuilder(type) returns the right builder behind the ArrayBuilder interface for code that is
// generic over types (readers, test helpers); typed code uses the concrete classes directly so no
// virtual call happens per value.
#pragma once

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "shoal/columnar/array.h"
#include "shoal/columnar/decimal.h"

namespace shoal::columnar {

class ArrayBuilder {
 public:
  ArrayBuilder(DataType type, std::shared_ptr<MemoryPool> pool);
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const DataType& type() const { return type_; }

  int64_t length() const { return length_; }

  int64_t null_count() const { return null_count_; }

  /// Makes room for `additional` more values (and, for binary builders, no data bytes).
  virtual Status Reserve(int64_t additional) = 0;
  virtual Status AppendNulls(int64_t count) = 0;

  Status AppendNull() { return AppendNulls(1); }

  /// Appends element `i` of `source`, which must have this builder's type (dictionary sources
  /// are decoded when this builder is not a dictionary builder). For generic code paths.
  virtual Status AppendFrom(const Array& source, int64_t i) = 0;
  /// Publishes the built array and resets the builder.
  virtual Result<ArrayPtr> Finish() = 0;

 protected:
  // Validity bookkeeping shared by all builders. `capacity` is in values.
  Status ReserveValidity(int64_t capacity);

  void UnsafeSetValid(int64_t i) {
    if (validity_)
      bitmap::SetBit(validity_->mutable_data(), i);
  }

  Status UnsafeSetNull(int64_t i);
  Result<BufferPtr> FinishValidity();
  void ResetBase();

  DataType type_;
  std::shared_ptr<MemoryPool> pool_;
  int64_t length_ = 0;
  int64_t capacity_ = 0;
  int64_t null_count_ = 0;
  BufferPtr validity_;  // null until the first null is appended
};

/// Builder for every fixed-width type whose values are a C type: integers, floats, date32,
/// timestamps (int64), decimals (int64 or int128), intervals (MonthDayNano), dictionary indices.
template <typename T>
class FixedWidthBuilder : public ArrayBuilder {
 public:
  FixedWidthBuilder(DataType type, std::shared_ptr<MemoryPool> pool);

  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;

  Status Append(T value) {
    if (length_ == capacity_) [[unlikely]] {
      SHOAL_RETURN_IF_ERROR(Reserve(1));
    }
    UnsafeAppend(value);
    return Status::OK();
  }

  void UnsafeAppend(T value) {
    UnsafeSetValid(length_);
    values_->template mutable_data_as<T>()[length_++] = value;
  }

  /// Appends `count` values; `valid` (one byte per value, nonzero = valid) may be null.
  Status AppendValues(const T* values, int64_t count, const uint8_t* valid = nullptr);

 private:
  BufferPtr values_;
};

class BooleanBuilder : public ArrayBuilder {
 public:
  explicit BooleanBuilder(std::shared_ptr<MemoryPool> pool);
  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;

  Status Append(bool value) {
    if (length_ == capacity_) [[unlikely]] {
      SHOAL_RETURN_IF_ERROR(Reserve(1));
    }
    UnsafeAppend(value);
    return Status::OK();
  }

  void UnsafeAppend(bool value) {
    UnsafeSetValid(length_);
    bitmap::SetBitTo(values_->mutable_data(), length_++, value);
  }

 private:
  BufferPtr values_;
};

/// utf8 and binary. Does not check UTF-8: Shoal's own strings are valid by construction, and
/// outside bytes are checked by Array::Validate.
class BinaryBuilder : public ArrayBuilder {
 public:
  BinaryBuilder(DataType type, std::shared_ptr<MemoryPool> pool);
  Status Reserve(int64_t additional) override;
  /// Makes room for `bytes` more data bytes.
  Status ReserveData(int64_t bytes);
  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;

  Status Append(std::string_view value);

  /// After Reserve(1) and ReserveData(value.size()).
  void UnsafeAppend(std::string_view value) {
    UnsafeSetValid(length_);
    std::memcpy(data_->mutable_data() + data_length_, value.data(), value.size());
    data_length_ += static_cast<int64_t>(value.size());
    offsets_->mutable_data_as<int32_t>()[++length_] = static_cast<int32_t>(data_length_);
  }

  int64_t data_length() const { return data_length_; }

 private:
  BufferPtr offsets_;
  BufferPtr data_;
  int64_t data_length_ = 0;
};

class NullBuilder : public ArrayBuilder {
 public:
  explicit NullBuilder(std::shared_ptr<MemoryPool> pool);

  Status Reserve(int64_t) override { return Status::OK(); }

  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;
};

/// Builds a dictionary array whose dictionary grows as new distinct values arrive (values are
/// hashed as bytes). Indices are int32 while building and converted to `index_type` on Finish; a
/// value that would need an index beyond what `index_type` holds (128 distinct values for int8)
/// is refused with OutOfRange.
class DictionaryBuilder : public ArrayBuilder {
 public:
  DictionaryBuilder(const DataType& value_type, std::shared_ptr<MemoryPool> pool,
                    TypeId index_type = TypeId::kInt32, bool ordered = false);
  ~DictionaryBuilder() override;
  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  /// Appends element `i` of an array of the value type (or of a dictionary array of it).
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;
  /// Utf8/binary values.
  Status Append(std::string_view value);

 private:
  struct Memo;
  Status AppendKey(std::string_view key, const Array& source, int64_t i);
  // The index the next new dictionary value gets, or OutOfRange when the index type is full.
  Result<int32_t> NextIndex() const;
  std::unique_ptr<Memo> memo_;
  FixedWidthBuilder<int32_t> indices_;
  std::unique_ptr<ArrayBuilder> values_;
};

class StructBuilder;

/// List, LargeList and Map. Append() starts a valid element whose items are then appended to
/// value_builder() (for maps: entries_builder()->Append() and one value each to its key and value
/// builders per entry); AppendNull adds a null element with no items.
class ListBuilder : public ArrayBuilder {
 public:
  ListBuilder(DataType type, std::shared_ptr<MemoryPool> pool);
  ~ListBuilder() override;
  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  /// Copies element `i` of a list (or map) array of this type, items included.
  Status AppendFrom(const Array& source, int64_t i) override;
  Result<ArrayPtr> Finish() override;

  Status Append();

  ArrayBuilder* value_builder() const { return values_.get(); }

  /// Maps only: the builder of the entries struct.
  StructBuilder* entries_builder() const;

 private:
  std::vector<int64_t> starts_;  // start of each element in the child
  std::unique_ptr<ArrayBuilder> values_;
};

/// Fixed-size lists: Append() starts a valid element, after which exactly list_size() items are
/// appended to value_builder(); AppendNull appends list_size() null items itself.
class FixedSizeListBuilder : public ArrayBuilder {
 public:
  FixedSizeListBuilder(DataType type, std::shared_ptr<MemoryPool> pool);
  ~FixedSizeListBuilder() override;
  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  /// InvalidArgument when the items appended are not list_size() per element.
  Result<ArrayPtr> Finish() override;

  Status Append();

  ArrayBuilder* value_builder() const { return values_.get(); }

 private:
  std::unique_ptr<ArrayBuilder> values_;
};

/// Structs: Append() adds a valid row, after which one value is appended to each field builder;
/// AppendNull appends a null to every field builder itself.
class StructBuilder : public ArrayBuilder {
 public:
  StructBuilder(DataType type, std::shared_ptr<MemoryPool> pool);
  ~StructBuilder() override;
  Status Reserve(int64_t additional) override;
  Status AppendNulls(int64_t count) override;
  Status AppendFrom(const Array& source, int64_t i) override;
  /// InvalidArgument when a field builder does not hold one value per row.
  Result<ArrayPtr> Finish() override;

  Status Append();

  int num_fields() const { return static_cast<int>(fields_.size()); }

  ArrayBuilder* field_builder(int i) const { return fields_[static_cast<size_t>(i)].get(); }

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> fields_;
};

using Int8Builder = FixedWidthBuilder<int8_t>;
using Int16Builder = FixedWidthBuilder<int16_t>;
using Int32Builder = FixedWidthBuilder<int32_t>;
using Int64Builder = FixedWidthBuilder<int64_t>;
using UInt8Builder = FixedWidthBuilder<uint8_t>;
using UInt16Builder = FixedWidthBuilder<uint16_t>;
using UInt32Builder = FixedWidthBuilder<uint32_t>;
using UInt64Builder = FixedWidthBuilder<uint64_t>;
using Float32Builder = FixedWidthBuilder<float>;
using Float64Builder = FixedWidthBuilder<double>;
using Decimal64Builder = FixedWidthBuilder<int64_t>;
using Decimal128Builder = FixedWidthBuilder<int128_t>;
using IntervalBuilder = FixedWidthBuilder<MonthDayNano>;

/// A builder for any type (dictionary types get a DictionaryBuilder, nested types the nested
/// builders with builders for their children).
std::unique_ptr<ArrayBuilder> MakeBuilder(const DataType& type, std::shared_ptr<MemoryPool> pool);

/// A dictionary array from int32 (or other integer) indices and a dictionary. Checks the indices.
Result<ArrayPtr> MakeDictionaryArray(const ArrayPtr& indices, const ArrayPtr& dictionary,
                                     bool ordered = false);

/// Copies `array` into fresh buffers with offset 0 (decoding nothing). For writers that need a
/// compact copy of a slice, and tests.
Result<ArrayPtr> CompactCopy(const Array& array, const std::shared_ptr<MemoryPool>& pool);

extern template class FixedWidthBuilder<int8_t>;
extern template class FixedWidthBuilder<int16_t>;
extern template class FixedWidthBuilder<int32_t>;
extern template class FixedWidthBuilder<int64_t>;
extern template class FixedWidthBuilder<uint8_t>;
extern template class FixedWidthBuilder<uint16_t>;
extern template class FixedWidthBuilder<uint32_t>;
extern template class FixedWidthBuilder<uint64_t>;
extern template class FixedWidthBuilder<float>;
extern template class FixedWidthBuilder<double>;
extern template class FixedWidthBuilder<int128_t>;
extern template class FixedWidthBuilder<MonthDayNano>;

}  // namespace shoal::columnar

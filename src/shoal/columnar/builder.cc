#include "shoal/columnar/builder.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

namespace shoal::columnar {
namespace {

constexpr int64_t kMinCapacity = 32;

int64_t GrownCapacity(int64_t current, int64_t needed) {
  return std::max({needed, current * 2, kMinCapacity});
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ArrayBuilder

ArrayBuilder::ArrayBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : type_(std::move(type)), pool_(std::move(pool)) {
  SHOAL_CHECK(pool_ != nullptr, "builder without a memory pool");
}

Status ArrayBuilder::ReserveValidity(int64_t capacity) {
  if (validity_) {
    int64_t old = validity_->size();
    SHOAL_RETURN_IF_ERROR(validity_->Resize(bitmap::BytesForBits(capacity)));
    std::memset(validity_->mutable_data() + old, 0, static_cast<size_t>(validity_->size() - old));
  }
  return Status::OK();
}

Status ArrayBuilder::UnsafeSetNull(int64_t i) {
  if (!validity_) {
    // First null: materialise the bitmap with every earlier value valid.
    SHOAL_ASSIGN_OR_RETURN(validity_,
                           Buffer::AllocateZeroed(bitmap::BytesForBits(capacity_), pool_));
    uint8_t* bits = validity_->mutable_data();
    std::memset(bits, 0xFF, static_cast<size_t>(i >> 3));
    for (int64_t k = (i & ~int64_t{7}); k < i; ++k)
      bitmap::SetBit(bits, k);
  }
  bitmap::ClearBit(validity_->mutable_data(), i);
  ++null_count_;
  return Status::OK();
}

Result<BufferPtr> ArrayBuilder::FinishValidity() {
  BufferPtr v = std::move(validity_);
  if (v) {
    SHOAL_RETURN_IF_ERROR(v->Resize(bitmap::BytesForBits(length_)));
    v->ShrinkToFit();
  }
  return v;
}

void ArrayBuilder::ResetBase() {
  length_ = 0;
  capacity_ = 0;
  null_count_ = 0;
  validity_.reset();
}

// ---------------------------------------------------------------------------------------------
// FixedWidthBuilder

template <typename T>
FixedWidthBuilder<T>::FixedWidthBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(std::move(type), std::move(pool)) {
  SHOAL_CHECK(type_.byte_width() == static_cast<int>(sizeof(T)) && type_.id() != TypeId::kBoolean,
              "builder of {}-byte values for type {}", sizeof(T), type_.ToString());
}

template <typename T>
Status FixedWidthBuilder<T>::Reserve(int64_t additional) {
  int64_t needed = length_ + additional;
  if (needed <= capacity_)
    return Status::OK();
  int64_t cap = GrownCapacity(capacity_, needed);
  if (!values_) {
    SHOAL_ASSIGN_OR_RETURN(values_, Buffer::Allocate(cap * static_cast<int64_t>(sizeof(T)), pool_));
  } else {
    SHOAL_RETURN_IF_ERROR(values_->Resize(cap * static_cast<int64_t>(sizeof(T))));
  }
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  capacity_ = cap;
  return Status::OK();
}

template <typename T>
Status FixedWidthBuilder<T>::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  for (int64_t k = 0; k < count; ++k) {
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_));
    values_->template mutable_data_as<T>()[length_++] = T{};
  }
  return Status::OK();
}

template <typename T>
Status FixedWidthBuilder<T>::AppendValues(const T* values, int64_t count, const uint8_t* valid) {
  // Nothing to copy; a fresh builder has no values buffer yet for memcpy to target.
  if (count == 0)
    return Status::OK();
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  std::memcpy(values_->template mutable_data_as<T>() + length_, values,
              static_cast<size_t>(count) * sizeof(T));
  for (int64_t k = 0; k < count; ++k) {
    if (valid != nullptr && valid[k] == 0) {
      SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_ + k));
    } else {
      UnsafeSetValid(length_ + k);
    }
  }
  length_ += count;
  return Status::OK();
}

template <typename T>
Status FixedWidthBuilder<T>::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  if (source.type_id() == TypeId::kDictionary) {
    return AppendFrom(*source.dictionary(), source.DictionaryIndex(i));
  }
  return Append(source.Value<T>(i));
}

template <typename T>
Result<ArrayPtr> FixedWidthBuilder<T>::Finish() {
  if (!values_)
    SHOAL_RETURN_IF_ERROR(Reserve(0 + 1));
  SHOAL_RETURN_IF_ERROR(values_->Resize(length_ * static_cast<int64_t>(sizeof(T))));
  values_->ShrinkToFit();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out =
      Array::Make(type_, length_, {std::move(validity), std::move(values_)}, null_count_);
  ResetBase();
  return out;
}

template class FixedWidthBuilder<int8_t>;
template class FixedWidthBuilder<int16_t>;
template class FixedWidthBuilder<int32_t>;
template class FixedWidthBuilder<int64_t>;
template class FixedWidthBuilder<uint8_t>;
template class FixedWidthBuilder<uint16_t>;
template class FixedWidthBuilder<uint32_t>;
template class FixedWidthBuilder<uint64_t>;
template class FixedWidthBuilder<float>;
template class FixedWidthBuilder<double>;
template class FixedWidthBuilder<int128_t>;
template class FixedWidthBuilder<MonthDayNano>;

// ---------------------------------------------------------------------------------------------
// BooleanBuilder

BooleanBuilder::BooleanBuilder(std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(DataType::Boolean(), std::move(pool)) {}

Status BooleanBuilder::Reserve(int64_t additional) {
  int64_t needed = length_ + additional;
  if (needed <= capacity_)
    return Status::OK();
  int64_t cap = GrownCapacity(capacity_, needed);
  if (!values_) {
    SHOAL_ASSIGN_OR_RETURN(values_, Buffer::AllocateZeroed(bitmap::BytesForBits(cap), pool_));
  } else {
    int64_t old = values_->size();
    SHOAL_RETURN_IF_ERROR(values_->Resize(bitmap::BytesForBits(cap)));
    std::memset(values_->mutable_data() + old, 0, static_cast<size_t>(values_->size() - old));
  }
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  capacity_ = cap;
  return Status::OK();
}

Status BooleanBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  for (int64_t k = 0; k < count; ++k) {
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_));
    bitmap::ClearBit(values_->mutable_data(), length_++);
  }
  return Status::OK();
}

Status BooleanBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  return Append(source.BoolValue(i));
}

Result<ArrayPtr> BooleanBuilder::Finish() {
  if (!values_)
    SHOAL_RETURN_IF_ERROR(Reserve(1));
  SHOAL_RETURN_IF_ERROR(values_->Resize(bitmap::BytesForBits(length_)));
  values_->ShrinkToFit();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out =
      Array::Make(type_, length_, {std::move(validity), std::move(values_)}, null_count_);
  ResetBase();
  return out;
}

// ---------------------------------------------------------------------------------------------
// BinaryBuilder

BinaryBuilder::BinaryBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(std::move(type), std::move(pool)) {
  SHOAL_CHECK(type_.is_binary_like(), "BinaryBuilder for {}", type_.ToString());
}

Status BinaryBuilder::Reserve(int64_t additional) {
  int64_t needed = length_ + additional;
  if (needed <= capacity_ && offsets_)
    return Status::OK();
  int64_t cap = GrownCapacity(capacity_, needed);
  if (!offsets_) {
    SHOAL_ASSIGN_OR_RETURN(offsets_, Buffer::Allocate((cap + 1) * 4, pool_));
    offsets_->mutable_data_as<int32_t>()[0] = 0;
    SHOAL_ASSIGN_OR_RETURN(data_, Buffer::Allocate(0, pool_));
  } else {
    SHOAL_RETURN_IF_ERROR(offsets_->Resize((cap + 1) * 4));
  }
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  capacity_ = cap;
  return Status::OK();
}

Status BinaryBuilder::ReserveData(int64_t bytes) {
  if (!data_)
    SHOAL_RETURN_IF_ERROR(Reserve(0));
  int64_t needed = data_length_ + bytes;
  if (needed > std::numeric_limits<int32_t>::max()) {
    return Status::OutOfRange(
        "a {} column cannot hold more than 2 GiB of data in one array (int32 offsets)",
        type_.ToString());
  }
  if (needed > data_->size()) {
    SHOAL_RETURN_IF_ERROR(data_->Resize(std::max(needed, data_->size() * 2)));
  }
  return Status::OK();
}

Status BinaryBuilder::Append(std::string_view value) {
  SHOAL_RETURN_IF_ERROR(Reserve(1));
  SHOAL_RETURN_IF_ERROR(ReserveData(static_cast<int64_t>(value.size())));
  UnsafeAppend(value);
  return Status::OK();
}

Status BinaryBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  int32_t* o = offsets_->mutable_data_as<int32_t>();
  for (int64_t k = 0; k < count; ++k) {
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_));
    o[++length_] = static_cast<int32_t>(data_length_);
  }
  return Status::OK();
}

Status BinaryBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  if (source.type_id() == TypeId::kDictionary) {
    return AppendFrom(*source.dictionary(), source.DictionaryIndex(i));
  }
  return Append(source.StringValue(i));
}

Result<ArrayPtr> BinaryBuilder::Finish() {
  SHOAL_RETURN_IF_ERROR(Reserve(0));
  SHOAL_RETURN_IF_ERROR(offsets_->Resize((length_ + 1) * 4));
  SHOAL_RETURN_IF_ERROR(data_->Resize(data_length_));
  offsets_->ShrinkToFit();
  data_->ShrinkToFit();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out = Array::Make(
      type_, length_, {std::move(validity), std::move(offsets_), std::move(data_)}, null_count_);
  ResetBase();
  data_length_ = 0;
  return out;
}

// ---------------------------------------------------------------------------------------------
// NullBuilder

NullBuilder::NullBuilder(std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(DataType::Null(), std::move(pool)) {}

Status NullBuilder::AppendNulls(int64_t count) {
  length_ += count;
  null_count_ += count;
  return Status::OK();
}

Status NullBuilder::AppendFrom(const Array&, int64_t) {
  return AppendNulls(1);
}

Result<ArrayPtr> NullBuilder::Finish() {
  ArrayPtr out = Array::Make(type_, length_, {});
  ResetBase();
  return out;
}

// ---------------------------------------------------------------------------------------------
// DictionaryBuilder

struct DictionaryBuilder::Memo {
  std::unordered_map<std::string, int32_t> index_of;
};

DictionaryBuilder::DictionaryBuilder(const DataType& value_type, std::shared_ptr<MemoryPool> pool,
                                     TypeId index_type, bool ordered)
    : ArrayBuilder(DataType::Dictionary(index_type, value_type, ordered), pool),
      memo_(std::make_unique<Memo>()),
      indices_(DataType::Int32(), pool),
      values_(MakeBuilder(value_type, pool)) {}

DictionaryBuilder::~DictionaryBuilder() = default;

Status DictionaryBuilder::Reserve(int64_t additional) {
  return indices_.Reserve(additional);
}

Status DictionaryBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(indices_.AppendNulls(count));
  length_ += count;
  null_count_ += count;
  return Status::OK();
}

Result<int32_t> DictionaryBuilder::NextIndex() const {
  int64_t max_index = std::numeric_limits<int32_t>::max();
  switch (type_.index_type()) {
    case TypeId::kInt8: max_index = std::numeric_limits<int8_t>::max(); break;
    case TypeId::kUInt8: max_index = std::numeric_limits<uint8_t>::max(); break;
    case TypeId::kInt16: max_index = std::numeric_limits<int16_t>::max(); break;
    case TypeId::kUInt16: max_index = std::numeric_limits<uint16_t>::max(); break;
    default: break;
  }
  const int64_t next = values_->length();
  if (next > max_index) {
    return Status::OutOfRange("a {} column cannot hold more than {} distinct values",
                              type_.ToString(), max_index + 1);
  }
  return static_cast<int32_t>(next);
}

Status DictionaryBuilder::AppendKey(std::string_view key, const Array& source, int64_t i) {
  auto it = memo_->index_of.find(std::string(key));
  int32_t index;
  if (it != memo_->index_of.end()) {
    index = it->second;
  } else {
    SHOAL_ASSIGN_OR_RETURN(index, NextIndex());
    SHOAL_RETURN_IF_ERROR(values_->AppendFrom(source, i));
    memo_->index_of.emplace(std::string(key), index);
  }
  SHOAL_RETURN_IF_ERROR(indices_.Append(index));
  ++length_;
  return Status::OK();
}

Status DictionaryBuilder::Append(std::string_view value) {
  SHOAL_CHECK(type_.value_type().is_binary_like(), "Append(string) on dictionary of {}",
              type_.value_type().ToString());
  auto it = memo_->index_of.find(std::string(value));
  int32_t index;
  if (it != memo_->index_of.end()) {
    index = it->second;
  } else {
    SHOAL_ASSIGN_OR_RETURN(index, NextIndex());
    SHOAL_RETURN_IF_ERROR(static_cast<BinaryBuilder*>(values_.get())->Append(value));
    memo_->index_of.emplace(std::string(value), index);
  }
  SHOAL_RETURN_IF_ERROR(indices_.Append(index));
  ++length_;
  return Status::OK();
}

Status DictionaryBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  if (source.type_id() == TypeId::kDictionary) {
    return AppendFrom(*source.dictionary(), source.DictionaryIndex(i));
  }
  if (source.type().is_binary_like())
    return AppendKey(source.StringValue(i), source, i);
  int w = source.type().byte_width();
  std::string_view key;
  if (source.type_id() == TypeId::kBoolean) {
    key = source.BoolValue(i) ? std::string_view("\1", 1) : std::string_view("\0", 1);
  } else {
    key = std::string_view(
        reinterpret_cast<const char*>(source.buffer(1)->data()) + (source.offset() + i) * w,
        static_cast<size_t>(w));
  }
  return AppendKey(key, source, i);
}

namespace {

// The int32 indices the builder collects, rewritten at the declared index width. Every index is
// below the limit NextIndex enforced, so the narrowing is exact.
template <typename Out>
Result<BufferPtr> ConvertIndices(const Array& indices, const std::shared_ptr<MemoryPool>& pool) {
  const int64_t n = indices.length();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr out,
                         Buffer::Allocate(n * static_cast<int64_t>(sizeof(Out)), pool));
  const int32_t* in = indices.values<int32_t>();
  Out* dst = out->mutable_data_as<Out>();
  for (int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<Out>(in[i]);
  return out;
}

// The int32 index buffer at the declared width (the same buffer when that is int32).
Result<BufferPtr> IndicesAs(TypeId index_type, const Array& indices,
                            const std::shared_ptr<MemoryPool>& pool) {
  switch (index_type) {
    case TypeId::kInt8: return ConvertIndices<int8_t>(indices, pool);
    case TypeId::kUInt8: return ConvertIndices<uint8_t>(indices, pool);
    case TypeId::kInt16: return ConvertIndices<int16_t>(indices, pool);
    case TypeId::kUInt16: return ConvertIndices<uint16_t>(indices, pool);
    case TypeId::kUInt32: return ConvertIndices<uint32_t>(indices, pool);
    case TypeId::kInt64: return ConvertIndices<int64_t>(indices, pool);
    case TypeId::kUInt64: return ConvertIndices<uint64_t>(indices, pool);
    default: return indices.buffer(1);
  }
}

}  // namespace

Result<ArrayPtr> DictionaryBuilder::Finish() {
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr indices, indices_.Finish());
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr dictionary, values_->Finish());
  memo_->index_of.clear();
  std::vector<BufferPtr> buffers = indices->buffers();
  SHOAL_ASSIGN_OR_RETURN(buffers[1], IndicesAs(type_.index_type(), *indices, pool_));
  ArrayPtr out = Array::Make(type_, indices->length(), std::move(buffers), indices->null_count(), 0,
                             std::move(dictionary));
  ResetBase();
  return out;
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// ListBuilder

ListBuilder::ListBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(std::move(type), std::move(pool)) {
  SHOAL_CHECK(type_.is_list_like(), "ListBuilder for {}", type_.ToString());
  values_ = MakeBuilder(type_.item_type(), pool_);
}

ListBuilder::~ListBuilder() = default;

StructBuilder* ListBuilder::entries_builder() const {
  SHOAL_CHECK(type_.id() == TypeId::kMap, "entries_builder() of {}", type_.ToString());
  return static_cast<StructBuilder*>(values_.get());
}

Status ListBuilder::Reserve(int64_t additional) {
  const int64_t needed = length_ + additional;
  if (needed <= capacity_)
    return Status::OK();
  const int64_t cap = GrownCapacity(capacity_, needed);
  starts_.reserve(static_cast<size_t>(cap));
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  capacity_ = cap;
  return Status::OK();
}

Status ListBuilder::Append() {
  SHOAL_RETURN_IF_ERROR(Reserve(1));
  UnsafeSetValid(length_);
  starts_.push_back(values_->length());
  ++length_;
  return Status::OK();
}

Status ListBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  for (int64_t k = 0; k < count; ++k) {
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_));
    starts_.push_back(values_->length());
    ++length_;
  }
  return Status::OK();
}

Status ListBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  SHOAL_RETURN_IF_ERROR(Append());
  const Array& items = *source.child(0);
  const int64_t end = source.ListEnd(i);
  SHOAL_RETURN_IF_ERROR(values_->Reserve(end - source.ListStart(i)));
  for (int64_t k = source.ListStart(i); k < end; ++k)
    SHOAL_RETURN_IF_ERROR(values_->AppendFrom(items, k));
  return Status::OK();
}

Result<ArrayPtr> ListBuilder::Finish() {
  const int64_t total = values_->length();
  const bool large = type_.id() == TypeId::kLargeList;
  if (!large && total > std::numeric_limits<int32_t>::max()) {
    return Status::OutOfRange("a {} column cannot hold more than 2^31 - 1 items in one array",
                              type_.ToString());
  }
  const int64_t width = large ? 8 : 4;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((length_ + 1) * width, pool_));
  if (large) {
    int64_t* o = offsets->mutable_data_as<int64_t>();
    for (int64_t k = 0; k < length_; ++k)
      o[k] = starts_[static_cast<size_t>(k)];
    o[length_] = total;
  } else {
    int32_t* o = offsets->mutable_data_as<int32_t>();
    for (int64_t k = 0; k < length_; ++k)
      o[k] = static_cast<int32_t>(starts_[static_cast<size_t>(k)]);
    o[length_] = static_cast<int32_t>(total);
  }
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr items, values_->Finish());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out = Array::MakeNested(type_, length_, {std::move(validity), std::move(offsets)},
                                   {std::move(items)}, null_count_);
  ResetBase();
  starts_.clear();
  return out;
}

// ---------------------------------------------------------------------------------------------
// FixedSizeListBuilder

FixedSizeListBuilder::FixedSizeListBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(std::move(type), std::move(pool)) {
  SHOAL_CHECK(type_.id() == TypeId::kFixedSizeList, "FixedSizeListBuilder for {}",
              type_.ToString());
  values_ = MakeBuilder(type_.item_type(), pool_);
}

FixedSizeListBuilder::~FixedSizeListBuilder() = default;

Status FixedSizeListBuilder::Reserve(int64_t additional) {
  const int64_t needed = length_ + additional;
  if (needed <= capacity_)
    return Status::OK();
  const int64_t cap = GrownCapacity(capacity_, needed);
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  capacity_ = cap;
  return Status::OK();
}

Status FixedSizeListBuilder::Append() {
  SHOAL_RETURN_IF_ERROR(Reserve(1));
  UnsafeSetValid(length_++);
  return Status::OK();
}

Status FixedSizeListBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  for (int64_t k = 0; k < count; ++k)
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_++));
  return values_->AppendNulls(count * type_.list_size());
}

Status FixedSizeListBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  SHOAL_RETURN_IF_ERROR(Append());
  const Array& items = *source.child(0);
  for (int64_t k = source.ListStart(i); k < source.ListEnd(i); ++k)
    SHOAL_RETURN_IF_ERROR(values_->AppendFrom(items, k));
  return Status::OK();
}

Result<ArrayPtr> FixedSizeListBuilder::Finish() {
  if (values_->length() != length_ * type_.list_size()) {
    return Status::InvalidArgument("{} builder holds {} items for {} lists", type_.ToString(),
                                   values_->length(), length_);
  }
  SHOAL_ASSIGN_OR_RETURN(ArrayPtr items, values_->Finish());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out =
      Array::MakeNested(type_, length_, {std::move(validity)}, {std::move(items)}, null_count_);
  ResetBase();
  return out;
}

// ---------------------------------------------------------------------------------------------
// StructBuilder

StructBuilder::StructBuilder(DataType type, std::shared_ptr<MemoryPool> pool)
    : ArrayBuilder(std::move(type), std::move(pool)) {
  SHOAL_CHECK(type_.id() == TypeId::kStruct, "StructBuilder for {}", type_.ToString());
  fields_.reserve(type_.fields().size());
  for (const Field& f : type_.fields())
    fields_.push_back(MakeBuilder(f.type, pool_));
}

StructBuilder::~StructBuilder() = default;

Status StructBuilder::Reserve(int64_t additional) {
  const int64_t needed = length_ + additional;
  if (needed <= capacity_)
    return Status::OK();
  const int64_t cap = GrownCapacity(capacity_, needed);
  SHOAL_RETURN_IF_ERROR(ReserveValidity(cap));
  for (auto& f : fields_)
    SHOAL_RETURN_IF_ERROR(f->Reserve(needed - f->length()));
  capacity_ = cap;
  return Status::OK();
}

Status StructBuilder::Append() {
  SHOAL_RETURN_IF_ERROR(Reserve(1));
  UnsafeSetValid(length_++);
  return Status::OK();
}

Status StructBuilder::AppendNulls(int64_t count) {
  SHOAL_RETURN_IF_ERROR(Reserve(count));
  for (int64_t k = 0; k < count; ++k)
    SHOAL_RETURN_IF_ERROR(UnsafeSetNull(length_++));
  for (auto& f : fields_)
    SHOAL_RETURN_IF_ERROR(f->AppendNulls(count));
  return Status::OK();
}

Status StructBuilder::AppendFrom(const Array& source, int64_t i) {
  if (source.IsNull(i))
    return AppendNull();
  SHOAL_RETURN_IF_ERROR(Append());
  const int64_t row = source.ChildRow(i);
  for (size_t f = 0; f < fields_.size(); ++f)
    SHOAL_RETURN_IF_ERROR(fields_[f]->AppendFrom(*source.child(static_cast<int>(f)), row));
  return Status::OK();
}

Result<ArrayPtr> StructBuilder::Finish() {
  for (size_t f = 0; f < fields_.size(); ++f) {
    if (fields_[f]->length() != length_) {
      return Status::InvalidArgument("{} builder: field '{}' holds {} values for {} rows",
                                     type_.ToString(), type_.field(static_cast<int>(f)).name,
                                     fields_[f]->length(), length_);
    }
  }
  std::vector<ArrayPtr> children;
  children.reserve(fields_.size());
  for (auto& f : fields_) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr child, f->Finish());
    children.push_back(std::move(child));
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, FinishValidity());
  ArrayPtr out =
      Array::MakeNested(type_, length_, {std::move(validity)}, std::move(children), null_count_);
  ResetBase();
  return out;
}

// ---------------------------------------------------------------------------------------------

std::unique_ptr<ArrayBuilder> MakeBuilder(const DataType& type, std::shared_ptr<MemoryPool> pool) {
  switch (type.id()) {
    case TypeId::kNull: return std::make_unique<NullBuilder>(std::move(pool));
    case TypeId::kBoolean: return std::make_unique<BooleanBuilder>(std::move(pool));
    case TypeId::kInt8: return std::make_unique<Int8Builder>(type, std::move(pool));
    case TypeId::kInt16: return std::make_unique<Int16Builder>(type, std::move(pool));
    case TypeId::kInt32:
    case TypeId::kDate32: return std::make_unique<Int32Builder>(type, std::move(pool));
    case TypeId::kInt64:
    case TypeId::kTimestamp: return std::make_unique<Int64Builder>(type, std::move(pool));
    case TypeId::kUInt8: return std::make_unique<UInt8Builder>(type, std::move(pool));
    case TypeId::kUInt16: return std::make_unique<UInt16Builder>(type, std::move(pool));
    case TypeId::kUInt32: return std::make_unique<UInt32Builder>(type, std::move(pool));
    case TypeId::kUInt64: return std::make_unique<UInt64Builder>(type, std::move(pool));
    case TypeId::kFloat32: return std::make_unique<Float32Builder>(type, std::move(pool));
    case TypeId::kFloat64: return std::make_unique<Float64Builder>(type, std::move(pool));
    case TypeId::kDecimal:
      if (type.byte_width() == 8)
        return std::make_unique<Decimal64Builder>(type, std::move(pool));
      return std::make_unique<Decimal128Builder>(type, std::move(pool));
    case TypeId::kInterval: return std::make_unique<IntervalBuilder>(type, std::move(pool));
    case TypeId::kUtf8:
    case TypeId::kBinary: return std::make_unique<BinaryBuilder>(type, std::move(pool));
    case TypeId::kDictionary:
      return std::make_unique<DictionaryBuilder>(type.value_type(), std::move(pool),
                                                 type.index_type(), type.ordered());
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: return std::make_unique<ListBuilder>(type, std::move(pool));
    case TypeId::kFixedSizeList:
      return std::make_unique<FixedSizeListBuilder>(type, std::move(pool));
    case TypeId::kStruct: return std::make_unique<StructBuilder>(type, std::move(pool));
  }
  SHOAL_CHECK(false, "no builder for {}", type.ToString());
  return nullptr;
}

Result<ArrayPtr> MakeDictionaryArray(const ArrayPtr& indices, const ArrayPtr& dictionary,
                                     bool ordered) {
  if (!indices->type().is_integer()) {
    return Status::TypeError("dictionary indices must be integers, got {}",
                             indices->type().ToString());
  }
  if (dictionary->type_id() == TypeId::kDictionary) {
    return Status::TypeError("a dictionary cannot itself be dictionary-encoded ({})",
                             dictionary->type().ToString());
  }
  DataType type = DataType::Dictionary(indices->type_id(), dictionary->type(), ordered);
  ArrayPtr out = Array::Make(type, indices->length(), indices->buffers(), indices->null_count(),
                             indices->offset(), dictionary);
  SHOAL_RETURN_IF_ERROR(out->Validate(false));
  return out;
}

Result<ArrayPtr> CompactCopy(const Array& array, const std::shared_ptr<MemoryPool>& pool) {
  if (array.type_id() == TypeId::kDictionary) {
    // Keep the dictionary shared; copy the indices only.
    auto builder = MakeBuilder(
        [&] {
          switch (array.type().index_type()) {
            case TypeId::kInt8: return DataType::Int8();
            case TypeId::kInt16: return DataType::Int16();
            case TypeId::kInt64: return DataType::Int64();
            case TypeId::kUInt8: return DataType::UInt8();
            case TypeId::kUInt16: return DataType::UInt16();
            case TypeId::kUInt32: return DataType::UInt32();
            case TypeId::kUInt64: return DataType::UInt64();
            default: return DataType::Int32();
          }
        }(),
        pool);
    ArrayPtr as_indices = Array::Make(DataType(builder->type()), array.length(), array.buffers(),
                                      array.null_count(), array.offset());
    for (int64_t i = 0; i < array.length(); ++i)
      SHOAL_RETURN_IF_ERROR(builder->AppendFrom(*as_indices, i));
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr indices, builder->Finish());
    return Array::Make(array.type(), indices->length(), indices->buffers(), indices->null_count(),
                       0, array.dictionary());
  }
  auto builder = MakeBuilder(array.type(), pool);
  SHOAL_RETURN_IF_ERROR(builder->Reserve(array.length()));
  for (int64_t i = 0; i < array.length(); ++i)
    SHOAL_RETURN_IF_ERROR(builder->AppendFrom(array, i));
  return builder->Finish();
}

}  // namespace shoal::columnar

#include "shoal/columnar/array.h"

#include <cstring>

namespace shoal::columnar {
namespace {

// Upper bound on element counts accepted from outside bytes; keeps every size product below 2^63.
constexpr int64_t kMaxLength = int64_t{1} << 40;

int64_t ComputeNullCount(const uint8_t* validity, int64_t offset, int64_t length) {
  if (validity == nullptr)
    return 0;
  return length - bitmap::CountSetBits(validity, offset, length);
}

template <typename Index>
Status CheckIndices(const Array& a, int64_t dict_length) {
  const Index* idx = reinterpret_cast<const Index*>(a.buffer(1)->data()) + a.offset();
  for (int64_t i = 0; i < a.length(); ++i) {
    if (!a.IsValid(i))
      continue;
    auto v = static_cast<int64_t>(idx[i]);
    if (v < 0 || v >= dict_length) {
      return Status::InvalidData(
          "dictionary index {} at row {} is outside the dictionary of {} values", v, i,
          dict_length);
    }
  }
  return Status::OK();
}

}  // namespace

ArrayPtr Array::Make(DataType type, int64_t length, std::vector<BufferPtr> buffers,
                     int64_t null_count, int64_t offset, ArrayPtr dictionary) {
  std::shared_ptr<Array> a(new Array());
  a->type_ = std::move(type);
  a->length_ = length;
  a->offset_ = offset;
  a->buffers_ = std::move(buffers);
  a->dictionary_ = std::move(dictionary);
  if (a->type_.id() == TypeId::kNull) {
    a->null_count_ = length;
    return a;
  }
  if (a->buffers_.size() < static_cast<size_t>(a->type_.num_buffers())) {
    a->buffers_.resize(static_cast<size_t>(a->type_.num_buffers()));
  }
  if (!a->buffers_.empty() && a->buffers_[0])
    a->validity_ = a->buffers_[0]->data();
  if (null_count == kUnknownNullCount) {
    // Only computed when the bitmap is large enough; Validate() reports short bitmaps.
    if (a->validity_ != nullptr && a->buffers_[0]->size() < bitmap::BytesForBits(offset + length)) {
      null_count = 0;
    } else {
      null_count = ComputeNullCount(a->validity_, offset, length);
    }
  }
  a->null_count_ = null_count;
  return a;
}

ArrayPtr Array::MakeNested(DataType type, int64_t length, std::vector<BufferPtr> buffers,
                           std::vector<ArrayPtr> children, int64_t null_count, int64_t offset) {
  ArrayPtr made = Make(std::move(type), length, std::move(buffers), null_count, offset);
  // Make returns a fresh array only this function holds.
  const_cast<Array&>(*made).children_ = std::move(children);
  return made;
}

Result<ArrayPtr> Array::MakeAllNull(const DataType& type, int64_t length,
                                    const std::shared_ptr<MemoryPool>& pool) {
  if (type.id() == TypeId::kNull)
    return Make(type, length, {});
  std::vector<BufferPtr> buffers;
  SHOAL_ASSIGN_OR_RETURN(auto validity, Buffer::AllocateZeroed(bitmap::BytesForBits(length), pool));
  buffers.push_back(std::move(validity));
  if (type.is_nested()) {
    std::vector<ArrayPtr> children;
    if (type.is_list_like()) {
      const int64_t width = type.id() == TypeId::kLargeList ? 8 : 4;
      SHOAL_ASSIGN_OR_RETURN(auto offsets, Buffer::AllocateZeroed((length + 1) * width, pool));
      buffers.push_back(std::move(offsets));
      SHOAL_ASSIGN_OR_RETURN(auto child, MakeAllNull(type.item_type(), 0, pool));
      children.push_back(std::move(child));
    } else if (type.id() == TypeId::kFixedSizeList) {
      SHOAL_ASSIGN_OR_RETURN(auto child,
                             MakeAllNull(type.item_type(), length * type.list_size(), pool));
      children.push_back(std::move(child));
    } else {
      children.reserve(type.fields().size());
      for (const Field& f : type.fields()) {
        SHOAL_ASSIGN_OR_RETURN(auto child, MakeAllNull(f.type, length, pool));
        children.push_back(std::move(child));
      }
    }
    return MakeNested(type, length, std::move(buffers), std::move(children), length);
  }
  ArrayPtr dictionary;
  if (type.is_binary_like()) {
    SHOAL_ASSIGN_OR_RETURN(auto offsets, Buffer::AllocateZeroed((length + 1) * 4, pool));
    SHOAL_ASSIGN_OR_RETURN(auto data, Buffer::Allocate(0, pool));
    buffers.push_back(std::move(offsets));
    buffers.push_back(std::move(data));
  } else {
    int64_t bytes =
        type.bit_width() == 1 ? bitmap::BytesForBits(length) : length * type.byte_width();
    SHOAL_ASSIGN_OR_RETURN(auto values, Buffer::AllocateZeroed(bytes, pool));
    buffers.push_back(std::move(values));
    if (type.id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(dictionary, MakeAllNull(type.value_type(), 0, pool));
    }
  }
  return Make(type, length, std::move(buffers), length, 0, std::move(dictionary));
}

int64_t Array::DictionaryIndex(int64_t i) const {
  const uint8_t* base = buffers_[1]->data();
  switch (type_.index_type()) {
    case TypeId::kInt8: return reinterpret_cast<const int8_t*>(base)[offset_ + i];
    case TypeId::kInt16: return reinterpret_cast<const int16_t*>(base)[offset_ + i];
    case TypeId::kInt32: return reinterpret_cast<const int32_t*>(base)[offset_ + i];
    case TypeId::kInt64: return reinterpret_cast<const int64_t*>(base)[offset_ + i];
    case TypeId::kUInt8: return reinterpret_cast<const uint8_t*>(base)[offset_ + i];
    case TypeId::kUInt16: return reinterpret_cast<const uint16_t*>(base)[offset_ + i];
    case TypeId::kUInt32: return reinterpret_cast<const uint32_t*>(base)[offset_ + i];
    case TypeId::kUInt64:
      return static_cast<int64_t>(reinterpret_cast<const uint64_t*>(base)[offset_ + i]);
    default: SHOAL_CHECK(false, "DictionaryIndex on {}", type_.ToString());
  }
  return 0;
}

ArrayPtr Array::Slice(int64_t offset, int64_t length) const {
  SHOAL_CHECK(offset >= 0 && length >= 0 && offset + length <= length_,
              "slice [{}, +{}) of array of length {}", offset, length, length_);
  int64_t null_count = kUnknownNullCount;
  if (null_count_ == 0)
    null_count = 0;
  if (type_.id() == TypeId::kNull)
    null_count = length;
  if (!children_.empty())
    return MakeNested(type_, length, buffers_, children_, null_count, offset_ + offset);
  return Make(type_, length, buffers_, null_count, offset_ + offset, dictionary_);
}

int64_t Array::BufferBytes() const {
  int64_t total = 0;
  for (const auto& b : buffers_) {
    if (b)
      total += b->size();
  }
  if (dictionary_)
    total += dictionary_->BufferBytes();
  for (const ArrayPtr& c : children_)
    total += c->BufferBytes();
  return total;
}

Status Array::Validate(bool check_utf8) const {
  if (length_ < 0 || length_ > kMaxLength || offset_ < 0 || offset_ > kMaxLength) {
    return Status::InvalidData("array of type {} has length {} and offset {}", type_.ToString(),
                               length_, offset_);
  }
  if (type_.id() == TypeId::kNull)
    return Status::OK();
  if (buffers_.size() != static_cast<size_t>(type_.num_buffers())) {
    return Status::InvalidData("array of type {} has {} buffers, expected {}", type_.ToString(),
                               buffers_.size(), type_.num_buffers());
  }
  const int64_t end = offset_ + length_;
  if (validity_ != nullptr && buffers_[0]->size() < bitmap::BytesForBits(end)) {
    return Status::InvalidData("validity bitmap of {} bytes is too short for {} values",
                               buffers_[0]->size(), end);
  }
  if (null_count_ < 0 || null_count_ > length_ || (validity_ == nullptr && null_count_ != 0)) {
    return Status::InvalidData("null count {} is impossible for {} values", null_count_, length_);
  }
  // Kernels trust null_count() to skip bitmap work (0 means "read no bits"), so a count that
  // disagrees with the bitmap would silently turn nulls into values.
  if (validity_ != nullptr) {
    const int64_t actual = ComputeNullCount(validity_, offset_, length_);
    if (actual != null_count_) {
      return Status::InvalidData("null count {} does not match the {} nulls in the validity bitmap",
                                 null_count_, actual);
    }
  }
  if (type_.is_nested())
    return ValidateNested(check_utf8);
  if (type_.is_fixed_width()) {
    int64_t need = type_.bit_width() == 1 ? bitmap::BytesForBits(end) : end * type_.byte_width();
    int64_t have = buffers_[1] ? buffers_[1]->size() : 0;
    if (need > 0 && have < need) {
      return Status::InvalidData("values buffer of {} bytes is too short for {} values of {}", have,
                                 end, type_.ToString());
    }
    if (type_.id() == TypeId::kDictionary) {
      if (!dictionary_)
        return Status::InvalidData("dictionary array without a dictionary");
      if (dictionary_->type() != type_.value_type()) {
        return Status::InvalidData("dictionary of type {} where {} was declared",
                                   dictionary_->type().ToString(), type_.value_type().ToString());
      }
      SHOAL_RETURN_IF_ERROR(dictionary_->Validate(check_utf8));
      int64_t n = dictionary_->length();
      switch (type_.index_type()) {
        case TypeId::kInt8: return CheckIndices<int8_t>(*this, n);
        case TypeId::kInt16: return CheckIndices<int16_t>(*this, n);
        case TypeId::kInt32: return CheckIndices<int32_t>(*this, n);
        case TypeId::kInt64: return CheckIndices<int64_t>(*this, n);
        case TypeId::kUInt8: return CheckIndices<uint8_t>(*this, n);
        case TypeId::kUInt16: return CheckIndices<uint16_t>(*this, n);
        case TypeId::kUInt32: return CheckIndices<uint32_t>(*this, n);
        case TypeId::kUInt64: return CheckIndices<uint64_t>(*this, n);
        default:
          return Status::InvalidData("dictionary index type {}", TypeIdName(type_.index_type()));
      }
    }
    return Status::OK();
  }
  // utf8 / binary
  if (length_ == 0 && (!buffers_[1] || buffers_[1]->size() == 0))
    return Status::OK();
  if (!buffers_[1] || buffers_[1]->size() < (end + 1) * 4) {
    return Status::InvalidData("offsets buffer of {} bytes is too short for {} values",
                               buffers_[1] ? buffers_[1]->size() : 0, end);
  }
  const int32_t* o = offsets();
  int64_t data_size = buffers_[2] ? buffers_[2]->size() : 0;
  if (o[0] < 0)
    return Status::InvalidData("negative first offset {}", o[0]);
  for (int64_t i = 0; i < length_; ++i) {
    if (o[i + 1] < o[i]) {
      return Status::InvalidData("offsets decrease at row {} ({} after {})", i, o[i + 1], o[i]);
    }
  }
  if (o[length_] > data_size) {
    return Status::InvalidData("offset {} points past the {} data bytes", o[length_], data_size);
  }
  if (check_utf8 && type_.id() == TypeId::kUtf8 && length_ > 0) {
    const uint8_t* d = string_data();
    for (int64_t i = 0; i < length_; ++i) {
      if (!IsValidUtf8(d + o[i], o[i + 1] - o[i])) {
        return Status::InvalidData("utf8 column holds invalid UTF-8 at row {}", i);
      }
    }
  }
  return Status::OK();
}

namespace {

template <typename Offset>
Status CheckListOffsets(const Array& a, const Offset* o, int64_t child_length) {
  if (o[0] < 0)
    return Status::InvalidData("{}: negative first offset {}", a.type().ToString(), o[0]);
  for (int64_t i = 0; i < a.length(); ++i) {
    if (o[i + 1] < o[i]) {
      return Status::InvalidData("{}: offsets decrease at row {} ({} after {})",
                                 a.type().ToString(), i, o[i + 1], o[i]);
    }
  }
  if (static_cast<int64_t>(o[a.length()]) > child_length) {
    return Status::InvalidData("{}: offset {} points past the {} items of the child",
                               a.type().ToString(), o[a.length()], child_length);
  }
  return Status::OK();
}

}  // namespace

Status Array::ValidateNested(bool check_utf8) const {
  const int num_fields = type_.num_fields();
  if (static_cast<int>(children_.size()) != num_fields) {
    return Status::InvalidData("array of type {} has {} children, expected {}", type_.ToString(),
                               children_.size(), num_fields);
  }
  for (int i = 0; i < num_fields; ++i) {
    const ArrayPtr& c = children_[static_cast<size_t>(i)];
    if (c == nullptr)
      return Status::InvalidData("array of type {} lacks child {}", type_.ToString(), i);
    if (c->type() != type_.field(i).type) {
      return Status::InvalidData("child {} of {} has type {}", i, type_.ToString(),
                                 c->type().ToString());
    }
  }
  const int64_t end = offset_ + length_;
  switch (type_.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      const int64_t width = type_.id() == TypeId::kLargeList ? 8 : 4;
      const Array& child = *children_[0];
      if (length_ == 0 && (!buffers_[1] || buffers_[1]->size() == 0))
        break;
      if (!buffers_[1] || buffers_[1]->size() < (end + 1) * width) {
        return Status::InvalidData("{}: offsets buffer of {} bytes is too short for {} values",
                                   type_.ToString(), buffers_[1] ? buffers_[1]->size() : 0, end);
      }
      if (type_.id() == TypeId::kLargeList) {
        SHOAL_RETURN_IF_ERROR(
            CheckListOffsets(*this, buffers_[1]->data_as<int64_t>() + offset_, child.length()));
      } else {
        SHOAL_RETURN_IF_ERROR(
            CheckListOffsets(*this, buffers_[1]->data_as<int32_t>() + offset_, child.length()));
      }
      break;
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = type_.list_size();
      const int64_t have = children_[0]->length();
      if (size > 0 && end > have / size) {
        return Status::InvalidData("{}: child of {} items is too short for {} lists of {}",
                                   type_.ToString(), have, end, size);
      }
      break;
    }
    case TypeId::kStruct: {
      for (int i = 0; i < num_fields; ++i) {
        const int64_t have = children_[static_cast<size_t>(i)]->length();
        if (have < end) {
          return Status::InvalidData("{}: field '{}' has {} rows, fewer than the {} of the struct",
                                     type_.ToString(), type_.field(i).name, have, end);
        }
      }
      break;
    }
    default: break;
  }
  for (int i = 0; i < num_fields; ++i) {
    Status st = children_[static_cast<size_t>(i)]->Validate(check_utf8);
    if (!st.ok())
      return std::move(st).WithContext(
          fmt::format("in field '{}' of {}", type_.field(i).name, type_.ToString()));
  }
  if (type_.id() == TypeId::kMap && length_ > 0) {
    // Keys and entries are never null within the rows the map reaches.
    const Array& entries = *children_[0];
    if (entries.num_children() != 2)
      return Status::InvalidData("map entries of type {}", entries.type().ToString());
    const Array& keys = *entries.child(0);
    const int64_t first = ListStart(0);
    const int64_t last = ListEnd(length_ - 1);
    for (int64_t r = first; r < last; ++r) {
      if (entries.IsNull(r) || keys.IsNull(entries.ChildRow(r))) {
        return Status::InvalidData("{}: the map entry at item {} has a null key", type_.ToString(),
                                   r);
      }
    }
  }
  return Status::OK();
}

bool IsValidUtf8(const uint8_t* s, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    // Fast path: eight ASCII bytes at once.
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= n)
      return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      uint8_t cc = s[i + k];
      if ((cc & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

namespace {

bool ValuesEqual(const Array& a, int64_t i, const Array& b, int64_t j) {
  switch (a.type_id()) {
    case TypeId::kNull: return true;
    case TypeId::kBoolean: return a.BoolValue(i) == b.BoolValue(j);
    case TypeId::kUtf8:
    case TypeId::kBinary: return a.StringValue(i) == b.StringValue(j);
    case TypeId::kDictionary: {
      const Array& da = *a.dictionary();
      const Array& db = *b.dictionary();
      int64_t x = a.DictionaryIndex(i);
      int64_t y = b.DictionaryIndex(j);
      if (da.IsNull(x) || db.IsNull(y))
        return da.IsNull(x) == db.IsNull(y);
      return ValuesEqual(da, x, db, y);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      const int64_t n = a.ListLength(i);
      if (n != b.ListLength(j))
        return false;
      const Array& ca = *a.child(0);
      const Array& cb = *b.child(0);
      const int64_t sa = a.ListStart(i);
      const int64_t sb = b.ListStart(j);
      for (int64_t k = 0; k < n; ++k) {
        const bool va = ca.IsValid(sa + k);
        if (va != cb.IsValid(sb + k))
          return false;
        if (va && !ValuesEqual(ca, sa + k, cb, sb + k))
          return false;
      }
      return true;
    }
    case TypeId::kStruct: {
      for (int f = 0; f < a.num_children(); ++f) {
        const Array& ca = *a.child(f);
        const Array& cb = *b.child(f);
        const int64_t x = a.ChildRow(i);
        const int64_t y = b.ChildRow(j);
        const bool va = ca.IsValid(x);
        if (va != cb.IsValid(y))
          return false;
        if (va && !ValuesEqual(ca, x, cb, y))
          return false;
      }
      return true;
    }
    case TypeId::kFloat32: {
      float x = a.Value<float>(i), y = b.Value<float>(j);
      return x == y || (x != x && y != y);
    }
    case TypeId::kFloat64: {
      double x = a.Value<double>(i), y = b.Value<double>(j);
      return x == y || (x != x && y != y);
    }
    default: {
      int w = a.type().byte_width();
      return std::memcmp(a.buffer(1)->data() + (a.offset() + i) * w,
                         b.buffer(1)->data() + (b.offset() + j) * w, static_cast<size_t>(w)) == 0;
    }
  }
}

}  // namespace

bool ArraysEqual(const Array& a, const Array& b) {
  if (a.type() != b.type() || a.length() != b.length() || a.null_count() != b.null_count()) {
    return false;
  }
  for (int64_t i = 0; i < a.length(); ++i) {
    bool va = a.IsValid(i);
    if (va != b.IsValid(i))
      return false;
    if (va && !ValuesEqual(a, i, b, i))
      return false;
  }
  return true;
}

}  // namespace shoal::columnar

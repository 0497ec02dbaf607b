#include "shoal/columnar/ipc/dictionary_accumulator_internal.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "shoal/columnar/bitmap.h"

namespace shoal::columnar::ipc::internal {
namespace {

// Bitmap copying allowed before deltas look hostile: this much, plus a multiple of what the deltas
// themselves carried. A legitimate stream stays far below (a million-entry nullable dictionary
// grown by a thousand deltas copies about 125 MB).
constexpr int64_t kCopyAllowance = int64_t{1} << 30;
constexpr int64_t kCopyPerDeltaByte = 64;

void SetBitRange(uint8_t* bits, int64_t offset, int64_t length) {
  for (int64_t i = offset; i < offset + length; ++i)
    bitmap::SetBit(bits, i);
}

// Appends the validity (or all-valid bits) of `part` at bit `at`.
void AppendValidity(const Array& part, uint8_t* out, int64_t at) {
  if (part.validity() == nullptr) {
    SetBitRange(out, at, part.length());
  } else {
    bitmap::CopyBits(part.validity(), part.offset(), part.length(), out, at);
  }
}

int64_t DeltaBytes(const Array& delta) {
  if (delta.type().is_binary_like()) {
    const int32_t* o = delta.offsets();
    return delta.length() * 4 + (o[delta.length()] - o[0]);
  }
  const int bits = delta.type().bit_width();
  return bits == 1 ? bitmap::BytesForBits(delta.length()) : delta.length() * (bits / 8);
}

}  // namespace

void DictionaryAccumulator::Replace(ArrayPtr dictionary) {
  dictionary_ = std::move(dictionary);
  values_.reset();
  data_.reset();
}

Status DictionaryAccumulator::Reserve(BufferPtr* storage, int64_t used, int64_t bytes) {
  if (*storage != nullptr && (*storage)->size() >= bytes)
    return Status::OK();
  const int64_t capacity = std::max<int64_t>({bytes, (*storage ? (*storage)->size() : 0) * 2, 64});
  SHOAL_ASSIGN_OR_RETURN(BufferPtr fresh, Buffer::Allocate(capacity, pool_));
  if (*storage != nullptr && used > 0)
    std::memcpy(fresh->mutable_data(), (*storage)->data(), static_cast<size_t>(used));
  *storage = std::move(fresh);
  return Status::OK();
}

Status DictionaryAccumulator::Append(const ArrayPtr& delta_array) {
  if (dictionary_ == nullptr) {
    // Nothing to append to: the delta is the whole dictionary (moved into storage only when a
    // later delta grows it).
    Replace(delta_array);
    return Status::OK();
  }
  const Array& delta = *delta_array;
  const Array& current = *dictionary_;
  const DataType& type = current.type();
  if (type != delta.type() || type.id() == TypeId::kDictionary) {
    return Status::Internal("cannot append a {} delta to a {} dictionary", delta.type().ToString(),
                            type.ToString());
  }
  const int64_t n = current.length();
  const int64_t dn = delta.length();
  const int64_t length = n + dn;
  if (type.id() == TypeId::kNull) {
    dictionary_ = Array::Make(type, length, {});
    return Status::OK();
  }

  delta_bytes_ += DeltaBytes(delta);
  const int64_t null_count = current.null_count() + delta.null_count();
  const int64_t bitmap_bytes = bitmap::BytesForBits(length);
  const int64_t bitmaps = (null_count > 0 ? 1 : 0) + (type.id() == TypeId::kBoolean ? 1 : 0);
  copied_bytes_ += bitmaps * bitmap_bytes;
  if (copied_bytes_ > kCopyAllowance + kCopyPerDeltaByte * delta_bytes_) {
    return Status::InvalidData(
        "delta dictionary batches would copy {} bytes of bitmaps for {} bytes of new values; the "
        "input looks corrupted or hostile",
        copied_bytes_, delta_bytes_);
  }
  BufferPtr validity;
  if (null_count > 0) {
    SHOAL_ASSIGN_OR_RETURN(validity, Buffer::AllocateZeroed(bitmap_bytes, pool_));
    AppendValidity(current, validity->mutable_data(), 0);
    AppendValidity(delta, validity->mutable_data(), n);
  }

  if (type.id() == TypeId::kBoolean) {
    SHOAL_ASSIGN_OR_RETURN(auto values, Buffer::AllocateZeroed(bitmap_bytes, pool_));
    bitmap::CopyBits(current.buffer(1)->data(), current.offset(), n, values->mutable_data(), 0);
    bitmap::CopyBits(delta.buffer(1)->data(), delta.offset(), dn, values->mutable_data(), n);
    dictionary_ = Array::Make(type, length, {std::move(validity), std::move(values)}, null_count);
    return Status::OK();
  }

  if (type.is_binary_like()) {
    const int32_t* co = current.offsets();
    const int32_t* dof = delta.offsets();
    const int64_t bytes = co[n] - co[0];
    const int64_t delta_data = dof[dn] - dof[0];
    if (bytes + delta_data > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidData("delta dictionary batches grow a {} dictionary past 2 GiB",
                                 type.ToString());
    }
    if (values_ == nullptr) {
      // First growth: move the dictionary into storage, offsets rebased to start at zero.
      data_.reset();
      SHOAL_RETURN_IF_ERROR(Reserve(&values_, 0, (length + 1) * 4));
      SHOAL_RETURN_IF_ERROR(Reserve(&data_, 0, bytes + delta_data));
      auto* o = values_->mutable_data_as<int32_t>();
      for (int64_t i = 0; i <= n; ++i)
        o[i] = co[i] - co[0];
      if (bytes > 0) {
        std::memcpy(data_->mutable_data(), current.string_data() + co[0],
                    static_cast<size_t>(bytes));
      }
    } else {
      SHOAL_RETURN_IF_ERROR(Reserve(&values_, (n + 1) * 4, (length + 1) * 4));
      SHOAL_RETURN_IF_ERROR(Reserve(&data_, bytes, bytes + delta_data));
    }
    auto* o = values_->mutable_data_as<int32_t>();
    const auto base = static_cast<int32_t>(bytes);
    for (int64_t i = 1; i <= dn; ++i)
      o[n + i] = dof[i] - dof[0] + base;
    if (delta_data > 0) {
      std::memcpy(data_->mutable_data() + bytes, delta.string_data() + dof[0],
                  static_cast<size_t>(delta_data));
    }
    dictionary_ = Array::Make(type, length,
                              {std::move(validity), Buffer::Slice(values_, 0, (length + 1) * 4),
                               Buffer::Slice(data_, 0, bytes + delta_data)},
                              null_count);
    return Status::OK();
  }

  const int64_t width = type.byte_width();
  if (values_ == nullptr) {
    SHOAL_RETURN_IF_ERROR(Reserve(&values_, 0, length * width));
    if (n > 0) {
      std::memcpy(values_->mutable_data(), current.buffer(1)->data() + current.offset() * width,
                  static_cast<size_t>(n * width));
    }
  } else {
    SHOAL_RETURN_IF_ERROR(Reserve(&values_, n * width, length * width));
  }
  if (dn > 0) {
    std::memcpy(values_->mutable_data() + n * width,
                delta.buffer(1)->data() + delta.offset() * width, static_cast<size_t>(dn * width));
  }
  dictionary_ = Array::Make(
      type, length, {std::move(validity), Buffer::Slice(values_, 0, length * width)}, null_count);
  return Status::OK();
}

}  // namespace shoal::columnar::ipc::internal

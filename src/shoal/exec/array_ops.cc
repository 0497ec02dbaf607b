#include "shoal/exec/array_ops.h"

#include <cstring>

#include "shoal/columnar/bitmap.h"
#include "shoal/exec/nested_array_ops_internal.h"

namespace shoal::exec {

namespace bitmap = columnar::bitmap;
using columnar::Buffer;

namespace bits {

Result<BufferPtr> Allocate(int64_t length, const std::shared_ptr<MemoryPool>& pool, bool zeroed) {
  int64_t bytes = bitmap::BytesForBits(length);
  return zeroed ? Buffer::AllocateZeroed(bytes, pool) : Buffer::Allocate(bytes, pool);
}

void Extract(const uint8_t* src, int64_t offset, int64_t length, uint8_t* dst) {
  const int64_t nbytes = bitmap::BytesForBits(length);
  const int shift = static_cast<int>(offset & 7);
  const uint8_t* s = src + (offset >> 3);
  if (shift == 0) {
    std::memcpy(dst, s, static_cast<size_t>(nbytes));
    return;
  }
  // Source bytes touched: bits [offset, offset + length) span this many bytes.
  const int64_t src_bytes = bitmap::BytesForBits(shift + length);
  for (int64_t k = 0; k < nbytes; ++k) {
    unsigned lo = s[k] >> shift;
    unsigned hi = (k + 1 < src_bytes) ? (static_cast<unsigned>(s[k + 1]) << (8 - shift)) : 0u;
    dst[k] = static_cast<uint8_t>(lo | hi);
  }
}

void AndInto(const uint8_t* src, int64_t offset, int64_t length, uint8_t* dst) {
  const int64_t nbytes = bitmap::BytesForBits(length);
  if ((offset & 7) == 0) {
    const uint8_t* s = src + (offset >> 3);
    for (int64_t k = 0; k < nbytes; ++k)
      dst[k] &= s[k];
    return;
  }
  uint8_t tmp[256];
  for (int64_t done = 0; done < length; done += 2048) {
    int64_t n = std::min<int64_t>(2048, length - done);
    Extract(src, offset + done, n, tmp);
    for (int64_t k = 0; k < bitmap::BytesForBits(n); ++k)
      dst[(done >> 3) + k] &= tmp[k];
  }
}

Result<BufferPtr> CopyValidity(const Array& array, const std::shared_ptr<MemoryPool>& pool) {
  if (array.type_id() == TypeId::kNull)
    return Allocate(array.length(), pool, /*zeroed=*/true);
  if (array.null_count() == 0 || array.validity() == nullptr)
    return BufferPtr();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr out, Allocate(array.length(), pool));
  Extract(array.validity(), array.bit_offset(), array.length(), out->mutable_data());
  return out;
}

Result<BufferPtr> AndValidity(const std::vector<const Array*>& arrays, int64_t length,
                              const std::shared_ptr<MemoryPool>& pool) {
  BufferPtr out;
  for (const Array* a : arrays) {
    if (a->type_id() == TypeId::kNull)
      return Allocate(length, pool, /*zeroed=*/true);
    if (a->null_count() == 0 || a->validity() == nullptr)
      continue;
    if (!out) {
      SHOAL_ASSIGN_OR_RETURN(out, Allocate(length, pool));
      Extract(a->validity(), a->bit_offset(), length, out->mutable_data());
    } else {
      AndInto(a->validity(), a->bit_offset(), length, out->mutable_data());
    }
  }
  return out;
}

Result<BufferPtr> ConcatenateValidity(const std::vector<ArrayPtr>& arrays, int64_t length,
                                      int64_t null_count, const std::shared_ptr<MemoryPool>& pool) {
  if (null_count == 0)
    return BufferPtr();
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, Allocate(length, pool));
  int64_t pos = 0;
  for (const ArrayPtr& a : arrays) {
    if (a->validity() == nullptr) {
      for (int64_t i = 0; i < a->length(); ++i)
        bitmap::SetBit(validity->mutable_data(), pos + i);
    } else {
      bitmap::CopyBits(a->validity(), a->bit_offset(), a->length(), validity->mutable_data(), pos);
    }
    pos += a->length();
  }
  return validity;
}

void PackBytes(const uint8_t* bytes, int64_t length, uint8_t* dst) {
  int64_t whole = length / 8;
  for (int64_t k = 0; k < whole; ++k) {
    const uint8_t* b = bytes + k * 8;
    dst[k] = static_cast<uint8_t>((b[0] != 0) | ((b[1] != 0) << 1) | ((b[2] != 0) << 2) |
                                  ((b[3] != 0) << 3) | ((b[4] != 0) << 4) | ((b[5] != 0) << 5) |
                                  ((b[6] != 0) << 6) | ((b[7] != 0) << 7));
  }
  if (whole * 8 < length) {
    uint8_t last = 0;
    for (int64_t i = whole * 8; i < length; ++i)
      last = static_cast<uint8_t>(last | ((bytes[i] != 0) << (i & 7)));
    dst[whole] = last;
  }
}

Result<BufferPtr> TakeValidity(const Array& array, const int32_t* indices, int64_t count,
                               const std::shared_ptr<MemoryPool>& pool, bool allow_null_index,
                               int64_t* null_count) {
  const bool source_nulls = array.null_count() > 0;
  bool any_negative = false;
  if (allow_null_index) {
    for (int64_t i = 0; i < count; ++i)
      any_negative |= indices[i] < 0;
  }
  if (!source_nulls && !any_negative) {
    *null_count = 0;
    return BufferPtr();
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr out, Allocate(count, pool, /*zeroed=*/true));
  uint8_t* dst = out->mutable_data();
  int64_t valid = 0;
  if (array.type_id() == TypeId::kNull) {
    *null_count = count;
    return out;
  }
  const uint8_t* src = array.validity();
  const int64_t off = array.bit_offset();
  for (int64_t i = 0; i < count; ++i) {
    int32_t idx = indices[i];
    bool v = idx >= 0 && (src == nullptr || bitmap::GetBit(src, off + idx));
    valid += v;
    if (v)
      bitmap::SetBit(dst, i);
  }
  *null_count = count - valid;
  return out;
}

}  // namespace bits

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T, bool kAllowNull>
void TakeFixed(const T* values, const int32_t* indices, int64_t count, T* out) {
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (kAllowNull) {
      out[i] = indices[i] < 0 ? T{} : values[indices[i]];
    } else {
      out[i] = values[indices[i]];
    }
  }
}

template <bool kAllowNull>
void TakeFixedWidth(const Array& array, const int32_t* indices, int64_t count, uint8_t* out) {
  const int width = PhysicalByteWidth(array.type());
  const uint8_t* base = array.buffer(1)->data() + array.offset() * width;
  switch (width) {
    case 1: TakeFixed<uint8_t, kAllowNull>(base, indices, count, out); break;
    case 2:
      TakeFixed<uint16_t, kAllowNull>(reinterpret_cast<const uint16_t*>(base), indices, count,
                                      reinterpret_cast<uint16_t*>(out));
      break;
    case 4:
      TakeFixed<uint32_t, kAllowNull>(reinterpret_cast<const uint32_t*>(base), indices, count,
                                      reinterpret_cast<uint32_t*>(out));
      break;
    case 8:
      TakeFixed<uint64_t, kAllowNull>(reinterpret_cast<const uint64_t*>(base), indices, count,
                                      reinterpret_cast<uint64_t*>(out));
      break;
    case 16:
      TakeFixed<Bytes16, kAllowNull>(reinterpret_cast<const Bytes16*>(base), indices, count,
                                     reinterpret_cast<Bytes16*>(out));
      break;
    default: SHOAL_CHECK(false, "Take: unexpected width {}", width);
  }
}

}  // namespace

Result<ArrayPtr> Take(const Array& array, const int32_t* indices, int64_t count,
                      const std::shared_ptr<MemoryPool>& pool, bool allow_null_index) {
  const DataType& type = array.type();
  if (type.id() == TypeId::kNull)
    return Array::Make(type, count, {});
  if (type.is_nested())
    return nested_internal::TakeNested(array, indices, count, pool, allow_null_index);
  int64_t null_count = 0;
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::TakeValidity(array, indices, count, pool,
                                                                allow_null_index, &null_count));
  switch (type.id()) {
    case TypeId::kBoolean: {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(count, pool, /*zeroed=*/true));
      const uint8_t* src = array.buffer(1)->data();
      const int64_t off = array.offset();
      uint8_t* dst = values->mutable_data();
      for (int64_t i = 0; i < count; ++i) {
        int32_t idx = indices[i];
        if (idx >= 0 && bitmap::GetBit(src, off + idx))
          bitmap::SetBit(dst, i);
      }
      return Array::Make(type, count, {std::move(validity), std::move(values)}, null_count);
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets_buf, AllocateValues<int32_t>(count + 1, pool));
      int32_t* out_offsets = offsets_buf->mutable_data_as<int32_t>();
      const int32_t* in_offsets = array.offsets();
      int64_t total = 0;
      out_offsets[0] = 0;
      for (int64_t i = 0; i < count; ++i) {
        int32_t idx = indices[i];
        if (idx >= 0)
          total += in_offsets[idx + 1] - in_offsets[idx];
        out_offsets[i + 1] = static_cast<int32_t>(total);
      }
      if (total > INT32_MAX)
        return Status::OutOfRange("string column exceeds 2 GiB in one batch");
      SHOAL_ASSIGN_OR_RETURN(BufferPtr data, Buffer::Allocate(total, pool));
      uint8_t* dst = data->mutable_data();
      const uint8_t* src = array.string_data();
      for (int64_t i = 0; i < count; ++i) {
        int32_t idx = indices[i];
        int32_t len = out_offsets[i + 1] - out_offsets[i];
        if (len > 0)
          std::memcpy(dst + out_offsets[i], src + in_offsets[idx], static_cast<size_t>(len));
      }
      return Array::Make(
          type, count, {std::move(validity), std::move(offsets_buf), std::move(data)}, null_count);
    }
    default: break;
  }
  if (type.id() == TypeId::kDictionary || PhysicalByteWidth(type) > 0) {
    int byte_width = PhysicalByteWidth(type);
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(count * byte_width, pool));
    if (allow_null_index) {
      TakeFixedWidth<true>(array, indices, count, values->mutable_data());
    } else {
      TakeFixedWidth<false>(array, indices, count, values->mutable_data());
    }
    return Array::Make(type, count, {std::move(validity), std::move(values)}, null_count, 0,
                       array.dictionary());
  }
  return Status::NotImplemented("Take on {}", type.ToString());
}

Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch, const int32_t* indices, int64_t count,
                                 const std::shared_ptr<MemoryPool>& pool) {
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch.num_columns()));
  for (const ArrayPtr& column : batch.columns()) {
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr taken, Take(*column, indices, count, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.schema(), count, std::move(columns));
}

Result<ArrayPtr> Broadcast(const Array& one, int64_t length,
                           const std::shared_ptr<MemoryPool>& pool) {
  std::vector<int32_t> zeros(static_cast<size_t>(length), 0);
  return Take(one, zeros.data(), length, pool);
}

Result<ArrayPtr> DecodeDictionary(const ArrayPtr& array, const std::shared_ptr<MemoryPool>& pool) {
  if (array->type_id() != TypeId::kDictionary)
    return array;
  std::vector<int32_t> indices(static_cast<size_t>(array->length()));
  for (int64_t i = 0; i < array->length(); ++i)
    indices[static_cast<size_t>(i)] =
        array->IsNull(i) ? -1 : static_cast<int32_t>(array->DictionaryIndex(i));
  return Take(*array->dictionary(), indices.data(), array->length(), pool,
              /*allow_null_index=*/true);
}

Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays,
                             const std::shared_ptr<MemoryPool>& pool) {
  SHOAL_CHECK(!arrays.empty(), "Concatenate of no arrays");
  if (arrays.size() == 1)
    return arrays[0];
  const DataType& type = arrays[0]->type();
  int64_t length = 0;
  int64_t null_count = 0;
  for (const ArrayPtr& a : arrays) {
    length += a->length();
    null_count += a->null_count();
  }
  if (type.id() == TypeId::kNull)
    return Array::Make(type, length, {});
  if (type.is_nested())
    return nested_internal::ConcatenateNested(arrays, pool);
  if (type.id() == TypeId::kDictionary) {
    bool same = true;
    for (const ArrayPtr& a : arrays)
      same &= a->dictionary() == arrays[0]->dictionary();
    if (!same) {
      std::vector<ArrayPtr> decoded;
      for (const ArrayPtr& a : arrays) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr d, DecodeDictionary(a, pool));
        decoded.push_back(std::move(d));
      }
      return Concatenate(decoded, pool);
    }
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr validity,
                         bits::ConcatenateValidity(arrays, length, null_count, pool));
  if (type.id() == TypeId::kBoolean) {
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(length, pool));
    int64_t pos = 0;
    for (const ArrayPtr& a : arrays) {
      bitmap::CopyBits(a->buffer(1)->data(), a->offset(), a->length(), values->mutable_data(), pos);
      pos += a->length();
    }
    return Array::Make(type, length, {std::move(validity), std::move(values)}, null_count);
  }
  if (type.is_binary_like()) {
    int64_t total = 0;
    for (const ArrayPtr& a : arrays)
      total += a->offsets()[a->length()] - a->offsets()[0];
    if (total > INT32_MAX)
      return Status::OutOfRange("string column exceeds 2 GiB in one batch");
    SHOAL_ASSIGN_OR_RETURN(BufferPtr offsets_buf, AllocateValues<int32_t>(length + 1, pool));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr data, Buffer::Allocate(total, pool));
    int32_t* out_offsets = offsets_buf->mutable_data_as<int32_t>();
    int64_t pos = 0;
    int32_t data_pos = 0;
    out_offsets[0] = 0;
    for (const ArrayPtr& a : arrays) {
      const int32_t* in = a->offsets();
      int32_t start = in[0];
      int32_t bytes = in[a->length()] - start;
      if (bytes > 0)
        std::memcpy(data->mutable_data() + data_pos, a->string_data() + start,
                    static_cast<size_t>(bytes));
      for (int64_t i = 1; i <= a->length(); ++i)
        out_offsets[pos + i] = data_pos + (in[i] - start);
      pos += a->length();
      data_pos += bytes;
    }
    return Array::Make(type, length, {std::move(validity), std::move(offsets_buf), std::move(data)},
                       null_count);
  }
  const int width = PhysicalByteWidth(type);
  if (width == 0)
    return Status::NotImplemented("Concatenate on {}", type.ToString());
  SHOAL_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(length * width, pool));
  int64_t pos = 0;
  for (const ArrayPtr& a : arrays) {
    std::memcpy(values->mutable_data() + pos * width, a->buffer(1)->data() + a->offset() * width,
                static_cast<size_t>(a->length() * width));
    pos += a->length();
  }
  return Array::Make(type, length, {std::move(validity), std::move(values)}, null_count, 0,
                     arrays[0]->dictionary());
}

Result<RecordBatchPtr> ConcatenateBatches(const columnar::SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches,
                                          const std::shared_ptr<MemoryPool>& pool) {
  if (batches.size() == 1)
    return batches[0];
  int64_t rows = 0;
  for (const RecordBatchPtr& b : batches)
    rows += b->num_rows();
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<ArrayPtr> parts;
    parts.reserve(batches.size());
    for (const RecordBatchPtr& b : batches)
      parts.push_back(b->column(c));
    if (parts.empty()) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr empty, Array::MakeAllNull(schema->field(c).type, 0, pool));
      columns.push_back(std::move(empty));
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, Concatenate(parts, pool));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

void SelectTrue(const Array& predicate, SelectionVector* out, int32_t base) {
  const int64_t n = predicate.length();
  if (predicate.type_id() == TypeId::kNull || n == 0)
    return;
  const uint8_t* values = predicate.buffer(1)->data();
  const uint8_t* validity = predicate.null_count() > 0 ? predicate.validity() : nullptr;
  const int64_t off = predicate.offset();
  size_t start = out->size();
  out->resize(start + static_cast<size_t>(n));
  int32_t* dst = out->data() + start;
  int64_t k = 0;
  if (validity == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      dst[k] = base + static_cast<int32_t>(i);
      k += bitmap::GetBit(values, off + i);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      dst[k] = base + static_cast<int32_t>(i);
      k += static_cast<int>(bitmap::GetBit(values, off + i)) &
           static_cast<int>(bitmap::GetBit(validity, off + i));
    }
  }
  out->resize(start + static_cast<size_t>(k));
}

}  // namespace shoal::exec

#include "shoal/columnar/ipc/body_encoder_internal.h"

#include <cstring>

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/decimal.h"

namespace shoal::columnar::ipc::internal {
namespace {

constexpr uint8_t kZeros[8] = {};

}  // namespace

void CopyBitmapUnshifted(const uint8_t* src, int64_t bit_offset, int64_t length, uint8_t* dst) {
  const int64_t out_bytes = bitmap::BytesForBits(length);
  if (out_bytes == 0)
    return;
  const uint8_t* s = src + (bit_offset >> 3);
  const int shift = static_cast<int>(bit_offset & 7);
  if (shift == 0) {
    std::memcpy(dst, s, static_cast<size_t>(out_bytes));
  } else {
    // Bytes of `s` that hold bits of the range; never read past them.
    const int64_t src_bytes = (shift + length + 7) >> 3;
    int64_t i = 0;
    for (; i + 9 <= src_bytes && i + 8 <= out_bytes; i += 8) {
      uint64_t lo;
      std::memcpy(&lo, s + i, 8);
      const uint64_t hi = s[i + 8];
      const uint64_t word = (lo >> shift) | (hi << (64 - shift));
      std::memcpy(dst + i, &word, 8);
    }
    for (; i < out_bytes; ++i) {
      const unsigned lo = static_cast<unsigned>(s[i]) >> shift;
      const unsigned hi = i + 1 < src_bytes ? static_cast<unsigned>(s[i + 1]) << (8 - shift) : 0;
      dst[i] = static_cast<uint8_t>(lo | hi);
    }
  }
  // Bits past the end are not part of the array; zero them so the output is deterministic.
  if ((length & 7) != 0)
    dst[out_bytes - 1] &= static_cast<uint8_t>((1u << (length & 7)) - 1);
}

BodyEncoder::BodyEncoder(std::shared_ptr<MemoryPool> pool, Codec* codec)
    : pool_(std::move(pool)), codec_(codec) {}

void BodyEncoder::Reset() {
  nodes_.clear();
  pieces_.clear();
  layout_.clear();
  body_length_ = 0;
  scratch_used_ = 0;
}

Result<uint8_t*> BodyEncoder::Scratch(int64_t size) {
  if (scratch_used_ < scratch_.size()) {
    BufferPtr& b = scratch_[scratch_used_];
    if (b->capacity() < size) {
      // Contents are not needed, so allocate afresh instead of growing (which would copy).
      SHOAL_ASSIGN_OR_RETURN(b, Buffer::Allocate(size, pool_));
    }
    SHOAL_RETURN_IF_ERROR(b->Resize(size));
    ++scratch_used_;
    return b->mutable_data();
  }
  SHOAL_ASSIGN_OR_RETURN(BufferPtr b, Buffer::Allocate(size, pool_));
  scratch_.push_back(std::move(b));
  ++scratch_used_;
  return scratch_.back()->mutable_data();
}

Status BodyEncoder::AddBitmap(const uint8_t* bits, int64_t bit_offset, int64_t length) {
  const int64_t bytes = bitmap::BytesForBits(length);
  if ((bit_offset & 7) == 0) {
    AddRaw(bits + (bit_offset >> 3), bytes);
    return Status::OK();
  }
  SHOAL_ASSIGN_OR_RETURN(uint8_t * out, Scratch(bytes));
  CopyBitmapUnshifted(bits, bit_offset, length, out);
  AddRaw(out, bytes);
  return Status::OK();
}

template <typename Offset>
Status BodyEncoder::AddListOffsets(const Array& array, int64_t* first, int64_t* last) {
  static constexpr Offset kZero[1] = {0};
  const int64_t length = array.length();
  if (length == 0) {
    AddRaw(reinterpret_cast<const uint8_t*>(kZero), sizeof(kZero));
    *first = *last = 0;
    return Status::OK();
  }
  const Offset* o = array.buffer(1)->data_as<Offset>() + array.offset();
  const int64_t bytes = (length + 1) * static_cast<int64_t>(sizeof(Offset));
  *first = o[0];
  *last = o[length];
  if (o[0] == 0) {
    AddRaw(reinterpret_cast<const uint8_t*>(o), bytes);
  } else {
    SHOAL_ASSIGN_OR_RETURN(uint8_t * out, Scratch(bytes));
    auto* rebased = reinterpret_cast<Offset*>(out);
    for (int64_t i = 0; i <= length; ++i)
      rebased[i] = o[i] - o[0];
    AddRaw(out, bytes);
  }
  return Status::OK();
}

Status BodyEncoder::AddChild(const Array& child, int64_t begin, int64_t end,
                             const FieldEncoding* encoding) {
  if (encoding == nullptr)
    return Status::Internal("nested column of type {} without child encodings",
                            child.type().ToString());
  // The slice only lives for this call; the buffers AddRaw refers to belong to `child`.
  const ArrayPtr slice = child.Slice(begin, end - begin);
  return AddColumn(*slice, encoding->values, &encoding->children);
}

Status BodyEncoder::AddColumn(const Array& array, WireEncoding encoding,
                              const std::vector<FieldEncoding>* children) {
  const DataType& type = array.type();
  const int64_t length = array.length();
  const int64_t offset = array.offset();
  nodes_.emplace_back(length, array.null_count());
  if (type.id() == TypeId::kNull)
    return Status::OK();

  // Validity: omitted (length 0) when there are no nulls, as the format allows.
  if (array.null_count() == 0) {
    AddRaw(nullptr, 0);
  } else {
    if (array.validity() == nullptr) {
      return Status::Internal("array of type {} has {} nulls but no validity bitmap",
                              type.ToString(), array.null_count());
    }
    SHOAL_RETURN_IF_ERROR(AddBitmap(array.validity(), offset, length));
  }

  switch (type.id()) {
    case TypeId::kBoolean:
      return AddBitmap(array.buffer(1) ? array.buffer(1)->data() : nullptr, offset, length);
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      if (length == 0) {
        AddRaw(reinterpret_cast<const uint8_t*>(kZeroOffset), sizeof(kZeroOffset));
        AddRaw(nullptr, 0);
        return Status::OK();
      }
      const int32_t* o = array.offsets();
      const int32_t first = o[0];
      const int64_t offsets_bytes = (length + 1) * 4;
      if (first == 0) {
        AddRaw(reinterpret_cast<const uint8_t*>(o), offsets_bytes);
      } else {
        SHOAL_ASSIGN_OR_RETURN(uint8_t * out, Scratch(offsets_bytes));
        auto* rebased = reinterpret_cast<int32_t*>(out);
        for (int64_t i = 0; i <= length; ++i)
          rebased[i] = o[i] - first;
        AddRaw(out, offsets_bytes);
      }
      AddRaw(array.string_data() ? array.string_data() + first : nullptr, o[length] - first);
      return Status::OK();
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: {
      const int num_children = type.num_fields();
      if (children == nullptr || static_cast<int>(children->size()) != num_children ||
          array.num_children() != num_children) {
        return Status::Internal("nested column of type {} without its children or encodings",
                                type.ToString());
      }
      int64_t first = 0;
      int64_t last = 0;
      if (type.id() == TypeId::kLargeList) {
        SHOAL_RETURN_IF_ERROR(AddListOffsets<int64_t>(array, &first, &last));
      } else if (type.is_list_like()) {
        SHOAL_RETURN_IF_ERROR(AddListOffsets<int32_t>(array, &first, &last));
      } else if (type.id() == TypeId::kFixedSizeList) {
        first = offset * type.list_size();
        last = (offset + length) * type.list_size();
      } else {
        first = offset;
        last = offset + length;
      }
      for (int c = 0; c < num_children; ++c) {
        SHOAL_RETURN_IF_ERROR(
            AddChild(*array.child(c), first, last, &(*children)[static_cast<size_t>(c)]));
      }
      return Status::OK();
    }
    default: break;
  }

  // Fixed width: decimals, integers, floats, dates, timestamps, intervals, dictionary indices.
  const int width = type.byte_width();
  const uint8_t* values = array.buffer(1)->data() + offset * width;
  if (type.id() == TypeId::kDecimal && encoding == WireEncoding::kDecimal128As64) {
    SHOAL_ASSIGN_OR_RETURN(uint8_t * out, Scratch(length * 16));
    const auto* in = reinterpret_cast<const int64_t*>(values);
    for (int64_t i = 0; i < length; ++i) {
      const int128_t wide = in[i];
      std::memcpy(out + i * 16, &wide, 16);
    }
    AddRaw(out, length * 16);
    return Status::OK();
  }
  AddRaw(values, length * width);
  return Status::OK();
}

Status BodyEncoder::Finish() {
  if (codec_ != nullptr) {
    for (Piece& p : pieces_) {
      if (p.size == 0)
        continue;  // empty buffers stay empty, without a length prefix
      const int64_t capacity = codec_->MaxCompressedSize(p.size);
      SHOAL_ASSIGN_OR_RETURN(uint8_t * out, Scratch(capacity));
      SHOAL_ASSIGN_OR_RETURN(int64_t n, codec_->Compress(p.data, p.size, out, capacity));
      p.prefixed = true;
      if (n < p.size) {
        p.prefix = p.size;
        p.data = out;
        p.size = n;
      } else {
        p.prefix = -1;  // compression does not pay: the raw bytes follow
      }
    }
  }
  layout_.clear();
  layout_.reserve(pieces_.size());
  int64_t position = 0;
  for (const Piece& p : pieces_) {
    const int64_t length = p.size + (p.prefixed ? 8 : 0);
    layout_.emplace_back(position, length);
    position += PadTo8(length);
  }
  body_length_ = position;
  return Status::OK();
}

Status BodyEncoder::WriteTo(OutputSink* sink) const {
  for (const Piece& p : pieces_) {
    int64_t length = p.size;
    if (p.prefixed) {
      SHOAL_RETURN_IF_ERROR(sink->Write(reinterpret_cast<const uint8_t*>(&p.prefix), 8));
      length += 8;
    }
    if (p.size > 0)
      SHOAL_RETURN_IF_ERROR(sink->Write(p.data, p.size));
    const int64_t padding = PadTo8(length) - length;
    if (padding > 0)
      SHOAL_RETURN_IF_ERROR(sink->Write(kZeros, padding));
  }
  return Status::OK();
}

}  // namespace shoal::columnar::ipc::internal

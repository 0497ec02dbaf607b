#include "shoal/io/parquet/rle_decoder.h"

#include <algorithm>
#include <cstring>

namespace shoal::io::parquet {

namespace {

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Reads bits [bit, bit + width) of the little-endian bit stream at src; width <= 64. Needs 16
// readable bytes from src + bit / 8 (the decode padding guarantees it).
inline uint64_t ReadBits(const uint8_t* src, uint64_t bit, int width) {
  const uint8_t* p = src + (bit >> 3);
  const unsigned shift = static_cast<unsigned>(bit & 7);
  uint64_t lo = Load64(p) >> shift;
  if (shift + static_cast<unsigned>(width) > 64)
    lo |= Load64(p + 8) << (64 - shift);
  return width == 64 ? lo : lo & ((uint64_t{1} << width) - 1);
}

Status ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end)
      return Status::InvalidData("truncated varint in encoded values");
    const uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return Status::OK();
    }
  }
  return Status::InvalidData("varint longer than 10 bytes in encoded values");
}

Status ReadZigZag(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t u = 0;
  SHOAL_RETURN_IF_ERROR(ReadUleb(p, end, &u));
  *out = (u >> 1) ^ (~(u & 1) + 1);
  return Status::OK();
}

}  // namespace

void UnpackBits(const uint8_t* src, int bit_width, int64_t count, uint64_t* out) {
  if (bit_width == 0) {
    std::fill(out, out + count, 0);
    return;
  }
  uint64_t bit = 0;
  for (int64_t i = 0; i < count; ++i, bit += static_cast<uint64_t>(bit_width))
    out[i] = ReadBits(src, bit, bit_width);
}

void UnpackBits32(const uint8_t* src, int bit_width, int64_t count, uint32_t* out) {
  if (bit_width == 0) {
    std::fill(out, out + count, 0);
    return;
  }
  // Width <= 32 and shift <= 7 fit one 64-bit load.
  const uint64_t mask = (uint64_t{1} << bit_width) - 1;
  uint64_t bit = 0;
  for (int64_t i = 0; i < count; ++i, bit += static_cast<uint64_t>(bit_width))
    out[i] = static_cast<uint32_t>((Load64(src + (bit >> 3)) >> (bit & 7)) & mask);
}

Status RleBitPackedDecoder::NextRun() {
  uint64_t header = 0;
  SHOAL_RETURN_IF_ERROR(ReadUleb(&data_, end_, &header));
  if (header & 1) {
    const uint64_t groups = header >> 1;
    if (groups == 0 || groups > (uint64_t{1} << 40))
      return Status::InvalidData("bad bit-packed run of {} groups", groups);
    const uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    const auto available = static_cast<uint64_t>(end_ - data_);
    packed_ = data_;
    packed_index_ = 0;
    // The last run may be cut short after its final needed value; only bytes present count.
    const uint64_t usable = std::min(bytes, available);
    packed_left_ = bit_width_ == 0
                       ? static_cast<int64_t>(groups * 8)
                       : static_cast<int64_t>(std::min<uint64_t>(
                             groups * 8, usable * 8 / static_cast<uint64_t>(bit_width_)));
    data_ += usable;
    if (packed_left_ == 0)
      return Status::InvalidData("bit-packed run has no data");
  } else {
    const uint64_t count = header >> 1;
    if (count == 0)
      return Status::InvalidData("RLE run of length 0");
    const int value_bytes = (bit_width_ + 7) / 8;
    if (end_ - data_ < value_bytes)
      return Status::InvalidData("truncated RLE run value");
    uint32_t v = 0;
    for (int i = 0; i < value_bytes; ++i)
      v |= static_cast<uint32_t>(data_[i]) << (8 * i);
    data_ += value_bytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0)
      return Status::InvalidData("RLE run value {} does not fit {} bits", v, bit_width_);
    rle_value_ = v;
    rle_left_ = static_cast<int64_t>(std::min<uint64_t>(count, uint64_t{1} << 62));
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Decode(uint32_t* out, int64_t count) {
  while (count > 0) {
    if (rle_left_ == 0 && packed_left_ == 0) {
      if (data_ >= end_)
        return Status::InvalidData("RLE/bit-packed data ends {} values early", count);
      SHOAL_RETURN_IF_ERROR(NextRun());
    }
    if (rle_left_ > 0) {
      const int64_t n = std::min(count, rle_left_);
      std::fill(out, out + n, rle_value_);
      out += n;
      count -= n;
      rle_left_ -= n;
    } else {
      const int64_t n = std::min(count, packed_left_);
      const uint64_t bit = static_cast<uint64_t>(packed_index_) * static_cast<uint64_t>(bit_width_);
      // Runs start byte-aligned and hold whole groups of 8 values, each group whole bytes. A read
      // that resumes mid-group (a batch of the streaming scan ending there) finishes the group
      // bit by bit, so the rest unpacks from a byte boundary.
      const int64_t head = std::min<int64_t>(n, (8 - (packed_index_ & 7)) & 7);
      for (int64_t i = 0; i < head; ++i)
        out[i] = static_cast<uint32_t>(
            ReadBits(packed_, bit + static_cast<uint64_t>(i * bit_width_), bit_width_));
      if (n > head)
        UnpackBits32(packed_ + ((bit + static_cast<uint64_t>(head * bit_width_)) >> 3), bit_width_,
                     n - head, out + head);
      out += n;
      count -= n;
      packed_left_ -= n;
      packed_index_ += n;
    }
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Decode(uint8_t* out, int64_t count) {
  uint32_t tmp[512];
  while (count > 0) {
    const int64_t n = std::min<int64_t>(count, 512);
    SHOAL_RETURN_IF_ERROR(Decode(tmp, n));
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<uint8_t>(tmp[i]);
    out += n;
    count -= n;
  }
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::Init() {
  uint64_t total = 0;
  SHOAL_RETURN_IF_ERROR(ReadUleb(&data_, end_, &block_size_));
  SHOAL_RETURN_IF_ERROR(ReadUleb(&data_, end_, &miniblocks_));
  SHOAL_RETURN_IF_ERROR(ReadUleb(&data_, end_, &total));
  SHOAL_RETURN_IF_ERROR(ReadZigZag(&data_, end_, &last_));
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > (1u << 20) || miniblocks_ == 0 ||
      block_size_ % miniblocks_ != 0 || (block_size_ / miniblocks_) % 32 != 0)
    return Status::InvalidData("bad DELTA_BINARY_PACKED header: block size {} with {} miniblocks",
                               block_size_, miniblocks_);
  if (total > (uint64_t{1} << 40))
    return Status::InvalidData("DELTA_BINARY_PACKED claims {} values", total);
  per_miniblock_ = block_size_ / miniblocks_;
  total_values_ = static_cast<int64_t>(total);
  values_left_ = total_values_;
  first_pending_ = total_values_ > 0;
  widths_.resize(miniblocks_);
  unpacked_.resize(per_miniblock_);
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::ReadBlockHeader() {
  SHOAL_RETURN_IF_ERROR(ReadZigZag(&data_, end_, &min_delta_));
  if (static_cast<uint64_t>(end_ - data_) < miniblocks_)
    return Status::InvalidData("truncated DELTA_BINARY_PACKED block header");
  std::memcpy(widths_.data(), data_, miniblocks_);
  data_ += miniblocks_;
  for (uint8_t w : widths_)
    if (w > 64)
      return Status::InvalidData("DELTA_BINARY_PACKED bit width {} over 64", w);
  miniblock_ = 0;
  in_miniblock_ = 0;
  block_open_ = true;
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::Decode(int64_t* out, int64_t count) {
  if (count > values_left_)
    return Status::InvalidData("DELTA_BINARY_PACKED has {} values, {} wanted", values_left_, count);
  if (count > 0 && first_pending_) {
    *out++ = static_cast<int64_t>(last_);
    first_pending_ = false;
    --count;
    --values_left_;
  }
  while (count > 0) {
    if (!block_open_ || miniblock_ == miniblocks_)
      SHOAL_RETURN_IF_ERROR(ReadBlockHeader());
    if (in_miniblock_ == 0) {
      // Unpack the whole miniblock; its bytes are present even when the values after the last
      // one are padding, except that writers may omit miniblocks past the final value.
      const int width = widths_[miniblock_];
      const uint64_t bytes = per_miniblock_ * static_cast<uint64_t>(width) / 8;
      const auto available = static_cast<uint64_t>(end_ - data_);
      const uint64_t needed_values =
          std::min<uint64_t>(per_miniblock_, static_cast<uint64_t>(values_left_));
      if (available < (needed_values * static_cast<uint64_t>(width) + 7) / 8)
        return Status::InvalidData("truncated DELTA_BINARY_PACKED miniblock");
      UnpackBits(data_, width, static_cast<int64_t>(needed_values), unpacked_.data());
      data_ += std::min(bytes, available);
    }
    const int64_t n = std::min<int64_t>(
        count,
        std::min<int64_t>(static_cast<int64_t>(per_miniblock_ - in_miniblock_), values_left_));
    uint64_t v = last_;
    const uint64_t* src = unpacked_.data() + in_miniblock_;
    for (int64_t i = 0; i < n; ++i) {
      v += min_delta_ + src[i];  // wraps modulo 2^64 as the format intends
      out[i] = static_cast<int64_t>(v);
    }
    last_ = v;
    out += n;
    count -= n;
    values_left_ -= n;
    in_miniblock_ += static_cast<uint64_t>(n);
    if (in_miniblock_ == per_miniblock_) {
      in_miniblock_ = 0;
      ++miniblock_;
    }
  }
  return Status::OK();
}

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  std::vector<ByteView>* out) {
  DeltaBinaryPackedDecoder lengths(data, size);
  SHOAL_RETURN_IF_ERROR(lengths.Init());
  if (lengths.total_values() != count)
    return Status::InvalidData("DELTA_LENGTH_BYTE_ARRAY has {} lengths for {} values",
                               lengths.total_values(), count);
  std::vector<int64_t> lens(static_cast<size_t>(lengths.total_values()));
  SHOAL_RETURN_IF_ERROR(lengths.Decode(lens.data(), lengths.total_values()));
  size_t pos = lengths.consumed();
  out->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t len = lens[static_cast<size_t>(i)];
    if (len < 0 || static_cast<uint64_t>(len) > size - pos)
      return Status::InvalidData("DELTA_LENGTH_BYTE_ARRAY value {} of {} bytes overruns the page",
                                 i, len);
    (*out)[static_cast<size_t>(i)] =
        ByteView(reinterpret_cast<const char*>(data + pos), static_cast<size_t>(len));
    pos += static_cast<size_t>(len);
  }
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count,
                            std::vector<char>* arena, std::vector<ByteView>* out) {
  DeltaBinaryPackedDecoder prefixes(data, size);
  SHOAL_RETURN_IF_ERROR(prefixes.Init());
  if (prefixes.total_values() != count)
    return Status::InvalidData("DELTA_BYTE_ARRAY has {} prefixes for {} values",
                               prefixes.total_values(), count);
  std::vector<int64_t> prefix(static_cast<size_t>(prefixes.total_values()));
  SHOAL_RETURN_IF_ERROR(prefixes.Decode(prefix.data(), prefixes.total_values()));
  const size_t used = prefixes.consumed();
  std::vector<ByteView> suffixes;
  SHOAL_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(data + used, size - used, count, &suffixes));
  // First pass sizes the arena so views stay valid; second pass builds the values.
  uint64_t total = 0;
  uint64_t prev_len = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t p = prefix[static_cast<size_t>(i)];
    if (p < 0 || static_cast<uint64_t>(p) > prev_len)
      return Status::InvalidData(
          "DELTA_BYTE_ARRAY value {} has prefix {} longer than the previous "
          "value ({} bytes)",
          i, p, prev_len);
    prev_len = static_cast<uint64_t>(p) + suffixes[static_cast<size_t>(i)].size();
    total += prev_len;
    if (total > (uint64_t{1} << 31))
      return Status::InvalidData("DELTA_BYTE_ARRAY page expands to over 2 GiB");
  }
  arena->resize(static_cast<size_t>(total) + 1);  // never empty: data() must not be null
  out->resize(static_cast<size_t>(count));
  char* dst = arena->data();
  const char* prev = dst;
  for (int64_t i = 0; i < count; ++i) {
    const auto p = static_cast<size_t>(prefix[static_cast<size_t>(i)]);
    const ByteView suffix = suffixes[static_cast<size_t>(i)];
    if (p > 0)
      std::memmove(dst, prev, p);
    if (!suffix.empty())
      std::memcpy(dst + p, suffix.data(), suffix.size());
    (*out)[static_cast<size_t>(i)] = ByteView(dst, p + suffix.size());
    prev = dst;
    dst += p + suffix.size();
  }
  return Status::OK();
}

}  // namespace shoal::io::parquet

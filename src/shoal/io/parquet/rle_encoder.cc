#include "shoal/io/parquet/rle_encoder.h"

#include <algorithm>
#include <bit>

namespace shoal::io::parquet {

namespace {

// A bit-packed run: header (groups << 1 | 1), then the groups; `count` is padded to whole groups.
void PutLiteralRun(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  const int64_t groups = (count + 7) / 8;
  RleEncoder::PutVarint((static_cast<uint64_t>(groups) << 1) | 1U, out);
  RleEncoder::BitPack(values, count, bit_width, out);
  // Zero padding up to the whole last group (only the final run of a page is ever short).
  const int64_t packed = (count * bit_width + 7) / 8;
  const int64_t full = groups * bit_width;
  out->append(static_cast<size_t>(full - packed), '\0');
}

void PutRepeatedRun(uint32_t value, int64_t count, int bit_width, std::string* out) {
  RleEncoder::PutVarint(static_cast<uint64_t>(count) << 1, out);
  for (int b = 0; b < (bit_width + 7) / 8; ++b) {
    out->push_back(static_cast<char>((value >> (8 * b)) & 0xFFU));
  }
}

}  // namespace

void RleEncoder::PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7FU) | 0x80U));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

int RleEncoder::BitWidth(uint64_t max_value) {
  return max_value == 0 ? 0 : 64 - std::countl_zero(max_value);
}

void RleEncoder::BitPack(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  if (bit_width == 0 || count == 0) {
    return;
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>((count * bit_width + 7) / 8));
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  // At most 7 bits are pending before a value is added, so 39 bits fit the accumulator.
  uint64_t pending = 0;
  int bits = 0;
  for (int64_t i = 0; i < count; ++i) {
    pending |= static_cast<uint64_t>(values[i]) << bits;
    bits += bit_width;
    while (bits >= 8) {
      *dst++ = static_cast<uint8_t>(pending);
      pending >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) {
    *dst = static_cast<uint8_t>(pending);
  }
}

void RleEncoder::Encode(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  // Values [literal_start, i) wait to be bit-packed. A run of >= 8 equal values becomes an RLE run
  // once the pending literal values are a whole number of groups: the run lends the values needed
  // to fill the last group, if it stays at least 8 long.
  int64_t literal_start = 0;
  int64_t i = 0;
  while (i < count) {
    const uint32_t v = values[i];
    int64_t j = i + 1;
    while (j < count && values[j] == v) {
      ++j;
    }
    const int64_t run = j - i;
    if (run >= 8) {
      const int64_t pending = i - literal_start;
      const int64_t pad = (8 - pending % 8) % 8;
      if (run - pad >= 8) {
        if (pending + pad > 0) {
          PutLiteralRun(values + literal_start, pending + pad, bit_width, out);
        }
        PutRepeatedRun(v, run - pad, bit_width, out);
        literal_start = j;
      }
    }
    i = j;
  }
  if (literal_start < count) {
    PutLiteralRun(values + literal_start, count - literal_start, bit_width, out);
  }
}

}  // namespace shoal::io::parquet

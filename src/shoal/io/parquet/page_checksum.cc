#include "shoal/io/parquet/page_checksum.h"

#include <limits>

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace shoal::io::parquet {
namespace {

// zlib's crc32 takes at most a uInt of bytes at a time.
uint32_t ZlibCrc(uint32_t crc, const uint8_t* data, size_t size) {
  constexpr size_t kStep = std::numeric_limits<uInt>::max();
  while (size > 0) {
    const size_t n = size < kStep ? size : kStep;
    crc = static_cast<uint32_t>(crc32(crc, data, static_cast<uInt>(n)));
    data += n;
    size -= n;
  }
  return crc;
}

#if defined(__x86_64__)
#define SHOAL_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

SHOAL_CLMUL_TARGET inline __m128i LoadLane(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// One folding step: the 128-bit remainder `acc`, moved 128 * n bits further by the multiplier
// pair `k` (x^(128n+32) and x^(128n-32) mod P, reflected), plus the next 16 bytes.
SHOAL_CLMUL_TARGET inline __m128i FoldLane(__m128i acc, __m128i k, __m128i next) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11)), next);
}

// The CRC register after [p, p + n) from register `state` (not inverted: callers invert on the
// way in and out, as zlib's crc32 does inside). n >= 64 and a multiple of 16.
SHOAL_CLMUL_TARGET uint32_t FoldedCrc(const uint8_t* p, size_t n, uint32_t state) {
  // The paper's constants for the bit-reflected CRC-32: k1/k2 fold by 512 bits (four lanes),
  // k3/k4 by 128 bits, k5 from 64 to 32 bits; then P' and mu for the Barrett reduction.
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
  const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
  const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);

  // Four independent lanes hide the multiplier's latency.
  __m128i a = _mm_xor_si128(LoadLane(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i b = LoadLane(p + 16);
  __m128i c = LoadLane(p + 32);
  __m128i d = LoadLane(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    a = FoldLane(a, k1k2, LoadLane(p));
    b = FoldLane(b, k1k2, LoadLane(p + 16));
    c = FoldLane(c, k1k2, LoadLane(p + 32));
    d = FoldLane(d, k1k2, LoadLane(p + 48));
  }
  a = FoldLane(a, k3k4, b);
  a = FoldLane(a, k3k4, c);
  a = FoldLane(a, k3k4, d);
  for (; n >= 16; p += 16, n -= 16)
    a = FoldLane(a, k3k4, LoadLane(p));

  // 128 -> 64 -> 32 bits of remainder, then the Barrett reduction modulo P.
  a = _mm_xor_si128(_mm_srli_si128(a, 8), _mm_clmulepi64_si128(a, k3k4, 0x10));
  a = _mm_xor_si128(_mm_srli_si128(a, 4), _mm_clmulepi64_si128(_mm_and_si128(a, low32), k5, 0x00));
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(a, low32), barrett, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(a, t), 1));
}

bool HasClmul() {
  static const bool kHas = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return kHas;
}
#undef SHOAL_CLMUL_TARGET  // sources are compiled in unity batches: keep it to this file
#endif

}  // namespace

uint32_t PageChecksumPortable(const uint8_t* data, size_t size) {
  return ZlibCrc(0, data, size);
}

uint32_t PageChecksum(const uint8_t* data, size_t size) {
  uint32_t crc = 0;
#if defined(__x86_64__)
  if (size >= 64 && HasClmul()) {
    const size_t folded = size & ~size_t{15};
    crc = ~FoldedCrc(data, folded, ~uint32_t{0});
    data += folded;
    size -= folded;
  }
#endif
  return ZlibCrc(crc, data, size);
}

}  // namespace shoal::io::parquet

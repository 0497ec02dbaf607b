// Small value rules shared by the TPC-H row generators (clause 4.2.2 and 4.2.3): comment length
// ranges, random address strings, phone numbers, the retail price formula, the part-to-supplier
// mapping and the sparse order keys. Header-only: these sit on the per-row hot path.
#pragma once

#include <cstdint>

#include "shoal/io/tpch/random_stream.h"
#include "shoal/io/tpch/rows.h"

namespace shoal::io::tpch {

struct LengthRange {
  int min;
  int max;
};

/// Text columns vary in length between 0.4 and 1.6 times their average (truncated, as dbgen does).
constexpr LengthRange VariableLength(int average) {
  return {static_cast<int>(average * 0.4), static_cast<int>(average * 1.6)};
}

/// Customers and suppliers: an address of 25 characters on average, and a nation among the 25.
inline constexpr LengthRange kAddressLength = VariableLength(25);
inline constexpr int64_t kNationCount = 25;

/// A random string of [min, max] characters from 64 symbols: one draw for the length, then one
/// draw per five characters, six bits per character (the draw's two's-complement low bits; see
/// RandomStream::NextAlphaNumBits). Returns the length written to `out`.
inline int RandomAlphaNumeric(RowStream& stream, LengthRange range, char* out) {
  static constexpr char kSymbols[] =
      "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,";
  const int length = static_cast<int>(stream.Uniform(range.min, range.max));
  int64_t bits = 0;
  for (int i = 0; i < length; ++i) {
    if (i % 5 == 0)
      bits = stream.rng().NextAlphaNumBits();
    out[i] = kSymbols[bits & 63];
    bits >>= 6;
  }
  return length;
}

/// Three draws: area code, exchange, number; the country code follows from the nation.
inline PhoneNumber RandomPhone(RowStream& stream, int64_t nation_key) {
  constexpr int64_t kCountryCodes = 90;
  PhoneNumber phone;
  phone.country = static_cast<int32_t>(10 + nation_key % kCountryCodes);
  phone.area = static_cast<int32_t>(stream.Uniform(100, 999));
  phone.exchange = static_cast<int32_t>(stream.Uniform(100, 999));
  phone.number = static_cast<int32_t>(stream.Uniform(1000, 9999));
  return phone;
}

/// p_retailprice in cents (clause 4.2.3): 90000 + ((key / 10) mod 20001) + 100 · (key mod 1000).
constexpr int64_t RetailPriceCents(int64_t part_key) {
  return 90000 + (part_key / 10) % 20001 + (part_key % 1000) * 100;
}

/// The i-th (0..3) supplier of a part (clause 4.2.3, ps_suppkey).
constexpr int64_t PartSupplierKey(int64_t part_key, int64_t i, int64_t supplier_count) {
  return (part_key + i * (supplier_count / 4 + (part_key - 1) / supplier_count)) % supplier_count +
         1;
}

/// Order keys are sparse: only the first 8 of every 32 keys are used (clause 4.2.3).
constexpr int64_t SparseOrderKey(int64_t index) {
  return ((index >> 3) << 5) | (index & 7);
}

}  // namespace shoal::io::tpch

// Order-preserving fixed-width encodings of single values, shared by the sort key encoder (whole
// rows of ORDER BY keys) and the nested key encoder (elements and fields of nested values): each
// value maps to an unsigned integer whose order is the value order, written big-endian so that
// memcmp on the bytes agrees.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "shoal/columnar/data_type.h"
#include "shoal/columnar/decimal.h"

namespace shoal::exec::row_key_internal {

using uint128_t = unsigned __int128;

template <typename K>
inline uint8_t* PutBigEndian(uint8_t* p, K k) {
  for (int b = static_cast<int>(sizeof(K)) - 1; b >= 0; --b)
    *p++ = static_cast<uint8_t>(k >> (8 * b));
  return p;
}

// The unsigned integer whose order is the value order of `v`: integers with the sign bit flipped,
// floats by their IEEE bits made monotonic (-0.0 folded into 0.0, every NaN canonical and above
// +Infinity: PostgreSQL's rule), intervals by their length in 30-day months (PostgreSQL's
// comparison), booleans false < true.
template <typename T>
inline auto NormalizedKey(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<uint8_t>(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr U kSign = U{1} << (sizeof(T) * 8 - 1);
    if (std::isnan(v))
      v = std::numeric_limits<T>::quiet_NaN();
    else if (v == 0)
      v = 0;  // -0.0 sorts with 0.0
    U u;
    std::memcpy(&u, &v, sizeof(T));
    if (std::signbit(v))
      return static_cast<U>(~u);
    return static_cast<U>(u | kSign);
  } else if constexpr (std::is_same_v<T, columnar::MonthDayNano>) {
    const columnar::int128_t span = (static_cast<columnar::int128_t>(v.months) * 30 + v.days) *
                                        static_cast<columnar::int128_t>(86400000000000LL) +
                                    v.nanoseconds;
    return static_cast<uint128_t>(span) ^ (uint128_t{1} << 127);
  } else if constexpr (std::is_same_v<T, columnar::int128_t>) {
    return static_cast<uint128_t>(v) ^ (uint128_t{1} << 127);
  } else if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<U>(static_cast<U>(v) ^ (U{1} << (sizeof(T) * 8 - 1)));
  } else {
    return v;
  }
}

template <typename T>
constexpr int KeyWidth() {
  return static_cast<int>(sizeof(decltype(NormalizedKey(std::declval<T>()))));
}

// Calls fn(T{}) for the C type whose normalized key encodes `type`; false (fn not called) for
// strings, nested and the other types without a fixed-width key.
template <typename Fn>
bool DispatchFixed(const columnar::DataType& type, Fn&& fn) {
  using columnar::TypeId;
  switch (type.id()) {
    case TypeId::kBoolean: fn(bool{}); return true;
    case TypeId::kInt8: fn(int8_t{}); return true;
    case TypeId::kInt16: fn(int16_t{}); return true;
    case TypeId::kInt32:
    case TypeId::kDate32: fn(int32_t{}); return true;
    case TypeId::kInt64:
    case TypeId::kTimestamp: fn(int64_t{}); return true;
    case TypeId::kUInt8: fn(uint8_t{}); return true;
    case TypeId::kUInt16: fn(uint16_t{}); return true;
    case TypeId::kUInt32: fn(uint32_t{}); return true;
    case TypeId::kUInt64: fn(uint64_t{}); return true;
    case TypeId::kFloat32: fn(float{}); return true;
    case TypeId::kFloat64: fn(double{}); return true;
    case TypeId::kDecimal:
      if (type.precision() <= columnar::DataType::kMaxDecimal64Precision) {
        fn(int64_t{});
      } else {
        fn(columnar::int128_t{});
      }
      return true;
    case TypeId::kInterval: fn(columnar::MonthDayNano{}); return true;
    default: return false;
  }
}

}  // namespace shoal::exec::row_key_internal

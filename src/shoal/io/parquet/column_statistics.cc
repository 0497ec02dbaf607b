#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "shoal/io/parquet/column_statistics_internal.h"
#include "shoal/io/parquet/value_encoders_internal.h"

namespace shoal::io::parquet::internal {
namespace {

using columnar::Array;
using columnar::DataType;
using columnar::int128_t;
using columnar::TypeId;

template <typename T>
std::string RawBytes(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

template <typename T, typename Less>
bool MinMax(const std::vector<T>& v, Less less, T* min, T* max) {
  if (v.empty()) {
    return false;
  }
  T lo = v[0];
  T hi = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    lo = less(v[i], lo) ? v[i] : lo;
    hi = less(hi, v[i]) ? v[i] : hi;
  }
  *min = lo;
  *max = hi;
  return true;
}

template <typename T>
bool FloatMinMax(const std::vector<T>& v, T* min, T* max) {
  T lo = std::numeric_limits<T>::infinity();
  T hi = -std::numeric_limits<T>::infinity();
  bool any = false;
  for (T x : v) {
    if (std::isnan(x)) {
      continue;
    }
    any = true;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (!any) {
    return false;
  }
  // The spec: a zero bound is written as -0.0 for min and +0.0 for max, whatever the data held.
  *min = lo == 0 ? -static_cast<T>(0) : lo;
  *max = hi == 0 ? static_cast<T>(0) : hi;
  return true;
}

constexpr size_t kMaxStatBytes = 64;

// A lower bound of at most kMaxStatBytes bytes (a prefix, cut at a character boundary for utf8).
std::string TruncateMin(std::string_view v, bool utf8) {
  if (v.size() <= kMaxStatBytes) {
    return std::string(v);
  }
  size_t n = kMaxStatBytes;
  while (utf8 && n > 0 && (static_cast<uint8_t>(v[n]) & 0xC0U) == 0x80U) {
    --n;
  }
  return std::string(v.substr(0, n));
}

// An upper bound of at most kMaxStatBytes bytes, or nothing when none can be made short (the
// prefix with its last incrementable byte incremented; for utf8 only ASCII bytes are incremented
// so the bound stays valid UTF-8).
bool TruncateMax(std::string_view v, bool utf8, std::string* out) {
  if (v.size() <= kMaxStatBytes) {
    *out = std::string(v);
    return true;
  }
  for (size_t n = kMaxStatBytes; n > 0; --n) {
    const auto c = static_cast<uint8_t>(v[n - 1]);
    if (utf8 ? c < 0x7FU : c < 0xFFU) {
      *out = std::string(v.substr(0, n));
      (*out)[n - 1] = static_cast<char>(c + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

format::Statistics MakeStatistics(const Values& v, const Layout& layout) {
  format::Statistics stats;
  stats.__set_null_count(v.null_count);
  std::string min;
  std::string max;
  bool have = false;
  switch (layout.physical) {
    case Physical::kBoolean: {
      uint32_t lo = 0;
      uint32_t hi = 0;
      have = MinMax(v.bools, std::less<uint32_t>(), &lo, &hi);
      min = std::string(1, static_cast<char>(lo));
      max = std::string(1, static_cast<char>(hi));
      break;
    }
    case Physical::kInt32: {
      int32_t lo = 0;
      int32_t hi = 0;
      if (layout.order == Order::kUnsigned) {
        have = MinMax(
            v.i32,
            [](int32_t a, int32_t b) {
              return static_cast<uint32_t>(a) < static_cast<uint32_t>(b);
            },
            &lo, &hi);
      } else {
        have = MinMax(v.i32, std::less<int32_t>(), &lo, &hi);
      }
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kInt64: {
      int64_t lo = 0;
      int64_t hi = 0;
      if (layout.order == Order::kUnsigned) {
        have = MinMax(
            v.i64,
            [](int64_t a, int64_t b) {
              return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
            },
            &lo, &hi);
      } else {
        have = MinMax(v.i64, std::less<int64_t>(), &lo, &hi);
      }
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kFloat: {
      float lo = 0;
      float hi = 0;
      have = FloatMinMax(v.f32, &lo, &hi);
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kDouble: {
      double lo = 0;
      double hi = 0;
      have = FloatMinMax(v.f64, &lo, &hi);
      min = RawBytes(lo);
      max = RawBytes(hi);
      break;
    }
    case Physical::kFixed: {
      int128_t lo = 0;
      int128_t hi = 0;
      have = MinMax(v.i128, std::less<int128_t>(), &lo, &hi);
      min = BigEndian(lo, layout.fixed_width);
      max = BigEndian(hi, layout.fixed_width);
      break;
    }
    case Physical::kByteArray: {
      const int64_t n = static_cast<int64_t>(v.offsets.size()) - 1;
      if (n == 0) {
        break;
      }
      std::string_view lo = v.Bytes(0);
      std::string_view hi = lo;
      for (int64_t k = 1; k < n; ++k) {
        std::string_view x = v.Bytes(k);
        lo = x < lo ? x : lo;
        hi = hi < x ? x : hi;
      }
      min = TruncateMin(lo, layout.utf8);
      have = TruncateMax(hi, layout.utf8, &max);
      break;
    }
  }
  if (have) {
    stats.__set_min_value(min);
    stats.__set_max_value(max);
    if (layout.legacy_stats) {
      stats.__set_min(min);
      stats.__set_max(max);
    }
  }
  return stats;
}

}  // namespace shoal::io::parquet::internal

#include "shoal/columnar/decimal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace shoal::columnar {

int128_t PowerOfTen(int n) {
  static const auto kTable = [] {
    std::array<int128_t, 39> t{};
    t[0] = 1;
    for (size_t i = 1; i < t.size(); ++i)
      t[i] = t[i - 1] * 10;
    return t;
  }();
  return kTable[static_cast<size_t>(n)];
}

std::string Int128ToString(int128_t v) {
  if (v == 0)
    return "0";
  bool neg = v < 0;
  // Work on the unsigned magnitude so INT128_MIN does not overflow.
  unsigned __int128 u =
      neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  char buf[48];
  int pos = 48;
  while (u != 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg)
    buf[--pos] = '-';
  return std::string(buf + pos, static_cast<size_t>(48 - pos));
}

void AppendDecimal(int128_t unscaled, int scale, std::string* out) {
  // Digits right to left into a buffer: 39 digits, a point, up to 38 leading zeros and a sign.
  char buf[96];
  char* end = buf + sizeof(buf);
  char* p = end;
  const bool neg = unscaled < 0;
  // The magnitude as unsigned, so that INT128_MIN does not overflow.
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1
                            : static_cast<unsigned __int128>(unscaled);
  int written = 0;
  auto put = [&](unsigned digit) {
    if (written == scale && scale > 0)
      *--p = '.';
    *--p = static_cast<char>('0' + digit);
    ++written;
  };
  // Most values fit 64 bits, whose division is several times cheaper than 128-bit division.
  while (u > UINT64_MAX) {
    put(static_cast<unsigned>(u % 10));
    u /= 10;
  }
  for (auto small = static_cast<uint64_t>(u); small != 0; small /= 10)
    put(static_cast<unsigned>(small % 10));
  while (written <= scale)  // "0.05" for 5 at scale 2, "0" for 0 at scale 0
    put(0);
  if (neg)
    *--p = '-';
  out->append(p, static_cast<size_t>(end - p));
}

std::string FormatDecimal(int128_t unscaled, int scale) {
  std::string out;
  AppendDecimal(unscaled, scale, &out);
  return out;
}

Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    return Status::InvalidArgument("invalid decimal type decimal({},{})", precision, scale);
  }
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty())
    return Status::InvalidArgument("invalid decimal \"{}\": no digits", text);
  int128_t value = 0;
  int int_digits = 0;
  int frac_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  bool too_wide = false;  // more integer digits than precision - scale
  int round_digit = -1;   // first digit beyond the scale
  for (char c : s) {
    if (c == '.') {
      if (seen_point)
        return Status::InvalidArgument("invalid decimal \"{}\": two decimal points", text);
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') {
      // Name the byte, not the character: a lone byte of a multibyte sequence is not valid
      // UTF-8, and this message may travel to a client that insists on it.
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte < 0x7f) {
        return Status::InvalidArgument("invalid decimal \"{}\": unexpected character '{}'", text,
                                       c);
      }
      return Status::InvalidArgument("invalid decimal \"{}\": unexpected byte 0x{:02x}", text,
                                     byte);
    }
    any_digit = true;
    int d = c - '0';
    if (seen_point) {
      if (frac_digits == scale) {
        if (round_digit < 0)
          round_digit = d;
        continue;
      }
      ++frac_digits;
    } else {
      if (value == 0 && d == 0)
        continue;  // leading zeros do not count toward precision
      ++int_digits;
      // Integer digits past precision - scale can never fit, and with up to `scale` fraction
      // digits after them they could overflow int128: stop accumulating, but keep scanning so
      // that garbage later in the text is still reported as garbage.
      if (int_digits > precision - scale)
        too_wide = true;
    }
    if (!too_wide)
      value = value * 10 + d;
  }
  if (!any_digit)
    return Status::InvalidArgument("invalid decimal \"{}\": no digits", text);
  if (too_wide)
    return Status::OutOfRange("decimal \"{}\" does not fit decimal({},{})", text, precision, scale);
  value *= PowerOfTen(scale - frac_digits);
  if (round_digit >= 5)
    value += 1;
  if (value > MaxUnscaled(precision)) {
    return Status::OutOfRange("decimal \"{}\" does not fit decimal({},{})", text, precision, scale);
  }
  return neg ? -value : value;
}

namespace {

/// `v` to 15 significant digits as plain decimal text (no exponent) in `buf` (128 bytes), the
/// text PostgreSQL's float8_numeric parses. Values whose digits all lie beyond 40 places after
/// the point are 0 at any decimal scale; past 10^40 no decimal holds them (left for the parser
/// to refuse).
std::string_view FifteenDigits(double v, char* buf) {
  char e[32];
  std::snprintf(e, sizeof(e), "%.14e", v);  // [-]d.dddddddddddddde[+-]XX
  const char* p = e;
  char* out = buf;
  if (*p == '-')
    *out++ = *p++;
  char digits[16];
  int n = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.')
      digits[n++] = *p;
  }
  const int exp = std::atoi(p + 1);
  auto put = [&](char c, int times) {
    for (int k = 0; k < times; ++k)
      *out++ = c;
  };
  if (exp < -40) {
    out = buf;
    *out++ = '0';
  } else if (exp >= n - 1) {  // an integer; past 10^40 the parser refuses it
    std::memcpy(out, digits, static_cast<size_t>(n));
    out += n;
    put('0', std::min(exp, 41) - (n - 1));
  } else if (exp >= 0) {
    std::memcpy(out, digits, static_cast<size_t>(exp) + 1);
    out += exp + 1;
    *out++ = '.';
    std::memcpy(out, digits + exp + 1, static_cast<size_t>(n - exp - 1));
    out += n - exp - 1;
  } else {
    *out++ = '0';
    *out++ = '.';
    put('0', -exp - 1);
    std::memcpy(out, digits, static_cast<size_t>(n));
    out += n;
  }
  return std::string_view(buf, static_cast<size_t>(out - buf));
}

}  // namespace

Result<int128_t> DecimalFromDouble(double v, int precision, int scale) {
  if (!std::isfinite(v))
    return Status::OutOfRange("cannot convert {} to numeric", v);
  char text[128];
  return ParseDecimal(FifteenDigits(v, text), precision, scale);
}

}  // namespace shoal::columnar

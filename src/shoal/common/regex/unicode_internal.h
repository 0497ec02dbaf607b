// Character handling the regex compiler and matcher share: UTF-8 decoding, simple case folding and
// the character-class predicates ([:alpha:], \w, ...).
//
// Shoal has no Unicode tables, so outside ASCII these are approximations chosen to agree with
// PostgreSQL under a UTF-8 locale on common text: letters of the Latin-1, Latin Extended, Greek,
// Cyrillic, Armenian, Hebrew, Arabic, kana, CJK and Hangul blocks are alphabetic; case pairs are
// those of ASCII, Latin-1, Greek and Cyrillic. Private to the regex module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace shoal::regex::internal {

/// Decodes the code point at s[i] and sets *len to its byte length (>= 1). A byte that does not
/// start a valid sequence is read as a character of its own (its byte value), so any input is
/// consumed in linear time.
inline char32_t DecodeUtf8(const char* s, size_t n, size_t i, size_t* len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *len = 1;
    return b0;
  }
  auto cont = [&](size_t k) {
    return i + k < n && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  auto bits = [&](size_t k) { return static_cast<char32_t>(s[i + k] & 0x3F); };
  if (b0 >= 0xC2 && b0 < 0xE0 && cont(1)) {
    *len = 2;
    return (static_cast<char32_t>(b0 & 0x1F) << 6) | bits(1);
  }
  if (b0 >= 0xE0 && b0 < 0xF0 && cont(1) && cont(2)) {
    *len = 3;
    return (static_cast<char32_t>(b0 & 0x0F) << 12) | (bits(1) << 6) | bits(2);
  }
  if (b0 >= 0xF0 && b0 < 0xF5 && cont(1) && cont(2) && cont(3)) {
    *len = 4;
    return (static_cast<char32_t>(b0 & 0x07) << 18) | (bits(1) << 12) | (bits(2) << 6) | bits(3);
  }
  *len = 1;
  return b0;
}

/// The other case of `c`, or `c` itself when it has none (ASCII, Latin-1, Greek, Cyrillic).
inline char32_t OtherCase(char32_t c) {
  if (c >= 'a' && c <= 'z')
    return c - 32;
  if (c >= 'A' && c <= 'Z')
    return c + 32;
  if (c < 0xC0)
    return c;
  if (c <= 0xDE && c != 0xD7)
    return c + 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7)
    return c - 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2)
    return c + 32;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2)
    return c - 32;
  if (c >= 0x410 && c <= 0x42F)
    return c + 32;
  if (c >= 0x430 && c <= 0x44F)
    return c - 32;
  if (c >= 0x400 && c <= 0x40F)
    return c + 80;
  if (c >= 0x450 && c <= 0x45F)
    return c - 80;
  return c;
}

/// The code point ranges whose members can have another case (for folding a class).
inline constexpr char32_t kFoldableRanges[][2] = {
    {'A', 'Z'}, {'a', 'z'}, {0xC0, 0xFE}, {0x391, 0x3C9}, {0x400, 0x45F}};

inline bool IsUpper(char32_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
         (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x400 && c <= 0x42F);
}

inline bool IsLower(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x3AC && c <= 0x3CE) || (c >= 0x430 && c <= 0x45F);
}

inline bool IsAlpha(char32_t c) {
  if (c < 0x80)
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return c == 0xAA || c == 0xB5 || c == 0xBA ||
         (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x370 && c <= 0x3FF) ||
         (c >= 0x400 && c <= 0x52F) || (c >= 0x531 && c <= 0x587) || (c >= 0x5D0 && c <= 0x5EA) ||
         (c >= 0x620 && c <= 0x64A) || (c >= 0x1E00 && c <= 0x1FFF) ||
         (c >= 0x3041 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x9FFF) ||
         (c >= 0xAC00 && c <= 0xD7A3);
}

inline bool IsDigit(char32_t c) {
  return c >= '0' && c <= '9';
}

inline bool IsSpace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x3000;
}

inline bool IsWordChar(char32_t c) {
  return IsAlpha(c) || IsDigit(c) || c == '_';
}

}  // namespace shoal::regex::internal

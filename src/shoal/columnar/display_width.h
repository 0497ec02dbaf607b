// Terminal display width of text, computed the way psql computes it, so that tables printed by
// FormatTable line up exactly like psql's output for the same data (pretty_print.h).
//
// A code point takes 0 columns when it is a combining mark (general category Mn or Me), 2 when it
// is East Asian Wide or Fullwidth (CJK, Hangul, most emoji), and 1 otherwise. Bytes that are not
// valid UTF-8 take one column each.
#pragma once

#include <cstdint>
#include <string_view>

namespace shoal::columnar {

/// Columns one code point occupies: 0, 1 or 2.
int CodePointWidth(uint32_t cp);

/// Columns the UTF-8 text occupies (no line breaks expected; callers split lines first).
int64_t DisplayWidth(std::string_view text);

}  // namespace shoal::columnar

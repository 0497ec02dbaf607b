// Small ASCII text helpers shared by every layer (settings, the SQL parser and literals, the
// readers, the shell, the worker list): trimming blanks and case-insensitive matching of keywords,
// option names and units. ASCII only on purpose: SQL keywords and option names are ASCII, and the
// C locale's rules must not change what a query means.
#pragma once

#include <string>
#include <string_view>

namespace shoal {

/// True for ' ', '\t', '\n', '\v', '\f', '\r' (isspace in the C locale).
constexpr bool IsAsciiSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/// `s` without leading and trailing ASCII whitespace.
std::string_view Trim(std::string_view s);

/// `s` with 'A'..'Z' lowered.
std::string AsciiLower(std::string_view s);

/// Whether `a` and `b` are equal ignoring ASCII case.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace shoal

#include "shoal/common/text.h"

namespace shoal {
namespace {

constexpr char LowerChar(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = LowerChar(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerChar(a[i]) != LowerChar(b[i]))
      return false;
  }
  return true;
}

}  // namespace shoal

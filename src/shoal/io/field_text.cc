#include "shoal/io/field_text.h"

#include <charconv>

#include "shoal/common/text.h"

namespace shoal::io {

bool ParseInt64Field(std::string_view text, int64_t* out) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool ParseDoubleField(std::string_view text, double* out) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool ParseBoolField(std::string_view text, bool* out) {
  for (std::string_view t : {"true", "t", "1", "yes", "y"}) {
    if (EqualsIgnoreCase(text, t)) {
      *out = true;
      return true;
    }
  }
  for (std::string_view f : {"false", "f", "0", "no", "n"}) {
    if (EqualsIgnoreCase(text, f)) {
      *out = false;
      return true;
    }
  }
  return false;
}

}  // namespace shoal::io

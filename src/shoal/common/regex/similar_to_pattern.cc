#include "shoal/common/regex/similar_to_pattern.h"

#include "shoal/common/regex/unicode_internal.h"

namespace shoal::regex {

Result<std::string> SimilarToRegex(std::string_view pattern,
                                   std::optional<std::string_view> escape) {
  std::string_view esc = escape.value_or("\\");
  if (!esc.empty()) {
    size_t len = 1;
    internal::DecodeUtf8(esc.data(), esc.size(), 0, &len);
    if (len != esc.size())
      return Status::InvalidArgument("invalid escape string")
          .WithSqlState("22025")
          .WithHint("Escape string must be empty or one character.");
  }
  std::string out = "^(?:";
  bool after_escape = false;
  bool in_class = false;
  int quotes = 0;
  for (size_t i = 0; i < pattern.size();) {
    size_t len = 1;
    internal::DecodeUtf8(pattern.data(), pattern.size(), i, &len);
    const std::string_view ch = pattern.substr(i, len);
    i += len;
    if (after_escape) {
      after_escape = false;
      if (ch == "\"" && !in_class) {
        if (quotes == 0) {
          out += "){1,1}?(";
        } else if (quotes == 1) {
          out += "){1,1}(?:";
        } else {
          return Status::InvalidArgument(
                     "SQL regular expression may not contain more than two escape-double-quote "
                     "separators")
              .WithSqlState("2200C");
        }
        ++quotes;
      } else {
        // Any character may be escaped, which also gives access to \d and the like.
        out += '\\';
        out += ch;
      }
      continue;
    }
    if (!esc.empty() && ch == esc) {
      after_escape = true;
      continue;
    }
    const char c = ch.size() == 1 ? ch[0] : '\0';
    if (in_class) {
      if (c == '\\')
        out += '\\';
      out += ch;
      if (c == ']')
        in_class = false;
    } else if (c == '[') {
      out += '[';
      in_class = true;
    } else if (c == '%') {
      out += ".*";
    } else if (c == '_') {
      out += '.';
    } else if (c == '(') {
      out += "(?:";
    } else if (c == '\\' || c == '.' || c == '^' || c == '$') {
      out += '\\';
      out += c;
    } else {
      out += ch;
    }
  }
  out += ")$";
  return out;
}

}  // namespace shoal::regex

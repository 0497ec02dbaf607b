#include "shoal/io/delimited_tokenizer.h"

#include <algorithm>

namespace shoal::io {

bool DelimitedTokenizer::Line(std::string_view data, size_t* pos, FieldSlice* out, char** arena,
                              std::string* error, int* bad_field) {
  size_t p = *pos;
  int field = 0;
  FieldSlice last;
  const char delim = options_.delimiter;
  const char quote = options_.quote;
  while (true) {
    FieldSlice slice;
    if (quote != '\0' && p < data.size() && data[p] == quote) {
      ++p;
      char* start = *arena;
      char* w = start;
      bool closed = false;
      while (p < data.size()) {
        char c = data[p];
        if (options_.escape != '\0' && c == options_.escape && options_.escape != quote &&
            p + 1 < data.size()) {
          *w++ = data[p + 1];
          p += 2;
        } else if (c == quote) {
          if (p + 1 < data.size() && data[p + 1] == quote) {
            *w++ = quote;
            p += 2;
          } else {
            ++p;
            closed = true;
            break;
          }
        } else {
          *w++ = c;
          ++p;
        }
      }
      if (!closed) {
        *error = "unterminated quoted field";
        *bad_field = field;
        return false;
      }
      *arena = w;
      slice = {start, static_cast<uint32_t>(w - start), true};
      if (p < data.size() && data[p] == '\r' && p + 1 < data.size() && data[p + 1] == '\n')
        ++p;
      if (p < data.size() && data[p] != delim && data[p] != '\n') {
        *error = "unexpected character after closing quote";
        *bad_field = field;
        return false;
      }
    } else {
      size_t start = p;
      while (p < data.size() && data[p] != delim && data[p] != '\n')
        ++p;
      size_t stop = p;
      if (stop > start && (p == data.size() || data[p] == '\n') && data[stop - 1] == '\r')
        --stop;
      slice = {data.data() + start, static_cast<uint32_t>(stop - start), false};
    }
    if (field < num_columns_)
      out[field] = slice;
    last = slice;
    ++field;
    if (p < data.size() && data[p] == delim) {
      ++p;
      continue;
    }
    // End of line.
    if (p < data.size())
      ++p;
    break;
  }
  int expected = num_columns_ + (options_.trailing_delimiter ? 1 : 0);
  if (options_.trailing_delimiter && field == num_columns_) {
    *error = "line does not end with the delimiter";
    *bad_field = num_columns_ - 1;
    return false;
  }
  if (options_.trailing_delimiter && field == expected && last.size != 0) {
    *error = "expected " + std::to_string(num_columns_) + " fields, found more";
    *bad_field = num_columns_ - 1;
    return false;
  }
  if (field != expected) {
    *error = "expected " + std::to_string(num_columns_) + " fields, found " +
             std::to_string(field - (options_.trailing_delimiter ? 1 : 0));
    *bad_field = std::min(field, expected) - 1;
    if (*bad_field < 0)
      *bad_field = 0;
    return false;
  }
  *pos = p;
  return true;
}

}  // namespace shoal::io

// DelimitedTokenizer: splits one line of TBL or CSV bytes into its fields (delimiter, RFC 4180
// quotes with doubled quotes or an escape character, CRLF line ends, TBL's trailing delimiter),
// the first stage of the delimited reader (delimited_reader.h). Fields point into the buffer;
// quoted fields that needed unescaping are copied into an arena the caller provides.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shoal/io/delimited_options.h"

namespace shoal::io {

struct FieldSlice {
  const char* data = nullptr;
  uint32_t size = 0;
  bool quoted = false;

  std::string_view view() const { return {data, size}; }
};

// The arena must be able to hold the whole buffer, so that it never reallocates.
class DelimitedTokenizer {
 public:
  DelimitedTokenizer(const DelimitedOptions& options, int num_columns)
      : options_(options), num_columns_(num_columns) {}

  // Tokenizes the line at `*pos` into `out` (num_columns slices). On success `*pos` is past the
  // line's newline. Errors return a message and the 0-based field index in `*bad_field`.
  bool Line(std::string_view data, size_t* pos, FieldSlice* out, char** arena, std::string* error,
            int* bad_field);

 private:
  const DelimitedOptions& options_;
  int num_columns_;
};

}  // namespace shoal::io

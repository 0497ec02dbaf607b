// DelimitedOptions: how a TBL or CSV file is laid out (delimiter, quoting, escape, header, the
// null string) and how large its scan units are; parsed from a table's WITH (...) options. Read by
// the tokenizer (delimited_tokenizer.h), the reader (delimited_reader.h) and the table provider.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "shoal/common/status.h"

namespace shoal::io {

struct DelimitedOptions {
  char delimiter = ',';
  char quote = '"';    // '\0': no quoting
  char escape = '\0';  // '\0': only doubled quotes escape a quote inside a quoted field
  bool header = false;
  bool trailing_delimiter = false;  // every line ends with a delimiter (TBL)
  std::string null_string;          // an unquoted field equal to this is NULL
  int64_t split_bytes = 32 << 20;   // target size of a scan unit when files may be split

  static DelimitedOptions Tbl();
  static DelimitedOptions Csv();
  /// Applies 'delimiter', 'header', 'quote', 'escape', 'null', 'split_bytes' (case-insensitive
  /// keys); unknown keys and bad values are InvalidArgument.
  Status Apply(const std::map<std::string, std::string>& options);
  bool splittable() const { return quote == '\0'; }
};

}  // namespace shoal::io

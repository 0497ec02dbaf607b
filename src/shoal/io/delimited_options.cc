#include "shoal/io/delimited_options.h"

#include "shoal/common/text.h"
#include "shoal/io/field_text.h"

namespace shoal::io {

DelimitedOptions DelimitedOptions::Tbl() {
  DelimitedOptions options;
  options.delimiter = '|';
  options.quote = '\0';
  options.trailing_delimiter = true;
  return options;
}

DelimitedOptions DelimitedOptions::Csv() {
  return DelimitedOptions();
}

Status DelimitedOptions::Apply(const std::map<std::string, std::string>& options) {
  auto one_char = [](const std::string& key, const std::string& value, bool allow_empty,
                     char* out) -> Status {
    if (value.size() == 1 || (allow_empty && value.empty())) {
      *out = value.empty() ? '\0' : value[0];
      return Status::OK();
    }
    if (value == "\\t") {
      *out = '\t';
      return Status::OK();
    }
    return Status::InvalidArgument("option '{}' must be a single character, got '{}'", key, value);
  };
  for (const auto& [raw_key, value] : options) {
    const std::string key = AsciiLower(raw_key);
    if (key == "delimiter") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, false, &delimiter));
    } else if (key == "quote") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, true, &quote));
    } else if (key == "escape") {
      SHOAL_RETURN_IF_ERROR(one_char(key, value, true, &escape));
    } else if (key == "header") {
      bool v = false;
      if (!ParseBoolField(value, &v))
        return Status::InvalidArgument("option 'header' must be true or false, got '{}'", value);
      header = v;
    } else if (key == "null") {
      null_string = value;
    } else if (key == "split_bytes") {
      int64_t v = 0;
      if (!ParseInt64Field(value, &v) || v <= 0)
        return Status::InvalidArgument("option 'split_bytes' must be a positive integer, got '{}'",
                                       value);
      split_bytes = v;
    } else {
      return Status::InvalidArgument(
          "unknown option '{}' (known: delimiter, header, quote, escape, null, split_bytes)",
          raw_key);
    }
  }
  if (delimiter == '\n' || delimiter == quote)
    return Status::InvalidArgument("the delimiter must differ from newline and the quote");
  return Status::OK();
}

}  // namespace shoal::io

#include "shoal/io/csv_field.h"

namespace shoal::io {

void AppendCsvField(std::string_view text, char delimiter, char quote, std::string* out) {
  bool quoted = text.empty();
  for (char c : text) {
    if (c == delimiter || c == quote || c == '\n' || c == '\r') {
      quoted = true;
      break;
    }
  }
  if (!quoted) {
    out->append(text);
    return;
  }
  out->push_back(quote);
  for (char c : text) {
    if (c == quote)
      out->push_back(c);
    out->push_back(c);
  }
  out->push_back(quote);
}

std::string CsvField(std::string_view text) {
  std::string out;
  AppendCsvField(text, ',', '"', &out);
  return out;
}

}  // namespace shoal::io

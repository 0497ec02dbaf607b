// COPY ... TO STDOUT's text and csv formats as PostgreSQL 15 writes them: the options the
// statement may carry, and the quoting or escaping of one field. The connection sends the rows.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::server {

// COPY TO STDOUT's options, as PostgreSQL 15 takes them for text and csv.
struct CopyOutOptions {
  bool csv = false;
  char delimiter = '\t';
  std::string null_text = "\\N";
  bool header = false;
  char quote = '"';
  char escape = '"';
};

Result<CopyOutOptions> ParseCopyOutOptions(
    const std::vector<std::pair<std::string, std::string>>& options);

// Appends one field of a COPY row.
void AppendCopyField(const CopyOutOptions& o, std::string_view value, bool is_null,
                     std::string* out);

}  // namespace shoal::server

// CSV field quoting, as PostgreSQL's COPY ... (FORMAT csv) writes fields: a field is quoted when
// it holds the delimiter, the quote character, CR or LF, or is empty (so that an empty string
// stays apart from NULL, which is written as nothing); quotes inside are doubled. The one home
// for it: CsvWriter (COPY TO, tpchgen --format csv) and `shoal sql --format csv` both use it.
#pragma once

#include <string>
#include <string_view>

namespace shoal::io {

/// Appends `text` to `out` as one CSV field.
void AppendCsvField(std::string_view text, char delimiter, char quote, std::string* out);

/// The same with ',' and '"'.
std::string CsvField(std::string_view text);

}  // namespace shoal::io

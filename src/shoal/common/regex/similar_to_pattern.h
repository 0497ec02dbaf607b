// SQL's SIMILAR TO patterns as regular expressions, translated as PostgreSQL's similar_to_escape()
// does: % is .*, _ is ., the escape character (backslash unless ESCAPE says otherwise; none when
// it is empty) makes the next character literal, ( ) become non-capturing groups, the regex
// operators | * + ? { } [ ] keep their meaning, and the whole is wrapped in ^(?: ... )$ so that
// it must match the entire string. Escape-double-quote separators (for SUBSTRING ... SIMILAR)
// become the same part markers as in PostgreSQL.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal::regex {

/// The regular expression for SQL pattern `pattern` with escape character `escape` (nullopt: the
/// default backslash). Errors: 22025 for an escape of more than one character, 2200C for more
/// than two escape-double-quote separators.
Result<std::string> SimilarToRegex(std::string_view pattern,
                                   std::optional<std::string_view> escape);

}  // namespace shoal::regex

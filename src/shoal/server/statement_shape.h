// What the server must know about a statement without running it: whether it returns rows or
// writes (the extended protocol's Describe and Execute, read-only transactions), the columns of its
// result (RowDescription before the rows), and the leading words of its text (transaction commands,
// which the server handles itself).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/schema.h"
#include "shoal/sql/binder.h"

namespace shoal::server {

bool ReturnsRows(sql::StatementKind kind);

// Whether a statement changes data or the catalog (refused in a READ ONLY transaction).
bool IsWrite(sql::StatementKind kind);

// The columns a statement's result will have, known before it runs (for Describe); null when it
// returns no rows.
columnar::SchemaPtr ResultSchemaOf(const sql::BoundStatement& bound);

// The words of a statement's text, upper-cased, after leading comments (at most `limit`).
std::vector<std::string> LeadingWords(std::string_view text, size_t limit);

}  // namespace shoal::server

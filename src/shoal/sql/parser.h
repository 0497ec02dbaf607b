// Parser: SQL text to PostgreSQL parse trees, through libpg_query (the real PostgreSQL 15 grammar).
//
// libpg_query hands back the parse tree as protobuf bytes; we decode them into the C++ classes
// generated from pg_query.proto at build time. Those classes stay inside the sql layer: this
// header only forward-declares them, so layers above never see protobuf. The binder (binder.h)
// walks the trees.
//
// Errors keep PostgreSQL's message and cursor position (1-based, in characters of `sql`), with
// SQLSTATE 42601, so clients see what psql would show.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"

namespace pg_query {
class ParseResult;
class Node;
}  // namespace pg_query

namespace shoal::sql {

/// The clauses of `CREATE EXTERNAL TABLE name [(columns)] STORED AS fmt LOCATION 'path'
/// [OPTIONS ('key' 'value', ...)]`, which PostgreSQL's grammar lacks. ParseSql rewrites such a
/// statement, byte for byte in place (so error positions stay right), into `CREATE TABLE name
/// [(columns)]` for libpg_query and carries these clauses aside.
struct ExternalTableClause {
  std::string format;       // as written, upper-cased: "CSV", "TBL", "PARQUET", ...
  int format_location = 0;  // byte offset of the format name in the script
  std::string location;
  std::vector<std::pair<std::string, std::string>> options;
};

/// One statement of a script: its parse tree and where its text lies in the script.
struct ParsedStatement {
  const pg_query::Node* node = nullptr;         // owned by the ParsedScript
  int location = 0;                             // byte offset of the statement in the script
  int length = 0;                               // bytes; the rest of the script when 0
  std::string text;                             // the statement's own text, trimmed
  std::optional<ExternalTableClause> external;  // CREATE EXTERNAL TABLE (node is a CreateStmt)
};

/// A parsed script. Statements point into `tree`, which the script keeps alive.
struct ParsedScript {
  std::string sql;
  std::shared_ptr<const pg_query::ParseResult> tree;
  std::vector<ParsedStatement> statements;
};

/// Parses every statement of `sql` (empty statements are dropped).
Result<ParsedScript> ParseSql(std::string_view sql);

/// SQL text of a parse-tree node holding a statement (PostgreSQL's deparser); used to store a
/// view's query.
Result<std::string> DeparseStatement(const pg_query::Node& node);

/// Converts a byte offset in `text` into a 1-based character position (UTF-8 aware).
int BytePositionToCharPosition(std::string_view text, int byte_offset);

}  // namespace shoal::sql

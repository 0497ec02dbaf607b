#include "shoal/sql/parser.h"

#include <pg_query.h>

#include "shoal/sql/pg_query_proto/pg_query.pb.h"

namespace shoal::sql {

int BytePositionToCharPosition(std::string_view text, int byte_offset) {
  int chars = 0;
  size_t end = std::min(text.size(), static_cast<size_t>(std::max(byte_offset, 0)));
  for (size_t i = 0; i < end; ++i) {
    // Count bytes that start a UTF-8 sequence.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
      ++chars;
  }
  return chars + 1;
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == ';'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

Result<ParsedScript> ParseSql(std::string_view sql) {
  ParsedScript script;
  script.sql = std::string(sql);
  // libpg_query reads a NUL-terminated string; an embedded NUL would silently cut the script.
  if (script.sql.find('\0') != std::string::npos) {
    return Status::SyntaxError("SQL text contains a NUL character")
        .WithPosition(BytePositionToCharPosition(sql, static_cast<int>(script.sql.find('\0'))));
  }
  PgQueryProtobufParseResult result = pg_query_parse_protobuf(script.sql.c_str());
  if (result.error != nullptr) {
    std::string message = result.error->message ? result.error->message : "syntax error";
    // cursorpos is already PostgreSQL's 1-based character position; 0 means unknown.
    int cursor = result.error->cursorpos;
    pg_query_free_protobuf_parse_result(result);
    Status status = Status::SyntaxError("{}", message);
    if (cursor > 0)
      status = std::move(status).WithPosition(cursor);
    return status;
  }
  auto tree = std::make_shared<pg_query::ParseResult>();
  bool decoded =
      tree->ParseFromArray(result.parse_tree.data, static_cast<int>(result.parse_tree.len));
  pg_query_free_protobuf_parse_result(result);
  if (!decoded)
    return Status::Internal("libpg_query returned a parse tree that does not decode");
  for (const auto& raw : tree->stmts()) {
    if (!raw.has_stmt())
      continue;
    ParsedStatement statement;
    statement.node = &raw.stmt();
    statement.location = raw.stmt_location();
    statement.length = raw.stmt_len();
    size_t start = std::min(static_cast<size_t>(std::max(statement.location, 0)), sql.size());
    size_t len = statement.length > 0 ? static_cast<size_t>(statement.length) : sql.size() - start;
    statement.text = std::string(Trim(sql.substr(start, len)));
    script.statements.push_back(std::move(statement));
  }
  script.tree = std::move(tree);
  return script;
}

Result<std::string> DeparseStatement(const pg_query::Node& node) {
  pg_query::ParseResult wrapper;
  wrapper.set_version(PG_VERSION_NUM);
  *wrapper.add_stmts()->mutable_stmt() = node;
  std::string bytes;
  if (!wrapper.SerializeToString(&bytes))
    return Status::Internal("cannot serialise a parse tree for deparsing");
  PgQueryProtobuf buffer;
  buffer.len = bytes.size();
  buffer.data = bytes.data();
  PgQueryDeparseResult result = pg_query_deparse_protobuf(buffer);
  if (result.error != nullptr) {
    std::string message = result.error->message ? result.error->message : "deparse failed";
    pg_query_free_deparse_result(result);
    return Status::NotImplemented("cannot store this query's text: {}", message);
  }
  std::string text = result.query ? result.query : "";
  pg_query_free_deparse_result(result);
  return text;
}

}  // namespace shoal::sql

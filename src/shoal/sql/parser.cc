#include "shoal/sql/parser.h"

#include <cctype>

#include <pg_query.h>

#include "shoal/common/text.h"
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

// A statement's text without surrounding blanks and its trailing semicolons.
std::string_view TrimStatement(std::string_view s) {
  s = Trim(s);
  while (!s.empty() && (s.back() == ';' || IsAsciiSpace(s.back())))
    s.remove_suffix(1);
  return s;
}

bool EqualsWord(std::string_view text, std::string_view word) {
  if (text.size() != word.size())
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != word[i])
      return false;
  }
  return true;
}

// The value of a plain '...' string constant token (doubled quotes unescaped).
bool UnquoteString(std::string_view token, std::string* out) {
  if (token.size() < 2 || token.front() != '\'' || token.back() != '\'')
    return false;
  out->clear();
  for (size_t i = 1; i + 1 < token.size(); ++i) {
    out->push_back(token[i]);
    if (token[i] == '\'')
      ++i;
  }
  return true;
}

struct ExternalRewrite {
  int create_offset = 0;
  ExternalTableClause clause;
};

// Finds CREATE EXTERNAL TABLE statements through libpg_query's scanner and rewrites each in place,
// keeping every byte offset: EXTERNAL and the STORED AS ... tail become blanks ("()" when there is
// no column list), so libpg_query sees CREATE TABLE.
Result<std::vector<ExternalRewrite>> RewriteExternalTables(std::string* sql) {
  std::vector<ExternalRewrite> rewrites;
  bool mentions_external = false;
  for (size_t i = 0; i + 8 <= sql->size() && !mentions_external; ++i)
    mentions_external = EqualsWord(std::string_view(*sql).substr(i, 8), "external");
  if (!mentions_external)
    return rewrites;
  PgQueryScanResult scan = pg_query_scan(sql->c_str());
  if (scan.error != nullptr) {  // the parser reports it
    pg_query_free_scan_result(scan);
    return rewrites;
  }
  pg_query::ScanResult result;
  bool decoded = result.ParseFromArray(scan.pbuf.data, static_cast<int>(scan.pbuf.len));
  pg_query_free_scan_result(scan);
  if (!decoded)
    return Status::Internal("libpg_query returned scan tokens that do not decode");
  std::vector<const pg_query::ScanToken*> tokens;  // comments left out
  for (const auto& token : result.tokens()) {
    if (token.token() != pg_query::SQL_COMMENT && token.token() != pg_query::C_COMMENT)
      tokens.push_back(&token);
  }
  const int n = static_cast<int>(tokens.size());
  auto tok = [&](int i) -> const pg_query::ScanToken& { return *tokens[static_cast<size_t>(i)]; };
  auto text = [&](int i) {
    const auto& t = tok(i);
    return std::string_view(*sql).substr(static_cast<size_t>(t.start()),
                                         static_cast<size_t>(t.end() - t.start()));
  };
  auto error_at = [&](int i, const std::string& message) {
    int byte = i < n ? tok(i).start() : static_cast<int>(sql->size());
    return Status::SyntaxError("{}", message).WithPosition(BytePositionToCharPosition(*sql, byte));
  };
  auto blank = [&](int from, int to) {
    for (int b = from; b < to; ++b) {
      if ((*sql)[static_cast<size_t>(b)] != '\n')
        (*sql)[static_cast<size_t>(b)] = ' ';
    }
  };
  for (int i = 0; i + 2 < n; ++i) {
    bool statement_start = i == 0 || tok(i - 1).token() == pg_query::ASCII_59;
    if (!statement_start || !EqualsWord(text(i), "create") ||
        !EqualsWord(text(i + 1), "external") || !EqualsWord(text(i + 2), "table"))
      continue;
    int stop = i;
    while (stop < n && tok(stop).token() != pg_query::ASCII_59)
      ++stop;
    int depth = 0;
    int stored = -1;
    bool has_columns = false;
    for (int j = i + 3; j < stop && stored < 0; ++j) {
      auto token = tok(j).token();
      if (token == pg_query::ASCII_40) {
        ++depth;
        has_columns = true;
      } else if (token == pg_query::ASCII_41) {
        --depth;
      } else if (depth == 0 && EqualsWord(text(j), "stored")) {
        stored = j;
      }
    }
    if (stored < 0)
      return error_at(stop, "CREATE EXTERNAL TABLE needs STORED AS <format> LOCATION '<path>'");
    ExternalRewrite rewrite;
    rewrite.create_offset = tok(i).start();
    int j = stored + 1;
    if (j >= stop || !EqualsWord(text(j), "as"))
      return error_at(j, "expected AS after STORED");
    ++j;
    if (j >= stop || tok(j).token() == pg_query::SCONST)
      return error_at(j, "expected a format name after STORED AS (TBL, CSV, PARQUET, ARROW)");
    for (char c : text(j))
      rewrite.clause.format.push_back(
          static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    rewrite.clause.format_location = tok(j).start();
    ++j;
    if (j >= stop || !EqualsWord(text(j), "location"))
      return error_at(j, "expected LOCATION '<path>' after the format");
    ++j;
    if (j >= stop || !UnquoteString(text(j), &rewrite.clause.location))
      return error_at(j, "expected a quoted path after LOCATION");
    ++j;
    if (j < stop && EqualsWord(text(j), "options")) {
      ++j;
      if (j >= stop || tok(j).token() != pg_query::ASCII_40)
        return error_at(j, "expected ( after OPTIONS");
      ++j;
      while (j < stop && tok(j).token() != pg_query::ASCII_41) {
        std::string key, value;
        if (!UnquoteString(text(j), &key))
          return error_at(j, "expected a quoted option name");
        ++j;
        if (j >= stop || !UnquoteString(text(j), &value))
          return error_at(j, "expected a quoted option value after '" + key + "'");
        ++j;
        rewrite.clause.options.emplace_back(std::move(key), std::move(value));
        if (j < stop && tok(j).token() == pg_query::ASCII_44)
          ++j;
      }
      if (j >= stop)
        return error_at(j, "expected ) to close OPTIONS");
      ++j;
    }
    if (j < stop)
      return error_at(j, "unexpected text after the CREATE EXTERNAL TABLE clauses");
    const auto& first = tok(i + 1);
    blank(first.start(), first.end());
    int tail_start = tok(stored).start();
    blank(tail_start, tok(stop - 1).end());
    if (!has_columns) {
      (*sql)[static_cast<size_t>(tail_start)] = '(';
      (*sql)[static_cast<size_t>(tail_start) + 1] = ')';
    }
    rewrites.push_back(std::move(rewrite));
    i = stop;
  }
  return rewrites;
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
  SHOAL_ASSIGN_OR_RETURN(auto externals, RewriteExternalTables(&script.sql));
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
    statement.text = std::string(TrimStatement(sql.substr(start, len)));
    for (auto& rewrite : externals) {
      if (static_cast<size_t>(rewrite.create_offset) >= start &&
          static_cast<size_t>(rewrite.create_offset) < start + len)
        statement.external = std::move(rewrite.clause);
    }
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

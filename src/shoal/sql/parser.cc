#include "shoal/sql/parser.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <mutex>

#include <pg_query.h>

#include "shoal/common/logging.h"
#include "shoal/common/stack_depth.h"
#include "shoal/common/text.h"
// The generated header brings protobuf's Arena, CodedInputStream and SetLogHandler (protobuf
// headers are not included directly outside the distributed layer).
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

// libpg_query turns its parse tree into protobuf with recursive C functions that never check the
// stack (its check_stack_depth() is a stub), and protobuf decodes it recursively: a deep
// statement (SELECT 1+1+...+1 with 30,000 terms) would overflow the caller's stack. The depth of
// a statement's tree is bounded by its tokens, so statements with many tokens are parsed on a
// thread whose stack is sized for that bound: per token at most kStackPerToken bytes (measured
// on the worst shapes, unary minus chains and nested scalar subqueries, with a margin of 4x).
// The stack is reserved, not committed: only what the recursion touches uses memory.
constexpr size_t kStackPerToken = 2048;
constexpr size_t kInlineTokens = 1000;  // fewer tokens: parse on the caller's stack
constexpr size_t kMaxParseStack = size_t{64} << 30;

// Validates UTF-8 as PostgreSQL's pg_verify_mbstr does (no overlong forms, surrogates or code
// points past U+10FFFF) and reports the first bad sequence with PostgreSQL's 22021 message.
Status CheckUtf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xC2 && c <= 0xDF   ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4
                                          : 0;
    bool ok = len != 0 && i + len <= n;
    if (ok) {
      unsigned char c1 = p[i + 1];
      unsigned char lo = 0x80, hi = 0xBF;
      if (c == 0xE0)
        lo = 0xA0;
      else if (c == 0xED)
        hi = 0x9F;
      else if (c == 0xF0)
        lo = 0x90;
      else if (c == 0xF4)
        hi = 0x8F;
      ok = c1 >= lo && c1 <= hi;
      for (size_t k = 2; ok && k < len; ++k)
        ok = (p[i + k] & 0xC0) == 0x80;
    }
    if (ok) {
      i += len;
      continue;
    }
    // PostgreSQL prints the bytes of the sequence the lead byte announces (pg_utf_mblen), as
    // many as exist.
    size_t announced = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    size_t shown = std::min(announced, n - i);
    std::string bytes;
    for (size_t k = 0; k < shown; ++k)
      bytes += fmt::format("{}0x{:02x}", k ? " " : "", p[i + k]);
    return Status::InvalidArgument("invalid byte sequence for encoding \"UTF8\": {}", bytes)
        .WithSqlState("22021")
        .WithPosition(BytePositionToCharPosition(text, static_cast<int>(i)))
        .WithHint(
            fmt::format("The SQL text is not valid UTF-8 at byte offset {}; save it as UTF-8.", i));
  }
  return Status::OK();
}

// Tokens of the longest statement of `sql`: a bound on any of its parse trees' depth.
size_t MaxStatementTokens(const std::string& sql) {
  // A token takes at least one byte, so short scripts need no scan.
  if (sql.size() <= kInlineTokens)
    return sql.size();
  PgQueryScanResult scan = pg_query_scan(sql.c_str());
  if (scan.error != nullptr) {
    // The parser stops at the same error before it builds any tree.
    pg_query_free_scan_result(scan);
    return 0;
  }
  pg_query::ScanResult result;
  bool decoded = result.ParseFromArray(scan.pbuf.data, static_cast<int>(scan.pbuf.len));
  pg_query_free_scan_result(scan);
  if (!decoded)
    return sql.size();
  size_t longest = 0;
  size_t current = 0;
  for (const auto& token : result.tokens()) {
    if (token.token() == pg_query::ASCII_59) {
      current = 0;
    } else if (token.token() != pg_query::SQL_COMMENT && token.token() != pg_query::C_COMMENT) {
      longest = std::max(longest, ++current);
    }
  }
  return longest;
}

// protobuf writes its own "[libprotobuf ERROR ...]" lines to stderr; Shoal's stderr carries only
// Shoal's messages, so they go to Shoal's log at debug level (the caller reports the failure).
void RouteProtobufLogs() {
  static std::once_flag once;
  std::call_once(once, [] {
    google::protobuf::SetLogHandler([](google::protobuf::LogLevel level, const char* file, int line,
                                       const std::string& message) {
      if (level == google::protobuf::LOGLEVEL_FATAL)
        SHOAL_LOG_ERROR("protobuf {}:{}: {}", file, line, message);
      else
        SHOAL_LOG_DEBUG("protobuf {}:{}: {}", file, line, message);
    });
  });
}

struct RawParse {
  std::string error;  // libpg_query's message; empty on success
  int cursor = 0;
  bool decoded = false;
};

// Runs libpg_query and decodes its tree into `tree` (on `arena`, so that freeing it does not
// recurse either).
RawParse ParseAndDecode(const std::string& sql, pg_query::ParseResult* tree) {
  RawParse raw;
  PgQueryProtobufParseResult result = pg_query_parse_protobuf(sql.c_str());
  if (result.error != nullptr) {
    raw.error = result.error->message ? result.error->message : "syntax error";
    // cursorpos is already PostgreSQL's 1-based character position; 0 means unknown.
    raw.cursor = result.error->cursorpos;
    pg_query_free_protobuf_parse_result(result);
    return raw;
  }
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(result.parse_tree.data),
      static_cast<int>(result.parse_tree.len));
  // The tree is as deep as the statement; the stack it is decoded on was sized for that.
  input.SetRecursionLimit(INT_MAX);
  raw.decoded = tree->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
  pg_query_free_protobuf_parse_result(result);
  return raw;
}

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
  RouteProtobufLogs();
  SHOAL_RETURN_IF_ERROR(CheckUtf8(script.sql));
  SHOAL_ASSIGN_OR_RETURN(auto externals, RewriteExternalTables(&script.sql));
  auto arena = std::make_shared<google::protobuf::Arena>();
  auto* tree = google::protobuf::Arena::CreateMessage<pg_query::ParseResult>(arena.get());
  size_t tokens = MaxStatementTokens(script.sql);
  RawParse raw;
  if (tokens <= kInlineTokens) {
    raw = ParseAndDecode(script.sql, tree);
  } else {
    size_t stack = tokens * kStackPerToken + (size_t{1} << 20);
    if (stack > kMaxParseStack) {
      return Status::InvalidArgument("stack depth limit exceeded")
          .WithSqlState("54001")
          .WithHint(
              fmt::format("A statement of {} tokens is too long to parse; split it.", tokens));
    }
    SHOAL_RETURN_IF_ERROR(RunWithStack(stack, [&] { raw = ParseAndDecode(script.sql, tree); }));
  }
  if (!raw.error.empty()) {
    Status status = Status::SyntaxError("{}", raw.error);
    if (raw.cursor > 0)
      status = std::move(status).WithPosition(raw.cursor);
    return status;
  }
  if (!raw.decoded)
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
  // The arena owns the tree; freeing it frees blocks, without walking the tree.
  script.tree = std::shared_ptr<const pg_query::ParseResult>(arena, tree);
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

#include "shoal/cli/shell_commands.h"

#include <cctype>

#include <fmt/format.h>

#include "shoal/common/text.h"

namespace shoal::cli {

namespace {

// A name as SQL reads it: unquoted parts fold to lower case, "quoted" parts keep theirs.
std::vector<std::string> NameParts(std::string_view name) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '"') {
      if (quoted && i + 1 < name.size() && name[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return parts;
}

std::string Literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'')
      out += '\'';
  }
  return out + "'";
}

constexpr const char* kRelations =
    "SELECT n.nspname AS \"Schema\", c.relname AS \"Name\", "
    "CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' ELSE 'other' END AS \"Type\" "
    "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "WHERE c.relkind IN ({}) AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
    "ORDER BY 1, 2";

}  // namespace

std::optional<std::string> CatalogCommandSql(std::string_view command, std::string_view argument) {
  argument = Trim(argument);
  if (command == "\\d" && !argument.empty()) {
    const auto parts = NameParts(argument);
    std::string where = "c.relname = " + Literal(parts.back());
    if (parts.size() > 1)
      where += " AND n.nspname = " + Literal(parts[parts.size() - 2]);
    return fmt::format(
        "SELECT a.attname AS \"Column\", pg_catalog.format_type(a.atttypid, a.atttypmod) AS "
        "\"Type\", CASE WHEN a.attnotnull THEN 'not null' ELSE '' END AS \"Nullable\" "
        "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE {} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        where);
  }
  if (command == "\\d")
    return fmt::format(kRelations, "'r', 'v'");
  if (command == "\\dt")
    return fmt::format(kRelations, "'r'");
  if (command == "\\dv")
    return fmt::format(kRelations, "'v'");
  if (command == "\\dn")
    return std::string(
        "SELECT nspname AS \"Name\" FROM pg_catalog.pg_namespace "
        "WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1");
  if (command == "\\df") {
    std::string where = "p.proname ~ '^[a-z]'";
    if (!argument.empty())
      where += " AND p.proname = " + Literal(NameParts(argument).back());
    return fmt::format(
        "SELECT DISTINCT p.proname AS \"Name\", pg_catalog.format_type(p.prorettype, NULL) AS "
        "\"Result data type\" FROM pg_catalog.pg_proc p WHERE {} ORDER BY 1, 2",
        where);
  }
  return std::nullopt;
}

std::optional<std::string> ShellStatementSql(std::string_view statement) {
  std::string_view s = Trim(statement);
  while (!s.empty() && s.back() == ';')
    s = Trim(s.substr(0, s.size() - 1));
  // The first word and the rest.
  size_t end = 0;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])))
    ++end;
  std::string first(s.substr(0, end));
  for (char& c : first)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string_view rest = Trim(s.substr(end));
  if (first == "SHOW") {
    std::string what(rest);
    for (char& c : what)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (what == "TABLES")
      return CatalogCommandSql("\\d", "");
    return std::nullopt;
  }
  if ((first == "DESCRIBE" || first == "DESC") && !rest.empty() &&
      rest.find_first_of(" \t\n(") == std::string_view::npos)
    return CatalogCommandSql("\\d", rest);
  return std::nullopt;
}

std::string_view MetaCommandHelp() {
  return "General\n"
         "  \\q                     quit shoal (also Ctrl-D on an empty line)\n"
         "  \\?                     this help\n"
         "Informational\n"
         "  \\d                     list tables and views (also SHOW TABLES)\n"
         "  \\d NAME                describe table or view NAME (also DESCRIBE NAME)\n"
         "  \\dt, \\dv               list tables, views\n"
         "  \\df [NAME]             list functions\n"
         "  \\dn                    list schemas\n"
         "Formatting\n"
         "  \\x [on|off]            expanded output (one line per column)\n"
         "  \\timing [on|off]       show how long each statement takes\n"
         "Input/Output\n"
         "  \\i FILE                run the statements of FILE\n"
         "  \\o [FILE]              send results to FILE, or back to the terminal\n"
         "Editing\n"
         "  Tab completes keywords, tables, columns, settings and functions; the up arrow\n"
         "  recalls earlier statements (kept in ~/.shoal_history, or $SHOAL_HISTORY).\n"
         "  Ctrl-C drops a half-typed statement, or cancels the running one.\n";
}

const std::vector<std::string>& CompletionKeywords() {
  static const std::vector<std::string> kKeywords = {
      "ALL",      "ALTER",        "AND",    "AS",        "ASC",      "BEGIN",    "BETWEEN",
      "BY",       "CASE",         "CAST",   "COMMIT",    "COPY",     "COUNT",    "CREATE",
      "CROSS",    "CURRENT_DATE", "DATE",   "DELETE",    "DESC",     "DESCRIBE", "DISTINCT",
      "DROP",     "ELSE",         "END",    "EXCEPT",    "EXISTS",   "EXPLAIN",  "ANALYZE",
      "EXTERNAL", "FALSE",        "FETCH",  "FROM",      "FULL",     "GROUP",    "HAVING",
      "IN",       "INNER",        "INSERT", "INTERSECT", "INTERVAL", "INTO",     "IS",
      "JOIN",     "LATERAL",      "LEFT",   "LIKE",      "LIMIT",    "LOCATION", "NOT",
      "NULL",     "NULLS",        "OFFSET", "ON",        "OR",       "ORDER",    "OUTER",
      "OVER",     "PARTITION",    "RESET",  "RIGHT",     "ROLLBACK", "SELECT",   "SET",
      "SHOW",     "STORED",       "TABLE",  "TABLES",    "THEN",     "TO",       "TRUE",
      "UNION",    "UPDATE",       "USING",  "VALUES",    "VIEW",     "WHEN",     "WHERE",
      "WINDOW",   "WITH"};
  return kKeywords;
}

const std::vector<std::string>& MetaCommandNames() {
  static const std::vector<std::string> kNames = {"\\?", "\\d", "\\df", "\\dn",     "\\dt", "\\dv",
                                                  "\\i", "\\o", "\\q",  "\\timing", "\\x"};
  return kNames;
}

}  // namespace shoal::cli

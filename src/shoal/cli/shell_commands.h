// ShellCommands: what `shoal sql` understands besides SQL -- psql's meta-commands (\d, \dt, \x,
// \o, \i, ...) and the SHOW TABLES / DESCRIBE statements DuckDB and datafusion-cli users type.
//
// The catalog commands are answered by SQL over pg_catalog, which the engine in this process and
// `shoal server` both provide (sql/system_catalog), so they print the same in either mode, and
// against PostgreSQL itself. sql_command.cc runs them; this file only says what they mean.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::cli {

/// The query behind `\d`, `\dt`, `\dv`, `\df`, `\dn` or `\d NAME` (command with its argument,
/// e.g. "\\d", "lineitem"); nullopt when `command` is none of them.
std::optional<std::string> CatalogCommandSql(std::string_view command, std::string_view argument);

/// The query behind a statement of the shell's own: `SHOW TABLES`, `DESCRIBE name` / `DESC name`
/// (a trailing semicolon allowed); nullopt for any other statement, which is SQL.
std::optional<std::string> ShellStatementSql(std::string_view statement);

/// The text `\?` prints.
std::string_view MetaCommandHelp();

/// Keywords the shell completes (upper case).
const std::vector<std::string>& CompletionKeywords();

/// Meta-commands the shell completes.
const std::vector<std::string>& MetaCommandNames();

}  // namespace shoal::cli

// BoundStatement: one statement after binding, in the form the execution side acts on. Queries
// (and the sources of CREATE TABLE AS / INSERT) carry a logical plan; DDL and utility statements
// carry just the names and values they need. Nothing here has been executed: CREATE TABLE, for
// instance, only says what to create; the executor builds the in-memory provider and registers
// it in the catalog.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shoal/columnar/schema.h"
#include "shoal/sql/catalog.h"
#include "shoal/sql/logical_plan.h"

namespace shoal::sql {

enum class StatementKind : uint8_t {
  kQuery,          // SELECT / VALUES / set operations: run `plan`, return its rows
  kExplain,        // EXPLAIN [ANALYZE] [VERBOSE] `explained`
  kCreateTable,    // CREATE TABLE `object_name` (`table_schema`): an empty in-memory table
  kCreateTableAs,  // CREATE TABLE `object_name` AS `plan` (table_schema = plan's columns)
  kInsert,         // INSERT INTO `target` rows of `plan` (columns in table order and types)
  kCreateView,     // CREATE [OR REPLACE] VIEW: register `view`
  kDropTable,      // DROP TABLE [IF EXISTS] `drop_objects`
  kDropView,       // DROP VIEW [IF EXISTS] `drop_objects`
  kSet,            // SET `setting_name` = `setting_value` (already validated)
  kReset,          // RESET `setting_name`
  kResetAll,       // RESET ALL
  kShow,           // SHOW `setting_name`
  kShowAll,        // SHOW ALL
  // CREATE EXTERNAL TABLE `object_name` [(`table_schema`)] STORED AS TBL|CSV LOCATION ...
  kCreateExternalTable,
  // COPY (`plan`) TO `copy_path` (`copy_options`): writes the query's rows to a file
  kCopy,
  kCreateIndex,  // CREATE [UNIQUE] INDEX: register `index` (a unique one is checked first)
  kDropIndex,    // DROP INDEX [IF EXISTS] `drop_objects`
  // DELETE FROM `target`: `plan` yields the rows kept (null: none, DELETE without WHERE)
  kDelete,
  // UPDATE `target`: `plan` yields every row, new values in place, and a last boolean column
  // telling which rows matched
  kUpdate,
  kAlterTable,  // ALTER TABLE `object_name` `alter`
};

const char* StatementKindName(StatementKind kind);

/// What an ALTER TABLE does (one action per statement).
enum class AlterAction : uint8_t {
  kRenameTable,   // RENAME TO `new_name` (ALTER VIEW ... RENAME TO too)
  kRenameColumn,  // RENAME COLUMN `column_name` TO `new_name`
  kAddColumn,     // ADD COLUMN `new_column`: `plan` yields the rows with it (its DEFAULT or NULL)
};

struct BoundStatement {
  StatementKind kind = StatementKind::kQuery;
  std::string text;  // the statement's SQL

  // kQuery, kCreateTableAs, kInsert.
  LogicalPlanPtr plan;
  /// kQuery: binding the text again gives the same plan as long as the catalog does not change
  /// (no snapshot of a written table, system catalog, catalog function, $n or now() in it), so
  /// a StatementCache may keep it.
  bool reusable = false;
  /// `plan` has been through the optimizer already (a StatementCache's plan).
  bool optimized = false;

  // kExplain.
  std::shared_ptr<const BoundStatement> explained;
  bool analyze = false;
  bool verbose = false;

  // kCreateTable, kCreateTableAs, kInsert, kCreateView: the object. Schema name is never empty.
  std::string schema_name;
  std::string object_name;
  columnar::SchemaPtr table_schema;  // kCreateTable / kCreateTableAs / kInsert (the target's)
  TableEntry target;                 // kInsert, kDelete, kUpdate
  bool if_not_exists = false;
  bool or_replace = false;
  ViewEntry view;                   // kCreateView
  IndexEntry index;                 // kCreateIndex
  std::vector<IndexEntry> indexes;  // kCreateTable: those of its PRIMARY KEY / UNIQUE constraints
  /// kCreateTable: each column's DEFAULT as SQL text, empty for none (io/table_storage.h).
  std::vector<std::string> column_defaults;

  // kCreateExternalTable: "tbl" or "csv", the LOCATION as written and the OPTIONS. table_schema
  // has no fields when the statement lists no columns.
  std::string external_format;
  std::string external_location;
  std::vector<std::pair<std::string, std::string>> external_options;

  // kCopy: the target file and the options as written (lower-case names, value text), already
  // validated by io::ParseCopyOptions; `plan` is the query (or the table's columns). An empty
  // path is COPY ... TO STDOUT: the rows go to the client (the server), which checks the options.
  std::string copy_path;
  std::vector<std::pair<std::string, std::string>> copy_options;

  // kDropTable / kDropView / kDropIndex: (schema, name) pairs.
  std::vector<std::pair<std::string, std::string>> drop_objects;
  bool if_exists = false;
  bool cascade = false;  // DROP ... CASCADE: dependent views go too

  // kAlterTable (the table is `target`; `if_exists`: ALTER TABLE IF EXISTS).
  AlterAction alter_action = AlterAction::kRenameTable;
  std::string new_name;
  std::string column_name;
  columnar::Field new_column;
  std::string new_column_default;  // kAddColumn: its DEFAULT as SQL text, empty for none
  /// kAddColumn: the value the rows there get when it is a constant (a literal DEFAULT or none:
  /// NULL); unset for another DEFAULT (random(), ...), which `plan` computes row by row.
  std::optional<columnar::Scalar> new_column_value;
  bool skip = false;   // IF [NOT] EXISTS found nothing to do: `notice`, no change
  std::string notice;  // what a skipped ALTER says
  std::string alter_tag = "ALTER TABLE";

  // kSet / kReset / kShow.
  std::string setting_name;
  std::string setting_value;  // normalised text
};

}  // namespace shoal::sql

// Catalog: the names a session can query — schemas (`public` is created by default and is the
// search path), tables (a name bound to an io::TableProvider, plus whether the table lives in
// memory and accepts INSERT) and views (kept as their SQL text and column names, bound anew on
// each use so that they see the current definitions of what they reference).
//
// Names are stored as the parser hands them over: PostgreSQL folds unquoted identifiers to lower
// case before we see them, and quoted ones keep their case.
//
// Thread safety: every method may be called concurrently (one mutex); lookups return copies that
// stay valid after a concurrent DROP.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/io/table_provider.h"

namespace shoal::sql {

inline constexpr std::string_view kDefaultSchema = "public";

struct TableEntry {
  std::string schema;
  std::string name;
  io::TableProviderPtr provider;
  bool insertable = false;  // an in-memory table that INSERT may append to
};

struct ViewEntry {
  std::string schema;
  std::string name;
  std::string sql;                        // the SELECT, as text
  std::vector<std::string> column_names;  // output names (explicit or derived at CREATE VIEW)
  // The tables and views its query names directly, as (schema, name): DROP refuses to remove
  // them while the view exists (or, with CASCADE, removes the view too).
  std::vector<std::pair<std::string, std::string>> depends_on;
};

/// What an index keeps beside its catalog entry (the engine's set of the unique keys seen so
/// far); opaque to this layer, shared by every copy of the entry.
class IndexState {
 public:
  virtual ~IndexState() = default;
};

/// CREATE INDEX, or the index a PRIMARY KEY / UNIQUE constraint implies. Shoal answers queries by
/// scanning, so an index is no access path: a unique one is a constraint INSERT checks, any other
/// one is kept so that its name, DROP INDEX and IF NOT EXISTS behave as in PostgreSQL.
struct IndexEntry {
  std::string schema;
  std::string name;
  std::string table;
  std::vector<std::string> columns;  // key columns; an expression key is its SQL text
  bool has_expressions = false;      // some key is an expression (never unique)
  bool unique = false;
  bool nulls_distinct = true;  // false: UNIQUE NULLS NOT DISTINCT (one NULL key at most)
  /// "PRIMARY KEY" or "UNIQUE" when a table constraint made it: DROP INDEX then refuses.
  std::string constraint;
  std::shared_ptr<IndexState> state;
};

/// What a name resolves to: exactly one of table / view is set.
struct CatalogObject {
  std::optional<TableEntry> table;
  std::optional<ViewEntry> view;
};

class Catalog {
 public:
  Catalog();

  Status CreateSchema(std::string_view name, bool if_not_exists = false);
  bool HasSchema(std::string_view name) const;

  /// Registers a table. With `replace`, an existing table of that name is replaced; otherwise an
  /// existing table or view is an error (42P07).
  Status RegisterTable(std::string_view schema, std::string_view name,
                       io::TableProviderPtr provider, bool insertable = false,
                       bool replace = false);
  /// Shorthand for the public schema.
  Status RegisterTable(std::string_view name, io::TableProviderPtr provider,
                       bool insertable = false, bool replace = false) {
    return RegisterTable(kDefaultSchema, name, std::move(provider), insertable, replace);
  }
  Status CreateView(ViewEntry view, bool replace = false);

  /// A table or view; 42P01 with a "did you mean" hint when neither exists. An empty schema means
  /// the search path (public).
  Result<CatalogObject> Lookup(std::string_view schema, std::string_view name) const;
  Result<TableEntry> LookupTable(std::string_view schema, std::string_view name) const;

  /// DROP TABLE / DROP VIEW. Dropping a view with DROP TABLE (or the reverse) is refused (42809),
  /// as in PostgreSQL. `if_exists` turns a missing object into success.
  Status DropTable(std::string_view schema, std::string_view name, bool if_exists = false);
  Status DropView(std::string_view schema, std::string_view name, bool if_exists = false);
  /// DROP TABLE / DROP VIEW of several objects (`views` tells which), all or none. Views that
  /// depend on them, directly or through other views, make it fail with 2BP01 naming each
  /// dependency, as PostgreSQL's RESTRICT does; with `cascade` they are dropped too.
  Status DropRelations(bool views, const std::vector<std::pair<std::string, std::string>>& objects,
                       bool if_exists, bool cascade);

  /// Registers an index of an existing table; its name shares the namespace of tables and views
  /// (42P07). With `if_not_exists` an existing name is success and the index is not created.
  Status CreateIndex(IndexEntry index, bool if_not_exists = false);
  /// DROP INDEX of several indexes, all or none: 42704 for a missing one (unless `if_exists`),
  /// 2BP01 for one a constraint owns.
  Status DropIndexes(const std::vector<std::pair<std::string, std::string>>& names, bool if_exists);
  /// The indexes of a table, in name order.
  std::vector<IndexEntry> IndexesOf(std::string_view schema, std::string_view table) const;
  /// `base` if no table, view or index of `schema` has that name, else base1, base2, ... (how
  /// PostgreSQL names an index created without a name).
  std::string UnusedRelationName(std::string_view schema, const std::string& base) const;

  /// Names of tables and views in a schema, sorted.
  std::vector<std::string> ListNames(std::string_view schema = kDefaultSchema) const;
  /// Names of the schemas, sorted (read by the system catalogs, sql/system_catalog/).
  std::vector<std::string> SchemaNames() const;

 private:
  struct Schema {
    std::map<std::string, TableEntry, std::less<>> tables;
    std::map<std::string, ViewEntry, std::less<>> views;
    std::map<std::string, IndexEntry, std::less<>> indexes;
  };

  Result<Schema*> FindSchemaLocked(std::string_view name);
  Result<const Schema*> FindSchemaLocked(std::string_view name) const;
  std::vector<std::string> NamesLocked(const Schema& schema) const;
  Status CheckDropLocked(bool views, std::string_view schema, std::string_view name, bool if_exists,
                         bool* exists) const;

  mutable std::mutex mutex_;
  std::map<std::string, Schema, std::less<>> schemas_;
};

using CatalogPtr = std::shared_ptr<Catalog>;

}  // namespace shoal::sql

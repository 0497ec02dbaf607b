// Catalog: the names a session can query — schemas (`public` is created by default and is the
// search path), tables (a name bound to an io::TableProvider, plus whether the table lives in
// memory and accepts INSERT) and views (kept as their SQL text and column names, bound anew on
// each use so that they see the current definitions of what they reference).
//
// Names are stored as the parser hands them over: PostgreSQL folds unquoted identifiers to lower
// case before we see them, and quoted ones keep their case.
//
// Tables Shoal writes (CREATE TABLE [AS]) keep their rows in an io::TableStorage: in memory, or
// as Parquet files under a server's --data-dir. A lookup hands out the storage's snapshot as the
// entry's provider, so a statement reads the rows committed when it was bound.
//
// Persistence: a catalog may have a CatalogStore (engine/durable_catalog.h), which creates the
// storage of new tables and is given the whole catalog after every change to write it out; without
// one, everything lives in memory.
//
// Thread safety: every method may be called concurrently (one mutex); lookups return copies that
// stay valid after a concurrent DROP. A store's Save runs after the change, outside the mutex, and
// reads the catalog afresh, so the last save always holds the latest state.
#pragma once

#include <atomic>
#include <cstdint>
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
#include "shoal/io/table_storage.h"

namespace shoal::sql {

inline constexpr std::string_view kDefaultSchema = "public";

struct TableEntry {
  std::string schema;
  std::string name;
  io::TableProviderPtr provider;  // with a storage: its snapshot when the entry was looked up
  bool insertable = false;        // a table Shoal writes (INSERT, DELETE, UPDATE): `storage` is set
  io::TableStoragePtr storage = nullptr;
  /// CREATE EXTERNAL TABLE: the statement's text, which a durable catalog keeps to create the
  /// table again at start-up; empty for other tables.
  std::string definition{};
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

class Catalog;

/// Where a catalog keeps itself between runs (engine/durable_catalog.h).
class CatalogStore {
 public:
  virtual ~CatalogStore() = default;
  /// The storage of a new table (CREATE TABLE [AS]).
  virtual Result<io::TableStoragePtr> CreateTableStorage(const columnar::SchemaPtr& schema) = 0;
  /// Writes `catalog` out; called after every change.
  virtual Status Save(const Catalog& catalog) = 0;
  /// A table left the catalog (DROP) and the change was saved: its storage may go.
  virtual void Dropped(const TableEntry& table) = 0;
};

/// Everything a catalog holds (what a store saves).
struct CatalogContents {
  std::vector<std::string> schemas;
  std::vector<TableEntry> tables;
  std::vector<ViewEntry> views;
  std::vector<IndexEntry> indexes;
};

class Catalog {
 public:
  Catalog();

  /// Makes the catalog persistent through `store` (before any use).
  void SetStore(std::shared_ptr<CatalogStore> store) { store_ = std::move(store); }
  bool durable() const { return store_ != nullptr; }
  /// The storage of a new table: the store's, or in memory.
  Result<io::TableStoragePtr> CreateTableStorage(const columnar::SchemaPtr& schema) const;
  /// A copy of everything, for a store to save.
  CatalogContents Contents() const;
  /// Registers a table Shoal writes (CREATE TABLE [AS]): `entry.storage` holds its rows.
  Status RegisterTable(TableEntry entry, bool replace = false);

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

  /// ALTER TABLE / ALTER VIEW ... RENAME TO: 42P07 when `new_name` is taken. Views that read the
  /// relation refuse it (2BP01): they are kept as SQL text that names it.
  Status RenameRelation(std::string_view schema, std::string_view name,
                        const std::string& new_name);
  /// 2BP01 when a view reads the relation (`what` is the refused change, for the message).
  Status CheckNoDependentViews(std::string_view schema, std::string_view name,
                               const std::string& what) const;
  /// ALTER TABLE ... RENAME COLUMN, once the storage has the new names: the indexes follow.
  Status RenameIndexColumn(std::string_view schema, std::string_view table,
                           const std::string& column, const std::string& new_name);

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

  /// Moves on every change of schemas, tables, views or indexes (not of a table's rows): a plan
  /// bound while it read G is still the plan of its text while it reads G (StatementCache).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

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
  Status CheckNoDependentViewsLocked(std::string_view schema, std::string_view name,
                                     const std::string& what) const;
  // Hands the catalog to the store after a change (no-op without one).
  Status Persist() const;
  // The entry as a lookup returns it: the provider is the storage's current snapshot.
  static TableEntry Fresh(TableEntry entry);

  std::shared_ptr<CatalogStore> store_;

  mutable std::mutex mutex_;
  mutable std::atomic<uint64_t> generation_{0};
  std::map<std::string, Schema, std::less<>> schemas_;
};

using CatalogPtr = std::shared_ptr<Catalog>;

}  // namespace shoal::sql

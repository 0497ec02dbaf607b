// The system catalogs PostgreSQL clients read: `pg_catalog` (pg_class, pg_attribute, pg_type,
// pg_namespace, pg_index, ...) and `information_schema` (schemata, tables, columns, views),
// computed from the live Catalog each time a statement names one, as small in-memory tables
// (io::MemoryTable, so distributed plans ship them like any other memory table).
//
// What the tables hold: every schema, table, view and index of the Catalog, plus the system
// relations themselves; relations PostgreSQL has but Shoal has no objects for (pg_constraint
// beyond PRIMARY KEY / UNIQUE, pg_inherits, pg_policy, pg_trigger, pg_rewrite, ...) exist with
// PostgreSQL's columns and no rows, so that the clients' joins bind.
//
// OIDs are stable without any state: a relation's is a hash of its schema and name (kept in
// [16384, 2^31), PostgreSQL's range for user objects), so pg_class, pg_attribute, pg_index and
// `'t'::regclass` agree across statements and sessions; schemas and types have PostgreSQL's fixed
// OIDs where PostgreSQL has one (pg_catalog 11, public 2200, int4 23, ...). Types of the catalog
// columns: oid, regproc and xid are bigint, name and "char" are text, arrays are their text form.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/schema.h"
#include "shoal/common/result.h"
#include "shoal/common/settings.h"
#include "shoal/io/table_provider.h"
#include "shoal/sql/catalog.h"

namespace shoal::sql {

inline constexpr std::string_view kPgCatalogSchema = "pg_catalog";
inline constexpr std::string_view kInformationSchema = "information_schema";
inline constexpr std::string_view kDatabaseName = "shoal";

inline constexpr int64_t kPgCatalogNamespaceOid = 11;
inline constexpr int64_t kPublicNamespaceOid = 2200;
inline constexpr int64_t kInformationSchemaNamespaceOid = 13000;
inline constexpr int64_t kSessionUserOid = 10;          // the bootstrap superuser's OID
inline constexpr int64_t kDatabaseOwnerRoleOid = 6171;  // pg_database_owner, owns public
inline constexpr int64_t kDatabaseOid = 16384;
inline constexpr int64_t kNamespaceClassOid = 2615;  // pg_namespace's OID in pg_class
inline constexpr std::string_view kPublicSchemaComment = "standard public schema";

/// What the builders read besides the catalog.
struct SystemCatalogContext {
  const Catalog* catalog = nullptr;
  const Settings* settings = nullptr;
  std::string user_name;
  /// The output columns of a view (its query bound now); empty when it does not bind.
  std::function<std::vector<columnar::Field>(const ViewEntry&)> view_columns;
};

/// pg_catalog or information_schema.
bool IsSystemSchema(std::string_view schema);
/// Whether `schema`.`name` is a system relation; an empty schema means pg_catalog (PostgreSQL
/// searches pg_catalog before the search path).
bool IsSystemRelation(std::string_view schema, std::string_view name);
/// The relation's rows now. NotFound (42P01) when it is no system relation.
Result<io::TableProviderPtr> BuildSystemRelation(const SystemCatalogContext& context,
                                                 std::string_view schema, std::string_view name);

int64_t NamespaceOid(std::string_view schema);
/// A relation (table, view, index, system relation): stable, from its schema and name.
int64_t RelationOid(std::string_view schema, std::string_view name);
/// A constraint (PRIMARY KEY / UNIQUE) of `schema`, named like its index.
int64_t ConstraintOid(std::string_view schema, std::string_view name);

/// One object the catalog-reading functions (pg_get_indexdef, ::regclass, ...) map an OID to.
struct NamedOid {
  int64_t oid = 0;
  std::string schema;
  std::string name;
  std::string text;  // what the function returns for it (a definition, a display name)
};

/// Every relation with its OID; `text` is the name as ::regclass prints it (qualified unless its
/// schema is public or pg_catalog).
std::vector<NamedOid> RelationOids(const SystemCatalogContext& context);
/// Every schema with its OID.
std::vector<NamedOid> NamespaceOids(const Catalog& catalog);
/// Every index with its OID and pg_get_indexdef's text; and every constraint with
/// pg_get_constraintdef's.
std::vector<NamedOid> IndexDefinitions(const Catalog& catalog);
/// Every key column of every index: `name` is its 1-based position, `text` its definition.
std::vector<NamedOid> IndexColumns(const Catalog& catalog);
std::vector<NamedOid> ConstraintDefinitions(const Catalog& catalog);

/// The types pg_type lists: OID, name in pg_type, and the name format_type prints.
struct SystemType {
  int64_t oid;
  std::string_view typname;
  std::string_view display;
  int16_t length;
  char category;
};
const std::vector<SystemType>& SystemTypes();

}  // namespace shoal::sql

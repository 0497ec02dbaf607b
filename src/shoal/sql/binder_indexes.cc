// Binding of CREATE INDEX, DROP INDEX and of the unique indexes a CREATE TABLE's PRIMARY KEY and
// UNIQUE constraints imply, named as PostgreSQL names them (t_pkey, t_a_b_key, t_a_idx, with a
// number appended when the name is taken). Shoal reads by scanning, so an index is no access path:
// a unique one is the constraint INSERT checks (engine/table_constraints.h), any other is metadata
// that behaves as PostgreSQL's does for names, IF NOT EXISTS and DROP.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "shoal/sql/binder_internal.h"

namespace shoal::sql::internal {

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : "_") + n;
  return out;
}

}  // namespace

Result<BoundStatement> StatementBinder::BindCreateIndex(const pg_query::IndexStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kCreateIndex;
  out.if_not_exists = s.if_not_exists();
  const std::string schema =
      s.relation().schemaname().empty() ? std::string(kDefaultSchema) : s.relation().schemaname();
  const std::string table = s.relation().relname();
  SHOAL_ASSIGN_OR_RETURN(CatalogObject object, catalog_.Lookup(schema, table));
  if (!object.table)
    return At(Status::InvalidArgument("cannot create index on relation \"{}\"", table)
                  .WithSqlState("42809")
                  .WithHint("Indexes can be created on tables only, not on views."),
              s.relation().location());
  static const std::set<std::string> kMethods = {"btree", "hash", "brin", "gist", "gin", "spgist"};
  if (!s.access_method().empty() && kMethods.count(s.access_method()) == 0)
    return Status::NotFound("access method \"{}\" does not exist", s.access_method())
        .WithSqlState("42704");

  const columnar::Schema& columns = *object.table->provider->schema();
  Scope scope;
  for (int i = 0; i < columns.num_fields(); ++i) {
    const Field& f = columns.field(i);
    scope.columns.push_back({table, f.name, NewId(), f.type, f.nullable, false});
  }
  IndexEntry index;
  index.schema = schema;
  index.table = table;
  index.unique = s.unique();
  index.nulls_distinct = !s.nulls_not_distinct();
  std::vector<std::string> name_parts;
  for (const auto& p : s.index_params()) {
    const auto& elem = p.index_elem();
    if (!elem.name().empty()) {
      if (!columns.FieldIndex(elem.name()))
        return Status::NotFound("column \"{}\" does not exist", elem.name()).WithSqlState("42703");
      index.columns.push_back(elem.name());
      name_parts.push_back(elem.name());
      continue;
    }
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "index expressions";
    SHOAL_ASSIGN_OR_RETURN(ExprPtr e, BindExpr(elem.expr(), ctx));
    index.columns.push_back(e->ToString());
    index.has_expressions = true;
    name_parts.emplace_back("expr");
  }
  for (const auto& p : s.index_including_params()) {
    const auto& elem = p.index_elem();
    if (!elem.name().empty() && !columns.FieldIndex(elem.name()))
      return Status::NotFound("column \"{}\" does not exist", elem.name()).WithSqlState("42703");
  }
  if (s.has_where_clause()) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "index predicate";
    SHOAL_ASSIGN_OR_RETURN(ExprPtr where, BindExpr(s.where_clause(), ctx));
    SHOAL_RETURN_IF_ERROR(CoerceToBoolean(where, "WHERE", -1).status());
  }
  if (index.unique && (index.has_expressions || s.has_where_clause()))
    return Status::NotImplemented(
               "unique indexes on expressions or with a WHERE clause are not "
               "supported")
        .WithSqlState("0A000")
        .WithHint("A unique index over plain columns is checked by every INSERT.");
  index.name = s.idxname().empty() ? catalog_.UnusedRelationName(
                                         schema, table + "_" + JoinNames(name_parts) + "_idx")
                                   : s.idxname();
  out.schema_name = schema;
  out.object_name = index.name;
  out.index = std::move(index);
  return out;
}

Result<BoundStatement> StatementBinder::BindDropIndex(const pg_query::DropStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kDropIndex;
  out.if_exists = s.missing_ok();
  out.cascade = s.behavior() == pg_query::DROP_CASCADE;
  for (const auto& o : s.objects()) {
    std::vector<std::string> parts;
    for (const auto& p : o.list().items())
      parts.push_back(Str(p));
    if (parts.empty() || parts.size() > 2)
      return Status::NotImplemented("cross-database references are not implemented");
    out.drop_objects.emplace_back(parts.size() == 2 ? parts[0] : std::string(kDefaultSchema),
                                  parts.back());
  }
  return out;
}

Result<std::vector<IndexEntry>> StatementBinder::ConstraintIndexes(const pg_query::CreateStmt& s,
                                                                   const columnar::Schema& table,
                                                                   const std::string& schema_name,
                                                                   const std::string& table_name) {
  std::vector<IndexEntry> out;
  bool has_primary = false;
  auto add = [&](const pg_query::Constraint& c, std::vector<std::string> keys) -> Status {
    const bool primary = c.contype() == pg_query::CONSTR_PRIMARY;
    if (primary && has_primary)
      return Status::InvalidArgument("multiple primary keys for table \"{}\" are not allowed",
                                     table_name)
          .WithSqlState("42P16");
    has_primary = has_primary || primary;
    for (const auto& k : keys) {
      if (!table.FieldIndex(k))
        return Status::NotFound("column \"{}\" named in key does not exist", k)
            .WithSqlState("42703");
    }
    IndexEntry index;
    index.schema = schema_name;
    index.table = table_name;
    index.unique = true;
    index.nulls_distinct = !c.nulls_not_distinct();
    index.constraint = primary ? "PRIMARY KEY" : "UNIQUE";
    std::string base = !c.conname().empty()
                           ? c.conname()
                           : table_name + (primary ? "_pkey" : "_" + JoinNames(keys) + "_key");
    std::string name = catalog_.UnusedRelationName(schema_name, base);
    for (int n = 1;
         std::any_of(out.begin(), out.end(), [&](const IndexEntry& e) { return e.name == name; });
         ++n)
      name = base + std::to_string(n);
    index.name = std::move(name);
    index.columns = std::move(keys);
    out.push_back(std::move(index));
    return Status::OK();
  };
  for (const auto& elt : s.table_elts()) {
    if (elt.has_column_def()) {
      for (const auto& c : elt.column_def().constraints()) {
        const auto t = c.constraint().contype();
        if (t == pg_query::CONSTR_PRIMARY || t == pg_query::CONSTR_UNIQUE)
          SHOAL_RETURN_IF_ERROR(add(c.constraint(), {elt.column_def().colname()}));
      }
    } else if (elt.has_constraint()) {
      const auto& c = elt.constraint();
      if (c.contype() != pg_query::CONSTR_PRIMARY && c.contype() != pg_query::CONSTR_UNIQUE)
        continue;
      std::vector<std::string> keys;
      for (const auto& k : c.keys())
        keys.push_back(Str(k));
      SHOAL_RETURN_IF_ERROR(add(c, std::move(keys)));
    }
  }
  return out;
}

}  // namespace shoal::sql::internal

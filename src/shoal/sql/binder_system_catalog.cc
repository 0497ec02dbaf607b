// The system catalogs in the binder: pg_catalog / information_schema relations resolved to tables
// built from the catalog now (sql/system_catalog/), the functions clients call on them
// (pg_get_userbyid, format_type, pg_table_is_visible, pg_get_indexdef, ...) and the reg* casts.
//
// Functions that read the catalog are bound as SQL expressions over their arguments, written
// here with the catalog's current objects as constants (pg_get_indexdef(x) is a CASE over the
// OIDs of the indexes): the result is an ordinary expression that every node evaluates alike,
// with no catalog access at run time.

#include <algorithm>
#include <cctype>

#include "shoal/common/version.h"
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"

namespace shoal::sql::internal {

namespace {

/// `s` as an SQL string literal.
std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += '\'';
    out += c;
  }
  return out + "'";
}

/// CASE $1 WHEN oid THEN 'text' ... ELSE `otherwise` END over `objects`.
std::string CaseOverOids(const std::vector<NamedOid>& objects, const std::string& otherwise) {
  if (objects.empty())
    return otherwise;
  std::string sql = "CASE $1";
  for (const auto& o : objects)
    sql += fmt::format(" WHEN {} THEN {}", o.oid, Quote(o.text));
  return sql + " ELSE " + otherwise + " END";
}

/// "a.b" or "a" (unquoted parts folded to lower case, quoted ones kept) → the parts.
std::vector<std::string> SplitQualifiedName(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        parts.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == '.') {
      parts.emplace_back();
    } else if (c != ' ') {
      parts.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return parts;
}

}  // namespace

SystemCatalogContext StatementBinder::CatalogContext() {
  SystemCatalogContext context;
  context.catalog = &catalog_;
  context.settings = &session_->settings();
  context.user_name = session_->user_name();
  context.view_columns = [this](const ViewEntry& view) {
    std::vector<Field> fields;
    // A view over a system catalog, typed while that catalog is built, would build it again
    // without end: inside, views are listed without columns.
    if (typing_views_)
      return fields;
    typing_views_ = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{typing_views_};
    auto parsed = ParseSql(view.sql);
    if (!parsed.ok() || parsed->statements.size() != 1)
      return fields;
    auto keep = std::make_shared<const ParsedScript>(std::move(*parsed));
    keep_alive_.push_back(keep);
    bool saved_positions = positions_valid_;
    positions_valid_ = false;
    ++view_depth_;
    auto q = BindQuery(*keep->statements[0].node, nullptr, nullptr);
    --view_depth_;
    positions_valid_ = saved_positions;
    if (!q.ok())
      return fields;
    for (size_t i = 0; i < q->plan->output.size(); ++i) {
      const auto& c = q->plan->output[i];
      std::string name = i < view.column_names.size() ? view.column_names[i] : q->names[i];
      fields.emplace_back(std::move(name), c.type, c.nullable);
    }
    return fields;
  };
  return context;
}

std::optional<Result<BoundRelation>> StatementBinder::BindSystemRelation(
    const pg_query::RangeVar& rv, const std::string& alias, const NodeList* colnames) {
  const std::string& schema = rv.schemaname();
  if (!IsSystemSchema(schema) && !(schema.empty() && IsSystemRelation("", rv.relname())))
    return std::nullopt;
  reusable_ = false;  // its rows are the catalog and the session as they are now
  reads_system_catalog_ = true;
  auto table = BuildSystemRelation(CatalogContext(), schema, rv.relname());
  if (!table.ok())
    return At(table.status(), rv.location());
  auto scan = NewNode(LogicalKind::kScan);
  scan->table = *table;
  scan->table_name = std::string(schema.empty() ? kPgCatalogSchema : schema) + "." + rv.relname();
  BoundRelation rel;
  const auto& fields = *(*table)->schema();
  for (int i = 0; i < fields.num_fields(); ++i) {
    const Field& field = fields.field(i);
    ColumnId id = NewId();
    scan->projection.push_back(i);
    scan->output.push_back({id, field.name, alias, field.type, field.nullable});
    rel.columns.push_back({alias, field.name, id, field.type, field.nullable, false});
  }
  rel.plan = scan;
  return Requalify(std::move(rel), alias, colnames);
}

Result<ExprPtr> StatementBinder::BindSqlExpression(const std::string& sql,
                                                   std::vector<ExprPtr> args, ExprContext& ctx) {
  SHOAL_ASSIGN_OR_RETURN(ParsedScript parsed, ParseSql("SELECT " + sql));
  auto keep = std::make_shared<const ParsedScript>(std::move(parsed));
  keep_alive_.push_back(keep);
  const PgNode& expr = keep->statements[0].node->select_stmt().target_list(0).res_target().val();
  bool saved_positions = positions_valid_;
  positions_valid_ = false;
  expression_args_.push_back(std::move(args));
  auto bound = BindExpr(expr, ctx);
  expression_args_.pop_back();
  positions_valid_ = saved_positions;
  return bound;
}

std::optional<Result<ExprPtr>> StatementBinder::BindCatalogFunction(const std::string& name,
                                                                    const pg_query::FuncCall& f,
                                                                    ExprContext& ctx) {
  const int n = f.args_size();
  std::string sql;
  auto want = [&](int min, int max) { return n >= min && n <= max; };
  if (name == "current_database" && n == 0) {
    sql = Quote(kDatabaseName);
  } else if (name == "current_schema" && n == 0) {
    sql = Quote(kDefaultSchema);
  } else if (name == "current_schemas" && n == 1) {
    // name[] in PostgreSQL; its text form here (Shoal has no arrays).
    sql = "CASE WHEN $1 THEN '{pg_catalog,public}' ELSE '{public}' END";
  } else if (name == "version" && n == 0) {
    sql = Quote(fmt::format("PostgreSQL 15.0 (Shoal {})", kVersion));
  } else if (name == "pg_get_userbyid" && n == 1) {
    sql = fmt::format(
        "CASE $1 WHEN {} THEN 'pg_database_owner' WHEN {} THEN {} "
        "ELSE 'unknown (OID=' || CAST($1 AS text) || ')' END",
        kDatabaseOwnerRoleOid, kSessionUserOid, Quote(session_->user_name()));
  } else if (name == "pg_table_is_visible" && n == 1) {
    // Visible: the relations of pg_catalog and public (the search path), not those of other
    // schemas nor those of public that a pg_catalog relation of the same name hides.
    std::vector<int64_t> hidden;
    for (const auto& r : RelationOids(CatalogContext())) {
      const bool shadowed = r.schema == kDefaultSchema && IsSystemRelation("", r.name);
      if ((r.schema != kPgCatalogSchema && r.schema != kDefaultSchema) || shadowed)
        hidden.push_back(r.oid);
    }
    sql = "CAST($1 AS bigint) NOT IN (-1";
    for (int64_t oid : hidden)
      sql += fmt::format(", {}", oid);
    sql += ")";
  } else if ((name == "pg_type_is_visible" || name == "pg_function_is_visible") && n == 1) {
    sql = "$1 IS NOT NULL";
  } else if (name == "format_type" && n == 2) {
    sql =
        "CASE WHEN $1 = 1700 AND $2 >= 4 THEN 'numeric(' || CAST(($2 - 4) / 65536 AS text) || "
        "',' || CAST(($2 - 4) % 65536 AS text) || ')' "
        "WHEN $1 IN (1042, 1043) AND $2 >= 4 THEN CASE $1 WHEN 1042 THEN 'character' ELSE "
        "'character varying' END || '(' || CAST($2 - 4 AS text) || ')' ELSE CASE $1";
    for (const auto& t : SystemTypes())
      sql += fmt::format(" WHEN {} THEN {}", t.oid, Quote(t.display));
    sql += " ELSE '?\?\?' END END";  // PostgreSQL's answer for an unknown type
  } else if (name == "pg_get_expr" && want(2, 3)) {
    sql = "CAST($1 AS text)";  // no stored expressions: pg_attrdef and pg_policy are empty
  } else if (name == "obj_description" && n == 2) {
    // The one comment there is: PostgreSQL's on public (pg_description).
    sql = fmt::format("CASE WHEN $1 = {} AND $2 = 'pg_namespace' THEN {} END", kPublicNamespaceOid,
                      Quote(kPublicSchemaComment));
  } else if ((name == "obj_description" && n == 1) || (name == "col_description" && n == 2) ||
             (name == "shobj_description" && n == 2) ||
             (name == "pg_get_function_result" && n == 1) ||
             (name == "pg_get_function_arguments" && n == 1) ||
             (name == "pg_get_function_identity_arguments" && n == 1) ||
             (name == "pg_get_statisticsobjdef_columns" && n == 1)) {
    sql = "CAST(NULL AS text)";
  } else if (name == "pg_get_indexdef" && (n == 1 || n == 3)) {
    sql = CaseOverOids(IndexDefinitions(catalog_), "CAST(NULL AS text)");
    if (n == 3) {  // (index, column, pretty): column 0 is the whole definition, k the k-th key
      std::string column = "CAST(NULL AS text)";
      auto columns = IndexColumns(catalog_);
      if (!columns.empty()) {
        column = "CASE";
        for (const auto& c : columns)
          column += fmt::format(" WHEN $1 = {} AND $2 = {} THEN {}", c.oid, c.name, Quote(c.text));
        column += " END";
      }
      // Pretty: the table unqualified when the search path finds it (public), as PostgreSQL.
      std::vector<NamedOid> pretty = IndexDefinitions(catalog_);
      for (auto& index : pretty) {
        if (index.schema == kDefaultSchema) {
          const std::string qualified = " ON public.";
          auto at = index.text.find(qualified);
          if (at != std::string::npos)
            index.text.replace(at, qualified.size(), " ON ");
        }
      }
      sql = "CASE WHEN $2 = 0 THEN CASE WHEN $3 THEN " +
            CaseOverOids(pretty, "CAST(NULL AS text)") + " ELSE " + sql + " END ELSE " + column +
            " END";
    }
  } else if (name == "pg_get_constraintdef" && want(1, 2)) {
    sql = CaseOverOids(ConstraintDefinitions(catalog_), "CAST(NULL AS text)");
  } else if (name == "pg_get_viewdef" && want(1, 2)) {
    std::vector<NamedOid> views;
    for (const auto& schema : catalog_.SchemaNames()) {
      for (const auto& view_name : catalog_.ListNames(schema)) {
        auto object = catalog_.Lookup(schema, view_name);
        if (object.ok() && object->view)
          views.push_back({RelationOid(schema, view_name), schema, view_name, object->view->sql});
      }
    }
    sql = CaseOverOids(views, "CAST(NULL AS text)");
  } else if ((name == "has_table_privilege" || name == "has_schema_privilege" ||
              name == "has_database_privilege" || name == "has_column_privilege" ||
              name == "has_function_privilege" || name == "has_any_column_privilege" ||
              name == "has_sequence_privilege") &&
             want(2, 4)) {
    sql = "true";  // every user may do everything (docs/server.md)
  } else if (name == "pg_encoding_to_char" && n == 1) {
    sql = "CASE $1 WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END";
  } else if (name == "array_to_string" && want(2, 3)) {
    // Arrays of the catalogs are their text form ({a,b}).
    sql = "replace(btrim(CAST($1 AS text), '{}'), ',', $2)";
  } else if (name == "pg_size_pretty" && n == 1) {
    // PostgreSQL's units: bytes below 10 kB, then kB, MB, GB, TB rounded half up.
    sql =
        "CASE WHEN abs($1) < 10240 THEN CAST($1 AS text) || ' bytes' "
        "WHEN abs($1) < 10485760 THEN CAST(round($1 / 1024.0) AS bigint) || ' kB' "
        "WHEN abs($1) < 10737418240 THEN CAST(round($1 / 1048576.0) AS bigint) || ' MB' "
        "WHEN abs($1) < 10995116277760 THEN CAST(round($1 / 1073741824.0) AS bigint) || ' GB' "
        "ELSE CAST(round($1 / 1099511627776.0) AS bigint) || ' TB' END";
  } else if (name == "array_upper" && n == 2) {
    // Of a system catalog array (text): {a,b} is 1-based, an int2vector's "1 2" 0-based.
    sql =
        "CASE WHEN $1 IS NULL OR btrim(CAST($1 AS text), '{} ') = '' THEN CAST(NULL AS int) "
        "WHEN position('{' IN CAST($1 AS text)) = 1 THEN CAST(length(CAST($1 AS text)) - "
        "length(replace(CAST($1 AS text), ',', '')) + 1 AS int) ELSE "
        "CAST(length(CAST($1 AS text)) - length(replace(CAST($1 AS text), ' ', '')) AS int) END";
  } else if ((name == "pg_relation_is_publishable" && n == 1) ||
             (name == "pg_is_in_recovery" && n == 0)) {
    sql = "false";
  } else if ((name == "pg_total_relation_size" || name == "pg_relation_size" ||
              name == "pg_table_size" || name == "pg_indexes_size") &&
             n == 1) {
    sql = "CAST(0 AS bigint)";
  } else {
    return std::nullopt;
  }
  std::vector<ExprPtr> args;
  for (const auto& a : f.args()) {
    auto e = BindExpr(a, ctx);
    if (!e.ok())
      return e.status();
    args.push_back(*e);
  }
  return BindSqlExpression(sql, std::move(args), ctx);
}

Result<ExprPtr> StatementBinder::BindRegCast(const std::string& type, const pg_query::TypeCast& c,
                                             ExprContext& ctx, bool as_name) {
  // An OID shown as the object's name (the OID itself when there is no such object).
  auto to_name = [&](ExprPtr oid) -> Result<ExprPtr> {
    std::vector<NamedOid> objects;
    if (type == "regclass") {
      objects = RelationOids(CatalogContext());
    } else if (type == "regnamespace") {
      objects = NamespaceOids(catalog_);
    } else {
      for (const auto& t : SystemTypes())
        objects.push_back(
            {t.oid, std::string(kPgCatalogSchema), std::string(t.typname), std::string(t.display)});
    }
    return BindSqlExpression(CaseOverOids(objects, "CAST($1 AS text)"), {std::move(oid)}, ctx);
  };
  if (as_name) {  // 'name'::regclass::text: the name the OID stands for, as PostgreSQL prints it
    SHOAL_ASSIGN_OR_RETURN(ExprPtr oid, BindRegCast(type, c, ctx, /*as_name=*/false));
    if (oid->type.is_integer())
      return to_name(oid);
    return oid;
  }
  SHOAL_ASSIGN_OR_RETURN(ExprPtr arg, BindExpr(c.arg(), ctx));
  const bool text_constant = arg->kind == ExprKind::kLiteral && !arg->value.is_null() &&
                             (IsUnknownLiteral(arg) || arg->type.id() == TypeId::kUtf8);
  if (arg->kind == ExprKind::kLiteral && arg->value.is_null())
    return MakeLiteral(Scalar(DataType::Int64()));
  if (text_constant) {
    const std::string& text = arg->value.string_value();
    // A number is an OID already ('16384'::regclass).
    if (!text.empty() && std::all_of(text.begin(), text.end(),
                                     [](unsigned char ch) { return std::isdigit(ch) != 0; }))
      return MakeLiteral(Scalar::Int64(std::stoll(text)));
    std::vector<std::string> parts = SplitQualifiedName(text);
    if (type == "regnamespace") {
      for (const auto& ns : NamespaceOids(catalog_)) {
        if (parts.size() == 1 && ns.name == parts[0])
          return MakeLiteral(Scalar::Int64(ns.oid));
      }
      return At(Status::NotFound("schema \"{}\" does not exist", text).WithSqlState("3F000"),
                c.location());
    }
    if (type == "regtype") {
      std::string wanted = parts.back();
      for (const auto& t : SystemTypes()) {
        if (t.typname == wanted || t.display == wanted)
          return MakeLiteral(Scalar::Int64(t.oid));
      }
      static const std::map<std::string, int64_t> kAliases = {{"int", 23},
                                                              {"integer", 23},
                                                              {"bigint", 20},
                                                              {"smallint", 21},
                                                              {"boolean", 16},
                                                              {"float", 701},
                                                              {"double precision", 701},
                                                              {"real", 700},
                                                              {"varchar", 1043},
                                                              {"decimal", 1700},
                                                              {"timestamp", 1114},
                                                              {"timestamptz", 1184}};
      auto it = kAliases.find(wanted);
      if (it != kAliases.end())
        return MakeLiteral(Scalar::Int64(it->second));
      return At(Status::NotFound("type \"{}\" does not exist", text).WithSqlState("42704"),
                c.location());
    }
    // regclass: pg_catalog first, then the search path (public), as PostgreSQL resolves it.
    std::string schema = parts.size() > 1 ? parts[parts.size() - 2] : "";
    const std::string& relation = parts.back();
    for (const auto& r : RelationOids(CatalogContext())) {
      if (r.name != relation)
        continue;
      if (schema.empty() ? (r.schema == kPgCatalogSchema || r.schema == kDefaultSchema)
                         : r.schema == schema)
        return MakeLiteral(Scalar::Int64(r.oid));
    }
    return At(Status::NotFound("relation \"{}\" does not exist", text).WithSqlState("42P01"),
              c.location());
  }
  if (!arg->type.is_integer())
    return At(Status::NotImplemented("cannot cast type {} to {}", SqlTypeName(arg->type), type)
                  .WithSqlState("42846"),
              c.location());
  return to_name(arg);
}

}  // namespace shoal::sql::internal

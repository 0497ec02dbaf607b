// Binding of the statements that are not queries: CREATE TABLE [AS], INSERT, CREATE VIEW,
// DROP, SET / RESET, EXPLAIN and COPY ... TO.

#include <algorithm>
#include <tuple>

#include "shoal/io/copy_writer.h"
#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/parser.h"

namespace shoal::sql::internal {

namespace {

std::pair<std::string, std::string> SchemaAndName(const pg_query::RangeVar& rv) {
  return {rv.schemaname().empty() ? std::string(kDefaultSchema) : rv.schemaname(), rv.relname()};
}

/// `all_nullable`: CREATE TABLE AS, whose columns have no NOT NULL constraint whatever the query
/// (INSERT may put NULLs into them later), as in PostgreSQL.
columnar::SchemaPtr SchemaOfPlan(const LogicalPlan& plan, const std::vector<std::string>& names,
                                 bool all_nullable = false) {
  std::vector<Field> fields;
  for (size_t i = 0; i < plan.output.size(); ++i)
    fields.emplace_back(names[i], plan.output[i].type, all_nullable || plan.output[i].nullable);
  return std::make_shared<const Schema>(std::move(fields));
}

}  // namespace

Result<BoundStatement> StatementBinder::BindCreateTable(const pg_query::CreateStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kCreateTable;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.relation());
  out.if_not_exists = s.if_not_exists();
  if (!s.inh_relations().empty() || s.has_partspec() || s.has_of_typename())
    return Status::NotImplemented("INHERITS / PARTITION BY / OF are not supported");
  if (!catalog_.HasSchema(out.schema_name))
    return Status::NotFound("schema \"{}\" does not exist", out.schema_name).WithSqlState("3F000");
  if (catalog_.Lookup(out.schema_name, out.object_name).ok() && !out.if_not_exists)
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.relation().location());
  std::vector<Field> fields;
  std::vector<std::string> primary_key;
  for (const auto& c : s.table_elts()) {
    if (c.has_constraint() && c.constraint().contype() == pg_query::CONSTR_PRIMARY) {
      for (const auto& k : c.constraint().keys())
        primary_key.push_back(Str(k));
    }
  }
  for (const auto& elt : s.table_elts()) {
    if (!elt.has_column_def())
      continue;  // table constraints other than PRIMARY KEY are accepted and ignored
    const auto& def = elt.column_def();
    SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(def.type_name()));
    bool not_null = def.is_not_null();
    const PgNode* default_expr = def.has_raw_default() ? &def.raw_default() : nullptr;
    for (const auto& c : def.constraints()) {
      auto t = c.constraint().contype();
      if (t == pg_query::CONSTR_NOTNULL || t == pg_query::CONSTR_PRIMARY)
        not_null = true;
      if (t == pg_query::CONSTR_DEFAULT)
        default_expr = &c.constraint().raw_expr();
    }
    std::string default_text;
    if (default_expr != nullptr &&
        !(default_expr->has_a_const() && default_expr->a_const().isnull())) {
      SHOAL_ASSIGN_OR_RETURN(default_text, DefaultText(*default_expr));
      // Checked now, as PostgreSQL does: an INSERT must not be the first to find it wrong.
      SHOAL_RETURN_IF_ERROR(
          BindDefault(default_text, Field(def.colname(), type, true), out.object_name).status());
    }
    out.column_defaults.push_back(std::move(default_text));
    if (std::find(primary_key.begin(), primary_key.end(), def.colname()) != primary_key.end())
      not_null = true;
    for (const auto& f : fields) {
      if (f.name == def.colname())
        return At(Status::AlreadyExists("column \"{}\" specified more than once", def.colname())
                      .WithSqlState("42701"),
                  def.location());
    }
    fields.emplace_back(def.colname(), type, !not_null);
  }
  out.table_schema = std::make_shared<const Schema>(std::move(fields));
  SHOAL_ASSIGN_OR_RETURN(out.indexes,
                         ConstraintIndexes(s, *out.table_schema, out.schema_name, out.object_name));
  return out;
}

Result<BoundStatement> StatementBinder::BindCreateTableAs(const pg_query::CreateTableAsStmt& s) {
  if (s.objtype() != pg_query::OBJECT_TABLE)
    return Status::NotImplemented("materialized views are not supported");
  BoundStatement out;
  out.kind = StatementKind::kCreateTableAs;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.into().rel());
  out.if_not_exists = s.if_not_exists();
  if (catalog_.Lookup(out.schema_name, out.object_name).ok() && !out.if_not_exists)
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.into().rel().location());
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(s.query(), nullptr, nullptr));
  for (int i = 0; i < s.into().col_names_size() && i < static_cast<int>(q.names.size()); ++i)
    q.names[static_cast<size_t>(i)] = Str(s.into().col_names(i));
  out.table_schema = SchemaOfPlan(*q.plan, q.names, /*all_nullable=*/true);
  out.plan = q.plan;
  return out;
}

Result<BoundStatement> StatementBinder::BindInsert(const pg_query::InsertStmt& s) {
  if (s.has_on_conflict_clause() || !s.returning_list().empty() || s.has_with_clause())
    return Status::NotImplemented("INSERT with ON CONFLICT / RETURNING / WITH is not supported");
  BoundStatement out;
  out.kind = StatementKind::kInsert;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.relation());
  auto table = catalog_.LookupTable(out.schema_name, out.object_name);
  if (!table.ok())
    return At(table.status(), s.relation().location());
  if (!table->insertable)
    return At(Status::NotImplemented("table \"{}\" ({}) does not accept INSERT", out.object_name,
                                     table->provider->kind()),
              s.relation().location());
  out.target = *table;
  out.table_schema = table->provider->schema();
  const Schema& schema = *out.table_schema;
  const std::vector<std::string> defaults =
      table->storage != nullptr ? table->storage->column_defaults() : std::vector<std::string>{};
  // Target columns: listed ones in order, or all.
  std::vector<int> columns;
  for (const auto& c : s.cols()) {
    const auto& rt = c.res_target();
    auto index = schema.FieldIndex(rt.name());
    if (!index)
      return At(Status::NotFound("column \"{}\" of relation \"{}\" does not exist", rt.name(),
                                 out.object_name)
                    .WithSqlState("42703"),
                rt.location());
    if (std::find(columns.begin(), columns.end(), *index) != columns.end())
      return At(Status::InvalidArgument("column \"{}\" specified more than once", rt.name())
                    .WithSqlState("42701"),
                rt.location());
    columns.push_back(*index);
  }
  if (columns.empty()) {
    for (int i = 0; i < schema.num_fields(); ++i)
      columns.push_back(i);
  }
  std::vector<DataType> types;
  types.reserve(columns.size());
  for (int c : columns)
    types.push_back(schema.field(c).type);
  QueryResult q;
  if (!s.has_select_stmt()) {
    return Status::NotImplemented("INSERT ... DEFAULT VALUES is not supported");
  }
  const auto& select = s.select_stmt().select_stmt();
  if (!select.values_lists().empty() &&
      (select.op() == pg_query::SETOP_NONE || select.op() == pg_query::SET_OPERATION_UNDEFINED)) {
    // VALUES rows take the target's types directly (string literals become dates, ...).
    for (const auto& row : select.values_lists()) {
      if (row.list().items_size() > static_cast<int>(columns.size()))
        return Status::InvalidArgument("INSERT has more expressions than target columns")
            .WithSqlState("42601");
      if (row.list().items_size() < static_cast<int>(columns.size()))
        return Status::InvalidArgument("INSERT has more target columns than expressions")
            .WithSqlState("42601");
    }
    // DEFAULT in a row: the column's DEFAULT expression, or NULL.
    pg_query::SelectStmt rows = select;
    for (auto& row : *rows.mutable_values_lists()) {
      for (int j = 0; j < row.list().items_size(); ++j) {
        if (!row.list().items(j).has_set_to_default())
          continue;
        const auto column = static_cast<size_t>(columns[static_cast<size_t>(j)]);
        PgNode value;
        if (column < defaults.size() && !defaults[column].empty()) {
          SHOAL_ASSIGN_OR_RETURN(ParsedScript parsed, ParseSql("SELECT " + defaults[column]));
          value = parsed.statements[0].node->select_stmt().target_list(0).res_target().val();
        } else {
          value.mutable_a_const()->set_isnull(true);
        }
        *row.mutable_list()->mutable_items(j) = std::move(value);
      }
    }
    SHOAL_ASSIGN_OR_RETURN(q, BindValues(rows, nullptr, nullptr, &types));
  } else {
    SHOAL_ASSIGN_OR_RETURN(q, BindQuery(s.select_stmt(), nullptr, nullptr));
  }
  if (q.plan->output.size() != columns.size()) {
    return Status::InvalidArgument(
               "INSERT has more {} than {}",
               q.plan->output.size() > columns.size() ? "expressions" : "target columns",
               q.plan->output.size() > columns.size() ? "target columns" : "expressions")
        .WithSqlState("42601");
  }
  // Produce every table column in table order: the given ones cast, the others their DEFAULT or
  // NULL.
  auto project = NewNode(LogicalKind::kProject);
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    auto pos = std::find(columns.begin(), columns.end(), i);
    ExprPtr e;
    if (pos == columns.end() && static_cast<size_t>(i) < defaults.size() &&
        !defaults[static_cast<size_t>(i)].empty()) {
      // Its NULL, if any, is refused by the NOT NULL check of the rows.
      SHOAL_ASSIGN_OR_RETURN(e,
                             BindDefault(defaults[static_cast<size_t>(i)], field, out.object_name));
    } else if (pos == columns.end()) {
      if (!field.nullable)
        return Status::InvalidArgument(
                   "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                   field.name, out.object_name)
            .WithSqlState("23502");
      e = MakeLiteral(Scalar(field.type));
    } else {
      const auto& c = q.plan->output[static_cast<size_t>(pos - columns.begin())];
      ExprPtr ref = MakeColumnRef(c.id, c.name, c.type, c.nullable);
      if (c.type != field.type && !CanImplicitCast(c.type, field.type) &&
          !(IsNumeric(c.type) && IsNumeric(field.type)) && c.type.id() != TypeId::kUtf8)
        return Status::TypeError("column \"{}\" is of type {} but expression is of type {}",
                                 field.name, SqlTypeName(field.type), SqlTypeName(c.type))
            .WithSqlState("42804");
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(ref, field.type));
    }
    project->exprs.push_back(e);
    project->output.push_back({NewId(), field.name, "", field.type, e->nullable});
  }
  project->children.push_back(q.plan);
  out.plan = project;
  return out;
}

Result<BoundStatement> StatementBinder::BindCreateView(const pg_query::ViewStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kCreateView;
  std::tie(out.schema_name, out.object_name) = SchemaAndName(s.view());
  out.or_replace = s.replace();
  auto existing = catalog_.Lookup(out.schema_name, out.object_name);
  if (existing.ok() && (existing->table || !out.or_replace))
    return At(Status::AlreadyExists("relation \"{}\" already exists", out.object_name)
                  .WithSqlState("42P07"),
              s.view().location());
  // Bind now to report errors at CREATE time and to fix the column names.
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(s.query(), nullptr, nullptr));
  if (s.aliases_size() > static_cast<int>(q.names.size()))
    return Status::InvalidArgument("CREATE VIEW specifies more column names than columns")
        .WithSqlState("42601");
  for (int i = 0; i < s.aliases_size(); ++i)
    q.names[static_cast<size_t>(i)] = Str(s.aliases(i));
  SHOAL_ASSIGN_OR_RETURN(std::string sql, DeparseStatement(s.query()));
  out.view.schema = out.schema_name;
  out.view.name = out.object_name;
  out.view.sql = std::move(sql);
  out.view.column_names = q.names;
  out.view.depends_on = referenced_relations_;
  out.table_schema = SchemaOfPlan(*q.plan, q.names);
  return out;
}

Result<BoundStatement> StatementBinder::BindDrop(const pg_query::DropStmt& s) {
  BoundStatement out;
  if (s.remove_type() == pg_query::OBJECT_INDEX)
    return BindDropIndex(s);
  if (s.remove_type() == pg_query::OBJECT_TABLE)
    out.kind = StatementKind::kDropTable;
  else if (s.remove_type() == pg_query::OBJECT_VIEW)
    out.kind = StatementKind::kDropView;
  else
    return Status::NotImplemented("only DROP TABLE, DROP VIEW and DROP INDEX are supported")
        .WithSqlState("0A000");
  out.if_exists = s.missing_ok();
  out.cascade = s.behavior() == pg_query::DROP_CASCADE;
  for (const auto& o : s.objects()) {
    std::vector<std::string> parts;
    for (const auto& p : o.list().items())
      parts.push_back(Str(p));
    if (parts.empty() || parts.size() > 2)
      return Status::NotImplemented("cross-database references are not implemented");
    std::string schema = parts.size() == 2 ? parts[0] : std::string(kDefaultSchema);
    auto object = catalog_.Lookup(schema, parts.back());
    if (!object.ok()) {
      if (!out.if_exists)
        return Status::NotFound("{} \"{}\" does not exist",
                                out.kind == StatementKind::kDropTable ? "table" : "view",
                                parts.back())
            .WithSqlState("42P01");
    } else if (out.kind == StatementKind::kDropTable && object->view) {
      return Status::InvalidArgument("\"{}\" is not a table", parts.back())
          .WithSqlState("42809")
          .WithHint("Use DROP VIEW to remove a view.");
    } else if (out.kind == StatementKind::kDropView && object->table) {
      return Status::InvalidArgument("\"{}\" is not a view", parts.back())
          .WithSqlState("42809")
          .WithHint("Use DROP TABLE to remove a table.");
    }
    out.drop_objects.emplace_back(schema, parts.back());
  }
  return out;
}

Result<BoundStatement> StatementBinder::BindSet(const pg_query::VariableSetStmt& s) {
  BoundStatement out;
  out.setting_name = s.name();
  switch (s.kind()) {
    case pg_query::VAR_RESET_ALL: out.kind = StatementKind::kResetAll; return out;
    case pg_query::VAR_RESET:
    case pg_query::VAR_SET_DEFAULT: out.kind = StatementKind::kReset; break;
    case pg_query::VAR_SET_VALUE: out.kind = StatementKind::kSet; break;
    default: return Status::NotImplemented("this form of SET is not supported");
  }
  SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def,
                         SettingsRegistry::Global().Find(out.setting_name));
  if (out.kind == StatementKind::kSet) {
    std::string value;
    for (const auto& a : s.args()) {
      if (!value.empty())
        value += ", ";
      const pg_query::A_Const* c = a.has_a_const() ? &a.a_const()
                                   : a.has_type_cast() && a.type_cast().arg().has_a_const()
                                       ? &a.type_cast().arg().a_const()
                                       : nullptr;
      if (c == nullptr)
        return Status::InvalidArgument("SET {} needs a constant value", out.setting_name)
            .WithSqlState("42601");
      switch (c->val_case()) {
        case pg_query::A_Const::kIval: value += std::to_string(c->ival().ival()); break;
        case pg_query::A_Const::kFval: value += c->fval().fval(); break;
        case pg_query::A_Const::kSval: value += c->sval().sval(); break;
        case pg_query::A_Const::kBoolval: value += c->boolval().boolval() ? "true" : "false"; break;
        default: break;
      }
    }
    SHOAL_ASSIGN_OR_RETURN(out.setting_value, SettingsRegistry::Normalize(*def, value));
  }
  out.setting_name = def->name;
  return out;
}

Result<BoundStatement> StatementBinder::BindExplain(const pg_query::ExplainStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kExplain;
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    bool value = true;
    if (d.has_arg()) {
      if (d.arg().has_string()) {
        std::string v = d.arg().string().sval();
        value = !(v == "false" || v == "off" || v == "0");
      } else if (d.arg().has_boolean()) {
        value = d.arg().boolean().boolval();
      } else if (d.arg().has_integer()) {
        value = d.arg().integer().ival() != 0;
      }
    }
    if (d.defname() == "analyze")
      out.analyze = value;
    else if (d.defname() == "verbose")
      out.verbose = value;
    else if (d.defname() != "costs" && d.defname() != "format")
      return Status::InvalidArgument("unrecognized EXPLAIN option \"{}\"", d.defname())
          .WithSqlState("42601");
  }
  SHOAL_ASSIGN_OR_RETURN(BoundStatement inner, BindStatement(s.query()));
  if (inner.kind == StatementKind::kExplain)
    return Status::SyntaxError("EXPLAIN of EXPLAIN is not allowed");
  out.plan = inner.plan;
  out.explained = std::make_shared<const BoundStatement>(std::move(inner));
  return out;
}

Result<BoundStatement> StatementBinder::BindCopy(const pg_query::CopyStmt& s) {
  if (s.is_from())
    return Status::NotImplemented("COPY FROM is not supported")
        .WithSqlState("0A000")
        .WithHint(
            "read files with CREATE EXTERNAL TABLE ... STORED AS CSV | TBL | PARQUET | ARROW "
            "LOCATION '...'");
  if (s.is_program())
    return Status::NotImplemented("COPY TO PROGRAM is not supported").WithSqlState("0A000");
  BoundStatement out;
  out.kind = StatementKind::kCopy;
  out.copy_path = s.filename();
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    std::string value = "true";  // an option without a value, as in WITH (HEADER)
    if (d.has_arg()) {
      const PgNode& a = d.arg();
      if (a.has_string())
        value = a.string().sval();
      else if (a.has_integer())
        value = std::to_string(a.integer().ival());
      else if (a.has_float_())
        value = a.float_().fval();
      else if (a.has_boolean())
        value = a.boolean().boolval() ? "true" : "false";
      else if (a.has_type_name() && a.type_name().names_size() > 0)
        value = Str(a.type_name().names(a.type_name().names_size() - 1));
      else
        return Status::InvalidArgument("COPY option {} needs a simple value", d.defname())
            .WithSqlState("42601");
    }
    out.copy_options.emplace_back(d.defname(), value);
  }
  // TO STDOUT (an empty path): the rows go to the client, whose front end checks the options.
  if (!out.copy_path.empty())
    SHOAL_RETURN_IF_ERROR(io::ParseCopyOptions(out.copy_path, out.copy_options).status());
  PgNode query;
  if (s.has_query()) {
    query = s.query();
  } else {
    // COPY table [(columns)] TO ...: SELECT columns FROM table.
    auto* select = query.mutable_select_stmt();
    select->set_op(pg_query::SETOP_NONE);
    select->set_limit_option(pg_query::LIMIT_OPTION_DEFAULT);
    *select->add_from_clause()->mutable_range_var() = s.relation();
    if (s.attlist_size() == 0) {
      select->add_target_list()
          ->mutable_res_target()
          ->mutable_val()
          ->mutable_column_ref()
          ->add_fields()
          ->mutable_a_star();
    }
    for (const auto& column : s.attlist()) {
      *select->add_target_list()
           ->mutable_res_target()
           ->mutable_val()
           ->mutable_column_ref()
           ->add_fields() = column;
    }
  }
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(query, nullptr, nullptr));
  auto plan = q.plan->Clone();
  for (size_t i = 0; i < plan->output.size(); ++i)
    plan->output[i].name = q.names[i];
  out.plan = plan;
  return out;
}

}  // namespace shoal::sql::internal

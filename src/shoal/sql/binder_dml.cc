// Binding of DELETE and UPDATE. Both become ordinary queries over the target table, so they plan,
// optimize and run (distributed too) like any SELECT; the executor runs the query over each part
// of the table (a data file of a durable table) and replaces a part that has a changed row by the
// rows the query produces from it, copy-on-write (io/table_storage.h: TableRewrite).
//
//   DELETE FROM t [AS a] WHERE c      ->  SELECT * FROM t [AS a] WHERE (c) IS NOT TRUE
//                                         (the rows kept; the tag counts the others)
//   UPDATE t [AS a] SET x = e, ... WHERE c
//     -> SELECT *, CASE WHEN m THEN e END, ...
//        FROM (SELECT *, (c) IS TRUE AS m FROM t [AS a]) AS a
//     then, per column, CASE WHEN m THEN e (assigned to the column's type) ELSE x END, and m
//
// The condition is evaluated once per row, and an assigned expression only for the rows that
// match (so `SET a = 1 / b WHERE b <> 0` raises nothing), as in PostgreSQL. The parse trees are
// built from the statement's own nodes, so errors point into the statement's text.

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <tuple>

#include "shoal/sql/binder_internal.h"
#include "shoal/sql/function_registry.h"
#include "shoal/sql/literal_parsing.h"
#include "shoal/sql/parser.h"

namespace shoal::sql::internal {

namespace {

constexpr const char* kMatched = "?shoal_update_matched";

PgNode Star() {
  PgNode node;
  auto* ref = node.mutable_column_ref();
  ref->add_fields()->mutable_a_star();
  return node;
}

PgNode Target(PgNode value, const std::string& name = "") {
  PgNode node;
  auto* target = node.mutable_res_target();
  *target->mutable_val() = std::move(value);
  target->set_name(name);
  return node;
}

PgNode ColumnNamed(const std::string& name) {
  PgNode node;
  node.mutable_column_ref()->add_fields()->mutable_string()->set_sval(name);
  return node;
}

PgNode BooleanTest(const PgNode& arg, pg_query::BoolTestType test) {
  PgNode node;
  auto* t = node.mutable_boolean_test();
  *t->mutable_arg() = arg;
  t->set_booltesttype(test);
  t->set_location(-1);
  return node;
}

PgNode TrueConstant() {
  PgNode node;
  node.mutable_a_const()->mutable_boolval()->set_boolval(true);
  return node;
}

}  // namespace

Result<TableEntry> StatementBinder::DmlTarget(const pg_query::RangeVar& relation,
                                              const char* command) {
  const std::string schema =
      relation.schemaname().empty() ? std::string(kDefaultSchema) : relation.schemaname();
  auto object = catalog_.Lookup(schema, relation.relname());
  if (!object.ok())
    return At(object.status(), relation.location());
  if (object->view)
    return At(Status::NotImplemented("cannot {} view \"{}\"", command, relation.relname())
                  .WithSqlState("0A000")
                  .WithHint("Shoal's views are not updatable: change the tables they read."),
              relation.location());
  if (object->table->storage == nullptr)
    return At(Status::NotImplemented("table \"{}\" ({}) does not accept {}", relation.relname(),
                                     object->table->provider->kind(),
                                     std::string(command) == "delete from" ? "DELETE" : "UPDATE")
                  .WithSqlState("0A000")
                  .WithHint("Only tables made by CREATE TABLE [AS] can be changed."),
              relation.location());
  return *object->table;
}

Result<BoundStatement> StatementBinder::BindDelete(const pg_query::DeleteStmt& s) {
  if (!s.using_clause().empty() || !s.returning_list().empty() || s.has_with_clause())
    return Status::NotImplemented("DELETE with USING / RETURNING / WITH is not supported")
        .WithSqlState("0A000");
  BoundStatement out;
  out.kind = StatementKind::kDelete;
  std::tie(out.schema_name, out.object_name) = std::make_pair(
      s.relation().schemaname().empty() ? std::string(kDefaultSchema) : s.relation().schemaname(),
      s.relation().relname());
  SHOAL_ASSIGN_OR_RETURN(out.target, DmlTarget(s.relation(), "delete from"));
  out.table_schema = out.target.provider->schema();
  if (!s.has_where_clause())
    return out;  // every row goes: no query to run
  PgNode select;
  auto* stmt = select.mutable_select_stmt();
  *stmt->add_target_list() = Target(Star());
  *stmt->add_from_clause()->mutable_range_var() = s.relation();
  *stmt->mutable_where_clause() = BooleanTest(s.where_clause(), pg_query::IS_NOT_TRUE);
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(select, nullptr, nullptr));
  out.plan = q.plan;
  return out;
}

Result<BoundStatement> StatementBinder::BindUpdate(const pg_query::UpdateStmt& s) {
  if (!s.from_clause().empty() || !s.returning_list().empty() || s.has_with_clause())
    return Status::NotImplemented("UPDATE with FROM / RETURNING / WITH is not supported")
        .WithSqlState("0A000");
  BoundStatement out;
  out.kind = StatementKind::kUpdate;
  out.schema_name =
      s.relation().schemaname().empty() ? std::string(kDefaultSchema) : s.relation().schemaname();
  out.object_name = s.relation().relname();
  SHOAL_ASSIGN_OR_RETURN(out.target, DmlTarget(s.relation(), "update"));
  out.table_schema = out.target.provider->schema();
  const Schema& schema = *out.table_schema;
  if (schema.FieldIndex(kMatched))
    return Status::NotImplemented("UPDATE of a table with a column named \"{}\"", kMatched);

  const std::vector<std::string> defaults = out.target.storage->column_defaults();
  // Which column each SET item assigns, and its value expression.
  std::vector<int> assigned;
  std::vector<PgNode> values;
  for (const auto& item : s.target_list()) {
    const auto& rt = item.res_target();
    if (!rt.indirection().empty())
      return At(Status::NotImplemented("assignment to a part of column \"{}\" is not supported",
                                       rt.name())
                    .WithSqlState("0A000"),
                rt.location());
    auto index = schema.FieldIndex(rt.name());
    if (!index)
      return At(Status::NotFound("column \"{}\" of relation \"{}\" does not exist", rt.name(),
                                 out.object_name)
                    .WithSqlState("42703"),
                rt.location());
    if (std::find(assigned.begin(), assigned.end(), *index) != assigned.end())
      return At(Status::InvalidArgument("multiple assignments to same column \"{}\"", rt.name())
                    .WithSqlState("42601"),
                rt.location());
    PgNode value = rt.val();
    if (value.has_multi_assign_ref()) {
      // (a, b) = (x, y): the colno-th element of a row constructor.
      const auto& multi = value.multi_assign_ref();
      if (!multi.source().has_row_expr() ||
          multi.source().row_expr().args_size() != multi.ncolumns())
        return At(Status::NotImplemented("this form of multiple-column assignment is not "
                                         "supported: use (a, b) = (expr, expr)")
                      .WithSqlState("0A000"),
                  rt.location());
      PgNode element = multi.source().row_expr().args(multi.colno() - 1);  // a copy: `multi` is
      value = std::move(element);                                          // part of `value`
    }
    if (value.has_set_to_default()) {  // the column's DEFAULT, NULL without one
      const std::string& text = defaults.size() > static_cast<size_t>(*index)
                                    ? defaults[static_cast<size_t>(*index)]
                                    : std::string();
      PgNode replacement;
      if (text.empty()) {
        replacement.mutable_a_const()->set_isnull(true);
      } else {
        SHOAL_ASSIGN_OR_RETURN(ParsedScript parsed, ParseSql("SELECT " + text));
        replacement = parsed.statements[0].node->select_stmt().target_list(0).res_target().val();
      }
      value = std::move(replacement);
    }
    assigned.push_back(*index);
    values.push_back(std::move(value));
  }

  // SELECT *, (c) IS TRUE AS m FROM t
  PgNode inner;
  auto* in = inner.mutable_select_stmt();
  *in->add_target_list() = Target(Star());
  *in->add_target_list() = Target(
      s.has_where_clause() ? BooleanTest(s.where_clause(), pg_query::IS_TRUE) : TrueConstant(),
      kMatched);
  *in->add_from_clause()->mutable_range_var() = s.relation();
  // SELECT *, CASE WHEN m THEN e END, ... FROM (inner) AS a
  PgNode outer;
  auto* o = outer.mutable_select_stmt();
  *o->add_target_list() = Target(Star());
  for (const auto& value : values) {
    PgNode guarded;
    auto* c = guarded.mutable_case_expr();
    auto* when = c->add_args()->mutable_case_when();
    *when->mutable_expr() = ColumnNamed(kMatched);
    *when->mutable_result() = value;
    c->set_location(-1);
    *o->add_target_list() = Target(std::move(guarded));
  }
  auto* sub = o->add_from_clause()->mutable_range_subselect();
  *sub->mutable_subquery() = inner;
  sub->mutable_alias()->set_aliasname(s.relation().has_alias() ? s.relation().alias().aliasname()
                                                               : s.relation().relname());
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(outer, nullptr, nullptr));
  const auto n = static_cast<size_t>(schema.num_fields());
  if (q.plan->output.size() != n + 1 + values.size())
    return Status::Internal("UPDATE plan has {} columns for a table of {}", q.plan->output.size(),
                            n);

  // Per column: CASE WHEN m THEN <value as the column's type> ELSE <old value> END; then m.
  const ColumnInfo& m = q.plan->output[n];
  ExprPtr matched = MakeColumnRef(m.id, m.name, m.type, m.nullable);
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i < n; ++i) {
    const Field& field = schema.field(static_cast<int>(i));
    const ColumnInfo& old = q.plan->output[i];
    ExprPtr e = MakeColumnRef(old.id, old.name, old.type, old.nullable);
    auto pos = std::find(assigned.begin(), assigned.end(), static_cast<int>(i));
    if (pos != assigned.end()) {
      const ColumnInfo& v = q.plan->output[n + 1 + static_cast<size_t>(pos - assigned.begin())];
      ExprPtr ref = MakeColumnRef(v.id, v.name, v.type, v.nullable);
      if (v.type != field.type && !CanImplicitCast(v.type, field.type) &&
          !(IsNumeric(v.type) && IsNumeric(field.type)) && v.type.id() != TypeId::kUtf8 &&
          v.type.id() != TypeId::kNull)
        return At(Status::TypeError("column \"{}\" is of type {} but expression is of type {}",
                                    field.name, SqlTypeName(field.type), SqlTypeName(v.type))
                      .WithSqlState("42804")
                      .WithHint("You will need to rewrite or cast the expression."),
                  s.target_list(static_cast<int>(pos - assigned.begin())).res_target().location());
      SHOAL_ASSIGN_OR_RETURN(ExprPtr value, Coerce(ref, field.type));
      e = MakeCase({matched, value, e}, /*has_else=*/true, field.type, true);
    }
    project->exprs.push_back(e);
    project->output.push_back({NewId(), field.name, "", field.type, e->nullable});
  }
  project->exprs.push_back(matched);
  project->output.push_back({NewId(), kMatched, "", m.type, m.nullable});
  project->children.push_back(q.plan);
  out.plan = project;
  return out;
}

}  // namespace shoal::sql::internal

namespace shoal::sql::internal {

namespace {

// The value of `e`, bound as a value of `type`, when it is a constant: a literal, or a cast of
// one (a DEFAULT such as 7, 'x', 2.5 or NULL).
std::optional<Scalar> ConstantValue(const ExprPtr& e, const DataType& type) {
  std::optional<Scalar> value;
  if (e->kind == ExprKind::kLiteral) {
    value = e->value;
  } else if (e->kind == ExprKind::kCast && e->args.size() == 1 &&
             e->args[0]->kind == ExprKind::kLiteral) {
    auto cast = CastScalar(e->args[0]->value, e->type);
    if (!cast.ok())
      return std::nullopt;
    value = std::move(*cast);
  } else {
    return std::nullopt;
  }
  if (value->is_null())
    return Scalar(type);
  if (value->type() != type) {
    auto cast = CastScalar(*value, type);
    if (!cast.ok())
      return std::nullopt;
    value = std::move(*cast);
  }
  return value;
}

}  // namespace

Result<std::string> StatementBinder::DefaultText(const PgNode& expr) {
  PgNode select;
  *select.mutable_select_stmt()->add_target_list() = Target(expr);
  SHOAL_ASSIGN_OR_RETURN(std::string text, DeparseStatement(select));
  constexpr std::string_view kSelect = "SELECT ";
  if (text.rfind(kSelect, 0) != 0)
    return Status::Internal("a DEFAULT deparsed as '{}'", text);
  return text.substr(kSelect.size());
}

Result<ExprPtr> StatementBinder::BindDefault(const std::string& sql, const Field& field,
                                             const std::string& table) {
  ExprContext ctx;
  ctx.clause = "DEFAULT";
  auto bound = BindSqlExpression(sql, {}, ctx);
  if (!bound.ok() && bound.status().sqlstate() == "42703")  // no scope: any column is unknown
    return Status::NotImplemented("cannot use column reference in DEFAULT expression")
        .WithSqlState("0A000");
  if (!bound.ok())
    return std::move(bound).status().WithContext(
        fmt::format("DEFAULT of column \"{}\" of relation \"{}\"", field.name, table));
  const ExprPtr& e = *bound;
  // As in PostgreSQL, a DEFAULT reads no table.
  std::function<bool(const ExprPtr&)> has_subquery = [&](const ExprPtr& x) {
    return x->kind == ExprKind::kSubquery ||
           std::any_of(x->args.begin(), x->args.end(), has_subquery);
  };
  if (has_subquery(e))
    return Status::NotImplemented("cannot use subquery in DEFAULT expression")
        .WithSqlState("0A000");
  if (e->type != field.type && !CanImplicitCast(e->type, field.type) &&
      !(IsNumeric(e->type) && IsNumeric(field.type)) && e->type.id() != TypeId::kUtf8 &&
      e->type.id() != TypeId::kNull)
    return Status::TypeError("column \"{}\" is of type {} but default expression is of type {}",
                             field.name, SqlTypeName(field.type), SqlTypeName(e->type))
        .WithSqlState("42804")
        .WithHint("You will need to rewrite or cast the expression.");
  SHOAL_ASSIGN_OR_RETURN(ExprPtr coerced, Coerce(e, field.type));
  // A constant that is no value of the type (DEFAULT 'x' for an int) is refused now, as
  // PostgreSQL refuses it at CREATE TABLE, not by the first INSERT that needs it.
  if (coerced->kind == ExprKind::kCast && coerced->args.size() == 1 &&
      coerced->args[0]->kind == ExprKind::kLiteral)
    SHOAL_RETURN_IF_ERROR(CastScalar(coerced->args[0]->value, coerced->type).status());
  return coerced;
}

Result<BoundStatement> StatementBinder::BindRename(const pg_query::RenameStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kAlterTable;
  const bool view = s.rename_type() == pg_query::OBJECT_VIEW;
  out.alter_tag = view ? "ALTER VIEW" : "ALTER TABLE";
  if (s.rename_type() == pg_query::OBJECT_TABLE || view) {
    out.alter_action = AlterAction::kRenameTable;
  } else if (s.rename_type() == pg_query::OBJECT_COLUMN &&
             s.relation_type() == pg_query::OBJECT_TABLE) {
    out.alter_action = AlterAction::kRenameColumn;
  } else {
    return Status::NotImplemented("this ALTER ... RENAME is not supported")
        .WithSqlState("0A000")
        .WithHint("Shoal renames tables (ALTER TABLE ... RENAME [COLUMN]) and views.");
  }
  out.schema_name =
      s.relation().schemaname().empty() ? std::string(kDefaultSchema) : s.relation().schemaname();
  out.object_name = s.relation().relname();
  out.new_name = s.newname();
  out.column_name = s.subname();
  out.if_exists = s.missing_ok();
  auto object = catalog_.Lookup(out.schema_name, out.object_name);
  if (!object.ok()) {
    if (out.if_exists) {
      out.skip = true;
      out.notice = fmt::format("relation \"{}\" does not exist, skipping", out.object_name);
      return out;
    }
    return At(object.status(), s.relation().location());
  }
  if (view && !object->view)
    return At(Status::InvalidArgument("\"{}\" is not a view", out.object_name)
                  .WithSqlState("42809")
                  .WithHint("Use ALTER TABLE instead."),
              s.relation().location());
  if (object->table)
    out.target = *object->table;
  if (out.alter_action == AlterAction::kRenameColumn) {
    if (!object->table || object->table->storage == nullptr)
      return At(Status::NotImplemented("cannot rename a column of \"{}\"", out.object_name)
                    .WithSqlState("0A000")
                    .WithHint("Only tables made by CREATE TABLE [AS] can be altered; an external "
                              "table takes its columns from its files."),
                s.relation().location());
    const Schema& schema = *object->table->provider->schema();
    if (!schema.FieldIndex(out.column_name))
      return Status::NotFound("column \"{}\" does not exist", out.column_name)
          .WithSqlState("42703");
    if (schema.FieldIndex(out.new_name))
      return Status::AlreadyExists("column \"{}\" of relation \"{}\" already exists", out.new_name,
                                   out.object_name)
          .WithSqlState("42701");
  }
  return out;
}

Result<BoundStatement> StatementBinder::BindAlterTable(const pg_query::AlterTableStmt& s) {
  BoundStatement out;
  out.kind = StatementKind::kAlterTable;
  out.alter_tag = "ALTER TABLE";
  out.schema_name =
      s.relation().schemaname().empty() ? std::string(kDefaultSchema) : s.relation().schemaname();
  out.object_name = s.relation().relname();
  if (s.objtype() != pg_query::OBJECT_TABLE || s.cmds_size() != 1 ||
      s.cmds(0).alter_table_cmd().subtype() != pg_query::AT_AddColumn)
    return Status::NotImplemented("this form of ALTER TABLE is not supported")
        .WithSqlState("0A000")
        .WithHint(
            "Shoal runs ALTER TABLE ... RENAME TO, RENAME COLUMN and ADD COLUMN, one per "
            "statement.");
  const auto& cmd = s.cmds(0).alter_table_cmd();
  auto object = catalog_.Lookup(out.schema_name, out.object_name);
  if (!object.ok() && s.missing_ok()) {
    out.skip = true;
    out.notice = fmt::format("relation \"{}\" does not exist, skipping", out.object_name);
    return out;
  }
  SHOAL_ASSIGN_OR_RETURN(out.target, DmlTarget(s.relation(), "alter"));
  const Schema& schema = *out.target.provider->schema();
  const auto& def = cmd.def().column_def();
  out.alter_action = AlterAction::kAddColumn;
  if (schema.FieldIndex(def.colname())) {
    if (cmd.missing_ok()) {
      out.skip = true;
      out.notice = fmt::format("column \"{}\" of relation \"{}\" already exists, skipping",
                               def.colname(), out.object_name);
      return out;
    }
    return Status::AlreadyExists("column \"{}\" of relation \"{}\" already exists", def.colname(),
                                 out.object_name)
        .WithSqlState("42701");
  }
  SHOAL_ASSIGN_OR_RETURN(DataType type, ResolveTypeName(def.type_name()));
  bool not_null = def.is_not_null();
  PgNode default_value;
  default_value.mutable_a_const()->set_isnull(true);
  if (def.has_raw_default())
    default_value = def.raw_default();
  for (const auto& c : def.constraints()) {
    switch (c.constraint().contype()) {
      case pg_query::CONSTR_NOTNULL: not_null = true; break;
      case pg_query::CONSTR_NULL: break;
      case pg_query::CONSTR_DEFAULT: default_value = c.constraint().raw_expr(); break;
      default:
        return Status::NotImplemented("ADD COLUMN with this constraint is not supported")
            .WithSqlState("0A000")
            .WithHint("Add the column, then CREATE UNIQUE INDEX for a unique key.");
    }
  }
  out.new_column = Field(def.colname(), type, !not_null);
  // The default is a value of its own: checked alone first, so that it cannot read the row.
  {
    PgNode alone;
    *alone.mutable_select_stmt()->add_target_list() = Target(default_value);
    SHOAL_RETURN_IF_ERROR(BindQuery(alone, nullptr, nullptr).status());
  }
  const bool has_default = !(default_value.has_a_const() && default_value.a_const().isnull());
  out.new_column_value = Scalar(type);
  if (has_default) {
    SHOAL_ASSIGN_OR_RETURN(out.new_column_default, DefaultText(default_value));
    SHOAL_ASSIGN_OR_RETURN(ExprPtr bound,
                           BindDefault(out.new_column_default, out.new_column, out.object_name));
    out.new_column_value = ConstantValue(bound, type);
  }
  // SELECT *, <default> FROM t: the rows with the new column.
  PgNode select;
  auto* stmt = select.mutable_select_stmt();
  *stmt->add_target_list() = Target(Star());
  *stmt->add_target_list() = Target(default_value);
  *stmt->add_from_clause()->mutable_range_var() = s.relation();
  SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(select, nullptr, nullptr));
  const size_t n = static_cast<size_t>(schema.num_fields());
  auto project = NewNode(LogicalKind::kProject);
  for (size_t i = 0; i <= n; ++i) {
    const ColumnInfo& c = q.plan->output[i];
    ExprPtr e = MakeColumnRef(c.id, c.name, c.type, c.nullable);
    std::string name = i < n ? schema.field(static_cast<int>(i)).name : def.colname();
    if (i == n) {
      if (c.type != type && !CanImplicitCast(c.type, type) &&
          !(IsNumeric(c.type) && IsNumeric(type)) && c.type.id() != TypeId::kUtf8 &&
          c.type.id() != TypeId::kNull)
        return Status::TypeError("column \"{}\" is of type {} but default expression is of type {}",
                                 def.colname(), SqlTypeName(type), SqlTypeName(c.type))
            .WithSqlState("42804")
            .WithHint("You will need to rewrite or cast the expression.");
      SHOAL_ASSIGN_OR_RETURN(e, Coerce(e, type));
    }
    project->exprs.push_back(e);
    project->output.push_back({NewId(), name, "", e->type, e->nullable});
  }
  project->children.push_back(q.plan);
  out.plan = project;
  return out;
}

}  // namespace shoal::sql::internal

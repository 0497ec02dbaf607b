#include "shoal/sql/binder.h"

#include "shoal/sql/binder_internal.h"

namespace shoal::sql {

const char* StatementKindName(StatementKind kind) {
  switch (kind) {
    case StatementKind::kQuery: return "SELECT";
    case StatementKind::kExplain: return "EXPLAIN";
    case StatementKind::kCreateTable: return "CREATE TABLE";
    case StatementKind::kCreateTableAs: return "CREATE TABLE AS";
    case StatementKind::kCreateExternalTable: return "CREATE EXTERNAL TABLE";
    case StatementKind::kCopy: return "COPY";
    case StatementKind::kInsert: return "INSERT";
    case StatementKind::kCreateView: return "CREATE VIEW";
    case StatementKind::kDropTable: return "DROP TABLE";
    case StatementKind::kDropView: return "DROP VIEW";
    case StatementKind::kSet: return "SET";
    case StatementKind::kReset: return "RESET";
    case StatementKind::kResetAll: return "RESET";
    case StatementKind::kShow: return "SHOW";
    case StatementKind::kShowAll: return "SHOW";
    case StatementKind::kCreateIndex: return "CREATE INDEX";
    case StatementKind::kDropIndex: return "DROP INDEX";
    case StatementKind::kDelete: return "DELETE";
    case StatementKind::kUpdate: return "UPDATE";
    case StatementKind::kAlterTable: return "ALTER TABLE";
  }
  return "?";
}

namespace internal {

namespace {

/// 0A000 for a statement Shoal does not run, named as PostgreSQL's command tag names it, with what
/// to do instead.
Status UnsupportedStatement(const PgNode& node) {
  constexpr const char* kWrite =
      "Tables accept INSERT, UPDATE and DELETE: write the rows you want with those or with CREATE "
      "TABLE ... AS SELECT instead.";
  constexpr const char* kNoPrivileges = "Shoal has no roles or privileges.";
  constexpr const char* kStatements =
      "Shoal runs SELECT, VALUES, EXPLAIN, CREATE TABLE [AS], CREATE EXTERNAL TABLE, CREATE VIEW, "
      "CREATE INDEX, INSERT, UPDATE, DELETE, ALTER TABLE, COPY, DROP TABLE, DROP VIEW, DROP INDEX, "
      "SET, RESET and SHOW.";
  const char* name = nullptr;
  const char* instead = kStatements;
  switch (node.node_case()) {
    case PgNode::kUpdateStmt:
      name = "UPDATE";
      instead = kWrite;
      break;
    case PgNode::kDeleteStmt:
      name = "DELETE";
      instead = kWrite;
      break;
    case PgNode::kMergeStmt:
      name = "MERGE";
      instead = kWrite;
      break;
    case PgNode::kTruncateStmt:
      name = "TRUNCATE";
      instead = kWrite;
      break;
    case PgNode::kReindexStmt:
      name = "REINDEX";
      instead = "Shoal's indexes hold no data to rebuild: it answers queries by scanning.";
      break;
    case PgNode::kGrantStmt:
      name = node.grant_stmt().is_grant() ? "GRANT" : "REVOKE";
      instead = kNoPrivileges;
      break;
    case PgNode::kGrantRoleStmt:
      name = node.grant_role_stmt().is_grant() ? "GRANT" : "REVOKE";
      instead = kNoPrivileges;
      break;
    case PgNode::kCreateRoleStmt:
      name = "CREATE ROLE";
      instead = kNoPrivileges;
      break;
    case PgNode::kAlterRoleStmt:
      name = "ALTER ROLE";
      instead = kNoPrivileges;
      break;
    case PgNode::kDropRoleStmt:
      name = "DROP ROLE";
      instead = kNoPrivileges;
      break;
    case PgNode::kAlterDefaultPrivilegesStmt:
      name = "ALTER DEFAULT PRIVILEGES";
      instead = kNoPrivileges;
      break;
    case PgNode::kAlterOwnerStmt:
      name = "ALTER OWNER";
      instead = kNoPrivileges;
      break;
    case PgNode::kTransactionStmt:
      name = "BEGIN / COMMIT / ROLLBACK";
      instead = "Shoal has no transactions: each statement takes effect when it ends.";
      break;
    case PgNode::kLockStmt:
      name = "LOCK";
      instead = "Shoal has no transactions or locks.";
      break;
    case PgNode::kAlterTableStmt:
      name = "ALTER TABLE";
      instead = "Create the table anew with CREATE TABLE ... AS SELECT.";
      break;
    case PgNode::kRenameStmt:
      name = "ALTER ... RENAME";
      instead =
          "Create the object anew under the new name (CREATE TABLE ... AS SELECT, CREATE "
          "VIEW).";
      break;
    case PgNode::kCreateSchemaStmt: name = "CREATE SCHEMA"; break;
    case PgNode::kCreateSeqStmt: name = "CREATE SEQUENCE"; break;
    case PgNode::kCreateFunctionStmt: name = "CREATE FUNCTION"; break;
    case PgNode::kCreateTrigStmt: name = "CREATE TRIGGER"; break;
    case PgNode::kCreateDomainStmt: name = "CREATE DOMAIN"; break;
    case PgNode::kCreateEnumStmt:
    case PgNode::kCompositeTypeStmt:
    case PgNode::kDefineStmt: name = "CREATE TYPE / AGGREGATE / OPERATOR"; break;
    case PgNode::kCreatedbStmt: name = "CREATE DATABASE"; break;
    case PgNode::kDropdbStmt: name = "DROP DATABASE"; break;
    case PgNode::kCommentStmt: name = "COMMENT"; break;
    case PgNode::kVacuumStmt:
      name = "VACUUM / ANALYZE";
      instead = "Shoal keeps no statistics to refresh: it reads them from the files.";
      break;
    case PgNode::kClusterStmt: name = "CLUSTER"; break;
    case PgNode::kRefreshMatViewStmt: name = "REFRESH MATERIALIZED VIEW"; break;
    case PgNode::kPrepareStmt: name = "PREPARE"; break;
    case PgNode::kExecuteStmt: name = "EXECUTE"; break;
    case PgNode::kDeallocateStmt: name = "DEALLOCATE"; break;
    case PgNode::kDeclareCursorStmt: name = "DECLARE CURSOR"; break;
    case PgNode::kFetchStmt: name = "FETCH"; break;
    case PgNode::kClosePortalStmt: name = "CLOSE"; break;
    case PgNode::kDoStmt: name = "DO"; break;
    case PgNode::kCallStmt: name = "CALL"; break;
    case PgNode::kListenStmt: name = "LISTEN"; break;
    case PgNode::kNotifyStmt: name = "NOTIFY"; break;
    case PgNode::kDiscardStmt: name = "DISCARD"; break;
    case PgNode::kCheckPointStmt: name = "CHECKPOINT"; break;
    case PgNode::kLoadStmt: name = "LOAD"; break;
    case PgNode::kCreateExtensionStmt: name = "CREATE EXTENSION"; break;
    default: break;
  }
  Status status = name != nullptr
                      ? Status::NotImplemented("{} is not supported", name)
                      : Status::NotImplemented("this kind of statement is not supported");
  return std::move(status).WithSqlState("0A000").WithHint(instead);
}

}  // namespace

Result<BoundStatement> StatementBinder::BindStatement(const PgNode& node) {
  switch (node.node_case()) {
    case PgNode::kSelectStmt: {
      const auto& s = node.select_stmt();
      if (s.has_into_clause()) {
        // SELECT ... INTO t is CREATE TABLE t AS SELECT ...
        pg_query::CreateTableAsStmt ctas;
        *ctas.mutable_into() = s.into_clause();
        *ctas.mutable_query() = node;
        ctas.mutable_query()->mutable_select_stmt()->clear_into_clause();
        ctas.set_objtype(pg_query::OBJECT_TABLE);
        return BindCreateTableAs(ctas);
      }
      SHOAL_ASSIGN_OR_RETURN(QueryResult q, BindQuery(node, nullptr, nullptr));
      BoundStatement out;
      out.kind = StatementKind::kQuery;
      // The plan's output names are the user-visible ones.
      auto plan = q.plan->Clone();
      for (size_t i = 0; i < plan->output.size(); ++i)
        plan->output[i].name = q.names[i];
      out.plan = plan;
      return out;
    }
    case PgNode::kExplainStmt: return BindExplain(node.explain_stmt());
    case PgNode::kCopyStmt: return BindCopy(node.copy_stmt());
    case PgNode::kCreateStmt: return BindCreateTable(node.create_stmt());
    case PgNode::kCreateTableAsStmt: return BindCreateTableAs(node.create_table_as_stmt());
    case PgNode::kInsertStmt: return BindInsert(node.insert_stmt());
    case PgNode::kDeleteStmt: return BindDelete(node.delete_stmt());
    case PgNode::kUpdateStmt: return BindUpdate(node.update_stmt());
    case PgNode::kRenameStmt: return BindRename(node.rename_stmt());
    case PgNode::kAlterTableStmt: return BindAlterTable(node.alter_table_stmt());
    case PgNode::kViewStmt: return BindCreateView(node.view_stmt());
    case PgNode::kIndexStmt: return BindCreateIndex(node.index_stmt());
    case PgNode::kDropStmt: return BindDrop(node.drop_stmt());
    case PgNode::kVariableSetStmt: return BindSet(node.variable_set_stmt());
    case PgNode::kVariableShowStmt: {
      BoundStatement out;
      const std::string& name = node.variable_show_stmt().name();
      if (name == "all") {
        out.kind = StatementKind::kShowAll;
        return out;
      }
      SHOAL_ASSIGN_OR_RETURN(const SettingDefinition* def, SettingsRegistry::Global().Find(name));
      out.kind = StatementKind::kShow;
      out.setting_name = def->name;
      return out;
    }
    default: break;
  }
  return UnsupportedStatement(node);
}

}  // namespace internal

using internal::StatementBinder;

Result<BoundStatement> Binder::Bind(const ParsedScript& script, const ParsedStatement& statement) {
  session_->column_ids().Reset();
  StatementBinder binder(session_, script.sql);
  SHOAL_ASSIGN_OR_RETURN(BoundStatement out, binder.BindStatement(*statement.node));
  out.text = statement.text;
  out.reusable = out.kind == StatementKind::kQuery && binder.reusable();
  if (statement.external) {
    const ExternalTableClause& external = *statement.external;
    if (out.kind != StatementKind::kCreateTable)
      return Status::Internal("CREATE EXTERNAL TABLE was not rewritten to CREATE TABLE");
    int position = BytePositionToCharPosition(script.sql, external.format_location);
    if (external.format != "TBL" && external.format != "CSV" && external.format != "PARQUET" &&
        external.format != "ARROW")
      return Status::InvalidArgument(
                 "unknown file format \"{}\" (supported: TBL, CSV, PARQUET, ARROW)",
                 external.format)
          .WithSqlState("42601")
          .WithPosition(position);
    out.kind = StatementKind::kCreateExternalTable;
    out.external_format = external.format == "TBL"       ? "tbl"
                          : external.format == "PARQUET" ? "parquet"
                          : external.format == "ARROW"   ? "arrow"
                                                         : "csv";
    out.external_location = external.location;
    out.external_options = external.options;
  }
  if (out.explained) {
    auto inner = std::make_shared<BoundStatement>(*out.explained);
    inner->text = statement.text;
    out.explained = inner;
  }
  return out;
}

Result<std::vector<BoundStatement>> ParseAndBind(Session* session, std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(ParsedScript script, ParseSql(sql));
  Binder binder(session);
  std::vector<BoundStatement> out;
  for (const auto& statement : script.statements) {
    SHOAL_ASSIGN_OR_RETURN(BoundStatement bound, binder.Bind(script, statement));
    out.push_back(std::move(bound));
  }
  return out;
}

Result<BoundStatement> BindSql(Session* session, std::string_view sql) {
  SHOAL_ASSIGN_OR_RETURN(ParsedScript script, ParseSql(sql));
  if (script.statements.size() != 1)
    return Status::InvalidArgument("expected one statement, got {}", script.statements.size())
        .WithSqlState("42601");
  return Binder(session).Bind(script, script.statements[0]);
}

}  // namespace shoal::sql

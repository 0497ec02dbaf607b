#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/common/log_context.h"
#include "shoal/server/connection.h"
#include "shoal/server/connection_internal.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/statement_shape.h"
#include "shoal/sql/binder.h"

// The extended query protocol: Parse, Bind, Describe, Execute, Close and Sync on prepared
// statements and portals.

namespace shoal::server {

using internal::ClientGone;
using internal::DecodeInt32;
using internal::RowsOfTag;
using internal::Upper;

// ---- Extended query --------------------------------------------------------------------------

Status Connection::Parse(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(ParseMessage m, ParseParseMessage(body));
  if (!m.statement.empty() && statements_.count(m.statement) > 0) {
    return Status::AlreadyExists("prepared statement \"{}\" already exists", m.statement)
        .WithSqlState("42P05");
  }
  SHOAL_ASSIGN_OR_RETURN(auto script, server_->parse_cache().Parse(m.query));
  if (script->statements.size() > 1) {
    return Status::InvalidArgument("cannot insert multiple commands into a prepared statement")
        .WithSqlState("42601");
  }
  auto prepared = std::make_shared<Prepared>();
  prepared->script = std::move(script);
  prepared->parameter_types = std::move(m.parameter_types);
  statements_[m.statement] = std::move(prepared);
  WriteEmptyMessage(out_, '1');  // ParseComplete
  return Status::OK();
}

Result<sql::BoundStatement> Connection::BindPrepared(const Prepared& prepared,
                                                     const BindMessage* bind) {
  sql::Session& session = runner_->session();
  std::vector<sql::QueryParameter> parameters;
  const auto& types = prepared.parameter_types;
  if (bind != nullptr) {
    const auto& formats = bind->parameter_formats;
    for (size_t i = 0; i < bind->parameters.size(); ++i) {
      const uint32_t oid = i < types.size() ? types[i] : 0;
      const int16_t format = formats.empty() ? 0 : formats.size() == 1 ? formats[0] : formats[i];
      auto decoded = DecodeParameter(oid, format, bind->parameters[i]);
      if (!decoded.ok()) {
        return std::move(decoded).status().WithContext(fmt::format("bind parameter ${}", i + 1));
      }
      parameters.push_back(std::move(*decoded));
    }
  } else {
    // Describe before Bind: NULLs of the declared types, any further $n of unknown type.
    for (uint32_t oid : types) {
      SHOAL_ASSIGN_OR_RETURN(auto p, DecodeParameter(oid, 0, std::nullopt));
      parameters.push_back(std::move(p));
    }
  }
  const size_t supplied = parameters.size();
  session.parameters() = std::move(parameters);
  session.lenient_parameters() = bind == nullptr;
  session.max_parameter() = 0;
  const auto& script = *prepared.script;
  sql::Binder binder(&session);
  auto bound = binder.Bind(script, script.statements[0]);
  const int used = session.max_parameter();
  session.parameters().clear();
  session.lenient_parameters() = false;
  SHOAL_RETURN_IF_ERROR(bound.status());
  const size_t required = std::max(static_cast<size_t>(used), types.size());
  if (bind != nullptr && required != supplied) {
    return ProtocolViolation(fmt::format(
        "bind message supplies {} parameters, but prepared statement \"{}\" requires {}", supplied,
        bind->statement, required));
  }
  return bound;
}

Status Connection::Bind(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(BindMessage m, ParseBindMessage(body));
  auto found = statements_.find(m.statement);
  if (found == statements_.end()) {
    if (m.statement.empty()) {
      return Status::NotFound("unnamed prepared statement does not exist").WithSqlState("26000");
    }
    return Status::NotFound("prepared statement \"{}\" does not exist", m.statement)
        .WithSqlState("26000");
  }
  if (!m.portal.empty() && portals_.count(m.portal) > 0) {
    return Status::AlreadyExists("portal \"{}\" already exists", m.portal).WithSqlState("42P03");
  }
  auto portal = std::make_unique<Portal>();
  portal->prepared = found->second;
  portal->result_formats = m.result_formats;
  const auto& script = *portal->prepared->script;
  if (!script.statements.empty()) {
    const auto& statement = script.statements[0];
    SHOAL_RETURN_IF_ERROR(CheckNotAborted(statement));
    if (!TransactionKeyword(statement).empty()) {
      portal->transaction_command = true;
    } else {
      if (QueryMonitor* monitor = server_->monitor())
        monitor->SessionActive(pid_, statement.text);
      SHOAL_ASSIGN_OR_RETURN(portal->bound, BindPrepared(*portal->prepared, &m));
      auto schema = ResultSchemaOf(*portal->bound);
      SHOAL_RETURN_IF_ERROR(
          CheckResultFormats(m.result_formats, schema ? schema->num_fields() : 0));
    }
  }
  EndMonitoredPortals(&m.portal);  // the unnamed portal is replaced
  portals_[m.portal] = std::move(portal);
  WriteEmptyMessage(out_, '2');  // BindComplete
  return Status::OK();
}

Status Connection::Describe(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(TargetMessage m, ParseTargetMessage(body, "Describe"));
  columnar::SchemaPtr schema;
  std::vector<int16_t> formats;
  if (m.kind == 'S') {
    auto found = statements_.find(m.name);
    if (found == statements_.end()) {
      return Status::NotFound("prepared statement \"{}\" does not exist", m.name)
          .WithSqlState("26000");
    }
    const Prepared& prepared = *found->second;
    const auto& script = *prepared.script;
    size_t count = prepared.parameter_types.size();
    if (!script.statements.empty() && TransactionKeyword(script.statements[0]).empty()) {
      SHOAL_ASSIGN_OR_RETURN(auto bound, BindPrepared(prepared, nullptr));
      schema = ResultSchemaOf(bound);
      count = std::max(count, static_cast<size_t>(runner_->session().max_parameter()));
    }
    // Parameters of unknown type are described as text: clients then send them as text, and the
    // binder types them by their use.
    out_.Begin('t');  // ParameterDescription
    out_.Int16(static_cast<int16_t>(count));
    for (size_t i = 0; i < count; ++i) {
      uint32_t oid = i < prepared.parameter_types.size() ? prepared.parameter_types[i] : 0;
      out_.Int32(static_cast<int32_t>(oid == 0 ? pg_oid::kText : oid));
    }
    out_.End();
  } else {
    auto found = portals_.find(m.name);
    if (found == portals_.end()) {
      return Status::NotFound("portal \"{}\" does not exist", m.name).WithSqlState("34000");
    }
    const Portal& portal = *found->second;
    if (portal.bound) {
      schema = ResultSchemaOf(*portal.bound);
    }
    formats = portal.result_formats;
  }
  if (schema != nullptr) {
    WriteRowDescription(out_, *schema, formats);
  } else {
    WriteEmptyMessage(out_, 'n');  // NoData
  }
  return Status::OK();
}

Status Connection::Execute(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(ExecuteMessage m, ParseExecuteMessage(body));
  auto found = portals_.find(m.portal);
  if (found == portals_.end()) {
    return Status::NotFound("portal \"{}\" does not exist", m.portal).WithSqlState("34000");
  }
  Portal& portal = *found->second;
  const auto& script = *portal.prepared->script;
  if (script.statements.empty()) {
    WriteEmptyMessage(out_, 'I');  // EmptyQueryResponse
    return Status::OK();
  }
  if (portal.transaction_command) {
    SHOAL_RETURN_IF_ERROR(CheckNotAborted(script.statements[0]));
    SHOAL_ASSIGN_OR_RETURN(std::string tag, RunTransactionCommand(script.statements[0]));
    WriteCommandComplete(out_, tag);
    return Status::OK();
  }
  if (portal.done) {
    // A finished portal has no more rows (PostgreSQL answers the same way).
    WriteCommandComplete(
        out_, ReturnsRows(portal.bound->kind) ? "SELECT 0" : portal.cursor->command_tag());
    return Status::OK();
  }
  if (portal.cursor == nullptr) {
    SHOAL_RETURN_IF_ERROR(CheckNotAborted(script.statements[0]));
    if (transaction_status_ == 'T' && IsWrite(portal.bound->kind)) {
      block_wrote_ = true;
    }
  }
  if (portal.cursor == nullptr && portal.monitor_id == 0) {
    portal.monitor_id = MonitorStart(*portal.bound, script.statements[0].text);
  }
  const ScopedLogContext log_context(portal.monitor_id != 0 ? query_id_ : "", "");
  Status st = WithTimeout([&]() -> Status {
    if (portal.cursor == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(portal.ticket, Admit(*portal.bound));
      SHOAL_ASSIGN_OR_RETURN(portal.cursor, runner_->Open(*portal.bound));
      if (portal.bound->kind == sql::StatementKind::kCopy && portal.bound->copy_path.empty()) {
        portal.done = true;
        return SendCopyOut(portal, *portal.bound);
      }
    }
    SHOAL_ASSIGN_OR_RETURN(bool complete, SendRows(portal, m.max_rows > 0 ? m.max_rows : 0));
    if (complete) {
      portal.done = true;
      WriteCommandComplete(out_, portal.cursor->command_tag());
    } else {
      WriteEmptyMessage(out_, 's');  // PortalSuspended
    }
    return Status::OK();
  });
  if (portal.monitor_id != 0 && (!st.ok() || portal.done)) {
    MonitorEnd(portal.monitor_id, st,
               portal.cursor != nullptr ? RowsOfTag(portal.cursor->command_tag()) : 0);
    portal.monitor_id = 0;
  }
  return st;
}

void Connection::EndMonitoredPortals(const std::string* only) {
  for (auto& [name, portal] : portals_) {
    if (portal->monitor_id == 0 || (only != nullptr && name != *only))
      continue;
    MonitorEnd(portal->monitor_id, Status::OK(),
               portal->cursor != nullptr ? RowsOfTag(portal->cursor->command_tag()) : 0);
    portal->monitor_id = 0;
  }
}

Status Connection::Close(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(TargetMessage m, ParseTargetMessage(body, "Close"));
  // Closing what does not exist is not an error.
  if (m.kind == 'S') {
    statements_.erase(m.name);
  } else {
    EndMonitoredPortals(&m.name);
    portals_.erase(m.name);
  }
  WriteEmptyMessage(out_, '3');  // CloseComplete
  return Status::OK();
}

void Connection::Sync() {
  skip_until_sync_ = false;
  if (QueryMonitor* monitor = server_->monitor())
    monitor->SessionIdle(pid_);
  if (transaction_status_ == 'I') {
    EndMonitoredPortals();
    portals_.clear();  // the implicit transaction ends: its portals go (cancelling open cursors)
  }
  WriteReadyForQuery(out_, transaction_status_);
}

}  // namespace shoal::server

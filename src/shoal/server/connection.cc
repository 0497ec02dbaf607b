#include "shoal/server/connection.h"

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
#include "shoal/server/pg_types.h"
#include "shoal/sql/binder.h"

namespace shoal::server {

namespace {

int32_t DecodeInt32(const char* b) {
  auto u = [&](int k) { return static_cast<uint32_t>(static_cast<uint8_t>(b[k])); };
  return static_cast<int32_t>((u(0) << 24) | (u(1) << 16) | (u(2) << 8) | u(3));
}

Status ClientGone() {
  return Status::IoError("the client closed the connection").WithSqlState("08006");
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

// The words of a statement's text, upper-cased, after leading comments (at most `limit`).
std::vector<std::string> LeadingWords(std::string_view text, size_t limit) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size() && words.size() < limit) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (text.substr(i, 2) == "--") {
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (text.substr(i, 2) == "/*") {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else if (c == '"') {
      size_t end = text.find('"', i + 1);
      end = end == std::string_view::npos ? text.size() : end;
      words.emplace_back(text.substr(i + 1, end - i - 1));  // quoted: kept as written
      i = end + 1;
    } else {
      size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             text[i] != ';') {
        ++i;
      }
      if (i == start) {
        ++i;
        continue;
      }
      std::string word(text.substr(start, i - start));
      // Unquoted names fold to lower case, keywords are compared upper-cased.
      std::transform(word.begin(), word.end(), word.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      words.push_back(std::move(word));
    }
  }
  return words;
}

bool ReturnsRows(sql::StatementKind kind) {
  switch (kind) {
    case sql::StatementKind::kQuery:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll: return true;
    default: return false;
  }
}

bool IsWrite(sql::StatementKind kind) {
  switch (kind) {
    case sql::StatementKind::kQuery:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kShow:
    case sql::StatementKind::kShowAll:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kReset:
    case sql::StatementKind::kResetAll: return false;
    default: return true;
  }
}

// The columns a statement's result will have, known before it runs (for Describe).
columnar::SchemaPtr ResultSchemaOf(const sql::BoundStatement& bound) {
  auto text_columns = [](std::initializer_list<std::string> names) {
    std::vector<columnar::Field> fields;
    for (const auto& n : names) {
      fields.emplace_back(n, columnar::DataType::Utf8(), false);
    }
    return std::make_shared<columnar::Schema>(std::move(fields));
  };
  switch (bound.kind) {
    case sql::StatementKind::kQuery: {
      std::vector<columnar::Field> fields;
      for (const auto& c : bound.plan->output) {
        fields.emplace_back(c.name, c.type, c.nullable);
      }
      return std::make_shared<columnar::Schema>(std::move(fields));
    }
    case sql::StatementKind::kExplain: return text_columns({"QUERY PLAN"});
    case sql::StatementKind::kShow: return text_columns({bound.setting_name});
    case sql::StatementKind::kShowAll: return text_columns({"name", "setting", "description"});
    default: return nullptr;
  }
}

}  // namespace

Connection::Connection(ConnectionHost* server, int fd) : server_(server), fd_(fd) {}

Connection::~Connection() {
  portals_.clear();  // their cursors cancel queries still running
  if (pid_ != 0) {
    server_->UnregisterSession(pid_);
  }
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
}

Status Connection::ReadExactly(char* data, size_t n) {
  size_t done = 0;
  while (ssl_ != nullptr && done < n) {
    int got = SSL_read(ssl_, data + done, static_cast<int>(std::min<size_t>(n - done, 1 << 30)));
    if (got <= 0) {
      return ClientGone();
    }
    done += static_cast<size_t>(got);
  }
  while (done < n) {
    ssize_t got = recv(fd_, data + done, n - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
    } else if (got == 0 || errno != EINTR) {
      return ClientGone();
    }
  }
  return Status::OK();
}

Status Connection::Flush() {
  if (broken_) {
    return ClientGone();
  }
  const std::string& buf = out_.buffer();
  size_t done = 0;
  while (ssl_ != nullptr && done < buf.size()) {
    int sent = SSL_write(ssl_, buf.data() + done,
                         static_cast<int>(std::min<size_t>(buf.size() - done, 1 << 30)));
    if (sent <= 0) {
      broken_ = true;
      out_.Clear();
      return ClientGone();
    }
    done += static_cast<size_t>(sent);
  }
  while (done < buf.size()) {
    ssize_t sent = send(fd_, buf.data() + done, buf.size() - done, MSG_NOSIGNAL);
    if (sent > 0) {
      done += static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      broken_ = true;
      out_.Clear();
      return ClientGone();
    }
  }
  out_.Clear();
  return Status::OK();
}

Status Connection::MaybeFlush() {
  return out_.size() >= kFlushBytes ? Flush() : Status::OK();
}

void Connection::SendError(const Status& status) {
  WriteErrorResponse(out_, status);
}

Status Connection::WithTimeout(const std::function<Status()>& body) {
  const int64_t ms = runner_->session().settings().GetInt("statement_timeout");
  if (ms <= 0) {
    return body();
  }
  engine::QueryRunner* runner = runner_.get();
  StatementTimer& timer = server_->statement_timer();
  const uint64_t id = timer.Arm(StatementTimer::Clock::now() + std::chrono::milliseconds(ms),
                                [runner] { runner->CancelRunning(); });
  Status st = body();
  const bool fired = timer.Disarm(id);
  if (fired && st.code() == StatusCode::kCancelled) {
    return Status::Cancelled("canceling statement due to statement timeout").WithSqlState("57014");
  }
  return st;
}

void Connection::Serve() {
  Status st = Startup();
  if (!st.ok() || pid_ == 0) {
    (void)Flush();
    return;
  }
  char header[5];
  std::string body;
  for (;;) {
    if (!ReadExactly(header, 5).ok()) {
      return;
    }
    const char type = header[0];
    const int32_t length = DecodeInt32(header + 1);
    if (length < 4 || length > kMaxMessageBytes) {
      WriteErrorResponse(
          out_,
          ProtocolViolation(fmt::format("invalid message length {} (type '{}')", length,
                                        static_cast<int>(static_cast<uint8_t>(type)))),
          "FATAL");
      (void)Flush();
      return;
    }
    body.resize(static_cast<size_t>(length - 4));
    if (!ReadExactly(body.data(), body.size()).ok()) {
      return;
    }
    bool terminate = false;
    st = HandleMessage(type, body, &terminate);
    if (!st.ok() || terminate || broken_) {
      (void)Flush();
      return;
    }
  }
}

Status Connection::Startup() {
  bool ssl_asked = false;
  bool gss_asked = false;
  for (;;) {
    char length_bytes[4];
    SHOAL_RETURN_IF_ERROR(ReadExactly(length_bytes, 4));
    const int32_t length = DecodeInt32(length_bytes);
    if (length < 8 || length > kMaxStartupPacketLength) {
      WriteErrorResponse(
          out_, ProtocolViolation(fmt::format("invalid length of startup packet: {}", length)),
          "FATAL");
      return ProtocolViolation("bad startup packet");
    }
    std::string body(static_cast<size_t>(length - 4), '\0');
    SHOAL_RETURN_IF_ERROR(ReadExactly(body.data(), body.size()));
    auto packet = ParseStartupPacket(body);
    if (!packet.ok()) {
      WriteErrorResponse(out_, packet.status(), "FATAL");
      return packet.status();
    }
    switch (packet->kind) {
      case StartupPacket::Kind::kSslRequest:
      case StartupPacket::Kind::kGssEncRequest: {
        // Each may be asked once (libpq asks GSSENC first, then SSL after an 'N').
        bool& asked = packet->kind == StartupPacket::Kind::kSslRequest ? ssl_asked : gss_asked;
        if (asked || ssl_ != nullptr) {
          WriteErrorResponse(out_, ProtocolViolation("encryption requested twice"), "FATAL");
          return ProtocolViolation("encryption requested twice");
        }
        asked = true;
        ssl_ctx_st* context = server_->tls_context();
        if (packet->kind == StartupPacket::Kind::kGssEncRequest || context == nullptr) {
          // Not available: the client goes on in the clear or gives up.
          out_.Raw("N");
          SHOAL_RETURN_IF_ERROR(Flush());
          continue;
        }
        out_.Raw("S");
        SHOAL_RETURN_IF_ERROR(Flush());
        SSL* ssl = SSL_new(context);
        if (ssl == nullptr || SSL_set_fd(ssl, fd_) != 1) {
          SSL_free(ssl);
          return Status::IoError("cannot start a TLS session");
        }
        if (SSL_accept(ssl) != 1) {
          SSL_free(ssl);  // a failed handshake: nothing more can be said to this client
          return Status::IoError("TLS handshake failed");
        }
        ssl_ = ssl;
        continue;
      }
      case StartupPacket::Kind::kCancelRequest:
        server_->Cancel(packet->cancel_pid, packet->cancel_key);
        return Status::OK();  // no reply: the connection just closes
      case StartupPacket::Kind::kStartup: return SendStartupReply(*packet);
    }
  }
}

Status Connection::SendStartupReply(const StartupPacket& packet) {
  user_ = packet.Get("user");
  if (user_.empty()) {
    auto st = Status::InvalidArgument("no PostgreSQL user name specified in startup packet")
                  .WithSqlState("28000");
    WriteErrorResponse(out_, st, "FATAL");
    return st;
  }
  std::string encoding = Upper(packet.Get("client_encoding"));
  if (!encoding.empty() && encoding != "UTF8" && encoding != "UTF-8" && encoding != "UNICODE") {
    auto st = Status::InvalidArgument("invalid value for parameter \"client_encoding\": \"{}\"",
                                      packet.Get("client_encoding"))
                  .WithSqlState("22023")
                  .WithHint("Shoal speaks UTF8 only");
    WriteErrorResponse(out_, st, "FATAL");
    return st;
  }
  runner_ = server_->NewSessionRunner();
  // options: "-c name=value" / "--name=value" pairs, for the settings Shoal has.
  std::vector<std::string> words;
  {
    std::string options = packet.Get("options");
    std::string word;
    for (size_t i = 0; i < options.size(); ++i) {
      char c = options[i];
      if (c == '\\' && i + 1 < options.size()) {
        word += options[++i];
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        if (!word.empty()) {
          words.push_back(std::move(word));
          word.clear();
        }
      } else {
        word += c;
      }
    }
    if (!word.empty()) {
      words.push_back(std::move(word));
    }
  }
  for (size_t i = 0; i < words.size(); ++i) {
    std::string assignment;
    if (words[i] == "-c" && i + 1 < words.size()) {
      assignment = words[++i];
    } else if (words[i].rfind("--", 0) == 0) {
      assignment = words[i].substr(2);
    } else if (words[i].rfind("-c", 0) == 0) {
      assignment = words[i].substr(2);
    } else {
      auto st =
          Status::InvalidArgument("invalid command-line argument for server process: {}", words[i])
              .WithSqlState("42601")
              .WithHint("options take -c name=value");
      WriteErrorResponse(out_, st, "FATAL");
      return st;
    }
    size_t eq = assignment.find('=');
    if (eq == std::string::npos) {
      auto st = Status::InvalidArgument("-c {} requires a value", assignment).WithSqlState("42601");
      WriteErrorResponse(out_, st, "FATAL");
      return st;
    }
    std::string name = assignment.substr(0, eq);
    std::replace(name.begin(), name.end(), '-', '_');
    if (Status st = runner_->session().settings().Set(name, assignment.substr(eq + 1)); !st.ok()) {
      WriteErrorResponse(out_, st, "FATAL");
      return st;
    }
  }
  SHOAL_RETURN_IF_ERROR(
      Authenticate(packet.Get("database").empty() ? user_ : packet.Get("database")));
  out_.Begin('R');
  out_.Int32(0);  // AuthenticationOk
  out_.End();
  const std::string application_name = packet.Get("application_name");
  WriteParameterStatus(out_, "application_name", application_name);
  WriteParameterStatus(out_, "client_encoding", "UTF8");
  WriteParameterStatus(out_, "DateStyle", "ISO, MDY");
  WriteParameterStatus(out_, "default_transaction_read_only", "off");
  WriteParameterStatus(out_, "in_hot_standby", "off");
  WriteParameterStatus(out_, "integer_datetimes", "on");
  WriteParameterStatus(out_, "IntervalStyle", "postgres");
  WriteParameterStatus(out_, "is_superuser", "on");
  WriteParameterStatus(out_, "server_encoding", "UTF8");
  WriteParameterStatus(out_, "server_version", server_->server_version());
  WriteParameterStatus(out_, "session_authorization", user_);
  WriteParameterStatus(out_, "standard_conforming_strings", "on");
  WriteParameterStatus(out_, "TimeZone", "UTC");
  auto [pid, key] = server_->RegisterSession(runner_.get());
  pid_ = pid;
  out_.Begin('K');
  out_.Int32(pid);
  out_.Int32(key);
  out_.End();
  WriteReadyForQuery(out_, transaction_status_);
  return Flush();
}

Result<std::string> Connection::ReadAuthMessage() {
  char header[5];
  SHOAL_RETURN_IF_ERROR(ReadExactly(header, 5));
  const int32_t length = DecodeInt32(header + 1);
  if (header[0] != 'p' || length < 4 || length > kMaxStartupPacketLength) {
    return ProtocolViolation(
        fmt::format("expected a SASL response message, got type {} of length {}",
                    static_cast<int>(static_cast<uint8_t>(header[0])), length));
  }
  std::string body(static_cast<size_t>(length - 4), '\0');
  SHOAL_RETURN_IF_ERROR(ReadExactly(body.data(), body.size()));
  return body;
}

Status Connection::Authenticate(const std::string& database) {
  sockaddr_storage peer{};
  socklen_t peer_len = sizeof(peer);
  getpeername(fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len);
  const AuthConfig& auth = server_->auth();
  auto refuse = [&](Status st) {
    WriteErrorResponse(out_, st, "FATAL");
    return st;
  };
  const bool tls = ssl_ != nullptr;
  auto method = auth.MethodFor(peer, tls, user_, database);
  if (!method || *method == AuthMethod::kReject) {
    return refuse(Status::InvalidArgument(
                      "no hba.conf entry for host \"{}\", user \"{}\", database \"{}\", {}",
                      AddressText(peer), user_, database, tls ? "SSL encryption" : "no encryption")
                      .WithSqlState("28000"));
  }
  if (*method == AuthMethod::kTrust) {
    return Status::OK();
  }
  // scram-sha-256. An unknown user goes through the same exchange with a decoy verifier, so the
  // answers (and the time they take) do not tell whether the user exists.
  const ScramVerifier* known = auth.VerifierOf(user_);
  auto failed = [&]() {
    std::this_thread::sleep_for(kAuthFailureDelay);
    return refuse(Status::InvalidArgument("password authentication failed for user \"{}\"", user_)
                      .WithSqlState("28P01"));
  };
  SHOAL_ASSIGN_OR_RETURN(std::string nonce, ScramExchange::RandomNonce());
  ScramExchange exchange(known != nullptr ? *known : auth.DecoyVerifier(user_), nonce);
  out_.Begin('R');
  out_.Int32(10);  // AuthenticationSASL
  out_.CString("SCRAM-SHA-256");
  out_.Byte(0);
  out_.End();
  SHOAL_RETURN_IF_ERROR(Flush());
  auto initial = ReadAuthMessage();
  if (!initial.ok()) {
    return broken_ ? initial.status() : refuse(initial.status());
  }
  MessageReader in(*initial);
  auto mechanism = in.CString();
  auto length = in.Int32();
  if (!mechanism.ok() || !length.ok()) {
    return refuse(ProtocolViolation("malformed SASLInitialResponse"));
  }
  if (*mechanism != "SCRAM-SHA-256") {
    return refuse(ProtocolViolation("client selected an invalid SASL authentication mechanism"));
  }
  auto client_first = in.Bytes(*length < 0 ? 0 : static_cast<size_t>(*length));
  if (!client_first.ok()) {
    return refuse(client_first.status());
  }
  auto server_first = exchange.ServerFirst(*client_first);
  if (!server_first.ok()) {
    return refuse(server_first.status());
  }
  out_.Begin('R');
  out_.Int32(11);  // AuthenticationSASLContinue
  out_.Bytes(*server_first);
  out_.End();
  SHOAL_RETURN_IF_ERROR(Flush());
  auto client_final = ReadAuthMessage();
  if (!client_final.ok()) {
    return broken_ ? client_final.status() : refuse(client_final.status());
  }
  auto server_final = exchange.ServerFinal(*client_final);
  if (!server_final.ok()) {
    if (server_final.status().sqlstate() == "28P01") {
      return failed();
    }
    return refuse(server_final.status());
  }
  if (known == nullptr) {
    return failed();
  }
  out_.Begin('R');
  out_.Int32(12);  // AuthenticationSASLFinal
  out_.Bytes(*server_final);
  out_.End();
  return Status::OK();
}

Status Connection::HandleMessage(char type, std::string_view body, bool* terminate) {
  if (skip_until_sync_ && type != 'S' && type != 'X') {
    return Status::OK();
  }
  Status st;
  switch (type) {
    case 'Q': {
      auto sql = ParseQueryMessage(body);
      if (!sql.ok()) {
        WriteErrorResponse(out_, sql.status(), "FATAL");
        return sql.status();
      }
      SHOAL_RETURN_IF_ERROR(SimpleQuery(*sql));
      return Flush();
    }
    case 'P': st = Parse(body); break;
    case 'B': st = Bind(body); break;
    case 'D': st = Describe(body); break;
    case 'E': st = Execute(body); break;
    case 'C': st = Close(body); break;
    case 'S': Sync(); return Flush();
    case 'H': return Flush();
    case 'X': *terminate = true; return Status::OK();
    case 'd':
    case 'c':
    case 'f':
      return Status::OK();  // COPY data outside COPY FROM STDIN: ignored, as PostgreSQL does
    default: {
      auto violation = ProtocolViolation(fmt::format("invalid frontend message type {}",
                                                     static_cast<int>(static_cast<uint8_t>(type))));
      WriteErrorResponse(out_, violation, "FATAL");
      return violation;
    }
  }
  if (broken_) {
    return ClientGone();
  }
  if (!st.ok()) {
    SendError(st);
    OnStatementError();
    skip_until_sync_ = true;
  }
  return MaybeFlush();
}

// ---- Simple query ----------------------------------------------------------------------------

Status Connection::SimpleQuery(const std::string& sql) {
  auto parsed = sql::ParseSql(sql);
  if (!parsed.ok()) {
    SendError(parsed.status());
    OnStatementError();
  } else if (parsed->statements.empty()) {
    WriteEmptyMessage(out_, 'I');
  } else {
    for (const auto& statement : parsed->statements) {
      Status st = RunStatement(*parsed, statement);
      if (broken_) {
        return ClientGone();
      }
      if (!st.ok()) {
        SendError(st);
        OnStatementError();
        break;
      }
    }
  }
  WriteReadyForQuery(out_, transaction_status_);
  return Status::OK();
}

Status Connection::RunStatement(const sql::ParsedScript& script,
                                const sql::ParsedStatement& statement) {
  SHOAL_RETURN_IF_ERROR(CheckNotAborted(statement));
  if (!TransactionKeyword(statement).empty()) {
    SHOAL_ASSIGN_OR_RETURN(std::string tag, RunTransactionCommand(statement));
    WriteCommandComplete(out_, tag);
    return Status::OK();
  }
  sql::Binder binder(&runner_->session());
  SHOAL_ASSIGN_OR_RETURN(auto bound, binder.Bind(script, statement));
  if (transaction_status_ == 'T' && IsWrite(bound.kind)) {
    block_wrote_ = true;
  }
  Portal portal;
  return WithTimeout([&]() -> Status {
    SHOAL_ASSIGN_OR_RETURN(portal.cursor, runner_->Open(bound));
    if (bound.kind == sql::StatementKind::kCopy && bound.copy_path.empty()) {
      return SendCopyOut(portal, bound);
    }
    if (portal.cursor->schema() != nullptr) {
      WriteRowDescription(out_, *portal.cursor->schema(), {});
    }
    SHOAL_ASSIGN_OR_RETURN(bool complete, SendRows(portal, 0));
    (void)complete;
    WriteCommandComplete(out_, portal.cursor->command_tag());
    return Status::OK();
  });
}

namespace {

// COPY TO STDOUT's options, as PostgreSQL 15 takes them for text and csv.
struct CopyOutOptions {
  bool csv = false;
  char delimiter = '\t';
  std::string null_text = "\\N";
  bool header = false;
  char quote = '"';
  char escape = '"';
};

Result<CopyOutOptions> ParseCopyOutOptions(
    const std::vector<std::pair<std::string, std::string>>& options) {
  CopyOutOptions o;
  auto truth = [](const std::string& v) -> Result<bool> {
    std::string l = v;
    std::transform(l.begin(), l.end(), l.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (l == "true" || l == "on" || l == "1")
      return true;
    if (l == "false" || l == "off" || l == "0")
      return false;
    return Status::InvalidArgument("{} requires a Boolean value", v).WithSqlState("22023");
  };
  auto one_char = [](const std::string& name, const std::string& v) -> Result<char> {
    if (v.size() != 1) {
      return Status::InvalidArgument("COPY {} must be a single one-byte character", name)
          .WithSqlState("0A000");
    }
    return v[0];
  };
  // FORMAT first: it sets the defaults the others override.
  for (const auto& [name, value] : options) {
    if (name == "format") {
      if (value == "csv") {
        o.csv = true;
        o.delimiter = ',';
        o.null_text = "";
      } else if (value == "binary") {
        return Status::NotImplemented("COPY TO STDOUT in binary format is not supported yet")
            .WithSqlState("0A000")
            .WithHint("use FORMAT text or FORMAT csv");
      } else if (value != "text") {
        return Status::InvalidArgument("COPY format \"{}\" not recognized", value)
            .WithSqlState("22023");
      }
    }
  }
  for (const auto& [name, value] : options) {
    if (name == "format") {
      continue;
    }
    if (name == "delimiter") {
      SHOAL_ASSIGN_OR_RETURN(o.delimiter, one_char("delimiter", value));
    } else if (name == "null") {
      o.null_text = value;
    } else if (name == "header") {
      SHOAL_ASSIGN_OR_RETURN(o.header, truth(value));
      if (o.header && !o.csv) {
        return Status::InvalidArgument("COPY HEADER available only in CSV mode")
            .WithSqlState("0A000");
      }
    } else if (name == "quote" || name == "escape") {
      if (!o.csv) {
        return Status::InvalidArgument("COPY {} available only in CSV mode", name)
            .WithSqlState("0A000");
      }
      SHOAL_ASSIGN_OR_RETURN(char c, one_char(name, value));
      (name == "quote" ? o.quote : o.escape) = c;
    } else {
      return Status::NotImplemented("COPY TO STDOUT option \"{}\" is not supported", name)
          .WithSqlState("0A000");
    }
  }
  return o;
}

// Appends one field of a COPY row.
void AppendCopyField(const CopyOutOptions& o, std::string_view value, bool is_null,
                     std::string* out) {
  if (is_null) {
    out->append(o.null_text);
    return;
  }
  if (!o.csv) {
    for (char c : value) {
      switch (c) {
        case '\\': out->append("\\\\"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default:
          if (c == o.delimiter) {
            out->push_back('\\');
          }
          out->push_back(c);
      }
    }
    return;
  }
  bool quote = value == o.null_text ||
               value.find_first_of(std::string{o.delimiter, o.quote, '\n', '\r'}) !=
                   std::string_view::npos ||
               (o.escape != o.quote && value.find(o.escape) != std::string_view::npos);
  if (!quote) {
    out->append(value);
    return;
  }
  out->push_back(o.quote);
  for (char c : value) {
    if (c == o.quote || c == o.escape) {
      out->push_back(o.escape);
    }
    out->push_back(c);
  }
  out->push_back(o.quote);
}

}  // namespace

Status Connection::SendCopyOut(Portal& portal, const sql::BoundStatement& bound) {
  SHOAL_ASSIGN_OR_RETURN(CopyOutOptions options, ParseCopyOutOptions(bound.copy_options));
  const auto& schema = *portal.cursor->schema();
  out_.Begin('H');  // CopyOutResponse: text, every column text
  out_.Byte(0);
  out_.Int16(static_cast<int16_t>(schema.num_fields()));
  for (int c = 0; c < schema.num_fields(); ++c) {
    out_.Int16(0);
  }
  out_.End();
  std::string line;
  auto send_line = [&]() {
    line.push_back('\n');
    out_.Begin('d');
    out_.Bytes(line);
    out_.End();
    line.clear();
  };
  if (options.header) {
    for (int c = 0; c < schema.num_fields(); ++c) {
      if (c > 0) {
        line.push_back(options.delimiter);
      }
      AppendCopyField(options, schema.field(c).name, false, &line);
    }
    send_line();
  }
  int64_t rows = 0;
  std::string value;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, portal.cursor->Next());
    if (batch == nullptr) {
      break;
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) {
          line.push_back(options.delimiter);
        }
        const columnar::Array& column = *batch->column(c);
        const bool is_null = column.IsNull(r);
        value.clear();
        if (!is_null) {
          columnar::AppendValue(column, r, &value);
        }
        AppendCopyField(options, value, is_null, &line);
      }
      send_line();
      if ((r & 255) == 255) {
        SHOAL_RETURN_IF_ERROR(MaybeFlush());
      }
    }
    rows += batch->num_rows();
    SHOAL_RETURN_IF_ERROR(MaybeFlush());
  }
  WriteEmptyMessage(out_, 'c');  // CopyDone
  WriteCommandComplete(out_, fmt::format("COPY {}", rows));
  return Status::OK();
}

Result<bool> Connection::SendRows(Portal& portal, int64_t max_rows) {
  // Rows go out in slices so the buffer is flushed often even for a large batch.
  constexpr int64_t kSliceRows = 256;
  int64_t sent = 0;
  for (;;) {
    if (portal.pending == nullptr) {
      SHOAL_ASSIGN_OR_RETURN(portal.pending, portal.cursor->Next());
      portal.pending_offset = 0;
      if (portal.pending == nullptr) {
        return true;
      }
    }
    const int64_t available = portal.pending->num_rows() - portal.pending_offset;
    int64_t take = std::min(available, kSliceRows);
    if (max_rows > 0) {
      take = std::min(take, max_rows - sent);
    }
    WriteDataRows(out_, *portal.pending, portal.pending_offset, portal.pending_offset + take,
                  portal.result_formats);
    portal.pending_offset += take;
    sent += take;
    if (portal.pending_offset == portal.pending->num_rows()) {
      portal.pending.reset();
    }
    SHOAL_RETURN_IF_ERROR(MaybeFlush());
    if (max_rows > 0 && sent == max_rows) {
      return false;  // as PostgreSQL: suspended once the limit is reached, without looking ahead
    }
  }
}

// ---- Transaction blocks ----------------------------------------------------------------------

std::string Connection::TransactionKeyword(const sql::ParsedStatement& statement) {
  auto words = LeadingWords(statement.text, 2);
  if (words.empty()) {
    return "";
  }
  const std::string& w = words[0];
  if (w == "begin" || w == "start" || w == "commit" || w == "end" || w == "rollback" ||
      w == "abort" || w == "savepoint" || w == "release") {
    // START must be START TRANSACTION; COMMIT/ROLLBACK PREPARED are two-phase commit (not ours).
    if (w == "start" && (words.size() < 2 || words[1] != "transaction")) {
      return "";
    }
    if ((w == "commit" || w == "rollback") && words.size() > 1 && words[1] == "prepared") {
      return "";
    }
    return w;
  }
  return "";
}

Status Connection::CheckNotAborted(const sql::ParsedStatement& statement) {
  if (transaction_status_ != 'E') {
    return Status::OK();
  }
  std::string keyword = TransactionKeyword(statement);
  if (keyword == "commit" || keyword == "end" || keyword == "rollback" || keyword == "abort") {
    return Status::OK();
  }
  return Status::InvalidArgument(
             "current transaction is aborted, commands ignored until end of transaction block")
      .WithSqlState("25P02");
}

void Connection::OnStatementError() {
  if (transaction_status_ == 'T') {
    transaction_status_ = 'E';
  }
}

Result<std::string> Connection::RunTransactionCommand(const sql::ParsedStatement& statement) {
  const std::string keyword = TransactionKeyword(statement);
  auto words = LeadingWords(statement.text, 4);
  const bool in_block = transaction_status_ != 'I';
  auto end_block = [&]() {
    if (block_wrote_ && transaction_status_ != 'I') {
      // Statements are not transactional yet: say so instead of pretending to undo them.
      WriteNoticeResponse(out_, "WARNING", "0A000",
                          "the changes made in this transaction block were applied as each "
                          "statement ran and are not undone");
    }
    transaction_status_ = 'I';
    block_wrote_ = false;
    savepoints_.clear();
  };
  if (keyword == "begin" || keyword == "start") {
    if (in_block) {
      WriteNoticeResponse(out_, "WARNING", "25001", "there is already a transaction in progress");
    } else {
      transaction_status_ = 'T';
      block_wrote_ = false;
      savepoints_.clear();
    }
    return std::string(keyword == "begin" ? "BEGIN" : "START TRANSACTION");
  }
  if (keyword == "commit" || keyword == "end") {
    if (!in_block) {
      WriteNoticeResponse(out_, "WARNING", "25P01", "there is no transaction in progress");
      return std::string("COMMIT");
    }
    const bool failed = transaction_status_ == 'E';
    block_wrote_ = block_wrote_ && failed;  // a committed block's writes are what was asked
    end_block();
    return std::string(failed ? "ROLLBACK" : "COMMIT");
  }
  if (keyword == "rollback" || keyword == "abort") {
    // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name
    auto to = std::find(words.begin(), words.end(), "to");
    if (to != words.end()) {
      if (!in_block) {
        return Status::InvalidArgument(
                   "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
            .WithSqlState("25P01");
      }
      auto all = LeadingWords(statement.text, 6);
      std::string name = all.back();
      auto it = std::find(savepoints_.begin(), savepoints_.end(), name);
      if (it == savepoints_.end()) {
        return Status::InvalidArgument("savepoint \"{}\" does not exist", name)
            .WithSqlState("3B001");
      }
      savepoints_.erase(it + 1, savepoints_.end());
      transaction_status_ = 'T';
      if (block_wrote_) {
        WriteNoticeResponse(out_, "WARNING", "0A000",
                            "the changes made since the savepoint were applied as each statement "
                            "ran and are not undone");
      }
      return std::string("ROLLBACK");
    }
    if (!in_block) {
      WriteNoticeResponse(out_, "WARNING", "25P01", "there is no transaction in progress");
      return std::string("ROLLBACK");
    }
    end_block();
    return std::string("ROLLBACK");
  }
  if (keyword == "savepoint") {
    if (!in_block) {
      return Status::InvalidArgument("SAVEPOINT can only be used in transaction blocks")
          .WithSqlState("25P01");
    }
    if (words.size() < 2) {
      return Status::InvalidArgument("SAVEPOINT needs a name").WithSqlState("42601");
    }
    savepoints_.push_back(words[1]);
    return std::string("SAVEPOINT");
  }
  // RELEASE [SAVEPOINT] name
  if (!in_block) {
    return Status::InvalidArgument("RELEASE SAVEPOINT can only be used in transaction blocks")
        .WithSqlState("25P01");
  }
  std::string name = words.size() > 2 && words[1] == "savepoint" ? words[2]
                     : words.size() > 1                          ? words[1]
                                                                 : "";
  auto it = std::find(savepoints_.begin(), savepoints_.end(), name);
  if (it == savepoints_.end()) {
    return Status::InvalidArgument("savepoint \"{}\" does not exist", name).WithSqlState("3B001");
  }
  savepoints_.erase(it, savepoints_.end());
  return std::string("RELEASE");
}

// ---- Extended query --------------------------------------------------------------------------

Status Connection::Parse(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(ParseMessage m, ParseParseMessage(body));
  if (!m.statement.empty() && statements_.count(m.statement) > 0) {
    return Status::AlreadyExists("prepared statement \"{}\" already exists", m.statement)
        .WithSqlState("42P05");
  }
  SHOAL_ASSIGN_OR_RETURN(sql::ParsedScript script, sql::ParseSql(m.query));
  if (script.statements.size() > 1) {
    return Status::InvalidArgument("cannot insert multiple commands into a prepared statement")
        .WithSqlState("42601");
  }
  auto prepared = std::make_shared<Prepared>();
  prepared->script = std::make_shared<sql::ParsedScript>(std::move(script));
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
      SHOAL_ASSIGN_OR_RETURN(portal->bound, BindPrepared(*portal->prepared, &m));
      auto schema = ResultSchemaOf(*portal->bound);
      SHOAL_RETURN_IF_ERROR(
          CheckResultFormats(m.result_formats, schema ? schema->num_fields() : 0));
    }
  }
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
  return WithTimeout([&]() -> Status {
    if (portal.cursor == nullptr) {
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
}

Status Connection::Close(std::string_view body) {
  SHOAL_ASSIGN_OR_RETURN(TargetMessage m, ParseTargetMessage(body, "Close"));
  // Closing what does not exist is not an error.
  if (m.kind == 'S') {
    statements_.erase(m.name);
  } else {
    portals_.erase(m.name);
  }
  WriteEmptyMessage(out_, '3');  // CloseComplete
  return Status::OK();
}

void Connection::Sync() {
  skip_until_sync_ = false;
  if (transaction_status_ == 'I') {
    portals_.clear();  // the implicit transaction ends: its portals go (cancelling open cursors)
  }
  WriteReadyForQuery(out_, transaction_status_);
}

}  // namespace shoal::server

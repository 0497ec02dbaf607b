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
#include "shoal/server/connection.h"
#include "shoal/server/connection_internal.h"
#include "shoal/server/pg_types.h"
#include "shoal/server/statement_shape.h"
#include "shoal/sql/binder.h"

// The start of a connection: SSLRequest / GSSENCRequest, the StartupPacket, authentication
// (hba.conf rules, SCRAM-SHA-256, password) and the parameters sent back before ReadyForQuery.

namespace shoal::server {

using internal::ClientGone;
using internal::DecodeInt32;
using internal::Upper;

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
  runner_->session().user_name() = user_;  // current_user, session_user
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
  if (!application_name.empty())  // any text is a valid name: Set cannot refuse it
    (void)runner_->session().settings().Set("application_name", application_name);
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
  auto [pid, key] = server_->RegisterSession([this] { CancelStatement(); });
  pid_ = pid;
  if (QueryMonitor* monitor = server_->monitor()) {
    SessionActivity activity;
    activity.pid = pid;
    activity.user = user_;
    activity.database = packet.Get("database").empty() ? user_ : packet.Get("database");
    activity.application_name = application_name;
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof(peer);
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len) == 0)
      activity.client_addr = AddressText(peer);
    activity.backend_start_unix_ms = UnixMillisNow();
    monitor->SessionStarted(std::move(activity));
  }
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

}  // namespace shoal::server

// PgClient: a small client of the PostgreSQL frontend/backend protocol (version 3), what
// `shoal sql --host` runs its statements through, against `shoal server` or any PostgreSQL
// server. Written from the protocol chapter of PostgreSQL's documentation, like the server side
// (pg_wire.h holds the message codec both use).
//
// Connecting: TCP (or a Unix socket when the host is a directory), TLS by sslmode
// (pg_connect_options.h: SSLRequest, then OpenSSL's handshake, the certificate checked against
// sslrootcert for verify-ca and also the host name for verify-full), the StartupMessage (user,
// database, application_name, client_encoding UTF8), and authentication: trust, cleartext
// password and SCRAM-SHA-256 (scram_client.h, the server's signature checked); MD5, Kerberos,
// GSSAPI and SSPI are refused with an error naming the method. The password is asked for only
// when the server wants one: PGPASSWORD, the password file, then the caller's prompt.
//
// Statements run through the simple query protocol, so a string of several statements gives one
// result per statement as on the server. Each result (RowDescription, DataRows, CommandComplete)
// becomes an engine::QueryResult typed by the columns' OIDs (pg_result_builder.h), which is what
// the shell's printers take from an in-process run as well. An ErrorResponse becomes a Status
// with the server's SQLSTATE, message, hint and position; NoticeResponses go to a handler as
// they arrive. COPY ... TO STDOUT data goes to a handler of its own (and no result follows: psql
// prints no tag for it); COPY FROM STDIN is answered with CopyFail. CancelRunning() sends a
// CancelRequest on a new connection, from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <sys/socket.h>

#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"
#include "shoal/server/pg_connect_options.h"

struct ssl_st;
struct ssl_ctx_st;

namespace shoal::server {

/// A NoticeResponse (or the fields of an ErrorResponse).
struct PgNotice {
  std::string severity;  // NOTICE, WARNING, INFO, ... (the non-localized V field when sent)
  std::string sqlstate;
  std::string message;
  std::string detail;
  std::string hint;
};

class PgClient {
 public:
  /// Asked for the password when the server wants one and neither PGPASSWORD nor the password
  /// file has it; an error (or no prompt) ends the attempt.
  using PasswordPrompt = std::function<Result<std::string>(const PgConnectOptions&)>;
  using NoticeHandler = std::function<void(const PgNotice&)>;
  /// One CopyData message's bytes of COPY ... TO STDOUT.
  using CopyDataHandler = std::function<Status(std::string_view)>;

  /// Connects and authenticates. `options` must be complete (FinishDefaults).
  static Result<std::unique_ptr<PgClient>> Connect(const PgConnectOptions& options,
                                                   const PasswordPrompt& prompt = nullptr,
                                                   NoticeHandler on_notice = nullptr);

  /// Sends Terminate and closes the connection.
  ~PgClient();
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  void set_notice_handler(NoticeHandler handler) { on_notice_ = std::move(handler); }
  void set_copy_data_handler(CopyDataHandler handler) { on_copy_data_ = std::move(handler); }

  /// Runs every statement of `sql` (one Query message), calling `on_result` after each
  /// statement's result; returns the server's error for the statement that failed (the ones
  /// before it have run), or an error of `on_result`, or Unavailable (08006) when the connection
  /// broke. The same contract as engine::QueryRunner::Run.
  Status Run(std::string_view sql,
             const std::function<Status(const engine::QueryResult&)>& on_result);

  /// Asks the server to cancel the statement running now (a CancelRequest on a new connection),
  /// from any thread; the statement then fails with 57014. Does nothing when no statement runs,
  /// and sends at most one request per 100 ms.
  void CancelRunning();

  /// A ParameterStatus the server sent (server_version, TimeZone, ...), or "".
  std::string parameter(const std::string& name) const;
  /// The transaction status of the last ReadyForQuery: 'I', 'T' or 'E'.
  char transaction_status() const { return transaction_status_; }
  bool uses_tls() const { return ssl_ != nullptr; }
  int32_t backend_pid() const { return backend_pid_; }

 private:
  PgClient() = default;

  Status OpenSocket(const PgConnectOptions& options);
  Status StartTls(const PgConnectOptions& options);
  Status Startup(const PgConnectOptions& options, const PasswordPrompt& prompt);
  Status Authenticate(const PgConnectOptions& options, const PasswordPrompt& prompt,
                      std::string_view request);
  Result<std::string> ObtainPassword(const PgConnectOptions& options, const PasswordPrompt& prompt);

  // I/O. A failed read or write closes the connection (broken_).
  Status SendAll(std::string_view bytes);
  Status ReadExactly(char* data, size_t n);
  /// The next message: its type, and its body in `body`.
  Result<char> ReadMessage(std::string* body);
  Status Broken(Status status);
  void Close();

  void HandleNotice(std::string_view body);
  void HandleParameterStatus(std::string_view body);

  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
  ssl_ctx_st* ssl_context_ = nullptr;
  bool broken_ = false;
  bool exact_reads_ = false;  // while negotiating TLS: read no byte of the handshake
  std::string in_;            // bytes read but not yet consumed
  size_t in_pos_ = 0;

  // Where CancelRequest goes, and the key it carries.
  sockaddr_storage address_{};
  socklen_t address_length_ = 0;
  int32_t backend_pid_ = 0;
  int32_t backend_key_ = 0;

  std::map<std::string, std::string> parameters_;
  char transaction_status_ = 'I';
  NoticeHandler on_notice_;
  CopyDataHandler on_copy_data_;

  std::atomic<bool> busy_{false};
  std::mutex cancel_mutex_;
  std::chrono::steady_clock::time_point last_cancel_{};
};

}  // namespace shoal::server

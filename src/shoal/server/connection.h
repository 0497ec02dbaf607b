// Connection: one client of `shoal server`, from its start-up packet to Terminate, speaking the
// PostgreSQL protocol version 3 (pg_wire.h) over a connected socket. A connection is a session:
// its own QueryRunner (settings) over the server's shared catalog.
//
// What it serves:
//   - start-up: SSLRequest answered 'S' and a TLS handshake when the server has a certificate
//     ('N' otherwise), GSSENCRequest answered 'N', CancelRequest handed to the server,
//     the hba rules and SCRAM-SHA-256 authentication (auth_config.h, scram.h),
//     StartupMessage answered with AuthenticationOk, ParameterStatus, BackendKeyData and
//     ReadyForQuery;
//   - simple query: every statement of the string in turn, one result each, stopping at the first
//     error; an empty string gets EmptyQueryResponse;
//   - extended query: Parse / Bind / Describe / Execute (with a row limit: PortalSuspended) /
//     Close / Sync / Flush with named and unnamed statements and portals; after an error every
//     message up to Sync is skipped;
//   - transaction blocks: BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE are accepted and tracked
//     for ReadyForQuery's status byte ('I', 'T', 'E'), with PostgreSQL's warnings and the
//     "current transaction is aborted" error; each statement still runs on its own (see
//     docs/server.md).
// Rows are written as the query produces them: the output buffer is sent whenever it passes
// kFlushBytes, so memory stays bounded and a slow client slows the query down instead of growing
// a buffer; a client that goes away makes the write fail, which drops the cursor and cancels the
// query.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"
#include "shoal/server/auth_config.h"
#include "shoal/server/parse_cache.h"
#include "shoal/server/pg_wire.h"
#include "shoal/server/query_admission.h"
#include "shoal/server/query_monitor.h"
#include "shoal/server/statement_timer.h"
#include "shoal/sql/parser.h"
#include "shoal/sql/statement_cache.h"

// OpenSSL's handles, kept opaque here (only the .cc files include OpenSSL).
struct ssl_ctx_st;
struct ssl_st;

namespace shoal::server {

/// What a connection needs from the server that accepted it (Server implements it).
class ConnectionHost {
 public:
  virtual ~ConnectionHost() = default;
  /// A runner for a new session: the shared catalog, its own settings, the server's mode.
  virtual std::unique_ptr<engine::QueryRunner> NewSessionRunner() const = 0;
  /// Registers a session for CancelRequest: `cancel` stops its running (or waiting) statement.
  /// Returns its (process id, secret key).
  virtual std::pair<int32_t, int32_t> RegisterSession(std::function<void()> cancel) = 0;
  virtual void UnregisterSession(int32_t pid) = 0;
  /// Cancels the running statement of session `pid` when `key` is its secret key.
  virtual void Cancel(int32_t pid, int32_t key) = 0;
  /// The server_version ParameterStatus.
  virtual const std::string& server_version() const = 0;
  /// Enforces statement_timeout.
  virtual StatementTimer& statement_timer() = 0;
  /// The hba rules and users.
  virtual const AuthConfig& auth() const = 0;
  /// The TLS context (certificate and key), or null when TLS is not configured.
  virtual ssl_ctx_st* tls_context() const = 0;
  /// Admits statements that run a plan (running at once, memory); null: no limits.
  virtual QueryAdmission* admission() = 0;
  /// Parse trees of recent SQL texts, for all connections.
  virtual ParseCache& parse_cache() = 0;
  /// Where sessions and statements are reported (the console, pg_stat_activity); null: nowhere.
  virtual QueryMonitor* monitor() { return nullptr; }
};

class Connection {
 public:
  /// What a failed login costs, the same whatever failed (the user, the password).
  static constexpr std::chrono::milliseconds kAuthFailureDelay{500};
  /// Output is sent once this many bytes are buffered.
  static constexpr size_t kFlushBytes = 64 * 1024;
  /// Longest message accepted from a client (a Bind of large values may be big).
  static constexpr int32_t kMaxMessageBytes = 256 * 1024 * 1024;

  Connection(ConnectionHost* server, int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// What Serve() left the connection as.
  enum class Turn {
    kIdle,    // waiting for the client's next message: park it until its socket is readable
    kClosed,  // the client left, was refused, or the protocol cannot go on: close the socket
  };
  /// Serves what the client has sent: the start-up on the first call, then messages for as long
  /// as input is ready without waiting (a message begun is read to its end). A thread serves a
  /// connection only while it has work, so idle sessions hold no thread.
  Turn Serve();
  /// Called before the connection is parked: arms idle_session_timeout (or, inside a transaction
  /// block, idle_in_transaction_session_timeout), which ends the session with a FATAL error.
  void Park();
  int fd() const { return fd_; }

 private:
  // A statement prepared by Parse (or the unnamed one).
  struct Prepared {
    std::shared_ptr<const sql::ParsedScript> script;  // at most one statement
    std::vector<uint32_t> parameter_types;            // as the client sent them (0: unknown)
  };
  // A portal made by Bind.
  struct Portal {
    std::shared_ptr<Prepared> prepared;
    std::optional<sql::BoundStatement> bound;  // empty for an empty query or a transaction command
    std::vector<int16_t> result_formats;
    // Declared before the cursor so that it is released after the cursor stopped the plan.
    std::unique_ptr<QueryAdmission::Ticket> ticket;
    std::unique_ptr<engine::ResultCursor> cursor;
    columnar::RecordBatchPtr pending;  // rows of a batch not yet sent (after a row limit)
    int64_t pending_offset = 0;
    bool transaction_command = false;  // BEGIN / COMMIT / ...: run by Execute, no cursor
    int64_t monitor_id = 0;            // the statement as the monitor knows it (0: not reported)
    bool done = false;
  };

  // Socket I/O. Reads fail when the client has gone; writes send the whole buffer. Once start-up
  // is over, reads go through `in_buffer_`: one recv takes in a whole message, usually, and
  // every message a client pipelined (Parse/Bind/Execute/Sync), instead of two recv per message.
  // Start-up reads exactly what it asks for, so that no byte sent before the TLS handshake is
  // ever taken for a message after it.
  Status ReadExactly(char* data, size_t n);
  Status ReadFromSocket(char* data, size_t n);
  // Whether a message is already read in (or, during start-up, whether a read would find bytes
  // or the end of the stream without waiting). A message still in the socket is left to the
  // caller's epoll watch, which fires again at once.
  bool InputReady() const;
  // Reads and handles one message; false when the connection must close.
  bool ServeMessage();
  // Cancels the running statement, or the wait for its admission (CancelRequest, timeout).
  void CancelStatement();
  // Waits for the admission of a statement of this kind (null ticket: it needs none).
  Result<std::unique_ptr<QueryAdmission::Ticket>> Admit(const sql::BoundStatement& bound);
  Status Flush();
  Status MaybeFlush();

  Status Startup();
  Status SendStartupReply(const StartupPacket& packet);
  // Applies the hba rules and runs the SCRAM exchange when they ask for it.
  Status Authenticate(const std::string& database);
  // The body of the next message, which must be a PasswordMessage-family 'p'.
  Result<std::string> ReadAuthMessage();
  Status HandleMessage(char type, std::string_view body, bool* terminate);

  Status SimpleQuery(const std::string& sql);
  // One statement of a simple query: its whole result.
  Status RunStatement(const sql::ParsedScript& script, const sql::ParsedStatement& statement);
  // Whether the statement is BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE (and its kind).
  static std::string TransactionKeyword(const sql::ParsedStatement& statement);
  // Runs such a statement: the new transaction status, notices; returns its command tag.
  Result<std::string> RunTransactionCommand(const sql::ParsedStatement& statement);
  // The "current transaction is aborted" error for statements in a failed block.
  Status CheckNotAborted(const sql::ParsedStatement& statement);
  // A statement has failed: in a transaction block, the block is now failed.
  void OnStatementError();

  Status Parse(std::string_view body);
  Status Bind(std::string_view body);
  Status Describe(std::string_view body);
  Status Execute(std::string_view body);
  Status Close(std::string_view body);
  void Sync();

  // Binds a prepared statement (parameters from `bind`, or NULLs of unknown type for Describe).
  Result<sql::BoundStatement> BindPrepared(const Prepared& prepared, const BindMessage* bind);
  // COPY ... TO STDOUT: CopyOutResponse, one CopyData per row (text, csv or binary), CopyDone and
  // CommandComplete "COPY n", from the portal's open cursor.
  Status SendCopyOut(Portal& portal, const sql::BoundStatement& bound);
  // FORMAT binary: the header, one tuple per row and the trailer (copy_out_format.h).
  Status SendCopyOutBinary(Portal& portal);
  // Writes up to `max_rows` rows (0: all) of `portal`; true when its result is complete.
  Result<bool> SendRows(Portal& portal, int64_t max_rows);

  void SendError(const Status& status);
  // Reports a statement's start to the monitor (0 when there is none or it runs no plan).
  int64_t MonitorStart(const sql::BoundStatement& bound, const std::string& sql);
  // Reports its end, with its analyzed plan when it ran one.
  void MonitorEnd(int64_t id, const Status& status, int64_t rows);
  // Portals whose statement was reported and never ended (suspended, then closed): ended now.
  void EndMonitoredPortals(const std::string* only = nullptr);
  // Runs `body` (a statement's execution) under the session's statement_timeout: a cancel caused
  // by the timeout is reported as such.
  Status WithTimeout(const std::function<Status()>& body);

  ConnectionHost* server_;
  int fd_;
  bool started_ = false;
  uint64_t idle_timer_ = 0;              // the armed idle timeout (0: none)
  const char* idle_sqlstate_ = nullptr;  // which timeout Park armed
  std::atomic<bool> cancel_requested_{false};
  ssl_st* ssl_ = nullptr;  // set once the client asked for TLS and the handshake succeeded
  MessageWriter out_;
  static constexpr size_t kReadBufferBytes = 16 * 1024;
  std::unique_ptr<char[]> in_buffer_;  // bytes read from the socket, not yet consumed
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
  bool buffered_reads_ = false;  // start-up is over
  std::unique_ptr<engine::QueryRunner> runner_;
  // Plans of this session's simple-protocol queries, by text (a query sent again skips binding
  // and optimizing).
  sql::StatementCache statement_cache_;
  int32_t pid_ = 0;
  std::string query_id_;  // of the statement the monitor watches now (log lines name it)
  std::string user_;
  char transaction_status_ = 'I';
  bool block_wrote_ = false;             // a write ran inside the current transaction block
  std::vector<std::string> savepoints_;  // of the current transaction block, oldest first
  bool broken_ = false;                  // a write to the client failed: it has gone
  bool skip_until_sync_ = false;         // an extended-protocol error happened since the last Sync
  std::map<std::string, std::shared_ptr<Prepared>> statements_;
  std::map<std::string, std::unique_ptr<Portal>> portals_;
};

}  // namespace shoal::server

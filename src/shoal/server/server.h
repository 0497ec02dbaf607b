// Server: `shoal server`, the coordinator as a service that PostgreSQL clients connect to. It
// listens on one TCP address and serves connections (connection.h speaks the protocol) on a
// bounded pool of threads. A connection holds a thread only while it has work: an idle one is
// parked in an epoll set (one-shot), and whichever pool thread epoll wakes when its next message
// arrives serves it until it is idle again. So a thousand idle sessions cost no thread, and the
// threads bound how many connections are being served at once. Beyond `max_connections` open
// connections a new one is refused with SQLSTATE 53300 as PostgreSQL does. Statements that run
// plans pass through the server's QueryAdmission (how many run at once, and their memory). Every
// connection is a session of its own (its own settings) over one catalog shared by all sessions,
// and all of them run their queries in the execution mode the server was started with (locally or
// on workers).
//
// The server also keeps the table of running sessions that a CancelRequest (arriving on a new
// connection with a session's process id and secret key) looks up.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/engine/query_runner.h"
#include "shoal/engine/session_setup.h"
#include "shoal/server/connection.h"
#include "shoal/server/console_api.h"
#include "shoal/server/http_console.h"
#include "shoal/server/parse_cache.h"
#include "shoal/server/query_admission.h"
#include "shoal/sql/catalog.h"

namespace shoal::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 5432;  // 0: any free port (see Server::port())
  /// Threads serving connections; a connection holds one while it is open.
  int threads = 16;
  /// Connections open at once, busy or idle; more are refused.
  int max_connections = 100;
  /// Statements running plans at once, statements waiting beyond them, and the memory that the
  /// running ones may hold between them (query_admission.h). A session's memory_limit starts at
  /// memory_budget / max_running_queries.
  int max_running_queries = 8;
  int max_queued_queries = 1000;
  int64_t memory_budget = 0;  // 0: the memory_limit setting's default; negative: not counted
  /// How long a client may take to send a message it has begun (and its start-up): a stalled
  /// client must not hold a thread for ever.
  int read_timeout_ms = 60'000;
  /// Tables and workers every session starts with (as `shoal sql` takes them).
  engine::SessionSetup setup;
  /// The value of the server_version ParameterStatus and version().
  std::string server_version;
  /// Where hba.conf and users are read from (auth_config.h); empty: every connection is trusted.
  std::string data_dir;
  /// PEM files of the server's certificate (chain) and private key; both empty: no TLS.
  std::string tls_cert;
  std::string tls_key;
  /// The web console and /metrics (http_console.h): "HOST:PORT"; empty: off.
  std::string http;
  /// Users who may cancel anyone's statements from the console.
  std::vector<std::string> console_admins;
  /// Finished statements the console keeps (in data_dir when there is one).
  size_t history_limit = 1000;
};

class Server final : public ConnectionHost {
 public:
  explicit Server(ServerOptions options);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds and listens (refusing an address in use), sets up the shared catalog and execution
  /// mode, and starts the accept loop and the pool.
  Status Start();
  /// The port bound (the one chosen when options.port was 0).
  int port() const { return port_; }
  /// The console's URL ("http://127.0.0.1:PORT"), empty when it is off.
  std::string http_url() const { return http_ != nullptr ? http_->url() : ""; }
  /// Stops accepting, closes every connection and joins the threads.
  void Stop();
  /// Blocks until Stop() (from another thread or a signal watcher).
  void Wait();

  // For connections -------------------------------------------------------------------------

  const ServerOptions& options() const { return options_; }
  std::unique_ptr<engine::QueryRunner> NewSessionRunner() const override;
  std::pair<int32_t, int32_t> RegisterSession(std::function<void()> cancel) override;
  void UnregisterSession(int32_t pid) override;
  void Cancel(int32_t pid, int32_t key) override;
  const std::string& server_version() const override { return options_.server_version; }
  StatementTimer& statement_timer() override { return timer_; }
  const AuthConfig& auth() const override { return auth_; }
  ssl_ctx_st* tls_context() const override { return tls_context_; }
  QueryAdmission* admission() override { return admission_.get(); }
  ParseCache& parse_cache() override { return parse_cache_; }
  QueryMonitor* monitor() override { return monitor_.get(); }
  /// Cancels whatever session `pid` runs (the console's cancel button).
  void CancelSession(int32_t pid);

 private:
  void AcceptLoop();
  void WorkerLoop();
  // Parks a connection until its socket is readable (one-shot: one thread gets it).
  bool Watch(Connection* connection, bool first);
  void CloseConnection(Connection* connection);

  ServerOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd that, once written, wakes every pool thread to stop
  std::shared_ptr<sql::Catalog> catalog_;
  engine::ExecutionMode mode_;
  std::unique_ptr<engine::QueryRunner> setup_runner_;  // owns the mode's in-process workers
  std::unique_ptr<QueryAdmission> admission_;
  ParseCache parse_cache_;
  std::unique_ptr<QueryMonitor> monitor_;
  std::unique_ptr<ConsoleApi> console_api_;
  std::unique_ptr<HttpConsole> http_;
  // The console's view of the workers: when each last answered.
  std::vector<WorkerStatus> ClusterStatus();
  std::mutex cluster_mutex_;
  std::map<std::string, int64_t> last_contact_;

  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable stopped_cv_;                      // Wait() waits here
  std::map<int, std::unique_ptr<Connection>> connections_;  // by socket: every open connection
  bool stopped_ = false;

  StatementTimer timer_;
  AuthConfig auth_;
  ssl_ctx_st* tls_context_ = nullptr;  // owned
  std::mutex sessions_mutex_;
  struct SessionEntry {
    int32_t key = 0;
    std::function<void()> cancel;
  };
  std::map<int32_t, SessionEntry> sessions_;
  int32_t next_pid_ = 1;
};

}  // namespace shoal::server

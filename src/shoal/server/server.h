// Server: `shoal server`, the coordinator as a service that PostgreSQL clients connect to. It
// listens on one TCP address, accepts connections and serves each on a bounded pool of threads
// (connection.h speaks the protocol); connections beyond the pool wait for a thread, and beyond
// `max_connections` are refused with SQLSTATE 53300 as PostgreSQL does. Every connection is a
// session of its own (its own settings) over one catalog shared by all sessions, and all of them
// run their queries in the execution mode the server was started with (locally or on workers).
//
// The server also keeps the table of running sessions that a CancelRequest (arriving on a new
// connection with a session's process id and secret key) looks up.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
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
#include "shoal/sql/catalog.h"

namespace shoal::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 5432;  // 0: any free port (see Server::port())
  /// Threads serving connections; a connection holds one while it is open.
  int threads = 16;
  /// Connections open at once, served or waiting for a thread; more are refused.
  int max_connections = 100;
  /// Tables and workers every session starts with (as `shoal sql` takes them).
  engine::SessionSetup setup;
  /// The value of the server_version ParameterStatus and version().
  std::string server_version;
  /// Where hba.conf and users are read from (auth_config.h); empty: every connection is trusted.
  std::string data_dir;
  /// PEM files of the server's certificate (chain) and private key; both empty: no TLS.
  std::string tls_cert;
  std::string tls_key;
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
  /// Stops accepting, closes every connection and joins the threads.
  void Stop();
  /// Blocks until Stop() (from another thread or a signal watcher).
  void Wait();

  // For connections -------------------------------------------------------------------------

  const ServerOptions& options() const { return options_; }
  std::unique_ptr<engine::QueryRunner> NewSessionRunner() const override;
  std::pair<int32_t, int32_t> RegisterSession(engine::QueryRunner* runner) override;
  void UnregisterSession(int32_t pid) override;
  void Cancel(int32_t pid, int32_t key) override;
  const std::string& server_version() const override { return options_.server_version; }
  StatementTimer& statement_timer() override { return timer_; }
  const AuthConfig& auth() const override { return auth_; }
  ssl_ctx_st* tls_context() const override { return tls_context_; }

 private:
  void AcceptLoop();
  void WorkerLoop();

  ServerOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::shared_ptr<sql::Catalog> catalog_;
  engine::ExecutionMode mode_;
  std::unique_ptr<engine::QueryRunner> setup_runner_;  // owns the mode's in-process workers

  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_;          // pool threads wait here for accepted sockets
  std::condition_variable stopped_cv_;  // Wait() waits here (its own: a notify_one for a
                                        // socket must never wake it instead of a pool thread)
  std::deque<int> pending_;             // accepted sockets waiting for a thread
  int open_connections_ = 0;
  std::vector<int> serving_;  // sockets being served (shut down on Stop)
  bool stopped_ = false;

  StatementTimer timer_;
  AuthConfig auth_;
  ssl_ctx_st* tls_context_ = nullptr;  // owned
  std::mutex sessions_mutex_;
  struct SessionEntry {
    int32_t key;
    engine::QueryRunner* runner;
  };
  std::map<int32_t, SessionEntry> sessions_;
  int32_t next_pid_ = 1;
};

}  // namespace shoal::server

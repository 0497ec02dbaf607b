// ConsoleApi: the JSON API behind `shoal server --http` (docs/console.md), and its login. A request
// in, a response out, with no socket: http_console.h serves it over HTTP(S), and tests call it
// directly.
//
//   GET  /                          the console page (console_page.h)
//   GET  /api/whoami                who the request is authenticated as, and whether login is
//   needed POST /api/login                 {"user", "password"}: checked against the server's SCRAM
//   users;
//                                   sets a session cookie (HttpOnly, SameSite=Strict) and returns
//                                   the same random id as {"token"} for `Authorization: Bearer`
//   POST /api/logout
//   GET  /api/cluster               the workers: address, state, version, threads, last contact
//   GET  /api/queries               running statements: SQL, user, elapsed, progress
//   POST /api/queries/{id}/cancel   the statement's own user or an admin
//   GET  /api/history               finished statements, newest first (no plan text)
//   GET  /api/history/{id}          one of them: stages, task timeline, EXPLAIN ANALYZE text
//   GET  /metrics                   ProcessMetrics() in Prometheus's text format (no login: it
//                                   holds counts, never SQL text or names)
//
// Authentication is required when the server has hba.conf (AuthConfig::has_rules()): every /api
// path but whoami and login answers 401 without a valid session. The password check derives the
// SCRAM StoredKey from the password with the stored salt and iterations and compares it with the
// stored one (constant time), so no password is kept; a failed login costs the same fixed delay
// as the PostgreSQL door's. Sessions live in memory (a restart logs everyone out) and end after
// kSessionIdle without use.
//
// Thread safety: Handle may be called from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shoal/server/auth_config.h"
#include "shoal/server/query_monitor.h"

namespace shoal::server {

struct HttpRequest {
  std::string method;  // GET, POST
  std::string path;    // without the query string
  /// Header names in lower case.
  std::map<std::string, std::string> headers;
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::string> set_cookies;  // Set-Cookie values
};

/// One worker as /api/cluster shows it.
struct WorkerStatus {
  std::string address;
  std::string state;  // alive, quarantined, gone
  std::string version;
  int threads = 0;
  int64_t last_contact_unix_ms = 0;  // 0: never answered
  std::string error;                 // why the last check failed
  /// As the worker last told; -1: not told (it did not answer, or does not report them).
  int64_t memory_used = -1;
  int64_t memory_limit = -1;  // 0: unlimited
  int running_tasks = -1;
};

struct ConsoleOptions {
  /// Users who may cancel anyone's statements.
  std::vector<std::string> admins;
  /// Cookies get `Secure` (the console is served over TLS).
  bool secure_cookies = false;
  /// The delay of a failed login (the PostgreSQL door's).
  std::chrono::milliseconds login_failure_delay{500};
  /// The server's version string for /api/cluster.
  std::string server_version;
  /// The workers and their state, asked at each /api/cluster (null: none).
  std::function<std::vector<WorkerStatus>()> cluster;
  /// Cancels the statement running on session `pid`.
  std::function<void(int32_t pid)> cancel;
};

class ConsoleApi {
 public:
  static constexpr std::chrono::hours kSessionIdle{8};
  static constexpr const char* kCookieName = "shoal_session";

  /// `auth` null: no authentication (every request is the anonymous user, who is an admin).
  ConsoleApi(QueryMonitor* monitor, const AuthConfig* auth, ConsoleOptions options);

  HttpResponse Handle(const HttpRequest& request);

  /// Whether `password` is `user`'s, by the user's SCRAM verifier.
  static bool CheckPassword(const ScramVerifier& verifier, const std::string& password);

 private:
  bool auth_required() const;
  // The user a request is authenticated as (the cookie or the bearer token), or nullopt.
  std::optional<std::string> UserOf(const HttpRequest& request);
  HttpResponse Login(const HttpRequest& request);
  HttpResponse Logout(const HttpRequest& request);
  HttpResponse Cluster() const;
  HttpResponse Queries() const;
  HttpResponse Cancel(int64_t id, const std::string& user);
  HttpResponse History() const;
  HttpResponse HistoryEntry(int64_t id) const;

  QueryMonitor* monitor_;
  const AuthConfig* auth_;
  ConsoleOptions options_;
  std::mutex mutex_;
  struct LoginSession {
    std::string user;
    std::chrono::steady_clock::time_point last_used;
  };
  std::map<std::string, LoginSession> sessions_;  // by random id
};

}  // namespace shoal::server

// HttpConsole: the HTTP(S) listener of `shoal server --http HOST:PORT` (the web console and its
// API, console_api.h) and of `shoal worker --metrics HOST:PORT` (only /metrics). cpp-httplib
// serves requests on its own small thread pool; each is handed to the ConsoleApi (or, without
// one, answered with ProcessMetrics()). With a certificate and key (the server's, when it has
// TLS) the listener speaks HTTPS only.
//
// Lifecycle: Start() binds (port 0: any free port, port() says which) and serves on a thread of
// its own; Stop() (or the destructor) stops and joins it.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "shoal/common/result.h"

namespace httplib {
class Server;
}

namespace shoal::server {

class ConsoleApi;

struct HttpConsoleOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  /// PEM files; both empty: plain HTTP.
  std::string tls_cert;
  std::string tls_key;
};

class HttpConsole {
 public:
  /// `api` null: /metrics only (a worker). The api must outlive the console.
  HttpConsole(HttpConsoleOptions options, ConsoleApi* api);
  ~HttpConsole();
  HttpConsole(const HttpConsole&) = delete;
  HttpConsole& operator=(const HttpConsole&) = delete;

  Status Start();
  void Stop();
  int port() const { return port_; }
  /// "http://127.0.0.1:8080" (https with TLS).
  std::string url() const;

 private:
  HttpConsoleOptions options_;
  ConsoleApi* api_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

/// "HOST:PORT" (or ":PORT", "PORT": 127.0.0.1) into host and port; InvalidArgument otherwise.
Result<std::pair<std::string, int>> ParseHttpAddress(const std::string& text);

}  // namespace shoal::server

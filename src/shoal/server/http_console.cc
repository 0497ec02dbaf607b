#include "shoal/server/http_console.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include "shoal/common/prometheus_registry.h"
#include "shoal/server/console_api.h"

namespace shoal::server {

namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The process's resident set from /proc/self/statm (pages), in bytes; 0 when unreadable.
double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0;
  int64_t resident = 0;
  if (!(statm >> size >> resident))
    return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace

Result<std::pair<std::string, int>> ParseHttpAddress(const std::string& text) {
  std::string host = "127.0.0.1";
  std::string port_text = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    if (colon > 0)
      host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return Status::InvalidArgument("invalid HTTP address '{}': expected HOST:PORT", text);
  }
  return std::make_pair(host, port);
}

HttpConsole::HttpConsole(HttpConsoleOptions options, ConsoleApi* api)
    : options_(std::move(options)), api_(api) {}

HttpConsole::~HttpConsole() {
  Stop();
}

std::string HttpConsole::url() const {
  const bool ipv6 = options_.host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", options_.tls_cert.empty() ? "http" : "https",
                     ipv6 ? "[" : "", options_.host, ipv6 ? "]" : "", port_);
}

Status HttpConsole::Start() {
  if (!options_.tls_cert.empty()) {
    auto tls =
        std::make_unique<httplib::SSLServer>(options_.tls_cert.c_str(), options_.tls_key.c_str());
    if (!tls->is_valid()) {
      return Status::InvalidArgument("cannot serve HTTPS with {} and {}", options_.tls_cert,
                                     options_.tls_key);
    }
    server_ = std::move(tls);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  ProcessMetrics().SetGaugeFunction("shoal_process_resident_memory_bytes",
                                    "Memory this process holds (its resident set).", {},
                                    ResidentBytes);
  ConsoleApi* api = api_;
  auto handle = [api](const httplib::Request& in, httplib::Response& out) {
    HttpResponse response;
    if (api != nullptr) {
      HttpRequest request;
      request.method = in.method;
      request.path = in.path;
      for (const auto& [name, value] : in.headers)
        request.headers[Lower(name)] = value;
      request.body = in.body;
      response = api->Handle(request);
    } else if (in.path == "/metrics") {
      response.content_type = PrometheusRegistry::kContentType;
      response.body = ProcessMetrics().WriteText();
    } else {
      response.status = 404;
      response.content_type = "text/plain";
      response.body = "only /metrics here\n";
    }
    out.status = response.status;
    for (const auto& cookie : response.set_cookies)
      out.set_header("Set-Cookie", cookie);
    out.set_header("Cache-Control", "no-store");
    out.set_header("X-Content-Type-Options", "nosniff");
    out.set_header("X-Frame-Options", "DENY");
    out.set_content(response.body, response.content_type.c_str());
  };
  server_->Get(".*", handle);
  server_->Post(".*", handle);
  server_->set_payload_max_length(1 << 20);
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host.c_str());
  } else {
    port_ = server_->bind_to_port(options_.host.c_str(), options_.port) ? options_.port : -1;
  }
  if (port_ <= 0) {
    return Status::Unavailable("cannot listen for HTTP on {}:{}", options_.host, options_.port);
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::OK();
}

void HttpConsole::Stop() {
  if (server_ != nullptr)
    server_->stop();
  if (thread_.joinable())
    thread_.join();
}

}  // namespace shoal::server

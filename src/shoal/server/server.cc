#include "shoal/server/server.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <random>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "shoal/common/pem_file.h"
#include "shoal/common/prometheus_registry.h"
#include "shoal/distributed/coordinator/coordinator.h"
#include "shoal/engine/durable_catalog.h"
#include "shoal/server/connection.h"
#include "shoal/server/pg_wire.h"
#include "shoal/sql/system_catalog/backend_activity.h"

namespace shoal::server {

Server::Server(ServerOptions options) : options_(std::move(options)) {}

Server::~Server() {
  Stop();
  if (monitor_ != nullptr)
    sql::SetBackendActivitySource({});
  SSL_CTX_free(tls_context_);
}

namespace {

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  char buf[256] = "unknown error";
  if (code != 0) {
    ERR_error_string_n(code, buf, sizeof(buf));
  }
  ERR_clear_error();
  return buf;
}

}  // namespace

Status Server::Start() {
  // OpenSSL writes to a TLS client's socket with write(), which raises SIGPIPE once the socket is
  // closed (a client gone, or every connection shut down by Stop()); its default action would end
  // the process with status 141, whoever embeds the server (`shoal server`, a test). Ignored, the
  // write fails with EPIPE and only that connection ends.
  std::signal(SIGPIPE, SIG_IGN);
  if (options_.tls_cert.empty() != options_.tls_key.empty()) {
    return Status::InvalidArgument(
        "TLS needs both a certificate and a key (--tls-cert, --tls-key)");
  }
  if (!options_.tls_cert.empty()) {
    // The same reading as the certificates between nodes (common/pem_file.h): a missing or
    // unreadable file is named before OpenSSL's own, terser, error.
    SHOAL_RETURN_IF_ERROR(ReadPemFile(options_.tls_cert, "--tls-cert").status());
    SHOAL_RETURN_IF_ERROR(ReadPemFile(options_.tls_key, "--tls-key").status());
    SSL_CTX* context = SSL_CTX_new(TLS_server_method());
    if (context == nullptr) {
      return Status::Internal("cannot create a TLS context: {}", OpenSslError());
    }
    tls_context_ = context;
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(context, options_.tls_cert.c_str()) != 1) {
      return Status::InvalidArgument("cannot load the TLS certificate {}: {}", options_.tls_cert,
                                     OpenSslError());
    }
    if (SSL_CTX_use_PrivateKey_file(context, options_.tls_key.c_str(), SSL_FILETYPE_PEM) != 1) {
      return Status::InvalidArgument("cannot load the TLS key {}: {}", options_.tls_key,
                                     OpenSslError());
    }
    if (SSL_CTX_check_private_key(context) != 1) {
      return Status::InvalidArgument("the TLS key {} does not match the certificate {}",
                                     options_.tls_key, options_.tls_cert);
    }
  }
  if (!options_.data_dir.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auth_, AuthConfig::Load(options_.data_dir));
  }
  monitor_ = std::make_unique<QueryMonitor>(options_.data_dir, options_.history_limit);
  monitor_->set_keep_history(!options_.http.empty());  // the console's, and only it reads it
  SHOAL_RETURN_IF_ERROR(monitor_->Load());
  // pg_stat_activity reads this server's sessions (one server per process is the case it serves;
  // a second one in the same process would take the relation over).
  sql::SetBackendActivitySource([monitor = monitor_.get()] {
    std::vector<sql::BackendActivity> out;
    for (const SessionActivity& s : monitor->Sessions()) {
      out.push_back({s.pid, s.database, s.user, s.application_name, s.client_addr,
                     s.backend_start_unix_ms, s.query_start_unix_ms, s.state, s.query});
    }
    return out;
  });
  // The shared catalog and the mode every session runs in, set up once. With a data directory the
  // catalog and the tables' rows live there (engine/durable_catalog.h).
  if (options_.data_dir.empty()) {
    catalog_ = std::make_shared<sql::Catalog>();
  } else {
    SHOAL_ASSIGN_OR_RETURN(catalog_, engine::OpenDurableCatalog(options_.data_dir));
  }
  setup_runner_ = std::make_unique<engine::QueryRunner>(std::make_shared<sql::Session>(catalog_));
  SHOAL_RETURN_IF_ERROR(engine::SetUpSession(options_.setup, *setup_runner_));
  mode_ = setup_runner_->execution_mode();
  if (options_.max_running_queries > 0) {
    if (options_.memory_budget == 0) {
      // The default budget is what one query could hold by default (80% of physical memory).
      options_.memory_budget = setup_runner_->session().settings().GetInt("memory_limit");
    }
    admission_ = std::make_unique<QueryAdmission>(QueryAdmission::Limits{
        options_.max_running_queries, options_.max_queued_queries, options_.memory_budget});
    if (options_.memory_budget > 0) {
      // Each session's statements reserve their memory_limit: by default a fair share, so that
      // max_running_queries of them fit in the budget together.
      SHOAL_RETURN_IF_ERROR(setup_runner_->session().settings().Set(
          "memory_limit", std::to_string(options_.memory_budget / options_.max_running_queries)));
    }
  }

  if (!options_.http.empty()) {
    SHOAL_ASSIGN_OR_RETURN(auto address, ParseHttpAddress(options_.http));
    ConsoleOptions console;
    console.admins = options_.console_admins;
    console.secure_cookies = !options_.tls_cert.empty();
    console.server_version = options_.server_version;
    console.cluster = [this] { return ClusterStatus(); };
    console.cancel = [this](int32_t pid) { CancelSession(pid); };
    console_api_ = std::make_unique<ConsoleApi>(monitor_.get(), &auth_, std::move(console));
    http_ = std::make_unique<HttpConsole>(
        HttpConsoleOptions{address.first, address.second, options_.tls_cert, options_.tls_key},
        console_api_.get());
    SHOAL_RETURN_IF_ERROR(http_->Start());
  }

  ProcessMetrics()
      .GetGauge("shoal_memory_limit_bytes",
                "Memory the running queries may reserve together (--memory-budget); 0: not "
                "counted.")
      .Set(std::max<int64_t>(0, options_.memory_budget));

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(options_.port);
  if (int rc = getaddrinfo(options_.host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Status::InvalidArgument("cannot resolve listen address '{}': {}", options_.host,
                                   gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return Status::IoError("socket: {}", std::strerror(errno));
  }
  // SO_REUSEADDR lets a restarted server bind while old connections linger in TIME_WAIT; unlike
  // SO_REUSEPORT it does not let two servers share a port that is being listened on.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
    int err = errno;
    close(fd);
    auto st = Status::IoError("cannot listen on {}:{}: {}", options_.host, options_.port,
                              std::strerror(err));
    if (err == EADDRINUSE) {
      return std::move(st).WithHint(
          "another server is using that port; choose another with --listen");
    }
    return st;
  }
  if (listen(fd, 128) != 0) {
    int err = errno;
    close(fd);
    return Status::IoError("listen: {}", std::strerror(err));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  listen_fd_ = fd;
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    return Status::IoError("cannot set up the connection poller: {}", std::strerror(errno));
  }
  epoll_event wake{};
  wake.events = EPOLLIN;  // level-triggered: once written, every thread sees it
  wake.data.ptr = nullptr;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake);
  const int threads = std::max(1, options_.threads);
  for (int i = 0; i < threads; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return Status::OK();
}

void Server::AcceptLoop() {
  while (!stopping_.load()) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
        if (errno == EMFILE || errno == ENFILE) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));  // let connections close
        }
        continue;
      }
      break;  // the listening socket was shut down
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (options_.read_timeout_ms > 0) {
      // A read waits only for a message the client has begun (or its start-up): one that
      // stalls that long is dropped instead of holding a thread.
      timeval timeout{options_.read_timeout_ms / 1000, (options_.read_timeout_ms % 1000) * 1000};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_.load()) {
      close(fd);
      break;
    }
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      lock.unlock();
      // As PostgreSQL: a FATAL error in place of the start-up reply, then close.
      MessageWriter out;
      WriteErrorResponse(
          out, Status::Unavailable("sorry, too many clients already").WithSqlState("53300"),
          "FATAL");
      [[maybe_unused]] ssize_t n = send(fd, out.buffer().data(), out.buffer().size(), MSG_NOSIGNAL);
      close(fd);
      continue;
    }
    auto connection = std::make_unique<Connection>(this, fd);
    Connection* raw = connection.get();
    connections_.emplace(fd, std::move(connection));
    lock.unlock();
    if (!Watch(raw, /*first=*/true)) {
      CloseConnection(raw);
    }
  }
}

bool Server::Watch(Connection* connection, bool first) {
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  event.data.ptr = connection;
  return epoll_ctl(epoll_fd_, first ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, connection->fd(), &event) == 0;
}

void Server::CloseConnection(Connection* connection) {
  const int fd = connection->fd();
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  std::unique_ptr<Connection> owned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = connections_.find(fd);
    if (it == connections_.end()) {
      return;  // Stop() took it
    }
    owned = std::move(it->second);
    connections_.erase(it);
  }
  owned.reset();  // cancels what it still runs, unregisters the session
  close(fd);
}

void Server::WorkerLoop() {
  for (;;) {
    epoll_event event{};
    int n = epoll_wait(epoll_fd_, &event, 1, -1);
    if (stopping_.load()) {
      return;
    }
    if (n <= 0 || event.data.ptr == nullptr) {
      continue;  // EINTR, or the wake-up of Stop() seen before stopping_ (cannot happen)
    }
    auto* connection = static_cast<Connection*>(event.data.ptr);
    if (connection->Serve() == Connection::Turn::kIdle && !stopping_.load()) {
      connection->Park();
      if (Watch(connection, /*first=*/false)) {
        continue;  // another thread may own it from here on
      }
    }
    if (stopping_.load()) {
      return;  // Stop() closes what is left
    }
    CloseConnection(connection);
  }
}

void Server::Stop() {
  if (http_ != nullptr)
    http_->Stop();
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_ || listen_fd_ < 0) {
      stopped_ = true;
      return;
    }
    stopped_ = true;
    stopping_.store(true);
    shutdown(listen_fd_, SHUT_RDWR);
    for (auto& [fd, connection] : connections_) {
      shutdown(fd, SHUT_RDWR);  // reads and writes of the threads serving them fail
    }
  }
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    for (auto& [pid, entry] : sessions_) {
      entry.cancel();
    }
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t w = write(wake_fd_, &one, sizeof(one));
  if (accept_thread_.joinable()) {
    accept_thread_.join();
  }
  for (auto& t : workers_) {
    t.join();
  }
  std::map<int, std::unique_ptr<Connection>> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    left.swap(connections_);
  }
  for (auto& [fd, connection] : left) {
    connection.reset();
    close(fd);
  }
  close(listen_fd_);
  listen_fd_ = -1;
  close(epoll_fd_);
  epoll_fd_ = -1;
  close(wake_fd_);
  wake_fd_ = -1;
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_cv_.notify_all();
}

void Server::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  stopped_cv_.wait(lock, [this] { return stopped_; });
}

std::unique_ptr<engine::QueryRunner> Server::NewSessionRunner() const {
  // A copy of the set-up session's settings (shuffle_dir, ...): later SETs stay in the session.
  auto session = std::make_shared<sql::Session>(catalog_, setup_runner_->session().settings());
  auto runner = std::make_unique<engine::QueryRunner>(std::move(session));
  runner->SetExecutionMode(mode_);
  return runner;
}

std::pair<int32_t, int32_t> Server::RegisterSession(std::function<void()> cancel) {
  static thread_local std::mt19937 random(std::random_device{}());
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  int32_t pid = next_pid_++;
  auto key = static_cast<int32_t>(random());
  sessions_[pid] = SessionEntry{key, std::move(cancel)};
  return {pid, key};
}

void Server::UnregisterSession(int32_t pid) {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  sessions_.erase(pid);
}

void Server::Cancel(int32_t pid, int32_t key) {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  auto it = sessions_.find(pid);
  // A wrong key is ignored silently, as PostgreSQL does: the requester learns nothing.
  if (it != sessions_.end() && it->second.key == key) {
    it->second.cancel();
  }
}

void Server::CancelSession(int32_t pid) {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  if (auto it = sessions_.find(pid); it != sessions_.end())
    it->second.cancel();
}

std::vector<WorkerStatus> Server::ClusterStatus() {
  std::vector<WorkerStatus> out;
  const auto& coordinator = mode_.coordinator();
  if (coordinator == nullptr)
    return out;
  const distributed::CoordinatorOptions& options = coordinator->options();
  std::vector<std::string> workers = options.workers;
  if (options.resolver != nullptr) {
    if (auto resolved = options.resolver->Resolve(); resolved.ok())
      workers = *resolved;
  }
  std::lock_guard<std::mutex> lock(cluster_mutex_);
  for (const std::string& address : workers) {
    WorkerStatus w;
    w.address = address;
    if (coordinator->health() != nullptr && coordinator->health()->IsQuarantined(address)) {
      w.state = "quarantined";  // not dialled here: the health checker retries it
    } else if (options.channels != nullptr) {
      Status st;
      if (auto channel = options.channels->Connect(address); channel.ok()) {
        if (auto info = (*channel)->GetWorkerInfo(); info.ok()) {
          w.version = info->version;
          w.threads = info->threads;
          w.memory_used = info->memory_used;
          w.memory_limit = info->memory_limit;
          w.running_tasks = info->running_tasks;
          last_contact_[address] = UnixMillisNow();
        } else {
          st = info.status();
        }
      } else {
        st = channel.status();
      }
      w.state = st.ok() ? "alive" : "quarantined";
      w.error = st.ok() ? "" : st.message();
    }
    auto it = last_contact_.find(address);
    w.last_contact_unix_ms = it != last_contact_.end() ? it->second : 0;
    out.push_back(std::move(w));
  }
  // Workers that answered once and are no longer listed.
  for (const auto& [address, when] : last_contact_) {
    if (std::find(workers.begin(), workers.end(), address) == workers.end()) {
      WorkerStatus w;
      w.address = address;
      w.state = "gone";
      w.last_contact_unix_ms = when;
      out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace shoal::server

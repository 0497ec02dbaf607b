#include "shoal/server/pg_client.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/un.h>
#include <unistd.h>

#include "shoal/server/pg_result_builder.h"
#include "shoal/server/pg_wire.h"
#include "shoal/server/scram_client.h"

namespace shoal::server {

namespace {

// As PostgreSQL: no message is longer than 1 GB.
constexpr int32_t kMaxMessageLength = 1 << 30;
constexpr size_t kReadChunk = 64 * 1024;

Status ConnectionLost() {
  return Status::Unavailable("server closed the connection unexpectedly").WithSqlState("08006");
}

// The status code a SQLSTATE's class stands for (common/status.h maps the other way); the
// SQLSTATE itself is kept on the Status.
StatusCode CodeOfSqlState(std::string_view state) {
  if (state == "42601")
    return StatusCode::kSyntaxError;
  if (state == "42P01" || state == "42703" || state == "42704" || state == "42883" ||
      state == "3F000" || state == "3D000")
    return StatusCode::kNotFound;
  if (state == "42P07" || state == "42710" || state == "42701" || state == "42723")
    return StatusCode::kAlreadyExists;
  if (state == "42804" || state == "42846" || state == "42P18")
    return StatusCode::kTypeError;
  if (state == "22003" || state == "22008")
    return StatusCode::kOutOfRange;
  if (state == "57014")
    return StatusCode::kCancelled;
  if (state == "0A000")
    return StatusCode::kNotImplemented;
  const std::string_view cls = state.substr(0, 2);
  if (cls == "53")
    return StatusCode::kOutOfMemory;
  if (cls == "58")
    return StatusCode::kIoError;
  if (cls == "08")
    return StatusCode::kUnavailable;
  if (cls == "XX")
    return StatusCode::kInternal;
  return StatusCode::kInvalidArgument;
}

// The fields of an ErrorResponse or NoticeResponse body.
Result<PgNotice> ParseNoticeFields(std::string_view body, int* position) {
  MessageReader in(body);
  PgNotice notice;
  std::string localized_severity;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(uint8_t field, in.Byte());
    if (field == 0) {
      break;
    }
    SHOAL_ASSIGN_OR_RETURN(std::string_view value, in.CString());
    switch (field) {
      case 'S': localized_severity = std::string(value); break;
      case 'V': notice.severity = std::string(value); break;
      case 'C': notice.sqlstate = std::string(value); break;
      case 'M': notice.message = std::string(value); break;
      case 'D': notice.detail = std::string(value); break;
      case 'H': notice.hint = std::string(value); break;
      case 'P':
        if (position != nullptr) {
          *position = std::atoi(std::string(value).c_str());
        }
        break;
      default: break;  // where, schema, table, file, line, routine: not shown
    }
  }
  if (notice.severity.empty()) {
    notice.severity = localized_severity;
  }
  return notice;
}

Status StatusOfError(std::string_view body) {
  int position = 0;
  auto fields = ParseNoticeFields(body, &position);
  if (!fields.ok()) {
    return fields.status();
  }
  const std::string state = fields->sqlstate.empty() ? "XX000" : fields->sqlstate;
  Status status = Status(CodeOfSqlState(state), fields->message).WithSqlState(state);
  if (position > 0) {
    status = std::move(status).WithPosition(position);
  }
  if (!fields->hint.empty()) {
    status = std::move(status).WithHint(fields->hint);
  }
  return status;
}

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(e, buffer, sizeof(buffer));
    out += out.empty() ? "" : "; ";
    out += buffer;
  }
  return out.empty() ? "unknown TLS error" : out;
}

bool IsIpAddress(const std::string& host) {
  in6_addr v6{};
  in_addr v4{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

// connect() that gives up after `timeout_seconds` (0: the system's limit).
int ConnectWithTimeout(int fd, const sockaddr* address, socklen_t length, int timeout_seconds) {
  if (timeout_seconds <= 0) {
    int rc;
    do {
      rc = connect(fd, address, length);
    } while (rc != 0 && errno == EINTR);
    return rc;
  }
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = connect(fd, address, length);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = poll(&p, 1, timeout_seconds * 1000);
    if (rc == 0) {
      errno = ETIMEDOUT;
      rc = -1;
    } else if (rc > 0) {
      int error = 0;
      socklen_t len = sizeof(error);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      errno = error;
      rc = error == 0 ? 0 : -1;
    }
  }
  const int saved = errno;
  fcntl(fd, F_SETFL, flags);
  errno = saved;
  return rc;
}

// OpenSSL writes to the socket with write(), which raises SIGPIPE when the server has gone; its
// default action would end the process without a word. As libpq does, SIGPIPE is blocked in
// this thread while OpenSSL reads or writes, and one raised meanwhile is consumed: the write then
// fails with EPIPE, and the caller reports the lost connection. (Plain sockets use MSG_NOSIGNAL.)
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec no_wait{0, 0};
        sigtimedwait(&pipe_, nullptr, &no_wait);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

}  // namespace

Result<std::unique_ptr<PgClient>> PgClient::Connect(const PgConnectOptions& options,
                                                    const PasswordPrompt& prompt,
                                                    NoticeHandler on_notice) {
  const SslMode mode = options.sslmode.value_or(SslMode::kPrefer);
  // allow: plain first, TLS when the server refuses that (its hba.conf wants hostssl).
  const bool try_tls_first = mode != SslMode::kDisable && mode != SslMode::kAllow;
  std::unique_ptr<PgClient> client(new PgClient());
  client->on_notice_ = std::move(on_notice);
  SHOAL_RETURN_IF_ERROR(client->OpenSocket(options));
  if (try_tls_first) {
    SHOAL_RETURN_IF_ERROR(client->StartTls(options));
  }
  Status st = client->Startup(options, prompt);
  if (!st.ok() && mode == SslMode::kAllow && st.sqlstate().substr(0, 2) == "28") {
    std::unique_ptr<PgClient> retry(new PgClient());
    retry->on_notice_ = client->on_notice_;
    client.reset();
    SHOAL_RETURN_IF_ERROR(retry->OpenSocket(options));
    PgConnectOptions with_tls = options;
    with_tls.sslmode = SslMode::kRequire;
    SHOAL_RETURN_IF_ERROR(retry->StartTls(with_tls));
    SHOAL_RETURN_IF_ERROR(retry->Startup(options, prompt));
    return retry;
  }
  SHOAL_RETURN_IF_ERROR(st);
  return client;
}

PgClient::~PgClient() {
  if (fd_ >= 0 && !broken_) {
    MessageWriter out;
    WriteEmptyMessage(out, 'X');  // Terminate
    (void)SendAll(out.buffer());
  }
  Close();
}

void PgClient::Close() {
  if (ssl_ != nullptr) {
    if (!broken_) {
      SigpipeGuard guard;
      SSL_shutdown(ssl_);
    }
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (ssl_context_ != nullptr) {
    SSL_CTX_free(ssl_context_);
    ssl_context_ = nullptr;
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
}

Status PgClient::Broken(Status status) {
  broken_ = true;
  Close();
  return status;
}

Status PgClient::OpenSocket(const PgConnectOptions& options) {
  const std::string& host = options.host;
  const int port = options.port;
  if (!host.empty() && host[0] == '/') {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string path = fmt::format("{}/.s.PGSQL.{}", host, port);
    if (path.size() >= sizeof(address.sun_path)) {
      return Status::InvalidArgument("Unix-domain socket path \"{}\" is too long", path);
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || ConnectWithTimeout(fd_, reinterpret_cast<const sockaddr*>(&address),
                                      sizeof(address), options.connect_timeout_seconds) != 0) {
      const int error = errno;
      Close();
      return Status::Unavailable("connection to server on socket \"{}\" failed: {}", path,
                                 std::strerror(error))
          .WithSqlState("08001");
    }
    std::memcpy(&address_, &address, sizeof(address));
    address_length_ = sizeof(address);
    return Status::OK();
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Status::Unavailable("could not translate host name \"{}\" to address: {}", host,
                               gai_strerror(rc))
        .WithSqlState("08001");
  }
  std::string errors;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      continue;
    }
    if (ConnectWithTimeout(fd, a->ai_addr, a->ai_addrlen, options.connect_timeout_seconds) == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      fd_ = fd;
      std::memcpy(&address_, a->ai_addr, a->ai_addrlen);
      address_length_ = a->ai_addrlen;
      break;
    }
    char text[INET6_ADDRSTRLEN] = "?";
    const void* raw =
        a->ai_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr);
    inet_ntop(a->ai_family, raw, text, sizeof(text));
    errors += fmt::format("{}connection to server at \"{}\" ({}), port {} failed: {}",
                          errors.empty() ? "" : "; ", host, text, port, std::strerror(errno));
    close(fd);
  }
  freeaddrinfo(found);
  if (fd_ < 0) {
    return Status::Unavailable("{}", errors.empty() ? "no address to connect to" : errors)
        .WithSqlState("08001")
        .WithHint("Is the server running on that host and accepting TCP/IP connections?");
  }
  return Status::OK();
}

Status PgClient::StartTls(const PgConnectOptions& options) {
  const SslMode mode = options.sslmode.value_or(SslMode::kPrefer);
  if (options.host[0] == '/') {
    if (mode >= SslMode::kRequire) {
      return Status::InvalidArgument("sslmode {} needs a TCP connection, not a Unix socket",
                                     SslModeName(mode));
    }
    return Status::OK();  // no TLS over a local socket, as libpq
  }
  MessageWriter request;
  request.Int32(8);
  request.Int32(kSslRequestCode);
  SHOAL_RETURN_IF_ERROR(SendAll(request.buffer()));
  char answer = 0;
  exact_reads_ = true;
  Status read = ReadExactly(&answer, 1);
  exact_reads_ = false;
  SHOAL_RETURN_IF_ERROR(read);
  if (answer == 'N') {
    if (mode >= SslMode::kRequire) {
      return Broken(Status::Unavailable("server does not support SSL, but SSL was required")
                        .WithSqlState("08001"));
    }
    return Status::OK();
  }
  if (answer != 'S') {
    // An old server's ErrorResponse, or not PostgreSQL at all.
    return Broken(Status::Unavailable("received invalid response to SSL negotiation: {}",
                                      static_cast<int>(static_cast<uint8_t>(answer)))
                      .WithSqlState("08P01"));
  }
  if (in_pos_ != in_.size()) {
    // Bytes after 'S' before the handshake would be unencrypted data an attacker injected.
    return Broken(
        Status::Unavailable("received unencrypted data after SSL response").WithSqlState("08P01"));
  }
  ssl_context_ = SSL_CTX_new(TLS_client_method());
  if (ssl_context_ == nullptr) {
    return Broken(Status::Internal("could not create a TLS context: {}", OpenSslErrors()));
  }
  SSL_CTX_set_min_proto_version(ssl_context_, TLS1_2_VERSION);
  const bool verify = mode == SslMode::kVerifyCa || mode == SslMode::kVerifyFull;
  if (verify) {
    std::string root = options.sslrootcert;
    if (root.empty()) {
      const char* home = std::getenv("HOME");
      root = std::string(home == nullptr ? "" : home) + "/.postgresql/root.crt";
    }
    const int loaded = root == "system"
                           ? SSL_CTX_set_default_verify_paths(ssl_context_)
                           : SSL_CTX_load_verify_locations(ssl_context_, root.c_str(), nullptr);
    if (loaded != 1) {
      return Broken(Status::InvalidArgument("could not read root certificate file \"{}\": {}", root,
                                            OpenSslErrors())
                        .WithHint("sslmode verify-ca and verify-full need the CA's certificate: "
                                  "give sslrootcert"));
    }
    SSL_CTX_set_verify(ssl_context_, SSL_VERIFY_PEER, nullptr);
  }
  ssl_ = SSL_new(ssl_context_);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return Broken(Status::Internal("could not set up TLS: {}", OpenSslErrors()));
  }
  if (!IsIpAddress(options.host)) {
    SSL_set_tlsext_host_name(ssl_, options.host.c_str());
  }
  if (mode == SslMode::kVerifyFull) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int set = IsIpAddress(options.host)
                        ? X509_VERIFY_PARAM_set1_ip_asc(param, options.host.c_str())
                        : X509_VERIFY_PARAM_set1_host(param, options.host.c_str(), 0);
    if (set != 1) {
      return Broken(Status::Internal("could not set the host name to verify: {}", OpenSslErrors()));
    }
  }
  int connected;
  {
    SigpipeGuard guard;
    connected = SSL_connect(ssl_);
  }
  if (connected != 1) {
    const long result = SSL_get_verify_result(ssl_);
    std::string why = result != X509_V_OK ? X509_verify_cert_error_string(result) : OpenSslErrors();
    return Broken(Status::Unavailable("SSL error: {}", why).WithSqlState("08001"));
  }
  return Status::OK();
}

Status PgClient::SendAll(std::string_view bytes) {
  if (broken_ || fd_ < 0) {
    return Status::Unavailable("no connection to the server").WithSqlState("08003");
  }
  size_t done = 0;
  while (ssl_ != nullptr && done < bytes.size()) {
    int sent;
    {
      SigpipeGuard guard;
      sent = SSL_write(ssl_, bytes.data() + done,
                       static_cast<int>(std::min<size_t>(bytes.size() - done, 1 << 30)));
    }
    if (sent <= 0) {
      return Broken(ConnectionLost());
    }
    done += static_cast<size_t>(sent);
  }
  while (done < bytes.size()) {
    ssize_t sent = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (sent > 0) {
      done += static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      return Broken(ConnectionLost());
    }
  }
  return Status::OK();
}

Status PgClient::ReadExactly(char* data, size_t n) {
  if (broken_ || fd_ < 0) {
    return Status::Unavailable("no connection to the server").WithSqlState("08003");
  }
  size_t done = 0;
  while (done < n) {
    if (in_pos_ < in_.size()) {
      const size_t take = std::min(n - done, in_.size() - in_pos_);
      std::memcpy(data + done, in_.data() + in_pos_, take);
      in_pos_ += take;
      done += take;
      continue;
    }
    // Before TLS (the one-byte answer to SSLRequest) read no more than asked: what follows
    // belongs to the handshake.
    const size_t want = exact_reads_ ? n - done : kReadChunk;
    in_.resize(want);
    in_pos_ = 0;
    ssize_t got;
    if (ssl_ != nullptr) {
      SigpipeGuard guard;  // reading may write too (an alert, a reply to close_notify)
      got = SSL_read(ssl_, in_.data(), static_cast<int>(want));
    } else {
      do {
        got = recv(fd_, in_.data(), want, 0);
      } while (got < 0 && errno == EINTR);
    }
    if (got <= 0) {
      in_.clear();
      return Broken(ConnectionLost());
    }
    in_.resize(static_cast<size_t>(got));
  }
  return Status::OK();
}

Result<char> PgClient::ReadMessage(std::string* body) {
  char header[5];
  SHOAL_RETURN_IF_ERROR(ReadExactly(header, sizeof(header)));
  MessageReader lengths(std::string_view(header + 1, 4));
  SHOAL_ASSIGN_OR_RETURN(int32_t length, lengths.Int32());
  if (length < 4 || length > kMaxMessageLength) {
    return Broken(
        ProtocolViolation(fmt::format("invalid message length {} from the server (message type {})",
                                      length, static_cast<int>(static_cast<uint8_t>(header[0])))));
  }
  body->resize(static_cast<size_t>(length) - 4);
  SHOAL_RETURN_IF_ERROR(ReadExactly(body->data(), body->size()));
  return header[0];
}

void PgClient::HandleNotice(std::string_view body) {
  auto notice = ParseNoticeFields(body, nullptr);
  if (notice.ok() && on_notice_) {
    on_notice_(*notice);
  }
}

void PgClient::HandleParameterStatus(std::string_view body) {
  MessageReader in(body);
  auto name = in.CString();
  auto value = in.CString();
  if (name.ok() && value.ok()) {
    parameters_[std::string(*name)] = std::string(*value);
  }
}

std::string PgClient::parameter(const std::string& name) const {
  auto it = parameters_.find(name);
  return it == parameters_.end() ? "" : it->second;
}

Result<std::string> PgClient::ObtainPassword(const PgConnectOptions& options,
                                             const PasswordPrompt& prompt) {
  if (!options.password.empty()) {
    return options.password;
  }
  SHOAL_ASSIGN_OR_RETURN(std::optional<std::string> from_file,
                         LookUpPasswordFile(options.password_file, options));
  if (from_file) {
    return *from_file;
  }
  if (prompt) {
    return prompt(options);
  }
  return Status::InvalidArgument("password authentication needs a password, and none was given")
      .WithSqlState("28P01")
      .WithHint("set PGPASSWORD, or put it in a password file (--password-file, ~/.pgpass)");
}

Status PgClient::Authenticate(const PgConnectOptions& options, const PasswordPrompt& prompt,
                              std::string_view request) {
  MessageReader in(request);
  SHOAL_ASSIGN_OR_RETURN(int32_t method, in.Int32());
  MessageWriter out;
  switch (method) {
    case 3: {  // AuthenticationCleartextPassword
      SHOAL_ASSIGN_OR_RETURN(std::string password, ObtainPassword(options, prompt));
      out.Begin('p');
      out.CString(password);
      out.End();
      return SendAll(out.buffer());
    }
    case 5:
      return Status::NotImplemented(
                 "the server asks for MD5 password authentication, which shoal sql does not "
                 "support")
          .WithSqlState("28000")
          .WithHint("configure the server for scram-sha-256 (MD5 is deprecated)");
    case 10: {  // AuthenticationSASL: the mechanisms, each a string, then an empty one
      bool scram = false;
      for (;;) {
        SHOAL_ASSIGN_OR_RETURN(std::string_view mechanism, in.CString());
        if (mechanism.empty()) {
          break;
        }
        scram = scram || mechanism == "SCRAM-SHA-256";
      }
      if (!scram) {
        return Status::NotImplemented(
                   "none of the server's SASL authentication mechanisms are supported")
            .WithSqlState("28000");
      }
      SHOAL_ASSIGN_OR_RETURN(std::string password, ObtainPassword(options, prompt));
      SHOAL_ASSIGN_OR_RETURN(ScramClient scram_client, ScramClient::Make(std::move(password)));
      const std::string first = scram_client.ClientFirst();
      out.Begin('p');  // SASLInitialResponse
      out.CString("SCRAM-SHA-256");
      out.Int32(static_cast<int32_t>(first.size()));
      out.Bytes(first);
      out.End();
      SHOAL_RETURN_IF_ERROR(SendAll(out.buffer()));
      out.Clear();
      std::string body;
      SHOAL_ASSIGN_OR_RETURN(char type, ReadMessage(&body));
      if (type == 'E') {
        return StatusOfError(body);
      }
      MessageReader cont(body);
      SHOAL_ASSIGN_OR_RETURN(int32_t step, cont.Int32());
      if (type != 'R' || step != 11) {
        return Broken(ProtocolViolation("expected AuthenticationSASLContinue from the server"));
      }
      SHOAL_ASSIGN_OR_RETURN(std::string_view server_first, cont.Bytes(cont.remaining()));
      SHOAL_ASSIGN_OR_RETURN(std::string final_message, scram_client.ClientFinal(server_first));
      out.Begin('p');  // SASLResponse
      out.Bytes(final_message);
      out.End();
      SHOAL_RETURN_IF_ERROR(SendAll(out.buffer()));
      SHOAL_ASSIGN_OR_RETURN(type, ReadMessage(&body));
      if (type == 'E') {
        return StatusOfError(body);
      }
      MessageReader done(body);
      SHOAL_ASSIGN_OR_RETURN(step, done.Int32());
      if (type != 'R' || step != 12) {
        return Broken(ProtocolViolation("expected AuthenticationSASLFinal from the server"));
      }
      SHOAL_ASSIGN_OR_RETURN(std::string_view server_final, done.Bytes(done.remaining()));
      return scram_client.VerifyServerFinal(server_final);
    }
    default: {
      const char* name = method == 2   ? "Kerberos V5"
                         : method == 7 ? "GSSAPI"
                         : method == 9 ? "SSPI"
                                       : "unknown";
      return Status::NotImplemented("authentication method {} ({}) is not supported", method, name)
          .WithSqlState("28000");
    }
  }
}

Status PgClient::Startup(const PgConnectOptions& options, const PasswordPrompt& prompt) {
  MessageWriter out;
  out.Int32(0);  // length, patched below
  out.Int32(kProtocolVersion3);
  const std::pair<const char*, const std::string*> parameters[] = {
      {"user", &options.user},
      {"database", &options.dbname},
      {"application_name", &options.application_name},
  };
  for (const auto& [name, value] : parameters) {
    if (!value->empty()) {
      out.CString(name);
      out.CString(*value);
    }
  }
  out.CString("client_encoding");
  out.CString("UTF8");
  out.Byte(0);
  out.PatchInt32(0, static_cast<int32_t>(out.size()));
  SHOAL_RETURN_IF_ERROR(SendAll(out.buffer()));
  std::string body;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(char type, ReadMessage(&body));
    switch (type) {
      case 'R': {
        MessageReader in(body);
        SHOAL_ASSIGN_OR_RETURN(int32_t method, in.Int32());
        if (method != 0) {
          Status st = Authenticate(options, prompt, body);
          if (!st.ok()) {
            return Broken(std::move(st));
          }
        }
        break;
      }
      case 'S': HandleParameterStatus(body); break;
      case 'K': {
        MessageReader in(body);
        SHOAL_ASSIGN_OR_RETURN(backend_pid_, in.Int32());
        SHOAL_ASSIGN_OR_RETURN(backend_key_, in.Int32());
        break;
      }
      case 'N': HandleNotice(body); break;
      case 'E': return Broken(StatusOfError(body));
      case 'v':  // NegotiateProtocolVersion: the server knows an older minor version; go on
        break;
      case 'Z': transaction_status_ = body.empty() ? 'I' : body[0]; return Status::OK();
      default:
        return Broken(ProtocolViolation(fmt::format("unexpected message type {} during start-up",
                                                    static_cast<int>(static_cast<uint8_t>(type)))));
    }
  }
}

Status PgClient::Run(std::string_view sql,
                     const std::function<Status(const engine::QueryResult&)>& on_result) {
  MessageWriter out;
  out.Begin('Q');
  if (sql.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("the SQL text contains a NUL byte").WithSqlState("22021");
  }
  out.CString(sql);
  out.End();
  busy_.store(true);
  struct Idle {
    std::atomic<bool>* busy;
    ~Idle() { busy->store(false); }
  } idle{&busy_};
  SHOAL_RETURN_IF_ERROR(SendAll(out.buffer()));
  Status first_error;
  std::optional<PgResultBuilder> rows;
  bool copied_out = false;  // the statement was a COPY ... TO STDOUT
  std::string body;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(char type, ReadMessage(&body));
    switch (type) {
      case 'T': {
        SHOAL_ASSIGN_OR_RETURN(std::vector<PgColumn> columns, ParseRowDescription(body));
        rows.emplace(std::move(columns));
        break;
      }
      case 'D':
        if (!rows) {
          return Broken(ProtocolViolation("DataRow without RowDescription from the server"));
        }
        if (first_error.ok()) {
          if (Status st = rows->AddDataRow(body); !st.ok()) {
            return Broken(std::move(st));
          }
        }
        break;
      case 'C': {
        if (copied_out) {
          // COPY ... TO STDOUT: its rows went to the copy handler, and psql prints no tag.
          copied_out = false;
          break;
        }
        MessageReader in(body);
        SHOAL_ASSIGN_OR_RETURN(std::string_view tag, in.CString());
        engine::QueryResult result;
        result.command_tag = std::string(tag);
        if (rows) {
          auto finished = rows->Finish();
          rows.reset();
          if (!finished.ok()) {
            first_error = finished.status();
          } else {
            result.schema = std::move(finished->first);
            result.batches = std::move(finished->second);
          }
        }
        if (first_error.ok()) {
          first_error = on_result(result);
        }
        break;
      }
      case 'I': rows.reset(); break;  // EmptyQueryResponse
      case 'E':
        rows.reset();
        if (first_error.ok()) {
          first_error = StatusOfError(body);
        }
        break;
      case 'N': HandleNotice(body); break;
      case 'S': HandleParameterStatus(body); break;
      case 'A': break;  // NotificationResponse: LISTEN is not used here
      case 'H': {       // CopyOutResponse: CopyData messages, then CopyDone
        copied_out = true;
        for (;;) {
          SHOAL_ASSIGN_OR_RETURN(type, ReadMessage(&body));
          if (type == 'c') {
            break;
          }
          if (type == 'd') {
            if (first_error.ok() && on_copy_data_) {
              first_error = on_copy_data_(body);
            }
          } else if (type == 'N') {
            HandleNotice(body);
          } else if (type == 'E') {
            // The COPY failed midway; ReadyForQuery follows.
            copied_out = false;
            if (first_error.ok()) {
              first_error = StatusOfError(body);
            }
            break;
          } else {
            return Broken(
                ProtocolViolation(fmt::format("unexpected message type {} during COPY TO STDOUT",
                                              static_cast<int>(static_cast<uint8_t>(type)))));
          }
        }
        break;
      }
      case 'G': {  // CopyInResponse: no data to send
        out.Clear();
        out.Begin('f');
        out.CString("COPY FROM STDIN is not supported by shoal sql");
        out.End();
        SHOAL_RETURN_IF_ERROR(SendAll(out.buffer()));
        break;
      }
      case 'Z':
        if (rows) {
          return Broken(ProtocolViolation("ReadyForQuery in the middle of a result"));
        }
        transaction_status_ = body.empty() ? 'I' : body[0];
        return first_error;
      default:
        return Broken(ProtocolViolation(fmt::format("unexpected message type {} from the server",
                                                    static_cast<int>(static_cast<uint8_t>(type)))));
    }
  }
}

void PgClient::CancelRunning() {
  if (!busy_.load() || backend_pid_ == 0) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(cancel_mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_cancel_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_cancel_ = now;
  }
  // A new connection carrying only the CancelRequest; the server closes it without an answer.
  int fd = socket(address_.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return;
  }
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  if (ConnectWithTimeout(fd, reinterpret_cast<const sockaddr*>(&address_), address_length_, 5) ==
      0) {
    MessageWriter request;
    request.Int32(16);
    request.Int32(kCancelRequestCode);
    request.Int32(backend_pid_);
    request.Int32(backend_key_);
    if (send(fd, request.buffer().data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      // Wait for the server to close the connection, so the cancel has been seen when this
      // returns.
      char byte;
      while (recv(fd, &byte, 1, 0) > 0) {
      }
    }
  }
  close(fd);
}

}  // namespace shoal::server

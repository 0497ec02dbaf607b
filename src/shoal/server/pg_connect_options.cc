#include "shoal/server/pg_connect_options.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoal::server {

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

Result<int> ParsePort(std::string_view text, std::string_view what) {
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || port < 1 ||
      port > 65535) {
    return Status::InvalidArgument("invalid port number in {}: \"{}\"", what, text);
  }
  return port;
}

Result<int> ParseSeconds(std::string_view text, std::string_view what) {
  int seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || seconds < 0) {
    return Status::InvalidArgument("invalid integer value \"{}\" for {}", text, what);
  }
  return seconds;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    auto hex = [](char c) {
      if (c >= '0' && c <= '9')
        return c - '0';
      if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
      if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= text.size() || hex(text[i + 1]) < 0 || hex(text[i + 2]) < 0) {
      return Status::InvalidArgument("invalid percent-encoded token in connection URL: \"{}\"",
                                     text);
    }
    const char c = static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
    if (c == '\0') {
      return Status::InvalidArgument("forbidden value %00 in percent-encoded value: \"{}\"", text);
    }
    out.push_back(c);
    i += 2;
  }
  return out;
}

std::string HomeDirectory() {
  std::string home = Env("HOME");
  if (!home.empty()) {
    return home;
  }
  const passwd* entry = getpwuid(geteuid());
  return entry != nullptr && entry->pw_dir != nullptr ? std::string(entry->pw_dir) : "";
}

Status SetParameter(std::string_view name, const std::string& value, PgConnectOptions* o) {
  if (name == "host") {
    o->host = value;
  } else if (name == "port") {
    SHOAL_ASSIGN_OR_RETURN(o->port, ParsePort(value, "the connection URL"));
  } else if (name == "user") {
    o->user = value;
  } else if (name == "dbname") {
    o->dbname = value;
  } else if (name == "sslmode") {
    SHOAL_ASSIGN_OR_RETURN(o->sslmode, ParseSslMode(value));
  } else if (name == "sslrootcert") {
    o->sslrootcert = value;
  } else if (name == "application_name") {
    o->application_name = value;
  } else if (name == "connect_timeout") {
    SHOAL_ASSIGN_OR_RETURN(o->connect_timeout_seconds, ParseSeconds(value, "connect_timeout"));
  } else if (name == "password") {
    return Status::InvalidArgument(
               "a password in the connection URL is refused: command lines are visible to "
               "other users")
        .WithHint("set PGPASSWORD, use --password-file, or answer the password prompt");
  } else {
    return Status::InvalidArgument("invalid URI query parameter: \"{}\"", name);
  }
  return Status::OK();
}

}  // namespace

Result<SslMode> ParseSslMode(std::string_view text) {
  if (text == "disable")
    return SslMode::kDisable;
  if (text == "allow")
    return SslMode::kAllow;
  if (text == "prefer")
    return SslMode::kPrefer;
  if (text == "require")
    return SslMode::kRequire;
  if (text == "verify-ca")
    return SslMode::kVerifyCa;
  if (text == "verify-full")
    return SslMode::kVerifyFull;
  return Status::InvalidArgument("invalid sslmode value: \"{}\"", text)
      .WithHint("use disable, allow, prefer, require, verify-ca or verify-full");
}

std::string_view SslModeName(SslMode mode) {
  switch (mode) {
    case SslMode::kDisable: return "disable";
    case SslMode::kAllow: return "allow";
    case SslMode::kPrefer: return "prefer";
    case SslMode::kRequire: return "require";
    case SslMode::kVerifyCa: return "verify-ca";
    case SslMode::kVerifyFull: return "verify-full";
  }
  return "prefer";
}

Result<PgConnectOptions> ConnectOptionsFromEnvironment() {
  PgConnectOptions o;
  o.host = Env("PGHOST");
  if (std::string port = Env("PGPORT"); !port.empty()) {
    SHOAL_ASSIGN_OR_RETURN(o.port, ParsePort(port, "PGPORT"));
  }
  o.user = Env("PGUSER");
  o.dbname = Env("PGDATABASE");
  o.application_name = Env("PGAPPNAME");
  if (std::string mode = Env("PGSSLMODE"); !mode.empty()) {
    SHOAL_ASSIGN_OR_RETURN(o.sslmode, ParseSslMode(mode));
  }
  o.sslrootcert = Env("PGSSLROOTCERT");
  o.password = Env("PGPASSWORD");
  o.password_file = Env("PGPASSFILE");
  if (std::string timeout = Env("PGCONNECT_TIMEOUT"); !timeout.empty()) {
    SHOAL_ASSIGN_OR_RETURN(o.connect_timeout_seconds, ParseSeconds(timeout, "PGCONNECT_TIMEOUT"));
  }
  return o;
}

bool IsConnectionUri(std::string_view text) {
  return text.substr(0, 13) == "postgresql://" || text.substr(0, 11) == "postgres://";
}

Status ApplyConnectionUri(std::string_view uri, PgConnectOptions* options) {
  if (!IsConnectionUri(uri)) {
    return Status::InvalidArgument(
        "invalid connection URL \"{}\": it must start with postgresql:// or postgres://", uri);
  }
  std::string_view rest = uri.substr(uri.find("://") + 3);
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view path;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  // rest: [user[:password]@]host[:port]
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (userinfo.find(':') != std::string_view::npos) {
      return SetParameter("password", "", options);
    }
    if (!userinfo.empty()) {
      SHOAL_ASSIGN_OR_RETURN(options->user, PercentDecode(userinfo));
    }
  }
  if (rest.find(',') != std::string_view::npos) {
    return Status::NotImplemented("connection URLs with several hosts are not supported: \"{}\"",
                                  uri);
  }
  std::string_view host = rest;
  std::string_view port;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      return Status::InvalidArgument(
          "end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
          "\"{}\"",
          uri);
    }
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        return Status::InvalidArgument(
            "unexpected character \"{}\" after IPv6 host address in URI: \"{}\"", after[0], uri);
      }
      port = after.substr(1);
    }
  } else if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (!host.empty()) {
    SHOAL_ASSIGN_OR_RETURN(options->host, PercentDecode(host));
  }
  if (!port.empty()) {
    SHOAL_ASSIGN_OR_RETURN(options->port, ParsePort(port, "the connection URL"));
  }
  if (!path.empty()) {
    SHOAL_ASSIGN_OR_RETURN(options->dbname, PercentDecode(path));
  }
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) {
      continue;
    }
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(
          "missing key/value separator \"=\" in URI query parameter: "
          "\"{}\"",
          pair);
    }
    SHOAL_ASSIGN_OR_RETURN(std::string name, PercentDecode(pair.substr(0, eq)));
    SHOAL_ASSIGN_OR_RETURN(std::string value, PercentDecode(pair.substr(eq + 1)));
    SHOAL_RETURN_IF_ERROR(SetParameter(name, value, options));
  }
  return Status::OK();
}

Status FinishDefaults(PgConnectOptions* options) {
  if (options->host.empty()) {
    options->host = "localhost";
  }
  if (options->port == 0) {
    options->port = 5432;
  }
  if (options->user.empty()) {
    const passwd* entry = getpwuid(geteuid());
    if (entry == nullptr || entry->pw_name == nullptr) {
      return Status::InvalidArgument("could not look up the local user name: give --user");
    }
    options->user = entry->pw_name;
  }
  if (options->dbname.empty()) {
    options->dbname = options->user;
  }
  if (!options->sslmode) {
    options->sslmode = SslMode::kPrefer;
  }
  if (options->application_name.empty()) {
    options->application_name = "shoal";
  }
  if (options->password_file.empty()) {
    std::string home = HomeDirectory();
    if (!home.empty()) {
      options->password_file = home + "/.pgpass";
    }
  }
  return Status::OK();
}

Result<std::optional<std::string>> LookUpPasswordFile(const std::string& path,
                                                      const PgConnectOptions& options) {
  struct stat info {};
  if (path.empty() || stat(path.c_str(), &info) != 0) {
    return std::optional<std::string>();
  }
  if (!S_ISREG(info.st_mode)) {
    return Status::InvalidArgument("password file \"{}\" is not a plain file", path);
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Status::InvalidArgument(
        "password file \"{}\" has group or world access; permissions should be u=rw (0600) or "
        "less",
        path);
  }
  std::ifstream in(path);
  if (!in) {
    return Status::IoError("{}: cannot open the password file", path);
  }
  const std::string port = std::to_string(options.port);
  const std::string wanted[4] = {options.host, port, options.dbname, options.user};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.empty() || line[0] == '#') {
      continue;
    }
    // Five fields separated by unescaped ':'; the last (the password) takes the rest.
    std::vector<std::string> fields(1);
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        fields.back().push_back(line[++i]);
      } else if (line[i] == ':' && fields.size() < 5) {
        fields.emplace_back();
      } else {
        fields.back().push_back(line[i]);
      }
    }
    if (fields.size() != 5) {
      continue;
    }
    bool match = true;
    for (size_t k = 0; k < 4 && match; ++k) {
      match = fields[k] == "*" || fields[k] == wanted[k];
    }
    if (match) {
      return std::optional<std::string>(fields[4]);
    }
  }
  return std::optional<std::string>();
}

}  // namespace shoal::server

#include "shoal/server/auth_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoal::server {

namespace {

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line.substr(0, line.find('#')));
  std::string f;
  while (in >> f) {
    out.push_back(f);
  }
  return out;
}

std::vector<std::string> List(const std::string& field) {
  std::vector<std::string> out;
  if (field == "all") {
    return out;
  }
  size_t start = 0;
  for (;;) {
    size_t comma = field.find(',', start);
    out.push_back(
        field.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) {
      return out;
    }
    start = comma + 1;
  }
}

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  if (list.empty()) {
    return true;
  }
  for (const auto& x : list) {
    if (x == name) {
      return true;
    }
  }
  return false;
}

Result<std::string> ReadOptional(const std::string& path, bool* exists) {
  std::ifstream in(path, std::ios::binary);
  *exists = static_cast<bool>(in);
  if (!in) {
    return std::string();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<std::vector<HbaRule>> AuthConfig::ParseHba(const std::string& text,
                                                  const std::string& name) {
  std::vector<HbaRule> rules;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto f = Fields(line);
    if (f.empty()) {
      continue;
    }
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument("{} line {}: {}", name, lineno, why)
          .WithHint(
              "a rule is: TYPE DATABASE USER ADDRESS METHOD, e.g. "
              "host all all 127.0.0.1/32 scram-sha-256");
    };
    if (f.size() != 5) {
      return bad(fmt::format("expected 5 fields, found {}", f.size()));
    }
    HbaRule rule;
    rule.line = lineno;
    if (f[0] == "host") {
      rule.type = HbaRule::Type::kHost;
    } else if (f[0] == "hostssl") {
      rule.type = HbaRule::Type::kHostSsl;
    } else if (f[0] == "hostnossl") {
      rule.type = HbaRule::Type::kHostNoSsl;
    } else {
      return bad(fmt::format("unknown connection type '{}' (host, hostssl or hostnossl)", f[0]));
    }
    rule.databases = List(f[1]);
    rule.users = List(f[2]);
    if (f[3] != "all") {
      rule.any_address = false;
      std::string addr = f[3];
      size_t slash = addr.find('/');
      std::string host = addr.substr(0, slash);
      unsigned char buf[16];
      if (inet_pton(AF_INET, host.c_str(), buf) == 1) {
        rule.family = AF_INET;
        rule.address.assign(reinterpret_cast<char*>(buf), 4);
      } else if (inet_pton(AF_INET6, host.c_str(), buf) == 1) {
        rule.family = AF_INET6;
        rule.address.assign(reinterpret_cast<char*>(buf), 16);
      } else {
        return bad(fmt::format("'{}' is not an IP address (or all)", host));
      }
      const int bits = static_cast<int>(rule.address.size()) * 8;
      rule.prefix = bits;
      if (slash != std::string::npos) {
        std::string p = addr.substr(slash + 1);
        if (p.empty() || p.size() > 3 || p.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(p) > bits) {
          return bad(fmt::format("invalid prefix length '/{}'", p));
        }
        rule.prefix = std::stoi(p);
      }
    }
    if (f[4] == "trust") {
      rule.method = AuthMethod::kTrust;
    } else if (f[4] == "scram-sha-256") {
      rule.method = AuthMethod::kScramSha256;
    } else if (f[4] == "reject") {
      rule.method = AuthMethod::kReject;
    } else {
      return bad(fmt::format("unknown method '{}' (trust, scram-sha-256 or reject)", f[4]));
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

Result<AuthConfig> AuthConfig::Load(const std::string& data_dir) {
  AuthConfig config;
  bool exists = false;
  const std::string hba_path = data_dir + "/hba.conf";
  SHOAL_ASSIGN_OR_RETURN(std::string hba, ReadOptional(hba_path, &exists));
  config.has_rules_ = exists;
  SHOAL_ASSIGN_OR_RETURN(config.rules_, ParseHba(hba, hba_path));
  const std::string users_path = data_dir + "/users";
  SHOAL_ASSIGN_OR_RETURN(std::string users, ReadOptional(users_path, &exists));
  std::istringstream in(users);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') {
      continue;
    }
    size_t colon = line.find(':');
    auto verifier = colon == std::string::npos || colon == 0
                        ? Result<ScramVerifier>(Status::InvalidArgument("no user name"))
                        : ScramVerifier::Parse(line.substr(colon + 1));
    if (!verifier.ok()) {
      return Status::InvalidArgument("{} line {}: {}", users_path, lineno,
                                     verifier.status().message())
          .WithHint("write entries with `shoal server passwd USER --data-dir DIR`");
    }
    config.users_[line.substr(0, colon)] = std::move(*verifier);
  }
  SHOAL_ASSIGN_OR_RETURN(config.decoy_secret_, RandomBytes(32));
  return config;
}

std::optional<AuthMethod> AuthConfig::MethodFor(const sockaddr_storage& peer, bool tls,
                                                const std::string& user,
                                                const std::string& database) const {
  if (!has_rules_) {
    return AuthMethod::kTrust;
  }
  std::string address;
  int family = peer.ss_family;
  if (family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&peer);
    address.assign(reinterpret_cast<const char*>(&a->sin_addr), 4);
  } else if (family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&peer);
    address.assign(reinterpret_cast<const char*>(&a->sin6_addr), 16);
    // An IPv4 client on a dual-stack socket: match it against IPv4 rules.
    static const char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\xff', '\xff'};
    if (address.compare(0, 12, std::string(kMapped, 12)) == 0) {
      family = AF_INET;
      address = address.substr(12);
    }
  }
  for (const HbaRule& rule : rules_) {
    if ((rule.type == HbaRule::Type::kHostSsl && !tls) ||
        (rule.type == HbaRule::Type::kHostNoSsl && tls)) {
      continue;
    }
    if (!Contains(rule.databases, database) || !Contains(rule.users, user)) {
      continue;
    }
    if (!rule.any_address) {
      if (rule.family != family || address.size() != rule.address.size()) {
        continue;
      }
      bool match = true;
      for (int bit = 0; bit < rule.prefix && match; ++bit) {
        const auto mask = static_cast<uint8_t>(0x80 >> (bit % 8));
        const size_t byte = static_cast<size_t>(bit / 8);
        match = (static_cast<uint8_t>(address[byte]) & mask) ==
                (static_cast<uint8_t>(rule.address[byte]) & mask);
      }
      if (!match) {
        continue;
      }
    }
    return rule.method;
  }
  return std::nullopt;
}

const ScramVerifier* AuthConfig::VerifierOf(const std::string& user) const {
  auto it = users_.find(user);
  return it == users_.end() ? nullptr : &it->second;
}

ScramVerifier AuthConfig::DecoyVerifier(const std::string& user) const {
  // Salt: a keyed digest of the name, so repeated attempts see the same salt a real user has.
  auto decoy = ScramVerifier::FromPassword(decoy_secret_ + user, decoy_secret_ + user, 1);
  ScramVerifier v;
  v.iterations = 4096;
  v.salt = decoy.ok() ? decoy->stored_key.substr(0, 16) : std::string(16, '\0');
  v.stored_key = decoy.ok() ? decoy->server_key : std::string(32, '\0');  // matches no password
  v.server_key = v.stored_key;
  return v;
}

Status WriteUserEntry(const std::string& data_dir, const std::string& user,
                      const ScramVerifier& verifier) {
  if (user.empty() || user.find_first_of(":\n\r") != std::string::npos) {
    return Status::InvalidArgument(
        "invalid user name '{}': it must not be empty or hold ':' or a "
        "line break",
        user);
  }
  const std::string path = data_dir + "/users";
  bool exists = false;
  SHOAL_ASSIGN_OR_RETURN(std::string old, ReadOptional(path, &exists));
  std::string text;
  std::istringstream in(old);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(user + ":", 0) == 0) {
      continue;
    }
    text += line + "\n";
  }
  text += user + ":" + verifier.ToString() + "\n";
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status::IoError("{}: {}", tmp, std::strerror(errno));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      int err = errno;
      close(fd);
      return Status::IoError("{}: {}", tmp, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    return Status::IoError("{}: {}", tmp, std::strerror(errno));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::IoError("renaming {} to {}: {}", tmp, path, std::strerror(errno));
  }
  return Status::OK();
}

std::string AddressText(const sockaddr_storage& peer) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr, buf, sizeof(buf));
  } else if (peer.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr, buf, sizeof(buf));
  }
  return buf;
}

}  // namespace shoal::server

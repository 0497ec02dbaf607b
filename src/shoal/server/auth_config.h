// Who may connect to `shoal server`, and how they prove it: two small files in the data directory.
//
//   DATA_DIR/hba.conf   rules in pg_hba.conf's form, first match wins, '#' starts a comment:
//                         TYPE      DATABASE  USER      ADDRESS          METHOD
//                         host      all       all       127.0.0.1/32     trust
//                         hostssl   all       alice     10.0.0.0/8       scram-sha-256
//                         host      all       all       all              reject
//                       TYPE is host (TLS or not), hostssl (TLS only) or hostnossl; DATABASE and
//                       USER are `all` or a name (comma-separated lists allowed); ADDRESS is
//                       `all` or an IPv4/IPv6 address with an optional /prefix; METHOD is trust,
//                       scram-sha-256 or reject. A connection no rule matches is refused. Without
//                       the file every connection is trusted (the server says so at start-up).
//   DATA_DIR/users      one line per user, "name:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:
//                       <ServerKey>" (PostgreSQL's verifier form; never a password), written by
//                       `shoal server passwd USER` with mode 0600.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/socket.h>

#include "shoal/common/result.h"
#include "shoal/server/scram.h"

namespace shoal::server {

enum class AuthMethod : uint8_t { kTrust, kScramSha256, kReject };

struct HbaRule {
  enum class Type : uint8_t { kHost, kHostSsl, kHostNoSsl };
  Type type = Type::kHost;
  std::vector<std::string> databases;  // empty: all
  std::vector<std::string> users;      // empty: all
  bool any_address = true;
  int family = AF_INET;  // of `address`
  std::string address;   // 4 or 16 bytes, network order
  int prefix = 0;        // bits of `address` that must match
  AuthMethod method = AuthMethod::kTrust;
  int line = 0;
};

class AuthConfig {
 public:
  /// Reads DATA_DIR/hba.conf and DATA_DIR/users (each optional); a malformed line is an error
  /// naming the file and line.
  static Result<AuthConfig> Load(const std::string& data_dir);
  /// Parses the text of an hba.conf (`name` for messages).
  static Result<std::vector<HbaRule>> ParseHba(const std::string& text, const std::string& name);

  /// Whether hba.conf exists (without it every connection is trusted).
  bool has_rules() const { return has_rules_; }
  /// The method for a connection, or nullopt when no rule matches.
  std::optional<AuthMethod> MethodFor(const sockaddr_storage& peer, bool tls,
                                      const std::string& user, const std::string& database) const;
  /// The verifier of `user`, or null.
  const ScramVerifier* VerifierOf(const std::string& user) const;
  /// A verifier for a user that does not exist: the exchange looks the same (a salt that depends
  /// only on the name, stable across attempts) but no password matches.
  ScramVerifier DecoyVerifier(const std::string& user) const;

 private:
  bool has_rules_ = false;
  std::vector<HbaRule> rules_;
  std::map<std::string, ScramVerifier> users_;
  std::string decoy_secret_;
};

/// Adds or replaces `user`'s entry in DATA_DIR/users (written to a temporary file with mode 0600
/// and renamed over the old one).
Status WriteUserEntry(const std::string& data_dir, const std::string& user,
                      const ScramVerifier& verifier);

/// "127.0.0.1" / "::1" for messages.
std::string AddressText(const sockaddr_storage& peer);

}  // namespace shoal::server

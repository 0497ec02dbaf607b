// Request signing between Shoal nodes (issue 15): every RPC a node makes to a worker carries an
// HMAC-SHA256 token made with the cluster secret, and the worker checks it before it decodes
// anything of the request. The token binds what the call is for: the RPC method, its key (a task
// key, a shuffle query id), an expiry, a one-time nonce and a SHA-256 digest of the request's
// body (the plan and everything that comes with it), so a token cannot be replayed, reused for
// another task or method, or kept while the plan is swapped.
//
// RequestSigner makes tokens; RequestVerifier checks them and remembers the nonces it accepted
// until they expire (a replayed token is refused). Both are independent of gRPC: node_security.h
// carries tokens as call metadata. The secret is never sent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace shoal::distributed {

/// A signed request's token, as it travels (each field printable ASCII).
struct RequestToken {
  std::string key_hex;    // the request's key, hex (keys may hold any byte)
  int64_t expiry_ms = 0;  // Unix time in ms after which the token is refused
  std::string nonce;      // 32 hex digits, random, used once
  std::string digest;     // SHA-256 of the request body, 64 hex digits
  std::string mac;        // HMAC-SHA256 over the fields above and the method, 64 hex digits
};

/// Milliseconds since the Unix epoch; replaceable in tests.
using AuthClock = std::function<int64_t()>;
int64_t SystemClockMs();

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

class RequestSigner {
 public:
  /// `ttl_ms`: how long a token stays valid after signing (tests may pass 0 or less to make
  /// tokens that are already expired).
  RequestSigner(std::string secret, int64_t ttl_ms, AuthClock clock = SystemClockMs);

  /// A token for one call of `method` about `key` whose body has SHA-256 `body_digest` (hex).
  RequestToken Sign(std::string_view method, std::string_view key,
                    std::string_view body_digest) const;

 private:
  std::string secret_;
  int64_t ttl_ms_;
  AuthClock clock_;
};

/// Why a token was refused: kUnauthenticated when the caller did not prove it holds the secret
/// (no token, a malformed or wrong MAC, expired, replayed), kPermissionDenied when a valid token
/// does not cover this request (another key or another body).
enum class AuthOutcome { kOk, kUnauthenticated, kPermissionDenied };

struct AuthResult {
  AuthOutcome outcome = AuthOutcome::kOk;
  std::string message;  // why, for the caller; empty when kOk
  bool ok() const { return outcome == AuthOutcome::kOk; }
};

class RequestVerifier {
 public:
  /// Tokens whose expiry lies more than `max_lifetime_ms` ahead are refused too: a holder of the
  /// secret cannot mint tokens that live for ever, and the nonce memory stays bounded.
  explicit RequestVerifier(std::string secret, int64_t max_lifetime_ms = 10 * 60 * 1000,
                           AuthClock clock = SystemClockMs);

  /// Checks `token`'s MAC for `method`, its expiry and its nonce (remembered on success until
  /// the token expires). Says nothing yet about the body: see CheckBody.
  AuthResult Verify(std::string_view method, const RequestToken& token);

  /// Whether a verified `token` covers the request about `key` with body digest `body_digest`.
  static AuthResult CheckBody(const RequestToken& token, std::string_view key,
                              std::string_view body_digest);

  /// Nonces currently remembered (tests).
  size_t remembered_nonces();

 private:
  void ForgetExpired(int64_t now_ms);

  std::string secret_;
  int64_t max_lifetime_ms_;
  AuthClock clock_;
  std::mutex mutex_;
  std::unordered_map<std::string, int64_t> nonces_;  // nonce -> expiry
  int64_t next_sweep_ms_ = 0;
};

}  // namespace shoal::distributed

// SCRAM-SHA-256 (RFC 5802 with RFC 7677's SHA-256), the server's side of PostgreSQL's
// `scram-sha-256` authentication: the verifier a users file stores for each user, and the
// exchange of one login. Cryptography comes from OpenSSL's libcrypto (PBKDF2-HMAC-SHA-256, HMAC,
// SHA-256, random bytes). Channel binding is not offered (the mechanism is SCRAM-SHA-256, not
// -PLUS), so a client's gs2 header must be "n" or "y". The user name inside the SCRAM messages
// is ignored, as PostgreSQL does: the start-up packet names the user.
#pragma once

#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal::server {

std::string Base64Encode(std::string_view bytes);
/// InvalidArgument for text that is not padded standard base64.
Result<std::string> Base64Decode(std::string_view text);
/// `n` random bytes from the operating system's generator.
Result<std::string> RandomBytes(size_t n);

// The building blocks of SCRAM-SHA-256, shared by the server's exchange (below) and the client's
// (scram_client.h).
std::string HmacSha256(std::string_view key, std::string_view data);
std::string Sha256(std::string_view data);
/// Hi(password, salt, iterations) of RFC 5802: PBKDF2-HMAC-SHA-256, 32 bytes.
Result<std::string> ScramSaltedPassword(std::string_view password, std::string_view salt,
                                        int iterations);

/// What the server keeps for a user: never the password, only what checks a proof of it.
struct ScramVerifier {
  int iterations = 4096;
  std::string salt;        // raw bytes
  std::string stored_key;  // H(HMAC(SaltedPassword, "Client Key"))
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")

  /// Derives the verifier of `password` (a random 16-byte salt when `salt` is empty).
  static Result<ScramVerifier> FromPassword(std::string_view password, std::string salt = "",
                                            int iterations = 4096);
  /// PostgreSQL's text form: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey> (base64).
  static Result<ScramVerifier> Parse(std::string_view text);
  std::string ToString() const;
};

/// One SCRAM exchange on the server. Errors are InvalidArgument with SQLSTATE 08P01 for malformed
/// messages and 28P01 for a wrong password.
class ScramExchange {
 public:
  /// `server_nonce`: printable characters without ',' (RandomNonce()).
  ScramExchange(ScramVerifier verifier, std::string server_nonce);

  /// A fresh nonce: 18 random bytes in base64.
  static Result<std::string> RandomNonce();

  /// client-first-message -> server-first-message.
  Result<std::string> ServerFirst(std::string_view client_first);
  /// client-final-message -> server-final-message ("v=<ServerSignature>") when the proof holds.
  Result<std::string> ServerFinal(std::string_view client_final);

 private:
  ScramVerifier verifier_;
  std::string server_nonce_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string gs2_header_;
  std::string nonce_;  // client nonce + server nonce
};

}  // namespace shoal::server

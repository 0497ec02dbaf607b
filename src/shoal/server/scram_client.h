// SCRAM-SHA-256 (RFC 5802 with RFC 7677's SHA-256), the client's side of PostgreSQL's
// `scram-sha-256` authentication, as PgClient runs it: client-first-message, then the proof in
// client-final-message, then a check of the server's signature, so a server that does not know
// the password's verifier cannot pretend to. No channel binding (gs2 header "n,,"), as the
// server offers none; the user name inside the messages is empty by default, as libpq sends it
// (the start-up packet names the user). The password is used as given (no SASLprep): ASCII
// passwords, the common case, are unchanged by it.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "shoal/common/result.h"

namespace shoal::server {

class ScramClient {
 public:
  /// `client_nonce`: printable characters without ',' (tests fix it; empty: a random one).
  /// `user`: the n= attribute (PostgreSQL ignores it).
  static Result<ScramClient> Make(std::string password, std::string client_nonce = "",
                                  std::string_view user = "");

  /// "n,,n=<user>,r=<nonce>".
  std::string ClientFirst() const;
  /// server-first-message ("r=...,s=...,i=...") -> client-final-message with the proof.
  /// InvalidArgument (08P01) when the server's nonce does not extend ours or a field is bad.
  Result<std::string> ClientFinal(std::string_view server_first);
  /// Checks server-final-message ("v=<ServerSignature>", or "e=<error>").
  Status VerifyServerFinal(std::string_view server_final) const;

 private:
  ScramClient(std::string password, std::string nonce, std::string first_bare)
      : password_(std::move(password)),
        client_nonce_(std::move(nonce)),
        client_first_bare_(std::move(first_bare)) {}

  std::string password_;
  std::string client_nonce_;
  std::string client_first_bare_;
  std::string expected_server_signature_;
};

}  // namespace shoal::server

#include "shoal/server/scram_client.h"

#include <charconv>

#include <openssl/crypto.h>

#include "shoal/server/scram.h"

namespace shoal::server {

namespace {

Status BadServerMessage(std::string_view what) {
  return Status::InvalidArgument("invalid SCRAM message from the server: {}", what)
      .WithSqlState("08P01");
}

}  // namespace

Result<ScramClient> ScramClient::Make(std::string password, std::string client_nonce,
                                      std::string_view user) {
  if (client_nonce.empty()) {
    SHOAL_ASSIGN_OR_RETURN(std::string bytes, RandomBytes(18));
    client_nonce = Base64Encode(bytes);
  }
  // saslname: ',' and '=' are escaped as =2C and =3D (RFC 5802, section 5.1).
  std::string name;
  for (char c : user) {
    name += c == ',' ? "=2C" : c == '=' ? "=3D" : std::string(1, c);
  }
  std::string first_bare = "n=" + name + ",r=" + client_nonce;
  return ScramClient(std::move(password), std::move(client_nonce), std::move(first_bare));
}

std::string ScramClient::ClientFirst() const {
  return "n,," + client_first_bare_;
}

Result<std::string> ScramClient::ClientFinal(std::string_view server_first) {
  // r=<client nonce + server nonce>,s=<salt>,i=<iterations>[,extensions]
  std::string_view nonce;
  std::string_view salt_text;
  std::string_view iterations_text;
  size_t pos = 0;
  while (pos <= server_first.size()) {
    size_t end = server_first.find(',', pos);
    if (end == std::string_view::npos) {
      end = server_first.size();
    }
    std::string_view part = server_first.substr(pos, end - pos);
    if (part.size() < 2 || part[1] != '=') {
      return BadServerMessage("server-first-message is not attribute=value pairs");
    }
    if (part[0] == 'r') {
      nonce = part.substr(2);
    } else if (part[0] == 's') {
      salt_text = part.substr(2);
    } else if (part[0] == 'i') {
      iterations_text = part.substr(2);
    } else if (part[0] == 'm') {
      return BadServerMessage("the server requires an unsupported SCRAM extension");
    }
    pos = end + 1;
  }
  if (nonce.size() <= client_nonce_.size() ||
      nonce.substr(0, client_nonce_.size()) != client_nonce_) {
    return BadServerMessage("the server's nonce does not extend the client's");
  }
  auto salt = Base64Decode(salt_text);
  if (!salt.ok() || salt->empty()) {
    return BadServerMessage("invalid salt");
  }
  int iterations = 0;
  auto [end, ec] = std::from_chars(iterations_text.data(),
                                   iterations_text.data() + iterations_text.size(), iterations);
  if (ec != std::errc() || end != iterations_text.data() + iterations_text.size() ||
      iterations < 1) {
    return BadServerMessage("invalid iteration count");
  }
  SHOAL_ASSIGN_OR_RETURN(std::string salted, ScramSaltedPassword(password_, *salt, iterations));
  const std::string client_key = HmacSha256(salted, "Client Key");
  const std::string stored_key = Sha256(client_key);
  const std::string server_key = HmacSha256(salted, "Server Key");
  OPENSSL_cleanse(salted.data(), salted.size());
  // c=biws is base64 of the gs2 header "n,,".
  const std::string without_proof = "c=biws,r=" + std::string(nonce);
  const std::string auth_message =
      client_first_bare_ + "," + std::string(server_first) + "," + without_proof;
  const std::string client_signature = HmacSha256(stored_key, auth_message);
  std::string proof(client_key.size(), '\0');
  for (size_t i = 0; i < proof.size(); ++i) {
    proof[i] = static_cast<char>(client_key[i] ^ client_signature[i]);
  }
  expected_server_signature_ = HmacSha256(server_key, auth_message);
  return without_proof + ",p=" + Base64Encode(proof);
}

Status ScramClient::VerifyServerFinal(std::string_view server_final) const {
  if (server_final.substr(0, 2) == "e=") {
    return Status::InvalidArgument("SCRAM authentication failed: {}", server_final.substr(2))
        .WithSqlState("28P01");
  }
  if (expected_server_signature_.empty() || server_final.substr(0, 2) != "v=") {
    return BadServerMessage("server-final-message has no signature");
  }
  std::string_view text = server_final.substr(2);
  text = text.substr(0, text.find(','));
  auto signature = Base64Decode(text);
  if (!signature.ok() || signature->size() != expected_server_signature_.size() ||
      CRYPTO_memcmp(signature->data(), expected_server_signature_.data(), signature->size()) != 0) {
    return Status::InvalidArgument(
               "the server's SCRAM signature is wrong: it does not know the password's verifier")
        .WithSqlState("28P01");
  }
  return Status::OK();
}

}  // namespace shoal::server

#include "shoal/server/scram.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace shoal::server {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

Status Malformed(std::string_view what) {
  return Status::InvalidArgument("malformed SCRAM message: {}", what).WithSqlState("08P01");
}

// Splits "a=x,b=y" into attributes; each must be one letter, '=' and a value.
Result<std::vector<std::pair<char, std::string>>> Attributes(std::string_view text) {
  std::vector<std::pair<char, std::string>> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = text.find(',', i);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view part = text.substr(i, end - i);
    if (part.size() < 2 || part[1] != '=') {
      return Malformed(fmt::format("attribute '{}'", part.substr(0, 20)));
    }
    out.emplace_back(part[0], std::string(part.substr(2)));
    i = end + 1;
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = b(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (b(i) << 16) | (b(i + 1) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::InvalidArgument("invalid base64: length {} is not a multiple of 4", text.size());
  }
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int d;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
        d = 0;
      } else {
        const char* p = pad == 0 && c != '\0' ? std::strchr(kAlphabet, c) : nullptr;
        if (p == nullptr) {
          return Status::InvalidArgument("invalid base64 character at {}", i + k);
        }
        d = static_cast<int>(p - kAlphabet);
      }
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out += static_cast<char>((v >> 16) & 0xFF);
    if (pad < 2) {
      out += static_cast<char>((v >> 8) & 0xFF);
    }
    if (pad < 1) {
      out += static_cast<char>(v & 0xFF);
    }
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Sha256(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), SHA256_DIGEST_LENGTH);
}

Result<std::string> ScramSaltedPassword(std::string_view password, std::string_view salt,
                                        int iterations) {
  if (iterations < 1) {
    return Status::InvalidArgument("SCRAM iteration count must be positive, got {}", iterations);
  }
  unsigned char salted[SHA256_DIGEST_LENGTH];
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(), sizeof(salted),
                        salted) != 1) {
    return Status::Internal("PBKDF2 failed");
  }
  std::string out(reinterpret_cast<char*>(salted), sizeof(salted));
  OPENSSL_cleanse(salted, sizeof(salted));
  return out;
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Status::Internal("the random generator failed");
  }
  return out;
}

Result<ScramVerifier> ScramVerifier::FromPassword(std::string_view password, std::string salt,
                                                  int iterations) {
  if (salt.empty()) {
    SHOAL_ASSIGN_OR_RETURN(salt, RandomBytes(16));
  }
  SHOAL_ASSIGN_OR_RETURN(std::string salted_password,
                         ScramSaltedPassword(password, salt, iterations));
  ScramVerifier v;
  v.iterations = iterations;
  v.salt = std::move(salt);
  v.stored_key = Sha256(HmacSha256(salted_password, "Client Key"));
  v.server_key = HmacSha256(salted_password, "Server Key");
  OPENSSL_cleanse(salted_password.data(), salted_password.size());
  return v;
}

Result<ScramVerifier> ScramVerifier::Parse(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument(
        "not a SCRAM-SHA-256 verifier (expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:"
        "<ServerKey>)");
  };
  constexpr std::string_view kPrefix = "SCRAM-SHA-256$";
  if (text.substr(0, kPrefix.size()) != kPrefix) {
    return bad();
  }
  text.remove_prefix(kPrefix.size());
  size_t colon1 = text.find(':');
  size_t dollar = text.find('$');
  if (colon1 == std::string_view::npos || dollar == std::string_view::npos || dollar < colon1) {
    return bad();
  }
  size_t colon2 = text.find(':', dollar);
  if (colon2 == std::string_view::npos) {
    return bad();
  }
  std::string_view iterations = text.substr(0, colon1);
  if (iterations.empty() || iterations.size() > 9 ||
      iterations.find_first_not_of("0123456789") != std::string_view::npos) {
    return bad();
  }
  ScramVerifier v;
  v.iterations = std::stoi(std::string(iterations));
  auto salt = Base64Decode(text.substr(colon1 + 1, dollar - colon1 - 1));
  auto stored = Base64Decode(text.substr(dollar + 1, colon2 - dollar - 1));
  auto server = Base64Decode(text.substr(colon2 + 1));
  if (!salt.ok() || !stored.ok() || !server.ok() || v.iterations < 1 ||
      stored->size() != SHA256_DIGEST_LENGTH || server->size() != SHA256_DIGEST_LENGTH) {
    return bad();
  }
  v.salt = std::move(*salt);
  v.stored_key = std::move(*stored);
  v.server_key = std::move(*server);
  return v;
}

std::string ScramVerifier::ToString() const {
  return fmt::format("SCRAM-SHA-256${}:{}${}:{}", iterations, Base64Encode(salt),
                     Base64Encode(stored_key), Base64Encode(server_key));
}

ScramExchange::ScramExchange(ScramVerifier verifier, std::string server_nonce)
    : verifier_(std::move(verifier)), server_nonce_(std::move(server_nonce)) {}

Result<std::string> ScramExchange::RandomNonce() {
  SHOAL_ASSIGN_OR_RETURN(auto bytes, RandomBytes(18));
  return Base64Encode(bytes);
}

Result<std::string> ScramExchange::ServerFirst(std::string_view client_first) {
  // gs2-header: "n,," or "y,," (no channel binding; an authzid is refused), then the bare part.
  if (client_first.size() < 3 || (client_first[0] != 'n' && client_first[0] != 'y') ||
      client_first[1] != ',') {
    if (!client_first.empty() && client_first[0] == 'p') {
      return Status::InvalidArgument("SCRAM channel binding is not supported")
          .WithSqlState("08P01");
    }
    return Malformed("client-first-message has no gs2 header");
  }
  size_t second = client_first.find(',', 2);
  if (second == std::string_view::npos) {
    return Malformed("client-first-message has no gs2 header");
  }
  if (second != 2) {
    return Status::InvalidArgument("SCRAM authorization identities are not supported")
        .WithSqlState("08P01");
  }
  gs2_header_ = std::string(client_first.substr(0, 3));
  client_first_bare_ = std::string(client_first.substr(3));
  SHOAL_ASSIGN_OR_RETURN(auto attrs, Attributes(client_first_bare_));
  if (attrs.size() < 2 || attrs[0].first != 'n' || attrs[1].first != 'r' ||
      attrs[1].second.empty()) {
    return Malformed("client-first-message must be n=<user>,r=<nonce>");
  }
  if (attrs.size() > 2) {
    return Malformed("unsupported SCRAM extension");
  }
  for (char c : attrs[1].second) {
    if (c < 0x21 || c > 0x7e || c == ',') {
      return Malformed("invalid character in the client nonce");
    }
  }
  nonce_ = attrs[1].second + server_nonce_;
  server_first_ =
      fmt::format("r={},s={},i={}", nonce_, Base64Encode(verifier_.salt), verifier_.iterations);
  return server_first_;
}

Result<std::string> ScramExchange::ServerFinal(std::string_view client_final) {
  if (server_first_.empty()) {
    return Malformed("client-final-message before client-first-message");
  }
  size_t proof_at = client_final.rfind(",p=");
  if (proof_at == std::string_view::npos) {
    return Malformed("client-final-message has no proof");
  }
  std::string_view without_proof = client_final.substr(0, proof_at);
  SHOAL_ASSIGN_OR_RETURN(auto attrs, Attributes(without_proof));
  if (attrs.size() != 2 || attrs[0].first != 'c' || attrs[1].first != 'r') {
    return Malformed("client-final-message must be c=<binding>,r=<nonce>,p=<proof>");
  }
  auto binding = Base64Decode(attrs[0].second);
  if (!binding.ok() || *binding != gs2_header_) {
    return Malformed("channel binding does not match the gs2 header");
  }
  if (attrs[1].second != nonce_) {
    return Malformed("nonce does not match");
  }
  auto proof = Base64Decode(client_final.substr(proof_at + 3));
  if (!proof.ok() || proof->size() != SHA256_DIGEST_LENGTH) {
    return Malformed("invalid client proof");
  }
  const std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string client_signature = HmacSha256(verifier_.stored_key, auth_message);
  std::string client_key(SHA256_DIGEST_LENGTH, '\0');
  for (size_t i = 0; i < client_key.size(); ++i) {
    client_key[i] = static_cast<char>((*proof)[i] ^ client_signature[i]);
  }
  const std::string computed = Sha256(client_key);
  if (CRYPTO_memcmp(computed.data(), verifier_.stored_key.data(), computed.size()) != 0) {
    return Status::InvalidArgument("password authentication failed").WithSqlState("28P01");
  }
  return "v=" + Base64Encode(HmacSha256(verifier_.server_key, auth_message));
}

}  // namespace shoal::server

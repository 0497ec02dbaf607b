#include "shoal/distributed/transport/request_signer.h"

#include <array>
#include <random>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace shoal::distributed {

namespace {

std::string Hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

std::string HexOf(std::string_view text) {
  return Hex(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

bool IsHex(std::string_view text, size_t length) {
  if (text.size() != length)
    return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

// What the MAC covers: each field on its own line, so no field can run into the next (the key
// is hex, the others have fixed alphabets without newlines).
std::string MacInput(std::string_view method, const RequestToken& token) {
  return fmt::format("shoal-request-v1\n{}\n{}\n{}\n{}\n{}", method, token.key_hex, token.expiry_ms,
                     token.nonce, token.digest);
}

std::string Mac(const std::string& secret, std::string_view method, const RequestToken& token) {
  const std::string input = MacInput(method, token);
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), out.data(), &length);
  return Hex(out.data(), length);
}

std::string Nonce() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // OpenSSL's generator failed (no entropy source): fall back to the OS's through the library.
    std::random_device device;
    for (auto& b : bytes)
      b = static_cast<unsigned char>(device());
  }
  return Hex(bytes.data(), bytes.size());
}

}  // namespace

int64_t SystemClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Sha256Hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), out.data(), &length, EVP_sha256(), nullptr);
  return Hex(out.data(), length);
}

RequestSigner::RequestSigner(std::string secret, int64_t ttl_ms, AuthClock clock)
    : secret_(std::move(secret)), ttl_ms_(ttl_ms), clock_(std::move(clock)) {}

RequestToken RequestSigner::Sign(std::string_view method, std::string_view key,
                                 std::string_view body_digest) const {
  RequestToken token;
  token.key_hex = HexOf(key);
  token.expiry_ms = clock_() + ttl_ms_;
  token.nonce = Nonce();
  token.digest = std::string(body_digest);
  token.mac = Mac(secret_, method, token);
  return token;
}

RequestVerifier::RequestVerifier(std::string secret, int64_t max_lifetime_ms, AuthClock clock)
    : secret_(std::move(secret)), max_lifetime_ms_(max_lifetime_ms), clock_(std::move(clock)) {}

AuthResult RequestVerifier::Verify(std::string_view method, const RequestToken& token) {
  auto refuse = [](std::string message) {
    return AuthResult{AuthOutcome::kUnauthenticated, std::move(message)};
  };
  if (token.mac.empty())
    return refuse(fmt::format("{} call is not signed", method));
  if (!IsHex(token.mac, 64) || !IsHex(token.nonce, 32) || !IsHex(token.digest, 64) ||
      token.key_hex.size() % 2 != 0 || !IsHex(token.key_hex, token.key_hex.size()))
    return refuse(fmt::format("{} call carries a malformed signature", method));
  const std::string expected = Mac(secret_, method, token);
  if (CRYPTO_memcmp(expected.data(), token.mac.data(), expected.size()) != 0)
    return refuse(
        fmt::format("{} call has a wrong signature (not signed with this cluster's "
                    "secret, or altered)",
                    method));
  const int64_t now = clock_();
  if (token.expiry_ms < now)
    return refuse(
        fmt::format("{} call's signature expired {} ms ago", method, now - token.expiry_ms));
  if (token.expiry_ms - now > max_lifetime_ms_)
    return refuse(fmt::format("{} call's signature expires in {} ms, more than the {} ms allowed",
                              method, token.expiry_ms - now, max_lifetime_ms_));
  std::lock_guard<std::mutex> lock(mutex_);
  ForgetExpired(now);
  if (!nonces_.emplace(token.nonce, token.expiry_ms).second)
    return refuse(fmt::format("{} call replays a signature already used", method));
  return {};
}

AuthResult RequestVerifier::CheckBody(const RequestToken& token, std::string_view key,
                                      std::string_view body_digest) {
  if (token.key_hex != HexOf(key))
    return {AuthOutcome::kPermissionDenied,
            fmt::format("the signature covers another request than '{}'", key)};
  if (token.digest.size() != body_digest.size() ||
      CRYPTO_memcmp(token.digest.data(), body_digest.data(), body_digest.size()) != 0)
    return {
        AuthOutcome::kPermissionDenied,
        fmt::format("the request '{}' was altered after it was signed (its digest differs)", key)};
  return {};
}

size_t RequestVerifier::remembered_nonces() {
  std::lock_guard<std::mutex> lock(mutex_);
  ForgetExpired(clock_());
  return nonces_.size();
}

// A sweep at most once a second keeps verification O(1) amortised.
void RequestVerifier::ForgetExpired(int64_t now_ms) {
  if (now_ms < next_sweep_ms_)
    return;
  next_sweep_ms_ = now_ms + 1000;
  for (auto it = nonces_.begin(); it != nonces_.end();)
    it = it->second < now_ms ? nonces_.erase(it) : std::next(it);
}

}  // namespace shoal::distributed

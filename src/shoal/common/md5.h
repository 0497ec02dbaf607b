// MD5 (RFC 1321): the md5() SQL function and sqllogictest's "N values hashing to <md5>" results.
// Not for anything security-related.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shoal {

class Md5 {
 public:
  Md5();
  void Update(std::string_view data);
  /// The 32 lowercase hex digits of the digest; the object must not be updated afterwards.
  std::string HexDigest();

 private:
  void Block(const uint8_t* p);

  std::array<uint32_t, 4> state_;
  std::array<uint8_t, 64> buffer_{};
  uint64_t length_ = 0;  // bytes
};

}  // namespace shoal

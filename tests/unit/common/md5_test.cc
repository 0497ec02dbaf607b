#include "shoal/common/md5.h"

#include <gtest/gtest.h>

namespace shoal {
namespace {

std::string Digest(std::string_view s) {
  Md5 md5;
  md5.Update(s);
  return md5.HexDigest();
}

TEST(Md5Test, Rfc1321Vectors) {
  EXPECT_EQ(Digest(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Digest("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(Digest("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Digest("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Digest("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(
      Digest("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
      "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5Test, PiecewiseUpdatesEqualOneUpdate) {
  // Lengths around the 56- and 64-byte padding boundaries, fed in uneven pieces.
  for (size_t length : {55, 56, 57, 63, 64, 65, 127, 128, 200}) {
    std::string data;
    for (size_t i = 0; i < length; ++i)
      data += static_cast<char>('a' + i % 26);
    Md5 pieces;
    for (size_t i = 0; i < data.size(); i += 7)
      pieces.Update(std::string_view(data).substr(i, 7));
    EXPECT_EQ(pieces.HexDigest(), Digest(data)) << length;
  }
}

}  // namespace
}  // namespace shoal

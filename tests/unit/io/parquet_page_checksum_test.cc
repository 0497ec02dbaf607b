// PageChecksum: the CRC-32 of Parquet page headers, folded with carry-less multiplies where the CPU
// has them, against zlib's crc32 (PageChecksumPortable) on every length and alignment around the
// 16- and 64-byte steps the fold takes, and on the standard check value.
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/io/parquet/page_checksum.h"

namespace shoal::io::parquet {
namespace {

TEST(PageChecksumTest, TheCheckValueOfCrc32) {
  constexpr std::string_view kCheck = "123456789";
  const auto* bytes = reinterpret_cast<const uint8_t*>(kCheck.data());
  EXPECT_EQ(PageChecksum(bytes, kCheck.size()), 0xCBF43926u);
  EXPECT_EQ(PageChecksumPortable(bytes, kCheck.size()), 0xCBF43926u);
  EXPECT_EQ(PageChecksum(bytes, 0), 0u);
}

TEST(PageChecksumTest, EqualsZlibOnEveryLengthAndAlignment) {
  std::mt19937_64 random(20261204);
  std::vector<uint8_t> bytes(70000);
  for (auto& b : bytes)
    b = static_cast<uint8_t>(random());
  // Every length to 300 (the folded bulk starts at 64 bytes and moves by 16) at 16 offsets.
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t size = 0; size <= 300; ++size) {
      ASSERT_EQ(PageChecksum(bytes.data() + offset, size),
                PageChecksumPortable(bytes.data() + offset, size))
          << "offset " << offset << ", " << size << " bytes";
    }
  }
  for (int i = 0; i < 2000; ++i) {
    const size_t offset = random() % 64;
    const size_t size = random() % (bytes.size() - offset);
    ASSERT_EQ(PageChecksum(bytes.data() + offset, size),
              PageChecksumPortable(bytes.data() + offset, size))
        << "offset " << offset << ", " << size << " bytes";
  }
}

TEST(PageChecksumTest, AllZerosAndAllOnes) {
  for (uint8_t fill : {uint8_t{0}, uint8_t{0xff}}) {
    const std::vector<uint8_t> bytes(4096 + 7, fill);
    EXPECT_EQ(PageChecksum(bytes.data(), bytes.size()),
              PageChecksumPortable(bytes.data(), bytes.size()));
  }
}

// A flipped bit anywhere changes the checksum (what the reader relies on to refuse a page).
TEST(PageChecksumTest, EverySingleBitFlipChangesIt) {
  std::vector<uint8_t> bytes(200);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 37);
  const uint32_t clean = PageChecksum(bytes.data(), bytes.size());
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ASSERT_NE(PageChecksum(bytes.data(), bytes.size()), clean) << "bit " << bit;
    bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
}

}  // namespace
}  // namespace shoal::io::parquet

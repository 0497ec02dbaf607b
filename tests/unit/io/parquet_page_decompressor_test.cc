// Page decompression for every codec: round trips through the codec libraries, LZ4 in Hadoop's
// framing (and the raw-block fallback), and corrupt or mis-sized input reported as kInvalidData.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "shoal/io/parquet/page_decompressor.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

using format::CompressionCodec;

std::string Sample() {
  std::string s;
  for (int i = 0; i < 2000; ++i)
    s += "value " + std::to_string(i % 97) + ";";
  return s;
}

std::vector<uint8_t> Lz4Block(const std::string& raw) {
  std::vector<uint8_t> out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
  const int n = LZ4_compress_default(raw.data(), reinterpret_cast<char*>(out.data()),
                                     static_cast<int>(raw.size()), static_cast<int>(out.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

void PutBigEndian(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<uint8_t>(v >> shift));
}

Status Decompress(CompressionCodec::type codec, const std::vector<uint8_t>& in, size_t size,
                  std::string* out) {
  out->assign(size, '\0');
  return DecompressPage(codec, in.data(), in.size(), reinterpret_cast<uint8_t*>(out->data()), size);
}

TEST(ParquetPageDecompressorTest, Lz4HadoopFramingWithTwoBlocks) {
  const std::string raw = Sample();
  const std::string a = raw.substr(0, 5000);
  const std::string b = raw.substr(5000);
  std::vector<uint8_t> framed;
  for (const std::string* part : {&a, &b}) {
    const auto block = Lz4Block(*part);
    PutBigEndian(&framed, static_cast<uint32_t>(part->size()));
    PutBigEndian(&framed, static_cast<uint32_t>(block.size()));
    framed.insert(framed.end(), block.begin(), block.end());
  }
  std::string out;
  ASSERT_OK(Decompress(CompressionCodec::LZ4, framed, raw.size(), &out));
  EXPECT_EQ(out, raw);
  // Older writers put a bare LZ4 block under the LZ4 codec.
  ASSERT_OK(Decompress(CompressionCodec::LZ4, Lz4Block(raw), raw.size(), &out));
  EXPECT_EQ(out, raw);
  ASSERT_OK(Decompress(CompressionCodec::LZ4_RAW, Lz4Block(raw), raw.size(), &out));
  EXPECT_EQ(out, raw);
}

TEST(ParquetPageDecompressorTest, ZstdAndGzip) {
  const std::string raw = Sample();
  std::vector<uint8_t> z(ZSTD_compressBound(raw.size()));
  z.resize(ZSTD_compress(z.data(), z.size(), raw.data(), raw.size(), 3));
  std::string out;
  ASSERT_OK(Decompress(CompressionCodec::ZSTD, z, raw.size(), &out));
  EXPECT_EQ(out, raw);
  // zlib format (gzip accepts both headers).
  uLongf n = compressBound(static_cast<uLong>(raw.size()));
  std::vector<uint8_t> g(n);
  ASSERT_EQ(compress(g.data(), &n, reinterpret_cast<const Bytef*>(raw.data()),
                     static_cast<uLong>(raw.size())),
            Z_OK);
  g.resize(n);
  ASSERT_OK(Decompress(CompressionCodec::GZIP, g, raw.size(), &out));
  EXPECT_EQ(out, raw);
}

TEST(ParquetPageDecompressorTest, WrongSizeOrCorruptIsInvalidData) {
  const std::string raw = Sample();
  const auto block = Lz4Block(raw);
  std::string out;
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     Decompress(CompressionCodec::LZ4_RAW, block, raw.size() + 1, &out));
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     Decompress(CompressionCodec::LZ4_RAW, block, raw.size() - 1, &out));
  std::vector<uint8_t> garbage(100, 0xAB);
  for (auto codec : {CompressionCodec::SNAPPY, CompressionCodec::GZIP, CompressionCodec::ZSTD,
                     CompressionCodec::LZ4, CompressionCodec::LZ4_RAW})
    EXPECT_STATUS_CODE(StatusCode::kInvalidData, Decompress(codec, garbage, 1000, &out))
        << CodecName(codec);
  EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                     Decompress(CompressionCodec::BROTLI, garbage, 1000, &out));
}

}  // namespace
}  // namespace shoal::io::parquet

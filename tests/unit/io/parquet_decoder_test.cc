// The Parquet integer and byte-array decoders against byte vectors built by hand from the examples
// of the format's Encodings.md, plus their error cases. Every input gets kDecodePadding zero bytes
// appended, as the reader's page buffers have.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/io/parquet/rle_decoder.h"
#include "tests/support/gtest_util.h"

namespace shoal::io::parquet {
namespace {

std::vector<uint8_t> Padded(std::vector<uint8_t> bytes, size_t* size) {
  *size = bytes.size();
  bytes.resize(bytes.size() + kDecodePadding, 0);
  return bytes;
}

TEST(ParquetRleDecoderTest, BitPackedRunFromSpec) {
  // Values 0..7 at width 3: one group, bytes 10001000 11000110 11111010.
  size_t size = 0;
  auto in = Padded({0x03, 0x88, 0xC6, 0xFA}, &size);
  RleBitPackedDecoder decoder(in.data(), size, 3);
  std::vector<uint32_t> out(8);
  ASSERT_OK(decoder.Decode(out.data(), 8));
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ParquetRleDecoderTest, RleRunThenBitPackedAcrossCalls) {
  size_t size = 0;
  // 10 x value 5, then a bit-packed group 0..7 at width 3.
  auto in = Padded({0x14, 0x05, 0x03, 0x88, 0xC6, 0xFA}, &size);
  RleBitPackedDecoder decoder(in.data(), size, 3);
  std::vector<uint32_t> a(7), b(11);
  ASSERT_OK(decoder.Decode(a.data(), 7));
  ASSERT_OK(decoder.Decode(b.data(), 11));
  EXPECT_EQ(a, std::vector<uint32_t>(7, 5));
  EXPECT_EQ(b, (std::vector<uint32_t>{5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7}));
}

// The streaming scan resumes a bit-packed run wherever a batch ended, mid-group included: every
// split of the run decodes the same values, at widths whose groups end mid-byte and on bytes.
TEST(ParquetRleDecoderTest, BitPackedRunResumedAtAnyValue) {
  for (int width : {1, 3, 5, 8, 13, 32}) {
    SCOPED_TRACE("width " + std::to_string(width));
    std::vector<uint32_t> values(200);
    const uint64_t mask = width == 32 ? 0xFFFFFFFFu : (uint64_t{1} << width) - 1;
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<uint32_t>((i * 2654435761u) & mask);
    std::vector<uint8_t> bytes = {static_cast<uint8_t>((values.size() / 8) << 1 | 1)};
    uint64_t acc = 0;
    int bits = 0;
    for (uint32_t v : values) {
      acc |= static_cast<uint64_t>(v) << bits;
      bits += width;
      while (bits >= 8) {
        bytes.push_back(static_cast<uint8_t>(acc & 0xFF));
        acc >>= 8;
        bits -= 8;
      }
    }
    size_t size = 0;
    auto in = Padded(bytes, &size);
    for (int64_t step : {1, 3, 7, 9, 13, 64}) {
      RleBitPackedDecoder decoder(in.data(), size, width);
      std::vector<uint32_t> out(values.size());
      for (int64_t at = 0; at < static_cast<int64_t>(values.size()); at += step) {
        const int64_t n = std::min<int64_t>(step, static_cast<int64_t>(values.size()) - at);
        ASSERT_OK(decoder.Decode(out.data() + at, n));
      }
      ASSERT_EQ(out, values) << "step " << step;
    }
  }
}

TEST(ParquetRleDecoderTest, WideValuesAndBytes) {
  size_t size = 0;
  // RLE run of 3 x 0x01020304 at width 32 (4 value bytes).
  auto in = Padded({0x06, 0x04, 0x03, 0x02, 0x01}, &size);
  RleBitPackedDecoder decoder(in.data(), size, 32);
  std::vector<uint32_t> out(3);
  ASSERT_OK(decoder.Decode(out.data(), 3));
  EXPECT_EQ(out, std::vector<uint32_t>(3, 0x01020304u));
  // Levels as bytes: a group of 8 one-bit values 10110001 (LSB first).
  auto levels = Padded({0x03, 0x8D}, &size);
  RleBitPackedDecoder level_decoder(levels.data(), size, 1);
  std::vector<uint8_t> bits(8);
  ASSERT_OK(level_decoder.Decode(bits.data(), 8));
  EXPECT_EQ(bits, (std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 1}));
}

TEST(ParquetRleDecoderTest, Errors) {
  size_t size = 0;
  std::vector<uint32_t> out(100);
  auto short_input = Padded({0x14, 0x05}, &size);  // 10 values, 11 wanted
  RleBitPackedDecoder a(short_input.data(), size, 3);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, a.Decode(out.data(), 11));
  auto too_wide = Padded({0x14, 0x09}, &size);  // value 9 at width 3
  RleBitPackedDecoder b(too_wide.data(), size, 3);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, b.Decode(out.data(), 1));
  auto zero_run = Padded({0x00, 0x01}, &size);
  RleBitPackedDecoder c(zero_run.data(), size, 1);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, c.Decode(out.data(), 1));
  auto endless_varint = Padded({0xFF, 0xFF, 0xFF}, &size);
  RleBitPackedDecoder d(endless_varint.data(), size, 1);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, d.Decode(out.data(), 1));
}

TEST(ParquetDeltaDecoderTest, SpecExampleConstantDeltas) {
  // 1, 2, 3, 4, 5: block 128, 4 miniblocks, 5 values, first 1; min delta 1, widths 0.
  size_t size = 0;
  auto in = Padded({0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00}, &size);
  DeltaBinaryPackedDecoder decoder(in.data(), size);
  ASSERT_OK(decoder.Init());
  ASSERT_EQ(decoder.total_values(), 5);
  std::vector<int64_t> out(5);
  ASSERT_OK(decoder.Decode(out.data(), 5));
  EXPECT_EQ(out, (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

TEST(ParquetDeltaDecoderTest, SpecExampleMixedDeltasInTwoCalls) {
  // 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, relative deltas 0,0,0,3,3,3,3 at width 2.
  size_t size = 0;
  auto in = Padded({0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00, 0xC0, 0xFF, 0x00,
                    0x00, 0x00, 0x00, 0x00, 0x00},
                   &size);
  DeltaBinaryPackedDecoder decoder(in.data(), size);
  ASSERT_OK(decoder.Init());
  std::vector<int64_t> out(8);
  ASSERT_OK(decoder.Decode(out.data(), 3));
  ASSERT_OK(decoder.Decode(out.data() + 3, 5));
  EXPECT_EQ(out, (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(decoder.consumed(), size);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, decoder.Decode(out.data(), 1));
}

TEST(ParquetDeltaDecoderTest, BadHeaderAndTruncation) {
  size_t size = 0;
  auto bad_block = Padded({0x07, 0x04, 0x05, 0x02}, &size);  // block size 7
  DeltaBinaryPackedDecoder a(bad_block.data(), size);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, a.Init());
  // Width 2 promised but the miniblock bytes are missing.
  auto cut = Padded({0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00}, &size);
  DeltaBinaryPackedDecoder b(cut.data(), size);
  ASSERT_OK(b.Init());
  std::vector<int64_t> out(8);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, b.Decode(out.data(), 8));
}

std::vector<uint8_t> Cat(std::vector<uint8_t> a, const std::string& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ParquetDeltaDecoderTest, DeltaLengthByteArrayFromSpec) {
  // Lengths 5, 5, 6, 6: first 5, relative deltas 0, 1, 0 at width 1.
  size_t size = 0;
  auto in = Padded(
      Cat({0x80, 0x01, 0x04, 0x04, 0x0A, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00},
          "HelloWorldFoobarABCDEF"),
      &size);
  std::vector<ByteView> out;
  ASSERT_OK(DecodeDeltaLengthByteArray(in.data(), size, 4, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], "Hello");
  EXPECT_EQ(out[1], "World");
  EXPECT_EQ(out[2], "Foobar");
  EXPECT_EQ(out[3], "ABCDEF");
  // One byte short of the data.
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DecodeDeltaLengthByteArray(in.data(), size - 1, 4, &out));
}

TEST(ParquetDeltaDecoderTest, DeltaByteArrayFromSpec) {
  // axis, axle, babble, babyhood: prefixes 0, 2, 0, 3; suffixes axis, le, babble, yhood.
  std::vector<uint8_t> prefixes = {0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x44,
                                   0x01, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0};
  std::vector<uint8_t> suffix_lengths = {0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00,
                                         0x00, 0x00, 0x70, 0x00, 0,    0,    0,    0,
                                         0,    0,    0,    0,    0,    0};
  std::vector<uint8_t> bytes = prefixes;
  bytes.insert(bytes.end(), suffix_lengths.begin(), suffix_lengths.end());
  size_t size = 0;
  auto in = Padded(Cat(bytes, "axislebabbleyhood"), &size);
  std::vector<char> arena;
  std::vector<ByteView> out;
  ASSERT_OK(DecodeDeltaByteArray(in.data(), size, 4, &arena, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], "axis");
  EXPECT_EQ(out[1], "axle");
  EXPECT_EQ(out[2], "babble");
  EXPECT_EQ(out[3], "babyhood");
}

TEST(ParquetDeltaDecoderTest, PrefixLongerThanPreviousValueIsInvalid) {
  // Prefixes 3, 0 (first value cannot share a prefix).
  std::vector<uint8_t> prefixes = {0x80, 0x01, 0x04, 0x02, 0x06, 0x05, 0x00, 0x00, 0x00, 0x00};
  std::vector<uint8_t> lengths = {0x80, 0x01, 0x04, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00};
  std::vector<uint8_t> bytes = prefixes;
  bytes.insert(bytes.end(), lengths.begin(), lengths.end());
  size_t size = 0;
  auto in = Padded(Cat(bytes, "ab"), &size);
  std::vector<char> arena;
  std::vector<ByteView> out;
  EXPECT_STATUS_CODE(StatusCode::kInvalidData,
                     DecodeDeltaByteArray(in.data(), size, 2, &arena, &out));
}

TEST(ParquetUnpackTest, Widths1To64) {
  for (int width = 1; width <= 64; ++width) {
    SCOPED_TRACE(width);
    std::vector<uint64_t> values(37);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      values[i] = (0x9E3779B97F4A7C15ULL * (i + 1)) & mask;
    }
    std::vector<uint8_t> packed((values.size() * static_cast<size_t>(width) + 7) / 8 +
                                kDecodePadding);
    for (size_t i = 0; i < values.size(); ++i)
      for (int b = 0; b < width; ++b)
        if ((values[i] >> b) & 1) {
          const size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
          packed[bit / 8] = static_cast<uint8_t>(packed[bit / 8] | (1u << (bit % 8)));
        }
    std::vector<uint64_t> out(values.size());
    UnpackBits(packed.data(), width, static_cast<int64_t>(values.size()), out.data());
    EXPECT_EQ(out, values);
    if (width <= 32) {
      std::vector<uint32_t> out32(values.size());
      UnpackBits32(packed.data(), width, static_cast<int64_t>(values.size()), out32.data());
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(out32[i], values[i]);
    }
  }
}

}  // namespace
}  // namespace shoal::io::parquet

#include <algorithm>

#include <gtest/gtest.h>

#include "shoal/io/tpch/random_stream.h"
#include "shoal/io/tpch/streams.h"

namespace shoal::io::tpch {
namespace {

int64_t StepNaively(int64_t state, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    state = state * RandomStream::kMultiplier % RandomStream::kModulus;
  return state;
}

TEST(RandomStreamTest, NextStateIsParkMiller) {
  RandomStream rng(1);
  EXPECT_EQ(rng.NextState(), 16807);
  EXPECT_EQ(rng.NextState(), 282475249);
  EXPECT_EQ(rng.NextState(), 1622650073);
  // The published check value of the minimal standard generator: x(10000) from x(0) = 1.
  RandomStream check(1);
  for (int i = 0; i < 10000; ++i)
    check.NextState();
  EXPECT_EQ(check.state(), 1043618065);
}

TEST(RandomStreamTest, MulModMatchesWideArithmetic) {
  const int64_t values[] = {0, 1, 2, 16807, 1 << 30, RandomStream::kModulus - 1, 123456789};
  for (int64_t a : values) {
    for (int64_t b : values) {
      const auto expected =
          static_cast<int64_t>(static_cast<unsigned __int128>(a) * b % RandomStream::kModulus);
      EXPECT_EQ(RandomStream::MulMod(a, b), expected) << a << " * " << b;
    }
  }
}

TEST(RandomStreamTest, SkipAheadEqualsStepping) {
  const int64_t seeds[] = {1, streams::kTextPoolSeed, streams::kLineComment.seed,
                           RandomStream::kModulus - 1};
  const int64_t skips[] = {0, 1, 2, 3, 7, 92, 1000, 65537, 1234567};
  for (int64_t seed : seeds) {
    for (int64_t n : skips) {
      RandomStream skipped(seed);
      skipped.Advance(n);
      EXPECT_EQ(skipped.state(), StepNaively(seed, n)) << "seed " << seed << " n " << n;
    }
  }
}

TEST(RandomStreamTest, SkipAheadComposes) {
  // Large jumps, as a worker starting deep into SF 1000 lineitem makes: a + b in one jump equals
  // a then b, and the period is 2^31 - 2.
  RandomStream one(streams::kLinePartKey.seed);
  one.Advance(6'000'000'000 * 7 + 12345);
  RandomStream two(streams::kLinePartKey.seed);
  two.Advance(6'000'000'000 * 7);
  two.Advance(12345);
  EXPECT_EQ(one.state(), two.state());
  RandomStream full(42);
  full.Advance(RandomStream::kModulus - 1);
  EXPECT_EQ(full.state(), 42);
}

TEST(RandomStreamTest, UniformMapsLikeTheReference) {
  // dbgen: low + (long)((double)state / (2^31 - 1) * (high - low + 1)).
  RandomStream rng(1);
  EXPECT_EQ(rng.Uniform(1, 100), 1 + static_cast<int64_t>(16807 / 2147483647.0 * 100));
  RandomStream high(RandomStream::kModulus - 1);  // next state: kModulus - 16807
  EXPECT_EQ(high.Uniform(0, 9), 9);
  for (int i = 0; i < 1000; ++i) {
    int64_t v = rng.Uniform(-99999, 999999);
    EXPECT_GE(v, -99999);
    EXPECT_LE(v, 999999);
  }
}

TEST(RandomStreamTest, IntegerUniformEqualsTheDoublePath) {
  // Uniform() skips the double arithmetic for ranges below 2^21; it must agree with the reference
  // mapping for every state. Check many states against ranges from tiny to just below the limit,
  // and the states where the exact quotient is closest to an integer.
  const int64_t ranges[] = {
      1,   2,    3,    5,     7,     11,      25,     50,     92,           100,
      456, 2406, 9999, 10000, 99901, 1099999, 150000, 200000, (1 << 21) - 1};
  for (int64_t range : ranges) {
    RandomStream fast(streams::kOrderCustKey.seed);
    RandomStream reference(streams::kOrderCustKey.seed);
    for (int i = 0; i < 20000; ++i)
      ASSERT_EQ(fast.Uniform(7, 7 + range - 1), reference.UniformReference(7, 7 + range - 1));
    // state = ceil(k·M / range) and floor(k·M / range): the quotient just above / below k.
    for (int64_t k = 1; k < std::min<int64_t>(range, 2000); ++k) {
      for (int64_t state :
           {(k * RandomStream::kModulus + range - 1) / range, k * RandomStream::kModulus / range}) {
        if (state <= 0 || state >= RandomStream::kModulus)
          continue;
        // Uniform() draws the next state, so start one step before `state`.
        const int64_t before =
            RandomStream::MulMod(state, RandomStream::MultiplierPower(RandomStream::kModulus - 2));
        RandomStream a(before);
        RandomStream b(before);
        ASSERT_EQ(a.Uniform(0, range - 1), b.UniformReference(0, range - 1))
            << "range " << range << " state " << state;
      }
    }
  }
}

TEST(RandomStreamTest, AlphaNumBitsAreNegative) {
  RandomStream rng(streams::kCustAddress.seed);
  for (int i = 0; i < 100; ++i)
    EXPECT_LE(rng.NextAlphaNumBits(), 0);
}

TEST(RowStreamTest, SeekRowEqualsNextRow) {
  RowStream walked(streams::kCustAddress);
  for (int64_t row = 0; row < 50; ++row) {
    RowStream sought(streams::kCustAddress);
    sought.SeekRow(row);
    EXPECT_EQ(sought.rng().state(), walked.rng().state()) << "row " << row;
    // Whatever a row draws, the next row starts at the same place.
    for (int64_t i = 0; i < row % 9; ++i)
      walked.Uniform(0, 10);
    walked.NextRow();
  }
}

TEST(RowStreamTest, RowStartIsSeedTimesBudgetPower) {
  RowStream s(streams::kLineComment);
  s.SeekRow(1000);
  EXPECT_EQ(s.rng().state(), StepNaively(streams::kLineComment.seed, 1000 * 14));
}

}  // namespace
}  // namespace shoal::io::tpch

// RandomStream: the Park–Miller "minimal standard" Lehmer generator every TPC-H value is drawn
// from, with the reference generator's (dbgen's) mapping to bounded integers and O(log n)
// skip-ahead.
//
// dbgen keeps one stream per column (roughly), each the sequence x' = 16807·x mod (2^31 − 1) from
// its own seed. After every row it moves each stream of the table on to a fixed per-row budget of
// draws, whether the row used them all or not. The state at the start of row r is therefore
// seed·16807^(budget·r) mod (2^31 − 1), which modular exponentiation computes in ~60
// multiplications, so a worker can start at any row without stepping through the rows before it.
#pragma once

#include <cstdint>

namespace shoal::io::tpch {

/// A stream's starting state and how many draws dbgen reserves for it per row.
struct StreamSpec {
  int64_t seed;
  int64_t draws_per_row;
};

class RandomStream {
 public:
  static constexpr int64_t kModulus = 2147483647;  // 2^31 - 1, a Mersenne prime
  static constexpr int64_t kMultiplier = 16807;    // 7^5, a primitive root of kModulus

  constexpr RandomStream() = default;

  explicit constexpr RandomStream(int64_t state) : state_(state) {}

  /// a·b mod kModulus for residues a, b in [0, kModulus).
  static constexpr int64_t MulMod(int64_t a, int64_t b) {
    uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);  // < 2^62
    // 2^31 ≡ 1 (mod 2^31 - 1), so the high bits fold onto the low bits.
    p = (p & kModulus) + (p >> 31);
    p = (p & kModulus) + (p >> 31);
    return static_cast<int64_t>(p >= static_cast<uint64_t>(kModulus) ? p - kModulus : p);
  }

  /// kMultiplier^n mod kModulus: the factor that moves a stream n draws ahead.
  static constexpr int64_t MultiplierPower(int64_t n) {
    int64_t result = 1;
    int64_t base = kMultiplier;
    while (n > 0) {
      if (n & 1)
        result = MulMod(result, base);
      base = MulMod(base, base);
      n >>= 1;
    }
    return result;
  }

  int64_t state() const { return state_; }

  /// Skips n draws.
  void Advance(int64_t n) { state_ = MulMod(state_, MultiplierPower(n)); }

  /// One step of the raw sequence; returns the new state, in [1, kModulus).
  int64_t NextState() {
    uint64_t p = static_cast<uint64_t>(state_) * kMultiplier;  // < 2^46: one fold suffices
    p = (p & kModulus) + (p >> 31);
    state_ = static_cast<int64_t>(p >= static_cast<uint64_t>(kModulus) ? p - kModulus : p);
    return state_;
  }

  /// A draw in [low, high], mapped as dbgen does: low + trunc(state / kModulus · range), computed
  /// in doubles. The rounding of that double path is part of the data. For ranges below 2^21 the
  /// exact integer quotient state · range / kModulus is provably the same number (see
  /// UniformReference) and cheaper, so that is what runs.
  int64_t Uniform(int64_t low, int64_t high) {
    const int64_t range = high - low + 1;
    NextState();
    if (range > 0 && range < kExactRangeLimit) [[likely]] {
      return low + static_cast<int64_t>(static_cast<uint64_t>(state_) *
                                        static_cast<uint64_t>(range) / kModulus);
    }
    return low + static_cast<int64_t>((static_cast<double>(state_) / kModulusDouble) *
                                      static_cast<double>(range));
  }

  /// Uniform() exactly as the reference computes it, always through doubles. Equal to Uniform()
  /// for every state and range: the double result x·(1 + δ), |δ| <= 2^-52, of x = state·range /
  /// kModulus truncates differently from x only if x lies within range·2^-52 of an integer, but
  /// x is never an integer (kModulus is prime) so its distance to one is at least 1/kModulus
  /// > 2^-31, which exceeds range·2^-52 for every range < 2^21. Kept for tests.
  int64_t UniformReference(int64_t low, int64_t high) {
    const double range = static_cast<double>(high - low + 1);
    return low + static_cast<int64_t>((static_cast<double>(NextState()) / kModulusDouble) * range);
  }

  /// The draw dbgen's random-string routine asks for as "[0, 2^31 − 1]". Its range computation
  /// overflows 32 bits to −2^31, so the value is negative; callers take 6 bits at a time from its
  /// two's-complement form, and the output depends on exactly that.
  int64_t NextAlphaNumBits() {
    return static_cast<int64_t>((static_cast<double>(NextState()) / kModulusDouble) *
                                -2147483648.0);
  }

 private:
  static constexpr double kModulusDouble = 2147483647.0;
  static constexpr int64_t kExactRangeLimit = int64_t{1} << 21;

  int64_t state_ = 1;
};

/// A stream that is realigned to a fixed number of draws per row, as dbgen does for every column
/// stream: Next*() draws within the current row, NextRow() jumps to the next row's start whatever
/// the row consumed, SeekRow() jumps to any row.
class RowStream {
 public:
  explicit constexpr RowStream(StreamSpec spec)
      : seed_(spec.seed),
        row_factor_(RandomStream::MultiplierPower(spec.draws_per_row)),
        draws_per_row_(spec.draws_per_row),
        row_start_(spec.seed),
        rng_(spec.seed) {}

  /// Positions the stream at the start of row `row` (0-based).
  void SeekRow(int64_t row) {
    row_start_ = RandomStream::MulMod(seed_, RandomStream::MultiplierPower(row * draws_per_row_));
    rng_ = RandomStream(row_start_);
  }

  void NextRow() {
    row_start_ = RandomStream::MulMod(row_start_, row_factor_);
    rng_ = RandomStream(row_start_);
  }

  int64_t Uniform(int64_t low, int64_t high) { return rng_.Uniform(low, high); }

  RandomStream& rng() { return rng_; }

 private:
  int64_t seed_;
  int64_t row_factor_;
  int64_t draws_per_row_;
  int64_t row_start_;
  RandomStream rng_;
};

}  // namespace shoal::io::tpch

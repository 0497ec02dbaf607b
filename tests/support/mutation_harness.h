// Test support: the driver of the mutation tests under tests/fuzz (readers of outside bytes --
// Arrow IPC, Parquet, CSV/TBL, SQL text -- fed thousands of corrupted inputs).
//
// Each test brings its corpus, its mutator (format-aware: where the metadata is, which tokens
// hurt) and what one iteration reads; the harness brings the rest, the same for all of them:
//  - the seed and the iteration count from SHOAL_FUZZ_SEED / SHOAL_FUZZ_ITERATIONS (defaults per
//    test), so a run is deterministic and a failure reproducible;
//  - MutationRng, the random draws mutators make, and the byte operations they share;
//  - MutationStats: outcomes counted by status code, every unexpected one a failure printed with
//    the iteration and the input's name;
//  - the failing input itself: the first failure of an iteration writes the mutated input to a
//    file ($SHOAL_FUZZ_FAILURE_DIR, default the temp directory) and prints how to rerun exactly
//    that iteration;
//  - the summary (seed, iterations, reads, batches, outcomes, time) and the verdict: no failure,
//    and some mutant refused with the codes the test names (or the reader is not looking).
//
//   MutationHarness harness("csv mutation test", 20241129, 2000);
//   Mutator mutator(harness.seed());
//   harness.Run([&](int64_t i, MutationStats* stats) {
//     std::string mutant = mutator.Mutate(corpus[i % corpus.size()]);
//     stats->SetInput(corpus[i % corpus.size()].name, mutant);
//     stats->Check(Read(mutant, stats), fmt::format("iteration {}", i), kAcceptable);
//   });
//   return harness.Finish({"InvalidData"});
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/status.h"

namespace shoal::testing {

/// The integer in environment variable `name`, or `fallback` when unset or empty.
int64_t EnvInt(const char* name, int64_t fallback);

/// The random draws of a mutator, from one seeded generator (so a seed names a whole run).
class MutationRng {
 public:
  explicit MutationRng(uint64_t seed) : engine_(seed) {}

  /// In [0, n) by modulo (0 when n is 0).
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(engine_() % n); }

  /// In [lo, hi], uniformly.
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(engine_);
  }

  uint64_t Next() { return engine_(); }

  /// A copy of `bytes` with `1 + Below(max_rounds)` rounds of `edit` applied (fewer once empty).
  template <typename Edit>
  std::string EditRounds(std::string bytes, size_t max_rounds, Edit&& edit) {
    const size_t rounds = 1 + Below(max_rounds);
    for (size_t r = 0; r < rounds && !bytes.empty(); ++r)
      edit(&bytes);
    return bytes;
  }

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

/// Byte edits the binary and text mutators share; positions and lengths are clamped to `b`.
namespace mutate {

inline void FlipBit(std::string* b, size_t at, int bit) {
  if (at < b->size())
    (*b)[at] = static_cast<char>((*b)[at] ^ (1 << bit));
}

inline void Truncate(std::string* b, size_t at) {
  if (at < b->size())
    b->resize(at);
}

inline void EraseRange(std::string* b, size_t at, size_t n) {
  if (at < b->size())
    b->erase(at, std::min(n, b->size() - at));
}

/// Inserts at `at` a copy of the `n` bytes at `from`.
inline void DuplicateRange(std::string* b, size_t from, size_t at, size_t n) {
  if (from < b->size() && at <= b->size())
    b->insert(at, b->substr(from, std::min(n, b->size() - from)));
}

/// Overwrites the bytes at `at` with `v` in memory order (little-endian here), if it fits.
template <typename T>
void Put(std::string* b, size_t at, T v) {
  if (at + sizeof(T) <= b->size())
    std::memcpy(b->data() + at, &v, sizeof(T));
}

}  // namespace mutate

/// The outcomes of a run (or of reading the clean corpus).
class MutationStats {
 public:
  /// Counts `status` under its code's name ("OK", "InvalidData"); a code outside `accepted` (OK
  /// always is) is a failure, printed with `what`.
  void Check(const Status& status, std::string_view what,
             std::initializer_list<StatusCode> accepted);
  /// The same with a rule of the test's own (the SQL test refuses kInternal and empty messages).
  void Check(const Status& status, std::string_view what,
             const std::function<bool(const Status&)>& acceptable);
  /// A failure that is not a status (a batch that does not validate), printed with `what`.
  void Fail(std::string_view what, std::string_view why);

  /// The input of the current iteration: saved to a file if the iteration fails.
  void SetInput(std::string_view name, std::string_view bytes);

  int64_t Count(std::string_view outcome) const;

  int64_t reads = 0;
  int64_t batches = 0;
  int failures = 0;
  std::map<std::string, int64_t, std::less<>> outcomes;

 private:
  friend class MutationHarness;
  std::string input_name_;
  std::string input_;
};

class MutationHarness {
 public:
  /// `name` opens every line the harness prints ("csv mutation test").
  MutationHarness(std::string name, uint64_t default_seed, int64_t default_iterations);

  uint64_t seed() const { return seed_; }

  int64_t iterations() const { return iterations_; }

  /// Outcomes of the unmutated corpus, which must read cleanly or the mutations prove nothing;
  /// their failures count in the verdict.
  MutationStats& clean() { return clean_; }

  MutationStats& stats() { return stats_; }

  /// Calls `iteration(i, &stats())` for i in [0, iterations()), stopping early after 20 failures;
  /// saves the input of each failing iteration (see SetInput).
  void Run(const std::function<void(int64_t iteration, MutationStats* stats)>& iteration);

  /// One iteration of RunOverCorpus: its number, "iteration N (input name)" for messages, and
  /// the stats to count outcomes in.
  struct Iteration {
    int64_t index;
    std::string what;
    MutationStats* stats;
  };

  /// Run() over a corpus of inputs that have a `name`: iteration i mutates input i % size with
  /// `mutate(input)` (a std::string), records the mutant as the iteration's input, and hands it to
  /// `read(input, mutant, iteration)`.
  template <typename Input, typename Mutate, typename Read>
  void RunOverCorpus(const std::vector<Input>& corpus, Mutate&& mutate, Read&& read) {
    Run([&](int64_t i, MutationStats* stats) {
      const Input& in = corpus[static_cast<size_t>(i) % corpus.size()];
      const std::string mutant = mutate(in);
      stats->SetInput(in.name, mutant);
      read(in, mutant,
           Iteration{i, "iteration " + std::to_string(i) + " (" + in.name + ")", stats});
    });
  }

  /// Prints the summary (with `detail`, e.g. "over 12 inputs") and returns the exit status: 1
  /// on any failure, or when no mutant got one of the `must_refuse` outcomes in a run of at
  /// least 100 iterations; else 0.
  int Finish(std::initializer_list<std::string_view> must_refuse, std::string_view detail = "");

 private:
  void SaveInput(int64_t iteration);

  const std::string name_;
  const uint64_t seed_;
  const int64_t iterations_;
  const std::chrono::steady_clock::time_point start_;
  int64_t ran_ = 0;
  MutationStats clean_;
  MutationStats stats_;
};

}  // namespace shoal::testing

#include "tests/support/mutation_harness.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace shoal::testing {

namespace {

constexpr int kMaxFailures = 20;

std::string OutcomeName(const Status& status) {
  return status.ok() ? "OK" : std::string(StatusCodeName(status.code()));
}

}  // namespace

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

void MutationStats::Check(const Status& status, std::string_view what,
                          std::initializer_list<StatusCode> accepted) {
  Check(status, what, [accepted](const Status& st) {
    for (StatusCode code : accepted) {
      if (st.code() == code)
        return true;
    }
    return st.ok();
  });
}

void MutationStats::Check(const Status& status, std::string_view what,
                          const std::function<bool(const Status&)>& acceptable) {
  outcomes[OutcomeName(status)]++;
  if (status.ok() || acceptable(status))
    return;
  Fail(what, "unexpected status " + status.ToString());
}

void MutationStats::Fail(std::string_view what, std::string_view why) {
  ++failures;
  std::fprintf(stderr, "FAIL %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(why.size()), why.data());
}

void MutationStats::SetInput(std::string_view name, std::string_view bytes) {
  input_name_ = name;
  input_ = bytes;
}

int64_t MutationStats::Count(std::string_view outcome) const {
  auto it = outcomes.find(outcome);
  return it == outcomes.end() ? 0 : it->second;
}

MutationHarness::MutationHarness(std::string name, uint64_t default_seed,
                                 int64_t default_iterations)
    : name_(std::move(name)),
      seed_(static_cast<uint64_t>(EnvInt("SHOAL_FUZZ_SEED", static_cast<int64_t>(default_seed)))),
      iterations_(EnvInt("SHOAL_FUZZ_ITERATIONS", default_iterations)),
      start_(std::chrono::steady_clock::now()) {}

void MutationHarness::Run(
    const std::function<void(int64_t iteration, MutationStats* stats)>& iteration) {
  for (int64_t i = 0; i < iterations_; ++i) {
    const int failures_before = stats_.failures;
    stats_.input_.clear();
    stats_.input_name_.clear();
    iteration(i, &stats_);
    ++ran_;
    if (stats_.failures > failures_before)
      SaveInput(i);
    if (stats_.failures > kMaxFailures) {
      std::fprintf(stderr, "%s: stopping after %d failures\n", name_.c_str(), stats_.failures);
      break;
    }
  }
}

void MutationHarness::SaveInput(int64_t iteration) {
  const char* dir_env = std::getenv("SHOAL_FUZZ_FAILURE_DIR");
  const std::filesystem::path dir =
      dir_env && *dir_env ? std::filesystem::path(dir_env) : std::filesystem::temp_directory_path();
  std::string stem = name_;
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  }
  const std::filesystem::path path =
      dir / (stem + "_" + std::to_string(::getpid()) + "_iteration_" + std::to_string(iteration));
  if (!stats_.input_.empty()) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << stats_.input_;
    std::fprintf(stderr, "  the failing input (a mutant of %s, %zu bytes) is in %s\n",
                 stats_.input_name_.c_str(), stats_.input_.size(), path.c_str());
  }
  std::fprintf(stderr,
               "  reproduce: SHOAL_FUZZ_SEED=%llu SHOAL_FUZZ_ITERATIONS=%lld (this iteration is "
               "the last one run)\n",
               static_cast<unsigned long long>(seed_), static_cast<long long>(iteration + 1));
}

int MutationHarness::Finish(std::initializer_list<std::string_view> must_refuse,
                            std::string_view detail) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::printf(
      "%s: seed %llu, %lld of %lld iterations%s%.*s, %lld reads, %lld batches returned, "
      "%.1f s\n",
      name_.c_str(), static_cast<unsigned long long>(seed_), static_cast<long long>(ran_),
      static_cast<long long>(iterations_), detail.empty() ? "" : " ",
      static_cast<int>(detail.size()), detail.data(), static_cast<long long>(stats_.reads),
      static_cast<long long>(stats_.batches), seconds);
  for (const auto& [code, n] : stats_.outcomes)
    std::printf("  %-16s %lld\n", code.c_str(), static_cast<long long>(n));
  const int failures = clean_.failures + stats_.failures;
  if (failures > 0) {
    std::printf("FAILED: %d unexpected outcomes\n", failures);
    return 1;
  }
  if (must_refuse.size() > 0 && iterations_ >= 100) {
    int64_t refused = 0;
    std::string names;
    for (std::string_view outcome : must_refuse) {
      refused += stats_.Count(outcome);
      names += (names.empty() ? "" : " or ") + std::string(outcome);
    }
    if (refused == 0) {
      std::printf("FAILED: no mutation was refused as %s\n", names.c_str());
      return 1;
    }
  }
  std::printf("PASSED\n");
  return 0;
}

}  // namespace shoal::testing

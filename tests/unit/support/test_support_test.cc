// The test helpers themselves: a helper that cannot fail would make every test using it a test
// that cannot fail. Golden-file diffs and updates, waits that time out, and the mutation
// harness's verdicts.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/golden_file.h"
#include "tests/support/mutation_harness.h"
#include "tests/support/wait.h"

namespace shoal::testing {
namespace {

namespace fs = std::filesystem;

TEST(GoldenFileTest, LineDiffShowsChangedLinesWithContextAndLineNumbers) {
  EXPECT_EQ(LineDiff("a\nb\n", "a\nb\n"), "");
  const std::string diff =
      LineDiff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n");
  EXPECT_EQ(diff,
            "@@ golden line 2, actual line 2 @@\n"
            "  2\n"
            "  3\n"
            "-4\n"
            "+four\n"
            "  5\n"
            "  6\n"
            "@@ golden line 8, actual line 8 @@\n"
            "  8\n"
            "  9\n"
            "+10\n")
      << diff;
  EXPECT_NE(LineDiff("a\n", "a").find("newline at the end"), std::string::npos);
  const std::string cut = LineDiff(std::string(200, '\n'), std::string(200, 'x'), 10);
  EXPECT_NE(cut.find("cut short"), std::string::npos) << cut;
}

TEST(GoldenFileTest, MismatchFailsWithTheDiffAndUpdateRewrites) {
  const fs::path path =
      fs::temp_directory_path() / ("shoal_golden_test_" + std::to_string(::getpid()) + ".txt");
  ::unsetenv("SHOAL_UPDATE_GOLDEN");
  fs::remove(path);
  ::testing::AssertionResult missing = MatchesGoldenFile("x\n", path.string());
  EXPECT_FALSE(missing);
  EXPECT_NE(std::string(missing.message()).find("SHOAL_UPDATE_GOLDEN=1"), std::string::npos);
  std::ofstream(path) << "plan\n  scan a\n";
  EXPECT_TRUE(MatchesGoldenFile("plan\n  scan a\n", path.string()));
  ::testing::AssertionResult differs = MatchesGoldenFile("plan\n  scan b\n", path.string());
  EXPECT_FALSE(differs);
  EXPECT_NE(std::string(differs.message()).find("-  scan a\n+  scan b\n"), std::string::npos)
      << differs.message();
  ::setenv("SHOAL_UPDATE_GOLDEN", "1", 1);
  EXPECT_TRUE(UpdatingGoldenFiles());
  EXPECT_TRUE(MatchesGoldenFile("plan\n  scan b\n", path.string()));
  ::unsetenv("SHOAL_UPDATE_GOLDEN");
  EXPECT_TRUE(MatchesGoldenFile("plan\n  scan b\n", path.string()));  // what was written
  fs::remove(path);
}

TEST(WaitTest, WaitForSeesAStateReachedElsewhereAndTimesOutNamingIt) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag = true; });
  EXPECT_TRUE(WaitFor([&] { return flag.load(); }, "the flag"));
  setter.join();
  ::testing::AssertionResult never =
      WaitFor([] { return false; }, "the impossible", std::chrono::milliseconds(20));
  EXPECT_FALSE(never);
  EXPECT_NE(std::string(never.message()).find("waiting for the impossible"), std::string::npos)
      << never.message();
}

TEST(WaitTest, HoldsForFailsWhenThePredicateStopsHolding) {
  EXPECT_TRUE(HoldsFor([] { return true; }, "truth", std::chrono::milliseconds(20)));
  int polls = 0;
  ::testing::AssertionResult broken =
      HoldsFor([&] { return ++polls < 3; }, "the count", std::chrono::seconds(10));
  EXPECT_FALSE(broken);
  EXPECT_NE(std::string(broken.message()).find("the count stopped holding"), std::string::npos);
}

TEST(MutationHarnessTest, CountsOutcomesAndJudgesTheRun) {
  MutationStats stats;
  stats.Check(Status::OK(), "a", {StatusCode::kInvalidData});
  stats.Check(Status::InvalidData("bad"), "b", {StatusCode::kInvalidData});
  EXPECT_EQ(stats.failures, 0);
  stats.Check(Status::Internal("bug"), "c", {StatusCode::kInvalidData});
  EXPECT_EQ(stats.failures, 1);
  EXPECT_EQ(stats.Count("OK"), 1);
  EXPECT_EQ(stats.Count("InvalidData"), 1);
  EXPECT_EQ(stats.Count("Internal"), 1);
  stats.Check(Status::Internal("fine here"), "d", [](const Status&) { return true; });
  EXPECT_EQ(stats.failures, 1);
}

TEST(MutationHarnessTest, SavesTheFailingInputAndFailsTheRun) {
  const fs::path dir =
      fs::temp_directory_path() / ("shoal_mutation_harness_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("SHOAL_FUZZ_FAILURE_DIR", dir.c_str(), 1);
  ::setenv("SHOAL_FUZZ_ITERATIONS", "150", 1);
  ::unsetenv("SHOAL_FUZZ_SEED");
  {
    MutationHarness harness("harness test", 7, 5);
    EXPECT_EQ(harness.seed(), 7u);
    EXPECT_EQ(harness.iterations(), 150);
    harness.Run([](int64_t i, MutationStats* stats) {
      stats->SetInput("corpus", "mutant " + std::to_string(i));
      stats->Check(i == 3 ? Status::Internal("boom") : Status::InvalidData("refused"), "it",
                   {StatusCode::kInvalidData});
    });
    EXPECT_EQ(harness.Finish({"InvalidData"}), 1);
  }
  int saved = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++saved;
    EXPECT_NE(entry.path().filename().string().find("iteration_3"), std::string::npos);
    EXPECT_TRUE(MatchesGoldenFile("mutant 3", entry.path().string()));  // its content
  }
  EXPECT_EQ(saved, 1);
  {
    // Nothing refused in a long enough run: the reader is not looking.
    MutationHarness harness("harness test", 7, 5);
    harness.Run([](int64_t, MutationStats* stats) { stats->Check(Status::OK(), "it", {}); });
    EXPECT_EQ(harness.Finish({"InvalidData"}), 1);
    MutationHarness fine("harness test", 7, 5);
    fine.Run([](int64_t, MutationStats* stats) {
      stats->Check(Status::InvalidData("x"), "it", {StatusCode::kInvalidData});
    });
    EXPECT_EQ(fine.Finish({"InvalidData"}), 0);
  }
  ::unsetenv("SHOAL_FUZZ_FAILURE_DIR");
  ::unsetenv("SHOAL_FUZZ_ITERATIONS");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace shoal::testing

#include "tests/slt/slt_main.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/slt/engine_registry.h"
#include "tests/slt/fake_engine.h"

namespace shoal::slt {
namespace {

namespace fs = std::filesystem;

class SltMainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearSltEngines();
    dir_ = fs::temp_directory_path() /
           fmt::format("shoal_slt_test_{}_{}", getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    script_.On("SELECT 1", Ints({"1"}));
  }

  void TearDown() override {
    ClearSltEngines();
    fs::remove_all(dir_);
  }

  std::string Write(const std::string& relative, const std::string& text) {
    fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  int Run(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    return RunSltCommand(args, out_, err_);
  }

  // The last line of stdout, which must be the summary.
  std::string Summary() {
    std::string text = out_.str();
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    size_t start = text.rfind('\n', text.size() - 2);
    return text.substr(start == std::string::npos ? 0 : start + 1,
                       text.size() - 1 - (start == std::string::npos ? 0 : start + 1));
  }

  fs::path dir_;
  FakeScript script_;
  std::ostringstream out_;
  std::ostringstream err_;
};

const char* kPass = "query I\nSELECT 1\n----\n1\n";
const char* kFail = "query I\nSELECT 1\n----\n2\n";

TEST_F(SltMainTest, RunsDirectoriesRecursivelyAndSummarizes) {
  RegisterSltEngine("fake", script_.Factory());
  Write("a.slt", kPass);
  Write("sub/b.slt", std::string(kPass) + "\nskipif fake\nstatement ok\nSELECT 2\n");
  Write("sub/notes.txt", "not a test");
  EXPECT_EQ(Run({dir_.string()}), 0);
  EXPECT_EQ(out_.str(), "2 passed, 0 failed, 1 skipped\n");
  EXPECT_EQ(script_.sessions, 2);
}

TEST_F(SltMainTest, FailuresSetTheExitStatus) {
  RegisterSltEngine("fake", script_.Factory());
  std::string bad = Write("bad.slt", kFail);
  std::string good = Write("good.slt", kPass);
  EXPECT_EQ(Run({bad, good}), 1);
  EXPECT_EQ(Summary(), "1 passed, 1 failed, 0 skipped");
  EXPECT_EQ(out_.str().rfind(bad + ":1: query result mismatch\n", 0), 0u) << out_.str();
}

TEST_F(SltMainTest, WithoutAnEngineSqlFilesFail) {
  std::string file = Write("a.slt", kPass);
  std::string empty = Write("empty.slt", "# only a comment\n");
  EXPECT_EQ(Run({file, empty}), 1);
  EXPECT_EQ(out_.str(),
            file +
                ": cannot start an engine: NotImplemented: no SQL engine linked yet: this "
                "shoal_slt registers no engine\n"
                "0 passed, 1 failed, 0 skipped\n");
  EXPECT_EQ(Run({empty}), 0);
  EXPECT_EQ(Summary(), "0 passed, 0 failed, 0 skipped");
}

TEST_F(SltMainTest, MissingPathsAndEmptyDirectoriesFail) {
  RegisterSltEngine("fake", script_.Factory());
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(Run({(dir_ / "missing.slt").string(), (dir_ / "empty").string()}), 1);
  EXPECT_EQ(out_.str(), (dir_ / "missing.slt").string() + ": no such file or directory\n" +
                            (dir_ / "empty").string() + ": no .slt files found\n" +
                            "0 passed, 2 failed, 0 skipped\n");
}

TEST_F(SltMainTest, ConfigSelectsTheEngine) {
  FakeScript other;
  other.config = "other";
  other.On("SELECT 1", Ints({"2"}));
  RegisterSltEngine("fake", script_.Factory());
  RegisterSltEngine("other", other.Factory());
  std::string file = Write("a.slt", kPass);
  EXPECT_EQ(Run({file}), 0);  // the first registered engine is the default
  EXPECT_EQ(Run({"--config", "other", file}), 1);
  EXPECT_EQ(Run({"--config=fake", file}), 0);
  EXPECT_EQ(script_.sessions, 2);
  EXPECT_EQ(other.sessions, 1);
  EXPECT_EQ(Run({"--config", "nope", file}), 2);
  EXPECT_EQ(err_.str(), "shoal_slt: unknown config 'nope'; available: fake, other\n");
}

TEST_F(SltMainTest, MaxReportsBoundsTheFullReports) {
  RegisterSltEngine("fake", script_.Factory());
  std::string bad = Write("bad.slt", std::string(kFail) + "\n" + kFail + "\n" + kFail);
  EXPECT_EQ(Run({"--max-reports", "1", bad}), 1);
  EXPECT_NE(out_.str().find(bad + ": 2 more failures not shown\n"), std::string::npos)
      << out_.str();
  EXPECT_EQ(Summary(), "0 passed, 3 failed, 0 skipped");
  EXPECT_EQ(Run({"--max-reports", "x", bad}), 2);
  EXPECT_NE(err_.str().find("--max-reports needs a number, got 'x'"), std::string::npos);
}

TEST_F(SltMainTest, UsageErrors) {
  EXPECT_EQ(Run({}), 2);
  EXPECT_NE(err_.str().find("usage: shoal_slt"), std::string::npos);
  EXPECT_EQ(Run({"--bogus", "x.slt"}), 2);
  EXPECT_NE(err_.str().find("unknown option --bogus"), std::string::npos);
  EXPECT_EQ(Run({"x.slt", "--config"}), 2);
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_NE(out_.str().find("--complete"), std::string::npos);
}

TEST_F(SltMainTest, CompleteRewritesFilesInPlace) {
  RegisterSltEngine("fake", script_.Factory());
  std::string bad = Write("bad.slt", kFail);
  std::string good = Write("good.slt", kPass);
  EXPECT_EQ(Run({"--complete", dir_.string()}), 0);
  EXPECT_EQ(out_.str(), bad + ":1: completed\n2 passed, 0 failed, 0 skipped\n");
  EXPECT_EQ(Read(bad), kPass);
  EXPECT_EQ(Read(good), kPass);
  EXPECT_EQ(Run({dir_.string()}), 0);
}

}  // namespace
}  // namespace shoal::slt

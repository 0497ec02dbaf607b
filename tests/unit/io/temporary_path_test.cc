// Tests for the temporaries of whole-file writes (issue 13 item 12): a read-only target is refused
// as PostgreSQL refuses it, a replaced file keeps its mode, and stale temporaries of dead writers
// are removed at the next write into their directory while live ones are kept.
#include "shoal/io/temporary_path.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/gtest_util.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

class TemporaryPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal_tmp_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << content;
    return path;
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // The pid of a process that has ended (and been reaped).
  static pid_t DeadPid() {
    const pid_t child = ::fork();
    if (child == 0)
      ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
  }

  fs::path dir_;
};

TEST_F(TemporaryPathTest, ReadOnlyTargetIsRefusedAndUntouched) {
  const std::string target = Write("ro.csv", "keep");
  ::chmod(target.c_str(), 0444);
  Status st = TemporaryPath::Create(target).status();
  EXPECT_EQ(st.sqlstate(), "42501");
  EXPECT_EQ(st.message(), "could not open file \"" + target + "\" for writing: Permission denied");
  EXPECT_EQ(Read(target), "keep");
  // Nothing was left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  // A directory is no file to write.
  EXPECT_EQ(TemporaryPath::Create(dir_.string()).status().sqlstate(), "42809");
  // A missing directory is PostgreSQL's 58P01.
  EXPECT_EQ(TemporaryPath::Create((dir_ / "no/such/x.csv").string()).status().sqlstate(), "58P01");
}

TEST_F(TemporaryPathTest, ReplacingKeepsTheModeAndNamesTheTemporaryRecognisably) {
  const std::string target = Write("t.csv", "old");
  ::chmod(target.c_str(), 0640);
  ASSERT_OK_AND_ASSIGN(auto temporary, TemporaryPath::Create(target));
  const std::string name = fs::path(temporary->path()).filename().string();
  EXPECT_EQ(name.rfind(".shoal-tmp-" + std::to_string(::getpid()) + "-", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 6), "-t.csv") << name;
  std::ofstream(temporary->path()) << "new";
  ASSERT_OK(temporary->Publish());
  EXPECT_EQ(Read(target), "new");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_FALSE(fs::exists(temporary->path()));
}

TEST_F(TemporaryPathTest, DiscardedTemporariesDisappear) {
  std::string path;
  {
    ASSERT_OK_AND_ASSIGN(auto temporary, TemporaryPath::Create((dir_ / "x.parquet").string()));
    path = temporary->path();
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(dir_ / "x.parquet"));
}

TEST_F(TemporaryPathTest, StaleTemporariesOfDeadWritersAreRemovedAtTheNextWrite) {
  const pid_t dead = DeadPid();
  const std::string stale = Write(".shoal-tmp-" + std::to_string(dead) + "-00c0ffee-a.csv", "x");
  // Another process's live temporary (here: the parent's pid, alive) stays.
  const std::string live =
      Write(".shoal-tmp-" + std::to_string(::getppid()) + "-00c0ffee-b.csv", "x");
  // A dead pid whose file is still locked (a writer on another machine of a shared file system)
  // stays too.
  const std::string locked = Write(".shoal-tmp-" + std::to_string(dead) + "-0000beef-c.csv", "x");
  const int lock = ::open(locked.c_str(), O_RDONLY);
  ASSERT_GE(lock, 0);
  // flock locks belong to an open file description, so the cleaner's own open of the file
  // conflicts with this one as it would with another process's.
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  // Names that merely look similar are not Shoal's.
  const std::string user = Write(".shoal-tmp-notapid-x.csv", "x");
  ASSERT_OK_AND_ASSIGN(auto temporary, TemporaryPath::Create((dir_ / "new.csv").string()));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(locked));
  EXPECT_TRUE(fs::exists(user));
  ::close(lock);
  EXPECT_EQ(RemoveStaleTemporaries(dir_.string()), 1);
  EXPECT_FALSE(fs::exists(locked));
  EXPECT_TRUE(fs::exists(temporary->path()));  // our own, alive
}

}  // namespace
}  // namespace shoal::io

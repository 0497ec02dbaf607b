// Tests for the confinement of query files to data roots (issue 15 item 3): paths are resolved
// (symlinks, `..`, relative paths) before they are compared with the roots, roots compare by whole
// components (/data does not admit /data2), and the io layer's openers refuse what lies outside.
#include "shoal/io/data_roots.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/io/file_listing.h"
#include "shoal/io/random_access_file.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

class DataRootsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("shoal_roots_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(base_ / "data" / "sub");
    fs::create_directories(base_ / "data2");
    fs::create_directories(base_ / "outside");
    std::ofstream(base_ / "data" / "a.csv") << "1\n";
    std::ofstream(base_ / "data" / "sub" / "b.csv") << "2\n";
    std::ofstream(base_ / "data2" / "c.csv") << "3\n";
    std::ofstream(base_ / "outside" / "secret.csv") << "4\n";
    auto roots = DataRoots::Make({(base_ / "data").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().ToString();
    roots_ = std::move(roots).MoveValueUnsafe();
  }
  void TearDown() override {
    SetProcessDataRoots(DataRoots());
    fs::remove_all(base_);
  }

  std::string Path(const std::string& relative) const { return (base_ / relative).string(); }

  // Refused with SQLSTATE 42501, naming the path and the root.
  void ExpectRefused(const std::string& path) const {
    auto checked = roots_.Check(path, "read");
    ASSERT_FALSE(checked.ok()) << path << " was admitted as " << *checked;
    EXPECT_EQ(checked.status().sqlstate(), "42501");
    EXPECT_NE(checked.status().message().find(path), std::string::npos)
        << checked.status().ToString();
    EXPECT_NE(checked.status().message().find(Path("data")), std::string::npos)
        << checked.status().ToString();
  }

  fs::path base_;
  DataRoots roots_;
};

TEST_F(DataRootsTest, AdmitsFilesInsideARootInResolvedForm) {
  auto a = roots_.Check(Path("data/a.csv"), "read");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, fs::canonical(Path("data/a.csv")).string());
  EXPECT_TRUE(roots_.Check(Path("data/sub/b.csv"), "read").ok());
  EXPECT_TRUE(roots_.Check(Path("data"), "read").ok());
  EXPECT_TRUE(roots_.Check(Path("data/"), "read").ok());
  // `..` that stays inside, and a file that does not exist yet (a COPY target).
  EXPECT_TRUE(roots_.Check(Path("data/sub/../a.csv"), "read").ok());
  EXPECT_TRUE(roots_.Check(Path("data/new/out.parquet"), "write").ok());
}

TEST_F(DataRootsTest, RefusesAbsolutePathsOutside) {
  ExpectRefused("/etc/passwd");
  ExpectRefused("/etc/shadow");
  ExpectRefused(Path("outside/secret.csv"));
  ExpectRefused("/");
}

TEST_F(DataRootsTest, RefusesDotDotEscapes) {
  ExpectRefused(Path("data/../outside/secret.csv"));
  ExpectRefused(Path("data/sub/../../outside/secret.csv"));
  // Through a directory that does not exist: still folded, still outside.
  ExpectRefused(Path("data/missing/../../outside/secret.csv"));
  ExpectRefused(Path("data/../../../../../../etc/passwd"));
}

TEST_F(DataRootsTest, RootsCompareByWholeComponents) {
  // /data is a string prefix of /data2, not a parent.
  ExpectRefused(Path("data2/c.csv"));
  ExpectRefused(Path("data2"));
  ExpectRefused(Path("data") + "2/c.csv");
  EXPECT_TRUE(IsPathUnder("/data", "/data"));
  EXPECT_TRUE(IsPathUnder("/data/x", "/data"));
  EXPECT_FALSE(IsPathUnder("/data2", "/data"));
  EXPECT_FALSE(IsPathUnder("/dat", "/data"));
  EXPECT_TRUE(IsPathUnder("/anything", "/"));
}

TEST_F(DataRootsTest, FollowsSymlinksBeforeComparing) {
  // A symlink inside the root pointing out of it, to a file and to a directory.
  fs::create_symlink(Path("outside/secret.csv"), Path("data/link.csv"));
  fs::create_directory_symlink(Path("outside"), Path("data/linkdir"));
  ExpectRefused(Path("data/link.csv"));
  ExpectRefused(Path("data/linkdir/secret.csv"));
  ExpectRefused(Path("data/linkdir/new.csv"));
  // A symlink outside pointing in is fine: what counts is where the file is.
  fs::create_symlink(Path("data/a.csv"), Path("outside/in.csv"));
  EXPECT_TRUE(roots_.Check(Path("outside/in.csv"), "read").ok());
}

TEST_F(DataRootsTest, ARootGivenThroughASymlinkIsResolved) {
  fs::create_directory_symlink(Path("data"), Path("data_link"));
  auto roots = DataRoots::Make({Path("data_link")});
  ASSERT_TRUE(roots.ok());
  EXPECT_TRUE(roots->Check(Path("data/a.csv"), "read").ok());
  EXPECT_FALSE(roots->Check(Path("outside/secret.csv"), "read").ok());
}

TEST_F(DataRootsTest, RelativePathsResolveFromTheWorkingDirectory) {
  const fs::path before = fs::current_path();
  fs::current_path(Path("data/sub"));
  EXPECT_TRUE(roots_.Check("b.csv", "read").ok());
  EXPECT_TRUE(roots_.Check("../a.csv", "read").ok());
  EXPECT_FALSE(roots_.Check("../../outside/secret.csv", "read").ok());
  fs::current_path(before);
}

TEST_F(DataRootsTest, NoRootsAdmitEverythingUnchanged) {
  DataRoots none;
  auto checked = none.Check("/etc/passwd", "read");
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ(*checked, "/etc/passwd");
}

TEST_F(DataRootsTest, RootsMustBeDirectories) {
  EXPECT_FALSE(DataRoots::Make({Path("missing")}).ok());
  EXPECT_FALSE(DataRoots::Make({Path("data/a.csv")}).ok());
  EXPECT_FALSE(DataRoots::Make({""}).ok());
  auto two = DataRoots::Make({Path("data"), Path("data2")});
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE(two->Check(Path("data2/c.csv"), "read").ok());
}

// The io layer's openers go through the process's roots: a direct open, a directory listing whose
// symlink leads out, a glob, and a write.
TEST_F(DataRootsTest, OpenersRefuseWhatLiesOutside) {
  fs::create_symlink(Path("outside/secret.csv"), Path("data/sub/z.csv"));
  SetProcessDataRoots(roots_);
  EXPECT_TRUE(RandomAccessFile::Open(Path("data/a.csv")).ok());
  auto passwd = RandomAccessFile::Open("/etc/passwd");
  ASSERT_FALSE(passwd.ok());
  EXPECT_EQ(passwd.status().sqlstate(), "42501");
  auto escape = RandomAccessFile::Open(Path("data/../outside/secret.csv"));
  ASSERT_FALSE(escape.ok());
  EXPECT_EQ(escape.status().sqlstate(), "42501");
  auto listed = ListFiles(Path("data/sub"), CsvExtensions());
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("z.csv"), std::string::npos)
      << listed.status().ToString();
  auto globbed = ListFiles(Path("data/*/*.csv"), CsvExtensions());
  ASSERT_FALSE(globbed.ok());
  EXPECT_EQ(globbed.status().sqlstate(), "42501");
  auto outside_glob = ListFiles(Path("outside/*.csv"), CsvExtensions());
  ASSERT_FALSE(outside_glob.ok());
  EXPECT_EQ(outside_glob.status().sqlstate(), "42501");
  EXPECT_TRUE(ListFiles(Path("data/*.csv"), CsvExtensions()).ok());
  auto write = TemporaryPath::Create(Path("outside/out.csv"));
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.status().sqlstate(), "42501");
  EXPECT_TRUE(TemporaryPath::Create(Path("data/out.csv")).ok());
}

}  // namespace
}  // namespace shoal::io

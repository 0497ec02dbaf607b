// Tests for the file listing of table locations (issue 13 item 9): a directory reads the files
// with its format's extensions and skips Spark / Hive / hidden files; a glob skips '_' and '.'
// names in every matched component; a named file is always read; an empty result says why.
#include "shoal/io/file_listing.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/gtest_util.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

class FileListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shoal_listing_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Touch(const std::string& relative) {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "x\n";
    return path.string();
  }

  std::vector<std::string> Names(const std::vector<ListedFile>& files) {
    std::vector<std::string> names;
    for (const auto& f : files)
      names.push_back(fs::path(f.path).lexically_relative(dir_).string());
    return names;
  }

  fs::path dir_;
};

TEST_F(FileListingTest, DirectorySkipsMarkersHiddenFilesAndOtherExtensions) {
  for (const char* name : {"part-00000.csv", "part-00001.CSV", "data.tsv", "_SUCCESS", "README.txt",
                           ".part-00000.csv.crc", "_metadata.csv", ".shoal-tmp-1-0badf00d-x.csv",
                           "sub/inner.csv", "_temporary/0/a.csv"})
    Touch(name);
  ASSERT_OK_AND_ASSIGN(auto files, ListFiles(dir_.string(), CsvExtensions()));
  EXPECT_EQ(Names(files),
            (std::vector<std::string>{"data.tsv", "part-00000.csv", "part-00001.CSV"}));
}

TEST_F(FileListingTest, DbgenSplitFilesCountAsTheirFormat) {
  EXPECT_TRUE(IsDataFileName("lineitem.tbl.1", TblExtensions()));
  EXPECT_TRUE(IsDataFileName("part-7.tbl", TblExtensions()));
  EXPECT_FALSE(IsDataFileName("lineitem.tbl.x", TblExtensions()));
  EXPECT_FALSE(IsDataFileName(".tbl", TblExtensions()));
  EXPECT_TRUE(IsDataFileName("x.PARQ", ParquetExtensions()));
  EXPECT_TRUE(IsDataFileName("x.feather", ArrowExtensions()));
  EXPECT_FALSE(IsDataFileName("README.txt", CsvExtensions()));
}

TEST_F(FileListingTest, ANamedFileIsAlwaysRead) {
  const std::string odd = Touch("_odd_name.dat");
  ASSERT_OK_AND_ASSIGN(auto files, ListFiles(odd, ParquetExtensions()));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, odd);
}

TEST_F(FileListingTest, GlobsSkipUnderscoreAndDotComponents) {
  for (const char* name : {"y=1/a.parquet", "y=2/b.parquet", "_temporary/0/c.parquet",
                           "y=1/.d.parquet", "y=1/_e.parquet", "y=1/notes.txt"})
    Touch(name);
  ASSERT_OK_AND_ASSIGN(auto files, ListFiles((dir_ / "*/*").string(), ParquetExtensions()));
  // The pattern names what it wants: notes.txt matched it.
  EXPECT_EQ(Names(files),
            (std::vector<std::string>{"y=1/a.parquet", "y=1/notes.txt", "y=2/b.parquet"}));
  ASSERT_OK_AND_ASSIGN(files, ListFiles((dir_ / "*/*.parquet").string(), ParquetExtensions()));
  EXPECT_EQ(Names(files), (std::vector<std::string>{"y=1/a.parquet", "y=2/b.parquet"}));
  Status only_skipped = ListFiles((dir_ / "_temporary/*/*").string(), {}).status();
  // The fixed part of the pattern may name an underscore directory; the matched parts may not.
  EXPECT_TRUE(only_skipped.ok() || only_skipped.code() == StatusCode::kNotFound);
}

TEST_F(FileListingTest, AnEmptyDirectorySaysWhatWasSkipped) {
  Touch("_SUCCESS");
  Touch("README.txt");
  Status st = ListFiles(dir_.string(), ParquetExtensions()).status();
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  const std::string text = st.ToString();
  EXPECT_NE(text.find("no data files in directory"), std::string::npos) << text;
  EXPECT_NE(text.find("README.txt"), std::string::npos) << text;
  EXPECT_NE(text.find(".parquet"), std::string::npos) << text;
  fs::remove_all(dir_);
  Touch("y=1/a.parquet");
  st = ListFiles(dir_.string(), ParquetExtensions()).status();
  EXPECT_NE(st.ToString().find("subdirectories are not read"), std::string::npos) << st.ToString();
}

TEST_F(FileListingTest, DescribeFilesNamesTheFirstAndTheLast) {
  EXPECT_EQ(DescribeFiles({"a"}), "1 file: a");
  EXPECT_EQ(DescribeFiles({"a", "b"}), "2 files: a, b");
  std::vector<std::string> many;
  for (int i = 0; i < 100; ++i)
    many.push_back("f" + std::to_string(i));
  EXPECT_EQ(DescribeFiles(many, 4), "100 files: f0, f1, f2, ... 96 more ..., f99");
}

}  // namespace
}  // namespace shoal::io

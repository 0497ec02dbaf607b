// The io layer's one pread wrapper (io/random_access_file.h).
#include "shoal/io/random_access_file.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace shoal::io {
namespace {

namespace fs = std::filesystem;

class RandomAccessFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("shoal_raf_test_" + std::to_string(::getpid()))).string();
    std::ofstream(path_, std::ios::binary) << "0123456789";
  }
  void TearDown() override { fs::remove(path_); }

  std::string path_;
};

TEST_F(RandomAccessFileTest, ReadsAtOffsets) {
  auto file = RandomAccessFile::Open(path_);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->path(), path_);
  uint8_t buf[4] = {};
  ASSERT_TRUE((*file)->ReadExactly(3, 4, buf).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 4), "3456");
  auto n = (*file)->ReadAtMost(8, 4, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);  // the end of the file
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 2), "89");
  std::string text = "x";
  auto appended = (*file)->ReadAppend(7, 100, &text);
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ(*appended, 3);
  EXPECT_EQ(text, "x789");
  appended = (*file)->ReadAppend(10, 5, &text);
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ(*appended, 0);
  EXPECT_EQ(text, "x789");
}

// Readers ask for fixed chunks (1 MiB); a small file must not cost a zero-filled chunk per read.
TEST_F(RandomAccessFileTest, AppendingGrowsTheStringOnlyByWhatTheFileHolds) {
  auto file = RandomAccessFile::Open(path_);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  std::string text;
  auto appended = (*file)->ReadAppend(0, 1 << 20, &text);
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ(text, "0123456789");
  EXPECT_LT(text.capacity(), 4096U);
  appended = (*file)->ReadAppend(20, 1 << 20, &text);  // past the end
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ(*appended, 0);
  EXPECT_LT(text.capacity(), 4096U);
}

TEST_F(RandomAccessFileTest, ErrorsNameTheFileAndOffset) {
  auto missing = RandomAccessFile::Open(path_ + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("cannot open '" + path_ + ".missing'"),
            std::string::npos)
      << missing.status().ToString();
  auto file = RandomAccessFile::Open(path_);
  ASSERT_TRUE(file.ok());
  uint8_t buf[8] = {};
  Status short_read = (*file)->ReadExactly(6, 8, buf);
  ASSERT_FALSE(short_read.ok());
  EXPECT_NE(short_read.message().find("'" + path_ +
                                      "' ended at offset 10 while reading 8 bytes "
                                      "at offset 6"),
            std::string::npos)
      << short_read.ToString();
}

}  // namespace
}  // namespace shoal::io

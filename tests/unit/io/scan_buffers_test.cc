// ScanBuffers (io/scan_buffers.h): buffers handed back are handed out again, best fit first; one
// that something else still refers to is never taken back.
#include "shoal/io/scan_buffers.h"

#include <gtest/gtest.h>

#include "tests/support/gtest_util.h"

namespace shoal::io {
namespace {

TEST(ScanBuffersTest, AGivenBufferIsTakenAgainBestFitFirst) {
  ScanBuffers buffers(DefaultMemoryPool());
  ASSERT_OK_AND_ASSIGN(auto small, buffers.Take(1000));
  ASSERT_OK_AND_ASSIGN(auto large, buffers.Take(100000));
  EXPECT_EQ(small->size(), 1000);
  const uint8_t* small_data = small->data();
  const uint8_t* large_data = large->data();
  buffers.Give(std::move(small));
  buffers.Give(std::move(large));
  EXPECT_EQ(buffers.kept(), 2U);
  // 900 bytes fit both: the smaller one is taken, resized.
  ASSERT_OK_AND_ASSIGN(auto again, buffers.Take(900));
  EXPECT_EQ(again->data(), small_data);
  EXPECT_EQ(again->size(), 900);
  // A buffer of unknown size (0) gets the largest.
  ASSERT_OK_AND_ASSIGN(auto page, buffers.Take(0));
  EXPECT_EQ(page->data(), large_data);
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(ScanBuffersTest, ABufferStillReferencedIsNotTakenBack) {
  ScanBuffers buffers(DefaultMemoryPool());
  ASSERT_OK_AND_ASSIGN(auto buffer, buffers.Take(4096));
  auto array_holds_it = buffer;
  buffers.Give(std::move(buffer));
  EXPECT_EQ(buffers.kept(), 0U);
  buffers.Give(nullptr);
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(ScanBuffersTest, NoMoreThanKMaxKeptAreKept) {
  ScanBuffers buffers(DefaultMemoryPool());
  for (size_t i = 0; i < ScanBuffers::kMaxKept + 5; ++i) {
    ASSERT_OK_AND_ASSIGN(auto buffer, columnar::Buffer::Allocate(64, DefaultMemoryPool()));
    buffers.Give(std::move(buffer));
  }
  EXPECT_EQ(buffers.kept(), ScanBuffers::kMaxKept);
}

TEST(ScanBuffersTest, WithNothingKeptANewBufferIsAllocated) {
  ScanBuffers buffers(DefaultMemoryPool());
  ASSERT_OK_AND_ASSIGN(auto buffer, buffers.Take(0));
  EXPECT_EQ(buffer->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto bigger, buffers.Take(1 << 20));
  EXPECT_EQ(bigger->size(), 1 << 20);
}

}  // namespace
}  // namespace shoal::io

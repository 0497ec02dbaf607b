#include "shoal/common/process_allocator.h"

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>
#include <malloc.h>

namespace shoal {
namespace {

#if defined(__GLIBC__) && !defined(SHOAL_SANITIZE_BUILD)
// A 4 MiB block is a column buffer of half a million int64 values. glibc's default mmap threshold
// starts at 128 KiB, so without the tuning it gets a mapping of its own, unmapped on free and
// faulted in again by the next batch; tuned, it comes from the heap and stays there when freed.
TEST(ProcessAllocatorTest, ColumnSizedBlocksComeFromTheHeapAndStayWhenFreed) {
  TuneProcessAllocator();
  constexpr size_t kBlock = 4 << 20;
  const size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "the block has a mapping of its own";
  std::free(block);
  // Freed at the top of the heap, it is kept below the trim threshold for the next allocation.
  EXPECT_GE(mallinfo2().fordblks, kBlock);
}
#endif

}  // namespace
}  // namespace shoal

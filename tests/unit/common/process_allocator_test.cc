#include "shoal/common/process_allocator.h"

#include <cstdlib>
#include <cstring>
#include <string>

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

// Only the settings GLIBC_TUNABLES names are the operator's: the task launcher runs with
// glibc.malloc.hugetlb=1 in it, and its tasks still need the thresholds above (without them,
// the Q6 tasks of the file shuffle faulted three times as often).
TEST(ProcessAllocatorTest, ATunableForHugePagesKeepsTheThresholds) {
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before == nullptr ? "" : before;
  mallopt(M_MMAP_THRESHOLD, 128 << 10);  // glibc's default, as in a process not yet tuned
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
  TuneProcessAllocator();
  if (before == nullptr)
    ::unsetenv("GLIBC_TUNABLES");
  else
    ::setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  constexpr size_t kBlock = 4 << 20;
  const size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "the mmap threshold was not set";
  std::free(block);
}
#endif

TEST(ProcessAllocatorTest, HugePagesAreAddedToWhatTheOperatorSet) {
  EXPECT_EQ(WithTransparentHugePages(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(WithTransparentHugePages("glibc.malloc.arena_max=3"),
            "glibc.malloc.arena_max=3:glibc.malloc.hugetlb=1");
  // A similar name is another tunable.
  EXPECT_EQ(WithTransparentHugePages("glibc.malloc.hugetlb_x=0"),
            "glibc.malloc.hugetlb_x=0:glibc.malloc.hugetlb=1");
  // The operator's own choice stands, wherever it is in the list.
  EXPECT_EQ(WithTransparentHugePages("glibc.malloc.hugetlb=0"), "glibc.malloc.hugetlb=0");
  EXPECT_EQ(WithTransparentHugePages("glibc.rtld.nns=2:glibc.malloc.hugetlb=2"),
            "glibc.rtld.nns=2:glibc.malloc.hugetlb=2");
}

}  // namespace
}  // namespace shoal

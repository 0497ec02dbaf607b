#include "shoal/columnar/builder.h"

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"

namespace shoal::columnar {
namespace {

TEST(BuilderSmokeTest, Int32WithNulls) {
  auto pool = MemoryPool::MakeRoot("test");
  {
    Int32Builder b(DataType::Int32(), pool);
    ASSERT_TRUE(b.Append(1).ok());
    ASSERT_TRUE(b.AppendNull().ok());
    ASSERT_TRUE(b.Append(3).ok());
    auto a = b.Finish();
    ASSERT_TRUE(a.ok());
    EXPECT_EQ((*a)->length(), 3);
    EXPECT_EQ((*a)->null_count(), 1);
    EXPECT_TRUE((*a)->IsNull(1));
    EXPECT_EQ((*a)->Value<int32_t>(2), 3);
    EXPECT_TRUE((*a)->Validate().ok());
  }
  EXPECT_EQ(pool->bytes_used(), 0);
}

}  // namespace
}  // namespace shoal::columnar

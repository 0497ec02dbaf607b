#include "shoal/exec/array_ops.h"

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "tests/support/gtest_util.h"

namespace shoal::exec {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;

// {1,2}, NULL, {}, {3}
ArrayPtr IntLists() {
  columnar::ListBuilder b(DataType::List(DataType::Int32()), DefaultMemoryPool());
  auto* items = static_cast<columnar::Int32Builder*>(b.value_builder());
  SHOAL_CHECK(b.Append().ok(), "");
  SHOAL_CHECK(items->Append(1).ok(), "");
  SHOAL_CHECK(items->Append(2).ok(), "");
  SHOAL_CHECK(b.AppendNull().ok(), "");
  SHOAL_CHECK(b.Append().ok(), "");
  SHOAL_CHECK(b.Append().ok(), "");
  SHOAL_CHECK(items->Append(3).ok(), "");
  return *b.Finish();
}

std::vector<std::string> Texts(const columnar::Array& a) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < a.length(); ++i)
    out.push_back(a.IsNull(i) ? "NULL" : columnar::FormatValue(a, i));
  return out;
}

TEST(NestedArrayOps, TakeCarriesNestedColumns) {
  ArrayPtr lists = IntLists()->Slice(1, 3);  // NULL, {}, {3}
  const int32_t indices[] = {2, 0, -1, 1, 2};
  ASSERT_OK_AND_ASSIGN(ArrayPtr taken,
                       Take(*lists, indices, 5, DefaultMemoryPool(), /*allow_null_index=*/true));
  ASSERT_OK(taken->Validate());
  EXPECT_EQ(Texts(*taken), (std::vector<std::string>{"{3}", "NULL", "NULL", "{}", "{3}"}));
}

TEST(NestedArrayOps, ConcatenateCarriesNestedColumns) {
  ArrayPtr lists = IntLists();
  ASSERT_OK_AND_ASSIGN(ArrayPtr joined,
                       Concatenate({lists->Slice(2, 2), lists->Slice(0, 2)}, DefaultMemoryPool()));
  ASSERT_OK(joined->Validate());
  EXPECT_EQ(Texts(*joined), (std::vector<std::string>{"{}", "{3}", "{1,2}", "NULL"}));
}

}  // namespace
}  // namespace shoal::exec

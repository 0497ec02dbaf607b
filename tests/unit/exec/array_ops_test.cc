#include "shoal/exec/array_ops.h"

#include <random>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/columnar/ipc_test_data.h"

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

// Every nested shape (random lengths, NULLs at every level, slices): the column-at-a-time take
// and concatenation give what copying value by value through the builders gives.
TEST(NestedArrayOps, TakeAndConcatenateEqualValueByValueCopiesOfEveryShape) {
  columnar::ipc::testing::RandomData random(5);
  columnar::SchemaPtr schema = columnar::ipc::testing::NestedSchema();
  columnar::RecordBatchPtr batch = random.Batch(schema, 300, 0.2);
  columnar::RecordBatchPtr other = random.Batch(schema, 40, 0.5);
  std::mt19937 rng(9);
  for (int c = 0; c < batch->num_columns(); ++c) {
    SCOPED_TRACE(schema->field(c).name);
    ArrayPtr column = batch->column(c)->Slice(17, 250);
    std::vector<int32_t> indices;
    for (int i = 0; i < 400; ++i)
      indices.push_back(static_cast<int32_t>(rng() % 260) - 10);  // some -1s: null rows
    for (int32_t& i : indices)
      i = i < 0 ? -1 : i;
    auto builder = columnar::MakeBuilder(column->type(), DefaultMemoryPool());
    for (int32_t i : indices)
      ASSERT_OK(i < 0 ? builder->AppendNull() : builder->AppendFrom(*column, i));
    ASSERT_OK_AND_ASSIGN(ArrayPtr expected, builder->Finish());
    ASSERT_OK_AND_ASSIGN(ArrayPtr taken, Take(*column, indices.data(), 400, DefaultMemoryPool(),
                                              /*allow_null_index=*/true));
    ASSERT_OK(taken->Validate());
    EXPECT_EQ(Texts(*taken), Texts(*expected));

    std::vector<ArrayPtr> parts = {column->Slice(3, 50), other->column(c), column->Slice(0, 0),
                                   column->Slice(200, 50)};
    auto concat_builder = columnar::MakeBuilder(column->type(), DefaultMemoryPool());
    for (const ArrayPtr& part : parts) {
      for (int64_t i = 0; i < part->length(); ++i)
        ASSERT_OK(concat_builder->AppendFrom(*part, i));
    }
    ASSERT_OK_AND_ASSIGN(ArrayPtr expected_concat, concat_builder->Finish());
    ASSERT_OK_AND_ASSIGN(ArrayPtr joined, Concatenate(parts, DefaultMemoryPool()));
    ASSERT_OK(joined->Validate());
    EXPECT_EQ(Texts(*joined), Texts(*expected_concat));
  }
}

}  // namespace
}  // namespace shoal::exec

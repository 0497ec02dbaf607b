// Nested values as keys: the key encoding's order and equality against PostgreSQL's rules, and the
// grouper, sort encoder and hashing built on it.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/row_key/grouper.h"
#include "shoal/exec/row_key/nested_key_encoder.h"
#include "shoal/exec/row_key/sort_key_encoder.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/columnar/ipc_test_data.h"

namespace shoal::exec {
namespace {

using columnar::Array;
using columnar::ArrayPtr;
using columnar::DataType;

using IntList = std::optional<std::vector<std::optional<int32_t>>>;

ArrayPtr IntLists(const std::vector<IntList>& values) {
  columnar::ListBuilder b(DataType::List(DataType::Int32()), DefaultMemoryPool());
  auto* items = static_cast<columnar::Int32Builder*>(b.value_builder());
  for (const IntList& v : values) {
    if (!v) {
      SHOAL_CHECK(b.AppendNull().ok(), "");
      continue;
    }
    SHOAL_CHECK(b.Append().ok(), "");
    for (const auto& item : *v)
      SHOAL_CHECK((item ? items->Append(*item) : items->AppendNull()).ok(), "");
  }
  return *b.Finish();
}

using Pair = std::optional<std::pair<std::optional<int32_t>, std::optional<std::string>>>;

ArrayPtr Records(const std::vector<Pair>& values) {
  const DataType type = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  columnar::StructBuilder b(type, DefaultMemoryPool());
  auto* a = static_cast<columnar::Int32Builder*>(b.field_builder(0));
  auto* s = static_cast<columnar::BinaryBuilder*>(b.field_builder(1));
  for (const Pair& v : values) {
    if (!v) {
      SHOAL_CHECK(b.AppendNull().ok(), "");
      continue;
    }
    SHOAL_CHECK(b.Append().ok(), "");
    SHOAL_CHECK((v->first ? a->Append(*v->first) : a->AppendNull()).ok(), "");
    SHOAL_CHECK((v->second ? s->Append(*v->second) : s->AppendNull()).ok(), "");
  }
  return *b.Finish();
}

std::string Text(const Array& a, int64_t i) {
  return a.IsNull(i) ? "NULL" : columnar::FormatValue(a, i);
}

// Every value of `sorted` (already in PostgreSQL's ascending order, no NULL values) encodes to
// bytes strictly greater than the previous value's.
void ExpectAscending(const ArrayPtr& sorted) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr encoded, EncodeNestedKeys(*sorted, DefaultMemoryPool()));
  ASSERT_EQ(encoded->length(), sorted->length());
  for (int64_t i = 1; i < encoded->length(); ++i) {
    EXPECT_LT(encoded->StringValue(i - 1), encoded->StringValue(i))
        << Text(*sorted, i - 1) << " should sort below " << Text(*sorted, i);
  }
}

TEST(NestedKeyEncoderTest, ArraysOrderAsPostgres) {
  // array_cmp: element by element, a NULL element above any value, a prefix below its
  // extensions (checked on PostgreSQL 15: ARRAY[NULL::int] > ARRAY[1], ARRAY[1,2] < ARRAY[1,2,0]).
  ExpectAscending(IntLists({std::vector<std::optional<int32_t>>{},
                            {{-5}},
                            {{-5, 7}},
                            {{0}},
                            {{1}},
                            {{1, 2}},
                            {{1, 2, 0}},
                            {{1, 2, std::nullopt}},
                            {{1, std::nullopt}},
                            {{2}},
                            std::vector<std::optional<int32_t>>{std::nullopt},
                            {{std::nullopt, 1}}}));
}

TEST(NestedKeyEncoderTest, RecordsOrderAsPostgresAndStringsStayPrefixFree) {
  using std::nullopt;
  // record_cmp: field by field, a NULL field above any value. "a" < "a\0" < "ab": the escaped,
  // terminated strings keep a shorter string below its extensions whatever follows it.
  ExpectAscending(
      Records({Pair{{1, "a"}}, Pair{{1, std::string("a\0", 2)}}, Pair{{1, "ab"}}, Pair{{1, "b"}},
               Pair{{1, nullopt}}, Pair{{2, ""}}, Pair{{nullopt, "a"}}, Pair{{nullopt, nullopt}}}));
}

TEST(NestedKeyEncoderTest, NullValuesStayNullAndSlicesEncodeTheirOwnRows) {
  ArrayPtr lists = IntLists({{{1}}, std::nullopt, {{2, 3}}, std::nullopt});
  ASSERT_OK_AND_ASSIGN(ArrayPtr all, EncodeNestedKeys(*lists, DefaultMemoryPool()));
  EXPECT_EQ(all->null_count(), 2);
  ArrayPtr slice = lists->Slice(1, 2);
  ASSERT_OK_AND_ASSIGN(ArrayPtr part, EncodeNestedKeys(*slice, DefaultMemoryPool()));
  ASSERT_EQ(part->length(), 2);
  EXPECT_TRUE(part->IsNull(0));
  EXPECT_EQ(part->StringValue(1), all->StringValue(2));
  // Not nested: refused, not misread.
  columnar::Int32Builder ints(DataType::Int32(), DefaultMemoryPool());
  ASSERT_OK(ints.Append(1));
  ASSERT_OK_AND_ASSIGN(ArrayPtr flat, ints.Finish());
  EXPECT_EQ(EncodeNestedKeys(*flat, DefaultMemoryPool()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(NestedKeyEncoderTest, FloatsFoldSignedZeroAndNaN) {
  columnar::ListBuilder b(DataType::List(DataType::Float64()), DefaultMemoryPool());
  auto* items = static_cast<columnar::Float64Builder*>(b.value_builder());
  for (double v : {0.0, -0.0, std::nan("1"), -std::nan("2")}) {
    ASSERT_OK(b.Append());
    ASSERT_OK(items->Append(v));
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, b.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr encoded, EncodeNestedKeys(*lists, DefaultMemoryPool()));
  EXPECT_EQ(encoded->StringValue(0), encoded->StringValue(1));
  EXPECT_EQ(encoded->StringValue(2), encoded->StringValue(3));
  EXPECT_LT(encoded->StringValue(0), encoded->StringValue(2));  // NaN above every number
}

// Random values of every nested shape (lists of lists, structs of lists and maps, maps to lists,
// fixed-size lists of structs, NULLs at every level, empty lists): two values encode equally
// exactly when they are equal, judged by their text (the random data has no -0.0 or NaN).
TEST(NestedKeyEncoderTest, EqualEncodingsExactlyForEqualValuesOfEveryShape) {
  columnar::ipc::testing::RandomData random(7);
  columnar::RecordBatchPtr batch = random.Batch(columnar::ipc::testing::NestedSchema(), 60, 0.25);
  for (int c = 0; c < batch->num_columns(); ++c) {
    const ArrayPtr& column = batch->column(c);
    // Every row twice, in another order, so that equal pairs exist beside the unequal ones.
    std::vector<int32_t> indices;
    for (int32_t i = 0; i < column->length(); ++i) {
      indices.push_back(i);
      indices.push_back(static_cast<int32_t>(column->length()) - 1 - i);
    }
    ASSERT_OK_AND_ASSIGN(
        ArrayPtr doubled,
        Take(*column, indices.data(), static_cast<int64_t>(indices.size()), DefaultMemoryPool()));
    ASSERT_OK_AND_ASSIGN(ArrayPtr encoded, EncodeNestedKeys(*doubled, DefaultMemoryPool()));
    for (int64_t i = 0; i < doubled->length(); ++i) {
      for (int64_t j = 0; j < doubled->length(); ++j) {
        const bool same_text = Text(*doubled, i) == Text(*doubled, j);
        const bool same_bytes =
            encoded->IsNull(i) == encoded->IsNull(j) &&
            (encoded->IsNull(i) || encoded->StringValue(i) == encoded->StringValue(j));
        ASSERT_EQ(same_text, same_bytes) << batch->schema()->field(c).name << ": "
                                         << Text(*doubled, i) << " vs " << Text(*doubled, j);
      }
    }
  }
}

TEST(NestedKeyEncoderTest, HashingANestedColumnHashesItsEncoding) {
  ArrayPtr lists = IntLists({{{1, 2}}, std::nullopt, {{1, 2}}, {{2, 1}}});
  ASSERT_OK_AND_ASSIGN(ArrayPtr encoded, EncodeNestedKeys(*lists, DefaultMemoryPool()));
  std::vector<uint64_t> a, b;
  ASSERT_OK(HashColumns({lists}, 4, &a));
  ASSERT_OK(HashColumns({encoded}, 4, &b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a[0], a[2]);
  EXPECT_NE(a[0], a[3]);
  ASSERT_OK_AND_ASSIGN(ArrayPtr normalized, NormalizeKeyColumn(lists, DefaultMemoryPool()));
  EXPECT_EQ(normalized->type(), DataType::Binary());
}

TEST(NestedGrouperTest, GroupsEqualValuesAndEmitsThemAcrossBatches) {
  ASSERT_OK_AND_ASSIGN(auto grouper,
                       Grouper::Make({DataType::List(DataType::Int32()), DataType::Int32()}));
  columnar::Int32Builder ints(DataType::Int32(), DefaultMemoryPool());
  for (int v : {1, 1, 1, 2, 1})
    ASSERT_OK(ints.Append(v));
  ASSERT_OK_AND_ASSIGN(ArrayPtr second, ints.Finish());
  ArrayPtr lists = IntLists({{{1, std::nullopt}},
                             std::nullopt,
                             {{1, std::nullopt}},
                             {{1}},
                             std::vector<std::optional<int32_t>>{}});
  std::vector<uint32_t> ids;
  ASSERT_OK(grouper->Consume({lists, second}, 5, &ids));
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 0, 2, 3}));
  // A later batch, sliced: finds an earlier group and adds two, ({1}, 1) and ({1,NULL}, 2).
  ArrayPtr more = IntLists({{{9}}, std::nullopt, {{1}}, {{1, std::nullopt}}})->Slice(1, 3);
  ASSERT_OK(grouper->Consume({more, second->Slice(1, 3)}, 3, &ids));
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 4, 5}));
  ASSERT_OK_AND_ASSIGN(auto keys, grouper->GetKeys(0, grouper->num_groups(), DefaultMemoryPool()));
  ASSERT_OK(keys[0]->Validate());
  std::vector<std::string> texts;
  for (int64_t i = 0; i < keys[0]->length(); ++i)
    texts.push_back(Text(*keys[0], i));
  EXPECT_EQ(texts, (std::vector<std::string>{"{1,NULL}", "NULL", "{1}", "{}", "{1}", "{1,NULL}"}));
  // Emitting in pieces gives the same values.
  ASSERT_OK_AND_ASSIGN(auto tail, grouper->GetKeys(3, 2, DefaultMemoryPool()));
  EXPECT_EQ(Text(*tail[0], 0), "{}");
  EXPECT_EQ(Text(*tail[0], 1), "{1}");
  EXPECT_EQ(Text(*tail[1], 1), "1");
}

TEST(NestedSortTest, SortsRecordsAscendingAndDescendingWithNulls) {
  using std::nullopt;
  ArrayPtr records = Records({Pair{{2, "x"}}, nullopt, Pair{{1, nullopt}}, Pair{{1, "b"}},
                              Pair{{nullopt, "a"}}, Pair{{1, "a"}}});
  std::vector<std::string> ascending, descending;
  for (bool asc : {true, false}) {
    EncodedRows rows;
    ASSERT_OK(rows.Encode({records}, {SortOrder{asc, /*nulls_first=*/false}}, records->length()));
    std::vector<int32_t> permutation;
    rows.Sort(&permutation);
    for (int32_t r : permutation)
      (asc ? ascending : descending).push_back(Text(*records, r));
  }
  EXPECT_EQ(ascending,
            (std::vector<std::string>{"(1,a)", "(1,b)", "(1,)", "(2,x)", "(,a)", "NULL"}));
  EXPECT_EQ(descending,
            (std::vector<std::string>{"(,a)", "(2,x)", "(1,)", "(1,b)", "(1,a)", "NULL"}));
}

}  // namespace
}  // namespace shoal::exec

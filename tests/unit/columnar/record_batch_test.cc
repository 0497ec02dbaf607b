#include "shoal/columnar/record_batch.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/builder.h"
#include "tests/support/batch_builder.h"

namespace shoal::columnar {
namespace {

using ::shoal::testing::ArrayToStrings;
using ::shoal::testing::MakeArray;
using ::shoal::testing::MakeBatch;
using ::shoal::testing::TryMakeBatch;
using Strings = std::vector<std::string>;

std::vector<Field> PeopleFields() {
  return {{"id", DataType::Int64(), false},
          {"name", DataType::Utf8()},
          {"city", DataType::Dictionary(TypeId::kInt32, DataType::Utf8())},
          {"born", DataType::Date32()}};
}

RecordBatchPtr People() {
  return MakeBatch(PeopleFields(), {{"1", "Ada", "London", "1815-12-10"},
                                    {"2", "NULL", "Paris", "NULL"},
                                    {"3", "Grace", "NULL", "1906-12-09"},
                                    {"4", "Émilie", "Paris", "1706-12-17"},
                                    {"5", "李白", "London", "0701-02-28"}});
}

TEST(RecordBatchTest, MakeAndAccess) {
  auto batch = People();
  EXPECT_EQ(batch->num_rows(), 5);
  EXPECT_EQ(batch->num_columns(), 4);
  EXPECT_EQ(batch->schema()->field(0).name, "id");
  EXPECT_FALSE(batch->schema()->field(0).nullable);
  EXPECT_EQ(batch->column(1)->type(), DataType::Utf8());
  EXPECT_EQ(ArrayToStrings(*batch->column(2)),
            (Strings{"London", "Paris", "NULL", "Paris", "London"}));
  EXPECT_EQ(batch->columns().size(), 4u);
  EXPECT_OK(batch->Validate());
}

TEST(RecordBatchTest, SliceIsZeroCopyAndSlicesEveryColumn) {
  auto batch = People();
  auto slice = batch->Slice(1, 3);
  EXPECT_EQ(slice->num_rows(), 3);
  EXPECT_EQ(slice->schema(), batch->schema());
  for (int c = 0; c < batch->num_columns(); ++c) {
    EXPECT_EQ(slice->column(c)->length(), 3);
    EXPECT_EQ(slice->column(c)->offset(), 1);
    EXPECT_EQ(slice->column(c)->buffer(1), batch->column(c)->buffer(1));
  }
  EXPECT_EQ(slice->column(1)->null_count(), 1);
  EXPECT_EQ(slice->column(2)->null_count(), 1);
  EXPECT_EQ(slice->column(3)->null_count(), 1);
  EXPECT_EQ(slice->column(2)->dictionary(), batch->column(2)->dictionary());
  EXPECT_OK(slice->Validate());
  auto expected = MakeBatch(PeopleFields(), {{"2", "NULL", "Paris", "NULL"},
                                             {"3", "Grace", "NULL", "1906-12-09"},
                                             {"4", "Émilie", "Paris", "1706-12-17"}});
  EXPECT_BATCHES_EQUAL(slice, expected);
  // Slices of slices.
  auto inner = slice->Slice(2, 1);
  EXPECT_EQ(inner->column(0)->offset(), 3);
  EXPECT_BATCHES_EQUAL(inner, batch->Slice(3, 1));
  EXPECT_EQ(batch->Slice(5, 0)->num_rows(), 0);
  EXPECT_OK(batch->Slice(5, 0)->Validate());
  EXPECT_DEATH((void)batch->Slice(4, 2), "slice");
}

TEST(RecordBatchTest, EqualsComparesSchemaRowsAndValues) {
  auto batch = People();
  EXPECT_TRUE(batch->Equals(*People()));
  EXPECT_FALSE(batch->Equals(*batch->Slice(0, 4)));
  auto other_value = MakeBatch(PeopleFields(), {{"1", "Ada", "London", "1815-12-10"},
                                                {"2", "NULL", "Paris", "NULL"},
                                                {"3", "Grace", "NULL", "1906-12-09"},
                                                {"4", "Émilie", "Paris", "1706-12-18"},
                                                {"5", "李白", "London", "0701-02-28"}});
  EXPECT_FALSE(batch->Equals(*other_value));
  std::vector<Field> renamed = PeopleFields();
  renamed[1].name = "full_name";
  auto other_schema = MakeBatch(renamed, {{"1", "Ada", "London", "1815-12-10"},
                                          {"2", "NULL", "Paris", "NULL"},
                                          {"3", "Grace", "NULL", "1906-12-09"},
                                          {"4", "Émilie", "Paris", "1706-12-17"},
                                          {"5", "李白", "London", "0701-02-28"}});
  EXPECT_FALSE(batch->Equals(*other_schema));
  EXPECT_TRUE(batch->Slice(1, 2)->Equals(*People()->Slice(1, 2)));
}

TEST(RecordBatchTest, ValidateChecksColumnsAgainstTheSchema) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  ArrayPtr a = MakeArray(DataType::Int32(), {"1", "2"});
  ArrayPtr b = MakeArray(DataType::Utf8(), {"x", "y"});
  EXPECT_OK(RecordBatch::Make(schema, 2, {a, b})->Validate());

  // Wrong type.
  Status st =
      RecordBatch::Make(schema, 2, {a, MakeArray(DataType::Binary(), {"x", "y"})})->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_NE(st.message().find("column 'b'"), std::string::npos) << st;
  // Wrong length.
  st = RecordBatch::Make(schema, 3, {a, b})->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_NE(st.message().find("has 2 rows"), std::string::npos) << st;
  st = RecordBatch::Make(schema, 2, {a, MakeArray(DataType::Utf8(), {"x"})})->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  // A corrupted column is reported with its name as context.
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{'x', 0xff});
  auto data = Buffer::Wrap(owner->data(), 2, owner);
  ArrayPtr bad = Array::Make(DataType::Utf8(), 2, {nullptr, b->buffer(1), data});
  st = RecordBatch::Make(schema, 2, {a, bad})->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
  EXPECT_EQ(st.context(), "column 'b': ") << st;
  EXPECT_NE(st.message().find("UTF-8"), std::string::npos) << st;
  EXPECT_OK(RecordBatch::Make(schema, 2, {a, bad})->Validate(/*check_utf8=*/false));
}

TEST(RecordBatchTest, ValidateChecksTheColumnCount) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"a", DataType::Int32()}, {"b", DataType::Utf8()}});
  // RecordBatch::Make checks the count in debug builds only; outside bytes rely on Validate.
  std::vector<ArrayPtr> one = {MakeArray(DataType::Int32(), {"1"})};
#ifdef NDEBUG
  Status st = RecordBatch::Make(schema, 1, one)->Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidData) << st;
#else
  EXPECT_DEATH((void)RecordBatch::Make(schema, 1, one), "columns");
#endif
}

TEST(RecordBatchTest, BufferBytesSumsTheColumns) {
  auto batch = People();
  int64_t sum = 0;
  for (const auto& c : batch->columns())
    sum += c->BufferBytes();
  EXPECT_EQ(batch->BufferBytes(), sum);
  EXPECT_EQ(batch->Slice(1, 1)->BufferBytes(), sum);
}

TEST(RecordBatchTest, PoolAccountingAcrossBatchesAndSlices) {
  auto pool = MemoryPool::MakeRoot("batches");
  RecordBatchPtr slice;
  {
    auto batch = MakeBatch(PeopleFields(), {{"1", "Ada", "London", "1815-12-10"}}, pool);
    EXPECT_GT(pool->bytes_used(), 0);
    slice = batch->Slice(0, 1);
  }
  EXPECT_GT(pool->bytes_used(), 0);
  slice.reset();
  EXPECT_EQ(pool->bytes_used(), 0);
}

// --- the test-support batch builder itself ------------------------------------------------------

TEST(MakeBatchTest, ParsesEveryType) {
  auto batch = MakeBatch({{"n", DataType::Null()},
                          {"b", DataType::Boolean()},
                          {"i8", DataType::Int8()},
                          {"u64", DataType::UInt64()},
                          {"f32", DataType::Float32()},
                          {"d64", DataType::Decimal(12, 3)},
                          {"d128", DataType::Decimal(38, 2)},
                          {"day", DataType::Date32()},
                          {"ts", DataType::Timestamp(TimeUnit::kMilli, "UTC")},
                          {"iv", DataType::Interval()},
                          {"s", DataType::Utf8()},
                          {"bin", DataType::Binary()}},
                         {{"NULL", "TRUE", "-128", "18446744073709551615", "-1.5", "3.14159",
                           "-1234567.895", "0044-03-15 BC", "2024-01-01T12:00:00.123Z",
                           "1 year -2 days 00:00:01.5", "\\NULL", "\\x00ff"},
                          {"null", "f", "+7", "0", "Infinity", "NULL", "0", "2024-02-29",
                           "2024-01-01 13:00:00+01:00", "NULL", "", "raw"}});
  EXPECT_OK(batch->Validate());
  std::vector<Strings> rows;
  for (int64_t r = 0; r < batch->num_rows(); ++r) {
    Strings row;
    for (const auto& c : batch->columns())
      row.push_back(ArrayToStrings(*c->Slice(r, 1))[0]);
    rows.push_back(row);
  }
  EXPECT_EQ(rows[0], (Strings{"NULL", "t", "-128", "18446744073709551615", "-1.5", "3.142",
                              "-1234567.90", "0044-03-15 BC", "2024-01-01 12:00:00.123+00",
                              "1 year -2 days +00:00:01.5", "NULL", "\\x00ff"}));
  EXPECT_EQ(rows[1], (Strings{"NULL", "f", "7", "0", "Infinity", "NULL", "0.00", "2024-02-29",
                              "2024-01-01 12:00:00+00", "NULL", "", "\\x726177"}));
  // "\NULL" is the four-letter string, not a null.
  EXPECT_TRUE(batch->column(10)->IsValid(0));
  EXPECT_EQ(batch->column(10)->StringValue(0), "NULL");
}

TEST(MakeBatchTest, BadTextIsAnErrorNamingRowAndColumn) {
  const std::vector<Field> fields = {{"a", DataType::Int8()}, {"d", DataType::Date32()}};
  auto r = TryMakeBatch(fields, {{"1", "2024-01-01"}, {"300", "2024-01-01"}});
  ASSERT_STATUS_CODE(StatusCode::kOutOfRange, r);
  EXPECT_NE(r.status().UserMessage().find("row 1, column 'a'"), std::string::npos) << r.status();
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, TryMakeBatch(fields, {{"x", "2024-01-01"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, TryMakeBatch(fields, {{"1", "2023-02-29"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, TryMakeBatch(fields, {{"1", "2023-13-01"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument, TryMakeBatch(fields, {{"1"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     TryMakeBatch({{"b", DataType::Boolean()}}, {{"yes"}}));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, TryMakeBatch({{"u", DataType::UInt8()}}, {{"-1"}}));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     TryMakeBatch({{"d", DataType::Decimal(3, 0)}}, {{"1000"}}));
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidArgument,
      TryMakeBatch({{"t", DataType::Timestamp(TimeUnit::kSecond)}}, {{"2024-01-01 00:00:00.5"}}));
  EXPECT_STATUS_CODE(
      StatusCode::kOutOfRange,
      TryMakeBatch({{"t", DataType::Timestamp(TimeUnit::kNano)}}, {{"2300-01-01 00:00:00"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     TryMakeBatch({{"n", DataType::Null()}}, {{"1"}}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     TryMakeBatch({{"i", DataType::Interval()}}, {{"3 fortnights"}}));
}

TEST(MakeBatchTest, AssertionsReportTheFirstDifference) {
  auto a = MakeBatch({{"k", DataType::Int32()}}, {{"1"}, {"2"}});
  auto b = MakeBatch({{"k", DataType::Int32()}}, {{"1"}, {"3"}});
  auto result = ::shoal::testing::AssertBatchesEqual("a", "b", a, b);
  EXPECT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("column 'k' at row 1: 2 vs 3"), std::string::npos)
      << result.message();
  EXPECT_TRUE(::shoal::testing::AssertBatchesEqual("a", "a", a, a));
  auto arrays = ::shoal::testing::AssertArraysEqual("x", "y", a->column(0), b->column(0));
  EXPECT_FALSE(arrays);
  EXPECT_NE(std::string(arrays.message()).find("element 1: 2 vs 3"), std::string::npos)
      << arrays.message();
}

}  // namespace
}  // namespace shoal::columnar

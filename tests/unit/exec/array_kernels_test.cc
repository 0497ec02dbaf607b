// The array kernels (exec/expr/array_kernels.cc) and array casts (array_casts.h) through the
// evaluator: arrays are written as text and cast (so the text parser is under test too), over
// batches of one and of several rows and over sliced inputs (a list whose offset is not 0), with
// PostgreSQL's NULL rules. Expected values are PostgreSQL 15's.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/expr/evaluator.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

const DataType kIntArray = DataType::List(DataType::Int32());
const DataType kTextArray = DataType::List(DataType::Utf8());

/// One text column `a`, and `b` when given, cast to `type` by the expression under test.
RecordBatchPtr TextBatch(const std::vector<TextRow>& rows, int columns) {
  std::vector<Field> fields = {{"a", DataType::Utf8()}};
  if (columns > 1)
    fields.emplace_back("b", DataType::Utf8());
  return MakeBatch(fields, rows);
}

/// The text of every row of `expr` over `batch` (NULL for nulls); the batch is also sliced by one
/// row so that kernels see inputs at an offset.
Strings Eval(const sql::ExprPtr& expr, const RecordBatchPtr& batch, bool slice = false) {
  RecordBatchPtr input = slice ? batch->Slice(1, batch->num_rows() - 1) : batch;
  auto eval = ExprEvaluator::Make(expr, *input->schema(), DefaultMemoryPool());
  EXPECT_TRUE(eval.ok()) << eval.status().ToString();
  if (!eval.ok())
    return {};
  auto out = (*eval)->Evaluate(*input);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok())
    return {};
  EXPECT_TRUE((*out)->Validate().ok());
  Strings rows;
  for (int64_t i = 0; i < (*out)->length(); ++i)
    rows.push_back((*out)->IsNull(i) ? "NULL" : columnar::FormatValue(**out, i));
  return rows;
}

sql::ExprPtr A(const DataType& type = kIntArray) {
  return Cast(Col(0, DataType::Utf8()), type);
}

sql::ExprPtr B(const DataType& type = kIntArray) {
  return Cast(Col(1, DataType::Utf8()), type);
}

sql::ExprPtr I64(int64_t v) {
  return Lit(Scalar::Int64(v));
}

TEST(ArrayCastTest, TextToArrayAndBack) {
  auto batch = TextBatch({{"{1,2,NULL}"}, {" { 3 , 4 } "}, {"NULL"}, {"{}"}, {"[1:2]={5,6}"}}, 1);
  EXPECT_EQ(Eval(A(), batch), (Strings{"{1,2,NULL}", "{3,4}", "NULL", "{}", "{5,6}"}));
  EXPECT_EQ(Eval(A(), batch, true), (Strings{"{3,4}", "NULL", "{}", "{5,6}"}));
  auto text = TextBatch({{R"({"a b", c ,"d\"e",NULL,"NULL",""})"}}, 1);
  EXPECT_EQ(Eval(A(kTextArray), text), (Strings{R"({"a b",c,"d\"e",NULL,"NULL",""})"}));
  // An array back to text is array_out's form; to another element type each element is cast.
  EXPECT_EQ(Eval(Cast(A(), DataType::Utf8()), batch, true),
            (Strings{"{3,4}", "NULL", "{}", "{5,6}"}));
  EXPECT_EQ(Eval(Cast(A(), DataType::List(DataType::Int64())), batch),
            (Strings{"{1,2,NULL}", "{3,4}", "NULL", "{}", "{5,6}"}));
  auto nested = TextBatch({{"{{1,2},{3}}"}, {"{}"}}, 1);
  EXPECT_EQ(Eval(A(DataType::List(kIntArray)), nested), (Strings{"{{1,2},{3}}", "{}"}));
}

TEST(ArrayCastTest, MalformedLiteralsAreErrorsOrNullUnderTryCast) {
  for (const char* bad : {"{1,2", "1,2", "{1,{2}}", "{1}x", "{\"a}"}) {
    auto batch = TextBatch({{bad}}, 1);
    auto eval = ExprEvaluator::Make(A(), *batch->schema(), DefaultMemoryPool());
    ASSERT_OK(eval.status());
    auto out = (*eval)->Evaluate(*batch);
    ASSERT_FALSE(out.ok()) << bad;
    EXPECT_EQ(out.status().sqlstate(), "22P02") << bad;
  }
  // A bad element fails as its type's cast does.
  auto batch = TextBatch({{"{1,x}"}}, 1);
  auto eval = ExprEvaluator::Make(A(), *batch->schema(), DefaultMemoryPool());
  ASSERT_OK(eval.status());
  EXPECT_FALSE((*eval)->Evaluate(*batch).ok());
  auto rows = TextBatch({{"{1}"}, {"{2"}, {"{3,4}"}}, 1);
  EXPECT_EQ(Eval(Cast(Col(0, DataType::Utf8()), kIntArray, /*try_cast=*/true), rows),
            (Strings{"{1}", "NULL", "{3,4}"}));
}

TEST(ArrayKernelsTest, SubscriptsAndSlices) {
  auto batch = TextBatch({{"{9}"}, {"{1,2,3}"}, {"{4,NULL,6}"}, {"NULL"}, {"{}"}}, 1);
  const DataType i32 = DataType::Int32();
  for (bool slice : {false, true}) {
    Strings first = Eval(Call("array_subscript", {A(), I64(1)}, i32), batch, slice);
    Strings third = Eval(Call("array_subscript", {A(), I64(3)}, i32), batch, slice);
    Strings zero = Eval(Call("array_subscript", {A(), I64(0)}, i32), batch, slice);
    Strings mid = Eval(Call("array_slice", {A(), I64(2), I64(3)}, kIntArray), batch, slice);
    Strings wide = Eval(Call("array_slice", {A(), I64(-5), I64(99)}, kIntArray), batch, slice);
    Strings all_first = {"9", "1", "4", "NULL", "NULL"};
    Strings all_third = {"NULL", "3", "6", "NULL", "NULL"};
    Strings all_mid = {"{}", "{2,3}", "{NULL,6}", "NULL", "{}"};
    Strings all_wide = {"{9}", "{1,2,3}", "{4,NULL,6}", "NULL", "{}"};
    const auto skip = slice ? 1 : 0;
    EXPECT_EQ(first, Strings(all_first.begin() + skip, all_first.end()));
    EXPECT_EQ(third, Strings(all_third.begin() + skip, all_third.end()));
    EXPECT_EQ(zero, Strings(batch->num_rows() - skip, "NULL"));
    EXPECT_EQ(mid, Strings(all_mid.begin() + skip, all_mid.end()));
    EXPECT_EQ(wide, Strings(all_wide.begin() + skip, all_wide.end()));
  }
}

TEST(ArrayKernelsTest, LengthsAndPositions) {
  auto batch = TextBatch({{"{1,2,3}"}, {"{4,NULL,6}"}, {"NULL"}, {"{}"}}, 1);
  const DataType i32 = DataType::Int32();
  EXPECT_EQ(Eval(Call("array_length", {A(), Lit(Scalar::Int32(1))}, i32), batch),
            (Strings{"3", "3", "NULL", "NULL"}));
  EXPECT_EQ(Eval(Call("cardinality", {A()}, i32), batch), (Strings{"3", "3", "NULL", "0"}));
  EXPECT_EQ(Eval(Call("array_position", {A(), Lit(Scalar::Int32(6))}, i32), batch, true),
            (Strings{"3", "NULL", "NULL"}));
  // array_position finds NULL (IS NOT DISTINCT FROM).
  EXPECT_EQ(Eval(Call("array_position", {A(), Lit(Scalar(DataType::Int32()))}, i32), batch),
            (Strings{"NULL", "2", "NULL", "NULL"}));
  auto nested = TextBatch({{"{{1,2,3},{4,5,6}}"}}, 1);
  const DataType matrix = DataType::List(kIntArray);
  EXPECT_EQ(Eval(Call("array_length", {A(matrix), Lit(Scalar::Int32(2))}, i32), nested),
            (Strings{"3"}));
  EXPECT_EQ(Eval(Call("cardinality", {A(matrix)}, i32), nested), (Strings{"6"}));
}

TEST(ArrayKernelsTest, ConcatenationTreatsNullAsEmpty) {
  auto batch = TextBatch(
      {{"{1,2}", "{3}"}, {"NULL", "{4}"}, {"{5}", "NULL"}, {"NULL", "NULL"}, {"{}", "{}"}}, 2);
  EXPECT_EQ(Eval(Call("array_cat", {A(), B()}, kIntArray), batch),
            (Strings{"{1,2,3}", "{4}", "{5}", "NULL", "{}"}));
  EXPECT_EQ(Eval(Call("array_cat", {A(), B()}, kIntArray), batch, true),
            (Strings{"{4}", "{5}", "NULL", "{}"}));
  EXPECT_EQ(Eval(Call("array_append", {A(), Lit(Scalar::Int32(9))}, kIntArray), batch),
            (Strings{"{1,2,9}", "{9}", "{5,9}", "{9}", "{9}"}));
  EXPECT_EQ(Eval(Call("array_prepend", {Lit(Scalar::Int32(0)), B()}, kIntArray), batch),
            (Strings{"{0,3}", "{0,4}", "{0}", "{0}", "{0}"}));
  EXPECT_EQ(Eval(Call("make_array", {Lit(Scalar::Utf8("7")), Col(0, DataType::Utf8())},
                      DataType::List(DataType::Utf8())),
                 TextBatch({{"x"}, {"NULL"}}, 1)),
            (Strings{"{7,x}", "{7,NULL}"}));
}

TEST(ArrayKernelsTest, QuantifiedComparisonsFollowThreeValuedLogic) {
  auto batch = TextBatch({{"{1,2}"}, {"{1,NULL}"}, {"{}"}, {"NULL"}, {"{3,4}"}}, 1);
  const DataType b = DataType::Boolean();
  auto two = Lit(Scalar::Int32(2));
  EXPECT_EQ(Eval(Call("= any", {two, A()}, b), batch), (Strings{"t", "NULL", "f", "NULL", "f"}));
  EXPECT_EQ(Eval(Call("<> all", {two, A()}, b), batch), (Strings{"f", "NULL", "t", "NULL", "t"}));
  EXPECT_EQ(Eval(Call("< all", {Lit(Scalar::Int32(0)), A()}, b), batch, true),
            (Strings{"NULL", "t", "NULL", "t"}));
  // NULL = ANY('{}') is false: no comparison happens.
  EXPECT_EQ(Eval(Call("= any", {Lit(Scalar(DataType::Int32())), A()}, b), batch),
            (Strings{"NULL", "NULL", "f", "NULL", "NULL"}));
}

TEST(ArrayKernelsTest, ContainmentAndOverlap) {
  auto batch = TextBatch({{"{1,2,3}", "{3,1}"},
                          {"{1,NULL}", "{NULL}"},
                          {"{1}", "{}"},
                          {"NULL", "{1}"},
                          {"{4}", "{5,4}"}},
                         2);
  const DataType b = DataType::Boolean();
  EXPECT_EQ(Eval(Call("@>", {A(), B()}, b), batch), (Strings{"t", "f", "t", "NULL", "f"}));
  EXPECT_EQ(Eval(Call("<@", {A(), B()}, b), batch), (Strings{"f", "f", "f", "NULL", "t"}));
  EXPECT_EQ(Eval(Call("&&", {A(), B()}, b), batch, true), (Strings{"f", "f", "NULL", "t"}));
}

TEST(ArrayKernelsTest, EqualityIsPostgresArrayEq) {
  auto batch = TextBatch({{"{1,2}", "{1,2}"},
                          {"{1,NULL}", "{1,NULL}"},
                          {"{1}", "{1,2}"},
                          {"NULL", "{1}"},
                          {"NULL", "NULL"},
                          {"{}", "{}"}},
                         2);
  const DataType b = DataType::Boolean();
  EXPECT_EQ(Eval(Call("=", {A(), B()}, b), batch), (Strings{"t", "t", "f", "NULL", "NULL", "t"}));
  EXPECT_EQ(Eval(Call("<>", {A(), B()}, b), batch, true), (Strings{"f", "t", "NULL", "NULL", "f"}));
  EXPECT_EQ(Eval(Call("is_not_distinct_from", {A(), B()}, b), batch),
            (Strings{"t", "t", "f", "f", "t", "t"}));
  const DataType matrix = DataType::List(kIntArray);
  auto nested = TextBatch({{"{{1},{2,NULL}}", "{{1},{2,NULL}}"}, {"{{1}}", "{{2}}"}}, 2);
  EXPECT_EQ(Eval(Call("=", {A(matrix), B(matrix)}, b), nested), (Strings{"t", "f"}));
}

TEST(ArrayKernelsTest, TextConversions) {
  auto batch = TextBatch({{"{a,NULL,c}"}, {"NULL"}, {"{}"}}, 1);
  const DataType t = DataType::Utf8();
  EXPECT_EQ(Eval(Call("array_to_string", {A(kTextArray), Lit(Scalar::Utf8("-"))}, t), batch),
            (Strings{"a-c", "NULL", ""}));
  EXPECT_EQ(Eval(Call("array_to_string",
                      {A(kTextArray), Lit(Scalar::Utf8("-")), Lit(Scalar::Utf8("*"))}, t),
                 batch),
            (Strings{"a-*-c", "NULL", ""}));
  auto strings = TextBatch({{"a,b,,c"}, {""}, {"NULL"}, {"xyz"}}, 1);
  EXPECT_EQ(Eval(Call("string_to_array", {Col(0, t), Lit(Scalar::Utf8(","))}, kTextArray), strings),
            (Strings{R"({a,b,"",c})", "{}", "NULL", "{xyz}"}));
  EXPECT_EQ(Eval(Call("string_to_array", {Col(0, t), Lit(Scalar(t))}, kTextArray), strings),
            (Strings{R"({a,",",b,",",",",c})", "{}", "NULL", "{x,y,z}"}));
  EXPECT_EQ(Eval(Call("string_to_array", {Col(0, t), Lit(Scalar::Utf8(",")), Lit(Scalar::Utf8(""))},
                      kTextArray),
                 strings),
            (Strings{"{a,b,NULL,c}", "{}", "NULL", "{xyz}"}));
}

TEST(ArrayKernelsTest, RecordsAndFields) {
  const DataType t = DataType::Utf8();
  const DataType record = DataType::Struct({Field("f1", DataType::Int32()), Field("f2", t)});
  auto batch = TextBatch({{"x"}, {"NULL"}, {"a b"}}, 1);
  auto row = Call("row", {Lit(Scalar::Int32(1)), Col(0, t)}, record);
  EXPECT_EQ(Eval(row, batch), (Strings{"(1,x)", "(1,)", "(1,\"a b\")"}));
  EXPECT_EQ(Eval(Call("struct_field", {row, Lit(Scalar::Int32(1))}, t), batch, true),
            (Strings{"NULL", "a b"}));
}

TEST(ArrayKernelsTest, Maps) {
  const DataType t = DataType::Utf8();
  const DataType i32 = DataType::Int32();
  const DataType map = DataType::Map(Field("key", t, false), Field("value", i32));
  auto batch = TextBatch({{"{a,b}", "{1,NULL}"}, {"{}", "{}"}, {"{c}", "{3}"}}, 2);
  auto m = Call("map", {A(kTextArray), B()}, map);
  EXPECT_EQ(Eval(m, batch), (Strings{"{a=1, b=NULL}", "{}", "{c=3}"}));
  EXPECT_EQ(Eval(Call("map_extract_value", {m, Lit(Scalar::Utf8("c"))}, i32), batch),
            (Strings{"NULL", "NULL", "3"}));
  EXPECT_EQ(Eval(Call("map_keys", {m}, kTextArray), batch, true), (Strings{"{}", "{c}"}));
  EXPECT_EQ(Eval(Call("map_values", {m}, kIntArray), batch), (Strings{"{1,NULL}", "{}", "{3}"}));
  auto uneven = TextBatch({{"{a}", "{1,2}"}}, 2);
  auto eval = ExprEvaluator::Make(m, *uneven->schema(), DefaultMemoryPool());
  ASSERT_OK(eval.status());
  EXPECT_FALSE((*eval)->Evaluate(*uneven).ok());
}

}  // namespace
}  // namespace shoal::exec

#include <gtest/gtest.h>

#include "shoal/columnar/sql_type_name.h"
#include "shoal/exec/expr/evaluator.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)
using columnar::Field;
using shoal::testing::ArrayToStrings;
using shoal::testing::MakeBatch;
using Strings = std::vector<std::string>;

Result<ArrayPtr> Eval(const sql::ExprPtr& expr, const RecordBatchPtr& batch) {
  SHOAL_ASSIGN_OR_RETURN(auto ev, ExprEvaluator::Make(expr, *batch->schema(), DefaultMemoryPool()));
  return ev->Evaluate(*batch);
}

Strings EvalStrings(const sql::ExprPtr& expr, const RecordBatchPtr& batch) {
  auto r = Eval(expr, batch);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok())
    return {};
  EXPECT_EQ((*r)->length(), batch->num_rows());
  return ArrayToStrings(**r);
}

RecordBatchPtr OneRow() {
  return MakeBatch({{"x", DataType::Int32()}}, {{"1"}});
}

TEST(ExprTest, IntegerArithmeticPropagatesNulls) {
  auto batch = MakeBatch({{"a", DataType::Int32()}, {"b", DataType::Int32()}},
                         {{"1", "10"}, {"NULL", "5"}, {"3", "NULL"}, {"-7", "2"}});
  auto a = Col(0, DataType::Int32()), b = Col(1, DataType::Int32());
  EXPECT_EQ(EvalStrings(Call("+", {a, b}, DataType::Int32()), batch),
            (Strings{"11", "NULL", "NULL", "-5"}));
  EXPECT_EQ(EvalStrings(Call("*", {a, Lit(Scalar::Int32(3))}, DataType::Int32()), batch),
            (Strings{"3", "NULL", "9", "-21"}));
  EXPECT_EQ(EvalStrings(Call("/", {a, b}, DataType::Int32()), batch),
            (Strings{"0", "NULL", "NULL", "-3"}));
  EXPECT_EQ(EvalStrings(Call("%", {a, b}, DataType::Int32()), batch),
            (Strings{"1", "NULL", "NULL", "-1"}));
  EXPECT_EQ(EvalStrings(Call("negate", {a}, DataType::Int32()), batch),
            (Strings{"-1", "NULL", "-3", "7"}));
  // Mixed widths are widened to the result type.
  EXPECT_EQ(EvalStrings(Call("+", {a, Lit(Scalar::Int64(5000000000LL))}, DataType::Int64()), batch),
            (Strings{"5000000001", "NULL", "5000000003", "4999999993"}));
}

TEST(ExprTest, IntegerOverflowAndDivisionByZero) {
  auto batch = MakeBatch({{"a", DataType::Int32()}}, {{"2147483647"}, {"1"}});
  auto a = Col(0, DataType::Int32());
  auto r = Eval(Call("+", {a, Lit(Scalar::Int32(1))}, DataType::Int32()), batch);
  ASSERT_STATUS_CODE(StatusCode::kOutOfRange, r);
  EXPECT_NE(r.status().message().find("out of range for type int32"), std::string::npos);
  auto z = Eval(Call("/", {a, Lit(Scalar::Int32(0))}, DataType::Int32()), batch);
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, z);
  EXPECT_EQ(z.status().message(), "division by zero");
  // A zero divisor under a NULL dividend is not an error.
  auto nb =
      MakeBatch({{"a", DataType::Int32()}, {"b", DataType::Int32()}}, {{"NULL", "0"}, {"4", "2"}});
  EXPECT_EQ(
      EvalStrings(
          Call("/", {Col(0, DataType::Int32()), Col(1, DataType::Int32())}, DataType::Int32()), nb),
      (Strings{"NULL", "2"}));
  auto min = MakeBatch({{"a", DataType::Int64()}}, {{"-9223372036854775808"}});
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Eval(Call("negate", {Col(0, DataType::Int64())}, DataType::Int64()), min));
}

TEST(ExprTest, DecimalArithmeticIsExact) {
  auto batch = MakeBatch({{"p", DataType::Decimal(15, 2)}, {"d", DataType::Decimal(15, 2)}},
                         {{"1000.10", "0.05"}, {"0.01", "0.10"}, {"NULL", "0.01"}});
  auto p = Col(0, DataType::Decimal(15, 2)), d = Col(1, DataType::Decimal(15, 2));
  // l_extendedprice * (1 - l_discount)
  auto one_minus = Call("-", {Lit(Scalar::Int32(1)), d}, DataType::Decimal(16, 2));
  EXPECT_EQ(EvalStrings(one_minus, batch), (Strings{"0.95", "0.90", "0.99"}));
  EXPECT_EQ(EvalStrings(Call("*", {p, one_minus}, DataType::Decimal(32, 4)), batch),
            (Strings{"950.0950", "0.0090", "NULL"}));
  // Different scales are aligned.
  auto mixed = MakeBatch({{"a", DataType::Decimal(5, 1)}, {"b", DataType::Decimal(5, 2)}},
                         {{"1.5", "2.25"}, {"-0.1", "0.01"}});
  auto a = Col(0, DataType::Decimal(5, 1)), b = Col(1, DataType::Decimal(5, 2));
  EXPECT_EQ(EvalStrings(Call("+", {a, b}, DataType::Decimal(7, 2)), mixed),
            (Strings{"3.75", "-0.09"}));
  EXPECT_EQ(EvalStrings(Call("-", {a, b}, DataType::Decimal(7, 2)), mixed),
            (Strings{"-0.75", "-0.11"}));
  // Division rounds half away from zero at the result scale.
  EXPECT_EQ(EvalStrings(Call("/", {a, b}, DataType::Decimal(12, 4)), mixed),
            (Strings{"0.6667", "-10.0000"}));
  // Overflow of the result precision.
  auto big = MakeBatch({{"a", DataType::Decimal(3, 0)}}, {{"999"}});
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Eval(Call("+", {Col(0, DataType::Decimal(3, 0)), Lit(Scalar::Int32(1))},
                               DataType::Decimal(3, 0)),
                          big));
  // 38-digit arithmetic through int128.
  auto wide =
      MakeBatch({{"a", DataType::Decimal(38, 0)}}, {{"99999999999999999999999999999999999998"}});
  EXPECT_EQ(EvalStrings(Call("+", {Col(0, DataType::Decimal(38, 0)), Lit(Scalar::Int32(1))},
                             DataType::Decimal(38, 0)),
                        wide),
            (Strings{"99999999999999999999999999999999999999"}));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Eval(Call("+", {Col(0, DataType::Decimal(38, 0)), Lit(Scalar::Int32(2))},
                               DataType::Decimal(38, 0)),
                          wide));
}

// Decimal + - * run in int64 without per-row checks when the operands' magnitudes in the batch
// bound every result below 2^63 and the result type's maximum, and through the checked int128
// path otherwise. Either way the answers are exact, and an out-of-range value is 22003.
TEST(ExprTest, DecimalInt64PathIsExactAtItsLimits) {
  const DataType d18 = DataType::Decimal(18, 0);
  auto a = Col(0, d18), b = Col(1, d18);
  // 3037000499^2 < 2^63 <= 3037000500^2: the first batch fits int64, the second does not.
  auto fits =
      MakeBatch({{"a", d18}, {"b", d18}},
                {{"3037000499", "3037000499"}, {"-3037000499", "3037000499"}, {"NULL", "1"}});
  EXPECT_EQ(EvalStrings(Call("*", {a, b}, DataType::Decimal(36, 0)), fits),
            (Strings{"9223372030926249001", "-9223372030926249001", "NULL"}));
  auto over = MakeBatch({{"a", d18}, {"b", d18}}, {{"3037000500", "3037000500"},
                                                   {"999999999999999999", "-999999999999999999"}});
  EXPECT_EQ(EvalStrings(Call("*", {a, b}, DataType::Decimal(36, 0)), over),
            (Strings{"9223372037000250000", "-999999999999999998000000000000000001"}));
  // Sums and differences near 2^63 and near 10^18.
  auto sums = MakeBatch({{"a", d18}, {"b", d18}}, {{"999999999999999999", "999999999999999999"},
                                                   {"-999999999999999999", "999999999999999999"}});
  EXPECT_EQ(EvalStrings(Call("+", {a, b}, DataType::Decimal(19, 0)), sums),
            (Strings{"1999999999999999998", "0"}));
  EXPECT_EQ(EvalStrings(Call("-", {a, b}, DataType::Decimal(19, 0)), sums),
            (Strings{"0", "-1999999999999999998"}));
  // The bound (500 + 500) passes decimal(3, 0)'s maximum but no actual sum does: the checked
  // path runs and finds no overflow.
  const DataType d3 = DataType::Decimal(3, 0);
  auto c = Col(0, d3), e = Col(1, d3);
  auto near = MakeBatch({{"c", d3}, {"e", d3}}, {{"500", "1"}, {"1", "500"}, {"-499", "-500"}});
  EXPECT_EQ(EvalStrings(Call("+", {c, e}, d3), near), (Strings{"501", "501", "-999"}));
  // A result out of the type's range is PostgreSQL's 22003, on either path.
  auto out = MakeBatch({{"c", d3}, {"e", d3}}, {{"999", "1"}});
  auto r = Eval(Call("+", {c, e}, d3), out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "22003");
  auto neg = MakeBatch({{"c", d3}, {"e", d3}}, {{"-999", "1"}});
  r = Eval(Call("-", {c, e}, d3), neg);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "22003");
  // Scaling an operand to the other's scale can leave int64: decimal(18,0) + decimal(18,17).
  const DataType d17 = DataType::Decimal(18, 17);
  auto scaled =
      MakeBatch({{"a", d18}, {"f", d17}}, {{"999999999999999999", "0.00000000000000001"}});
  EXPECT_EQ(EvalStrings(Call("+", {a, Col(1, d17)}, DataType::Decimal(36, 17)), scaled),
            (Strings{"999999999999999999.00000000000000001"}));
  // bigint's minimum has magnitude 2^63, one past int64's maximum: the int128 path keeps it exact.
  auto min = MakeBatch({{"i", DataType::Int64()}, {"g", DataType::Decimal(2, 1)}},
                       {{"-9223372036854775808", "1.0"}, {"9223372036854775807", "-1.0"}});
  EXPECT_EQ(EvalStrings(Call("*", {Col(0, DataType::Int64()), Col(1, DataType::Decimal(2, 1))},
                             DataType::Decimal(21, 1)),
                        min),
            (Strings{"-9223372036854775808.0", "-9223372036854775807.0"}));
  // int128 operands whose values are small take the int64 path; large ones do not.
  const DataType d30 = DataType::Decimal(30, 0);
  auto wide = MakeBatch({{"w", d30}, {"v", d18}},
                        {{"123456789", "1000"}, {"-100000000000000000000000000000", "0"}});
  EXPECT_EQ(EvalStrings(Call("*", {Col(0, d30), Col(1, d18)}, DataType::Decimal(38, 0)), wide),
            (Strings{"123456789000", "0"}));
  auto wide_small = MakeBatch({{"w", d30}, {"v", d18}}, {{"-123456789", "1000"}, {"7", "-3"}});
  EXPECT_EQ(
      EvalStrings(Call("*", {Col(0, d30), Col(1, d18)}, DataType::Decimal(38, 0)), wide_small),
      (Strings{"-123456789000", "-21"}));
  auto wide_over =
      MakeBatch({{"w", d30}, {"v", d18}}, {{"999999999999999999999999999999", "999999999"}});
  r = Eval(Call("*", {Col(0, d30), Col(1, d18)}, DataType::Decimal(38, 0)), wide_over);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "22003");
}

TEST(ExprTest, FloatArithmetic) {
  auto batch = MakeBatch({{"a", DataType::Float64()}}, {{"1.5"}, {"NULL"}, {"-2"}});
  auto a = Col(0, DataType::Float64());
  EXPECT_EQ(EvalStrings(Call("*", {a, Lit(Scalar::Float64(2))}, DataType::Float64()), batch),
            (Strings{"3", "NULL", "-4"}));
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     Eval(Call("/", {a, Lit(Scalar::Float64(0))}, DataType::Float64()), batch));
}

TEST(ExprTest, Comparisons) {
  auto batch = MakeBatch({{"s", DataType::Utf8()},
                          {"d", DataType::Decimal(5, 2)},
                          {"e", DataType::Decimal(6, 1)},
                          {"f", DataType::Float64()}},
                         {{"apple", "1.50", "1.5", "NaN"},
                          {"banana", "2.00", "1.9", "1"},
                          {"NULL", "NULL", "3.0", "NULL"}});
  auto s = Col(0, DataType::Utf8());
  EXPECT_EQ(EvalStrings(Call("<", {s, Lit(Scalar::Utf8("b"))}, DataType::Boolean()), batch),
            (Strings{"t", "f", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("=", {s, Lit(Scalar::Utf8("banana"))}, DataType::Boolean()), batch),
            (Strings{"f", "t", "NULL"}));
  auto d = Col(1, DataType::Decimal(5, 2)), e = Col(2, DataType::Decimal(6, 1));
  EXPECT_EQ(EvalStrings(Call("=", {d, e}, DataType::Boolean()), batch),
            (Strings{"t", "f", "NULL"}));
  EXPECT_EQ(EvalStrings(Call(">", {d, e}, DataType::Boolean()), batch),
            (Strings{"f", "t", "NULL"}));
  // Decimal against an integer literal.
  EXPECT_EQ(EvalStrings(Call(">=", {d, Lit(Scalar::Int32(2))}, DataType::Boolean()), batch),
            (Strings{"f", "t", "NULL"}));
  // NaN equals NaN and sorts above everything, as in PostgreSQL.
  auto f = Col(3, DataType::Float64());
  EXPECT_EQ(EvalStrings(Call(">", {f, Lit(Scalar::Float64(1e300))}, DataType::Boolean()), batch),
            (Strings{"t", "f", "NULL"}));
  EXPECT_EQ(
      EvalStrings(Call("is_distinct_from", {s, Lit(Scalar(DataType::Utf8()))}, DataType::Boolean()),
                  batch),
      (Strings{"t", "t", "f"}));
  EXPECT_EQ(EvalStrings(Call("is_not_distinct_from", {d, e}, DataType::Boolean()), batch),
            (Strings{"t", "f", "f"}));
}

TEST(ExprTest, ThreeValuedLogic) {
  auto batch =
      MakeBatch({{"a", DataType::Boolean()}, {"b", DataType::Boolean()}}, {{"t", "t"},
                                                                           {"t", "f"},
                                                                           {"t", "NULL"},
                                                                           {"f", "t"},
                                                                           {"f", "f"},
                                                                           {"f", "NULL"},
                                                                           {"NULL", "t"},
                                                                           {"NULL", "f"},
                                                                           {"NULL", "NULL"}});
  auto a = Col(0, DataType::Boolean()), b = Col(1, DataType::Boolean());
  EXPECT_EQ(EvalStrings(Call("and", {a, b}, DataType::Boolean()), batch),
            (Strings{"t", "f", "NULL", "f", "f", "f", "NULL", "f", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("or", {a, b}, DataType::Boolean()), batch),
            (Strings{"t", "t", "t", "t", "f", "NULL", "t", "NULL", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("not", {a}, DataType::Boolean()), batch),
            (Strings{"f", "f", "f", "t", "t", "t", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("is_null", {b}, DataType::Boolean()), batch),
            (Strings{"f", "f", "t", "f", "f", "t", "f", "f", "t"}));
  EXPECT_EQ(EvalStrings(Call("is_not_null", {a}, DataType::Boolean()), batch),
            (Strings{"t", "t", "t", "t", "t", "t", "f", "f", "f"}));
  // A NULL literal operand.
  EXPECT_EQ(
      EvalStrings(Call("and", {a, Lit(Scalar(DataType::Boolean()))}, DataType::Boolean()), batch),
      (Strings{"NULL", "NULL", "NULL", "f", "f", "f", "NULL", "NULL", "NULL"}));
}

TEST(ExprTest, InListNullSemantics) {
  auto batch = MakeBatch({{"x", DataType::Int32()}}, {{"1"}, {"2"}, {"NULL"}});
  auto x = Col(0, DataType::Int32());
  // 1 IN (2, NULL) is NULL; 2 IN (2, NULL) is true.
  EXPECT_EQ(EvalStrings(Call("in", {x, Lit(Scalar::Int32(2)), Lit(Scalar(DataType::Int32()))},
                             DataType::Boolean()),
                        batch),
            (Strings{"NULL", "t", "NULL"}));
  EXPECT_EQ(EvalStrings(
                Call("in", {x, Lit(Scalar::Int32(3)), Lit(Scalar::Int32(1))}, DataType::Boolean()),
                batch),
            (Strings{"t", "f", "NULL"}));
  // A long list uses the hash set.
  std::vector<sql::ExprPtr> args{x};
  for (int i = 2; i < 40; ++i)
    args.push_back(Lit(Scalar::Int64(i)));
  EXPECT_EQ(EvalStrings(Call("in", args, DataType::Boolean()), batch), (Strings{"f", "t", "NULL"}));
  // Non-literal list members.
  EXPECT_EQ(EvalStrings(Call("in", {x, Call("+", {x, Lit(Scalar::Int32(0))}, DataType::Int32())},
                             DataType::Boolean()),
                        batch),
            (Strings{"t", "t", "NULL"}));
  auto s = MakeBatch({{"s", DataType::Utf8()}}, {{"MAIL"}, {"SHIP"}, {"AIR"}});
  EXPECT_EQ(EvalStrings(Call("in",
                             {Col(0, DataType::Utf8()), Lit(Scalar::Utf8("MAIL")),
                              Lit(Scalar::Utf8("SHIP"))},
                             DataType::Boolean()),
                        s),
            (Strings{"t", "t", "f"}));
}

TEST(ExprTest, Like) {
  auto batch =
      MakeBatch({{"s", DataType::Utf8()}},
                {{"PROMO BRUSHED"}, {"LARGE PROMO"}, {"xx%yy"}, {"NULL"}, {"a_c"}, {"abc"}});
  auto s = Col(0, DataType::Utf8());
  auto like = [&](const char* pattern, bool ilike = false) {
    return EvalStrings(
        Call(ilike ? "ilike" : "like", {s, Lit(Scalar::Utf8(pattern))}, DataType::Boolean()),
        batch);
  };
  EXPECT_EQ(like("PROMO%"), (Strings{"t", "f", "f", "NULL", "f", "f"}));
  EXPECT_EQ(like("%PROMO"), (Strings{"f", "t", "f", "NULL", "f", "f"}));
  EXPECT_EQ(like("%O%"), (Strings{"t", "t", "f", "NULL", "f", "f"}));
  EXPECT_EQ(like("abc"), (Strings{"f", "f", "f", "NULL", "f", "t"}));
  EXPECT_EQ(like("a_c"), (Strings{"f", "f", "f", "NULL", "t", "t"}));
  EXPECT_EQ(like("a\\_c"), (Strings{"f", "f", "f", "NULL", "t", "f"}));
  EXPECT_EQ(like("%\\%%"), (Strings{"f", "f", "t", "NULL", "f", "f"}));
  EXPECT_EQ(like("%R%S%D"), (Strings{"t", "f", "f", "NULL", "f", "f"}));
  EXPECT_EQ(like("%"), (Strings{"t", "t", "t", "NULL", "t", "t"}));
  EXPECT_EQ(like("promo%", true), (Strings{"t", "f", "f", "NULL", "f", "f"}));
  EXPECT_EQ(like("A%C", true), (Strings{"f", "f", "f", "NULL", "t", "t"}));
}

TEST(ExprTest, CaseEvaluatesBranchesOnlyOnTheirRows) {
  auto batch = MakeBatch({{"x", DataType::Int32()}}, {{"0"}, {"2"}, {"NULL"}, {"5"}});
  auto x = Col(0, DataType::Int32());
  auto nonzero = Call("<>", {x, Lit(Scalar::Int32(0))}, DataType::Boolean());
  auto div = Call("/", {Lit(Scalar::Int32(10)), x}, DataType::Int32());
  EXPECT_EQ(
      EvalStrings(Case({nonzero, div, Lit(Scalar::Int32(-1))}, true, DataType::Int32()), batch),
      (Strings{"-1", "5", "-1", "2"}));
  // Without ELSE, unmatched rows are NULL; several WHENs are tried in order.
  auto gt1 = Call(">", {x, Lit(Scalar::Int32(1))}, DataType::Boolean());
  auto gt3 = Call(">", {x, Lit(Scalar::Int32(3))}, DataType::Boolean());
  EXPECT_EQ(EvalStrings(Case({gt3, Lit(Scalar::Utf8("big")), gt1, Lit(Scalar::Utf8("mid"))}, false,
                             DataType::Utf8()),
                        batch),
            (Strings{"NULL", "mid", "NULL", "big"}));
}

TEST(ExprTest, CoalesceAndNullIf) {
  auto batch = MakeBatch({{"a", DataType::Int32()}, {"b", DataType::Int32()}},
                         {{"1", "2"}, {"NULL", "3"}, {"NULL", "NULL"}});
  auto a = Col(0, DataType::Int32()), b = Col(1, DataType::Int32());
  EXPECT_EQ(EvalStrings(Call("coalesce", {a, b, Lit(Scalar::Int32(9))}, DataType::Int32()), batch),
            (Strings{"1", "3", "9"}));
  EXPECT_EQ(EvalStrings(Call("nullif", {b, Lit(Scalar::Int32(3))}, DataType::Int32()), batch),
            (Strings{"2", "NULL", "NULL"}));
}

TEST(ExprTest, Casts) {
  auto batch = MakeBatch({{"s", DataType::Utf8()}}, {{" 42"}, {"-7"}, {"NULL"}});
  auto s = Col(0, DataType::Utf8());
  EXPECT_EQ(EvalStrings(Cast(s, DataType::Int32()), batch), (Strings{"42", "-7", "NULL"}));
  EXPECT_EQ(EvalStrings(Cast(s, DataType::Decimal(5, 2)), batch),
            (Strings{"42.00", "-7.00", "NULL"}));
  auto bad = MakeBatch({{"s", DataType::Utf8()}}, {{"12"}, {"abc"}});
  auto r = Eval(Cast(Col(0, DataType::Utf8()), DataType::Int32()), bad);
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "invalid input syntax for type integer: \"abc\"");
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Utf8()), DataType::Int32(), true), bad),
            (Strings{"12", "NULL"}));
  auto dates = MakeBatch({{"s", DataType::Utf8()}}, {{"1998-12-01"}, {"2000-02-29"}});
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Utf8()), DataType::Date32()), dates),
            (Strings{"1998-12-01", "2000-02-29"}));
  auto bad_date = MakeBatch({{"s", DataType::Utf8()}}, {{"1999-02-29"}});
  EXPECT_STATUS_CODE(StatusCode::kInvalidArgument,
                     Eval(Cast(Col(0, DataType::Utf8()), DataType::Date32()), bad_date));

  auto nums = MakeBatch({{"n", DataType::Int64()}}, {{"3000000000"}, {"5"}});
  auto overflow = Eval(Cast(Col(0, DataType::Int64()), DataType::Int32()), nums);
  ASSERT_STATUS_CODE(StatusCode::kOutOfRange, overflow);
  EXPECT_EQ(overflow.status().message(), "value out of range for type int32");
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Int64()), DataType::Utf8()), nums),
            (Strings{"3000000000", "5"}));
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Int64()), DataType::Decimal(12, 2)), nums),
            (Strings{"3000000000.00", "5.00"}));
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange,
                     Eval(Cast(Col(0, DataType::Int64()), DataType::Decimal(5, 2)), nums));

  auto decs = MakeBatch({{"d", DataType::Decimal(6, 2)}}, {{"2.50"}, {"-2.50"}, {"1.49"}});
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Decimal(6, 2)), DataType::Int32()), decs),
            (Strings{"3", "-3", "1"}));
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Decimal(6, 2)), DataType::Decimal(6, 1)), decs),
            (Strings{"2.5", "-2.5", "1.5"}));
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Decimal(6, 2)), DataType::Float64()), decs),
            (Strings{"2.5", "-2.5", "1.49"}));
}

// The cast kernels name types as PostgreSQL does, through the one columnar::SqlTypeName: the
// private copy they had printed utf8 as "utf8" (PostgreSQL: text) and timestamps in Arrow's
// spelling. A bad date text gets the shared date parser's message and SQLSTATE: 22007, as
// PostgreSQL and the SQL literals say (the kernel's copy said 22P02, the code for numbers), and
// 22008 past PostgreSQL's last date.
TEST(ExprTest, CastErrorsUsePostgresNames) {
  EXPECT_EQ(columnar::SqlTypeName(DataType::Utf8()), "text");
  EXPECT_EQ(columnar::SqlTypeName(DataType::Timestamp()), "timestamp without time zone");
  EXPECT_EQ(columnar::SqlTypeName(DataType::Binary()), "bytea");
  auto bad = MakeBatch({{"s", DataType::Utf8()}}, {{"x1"}});
  auto dec = Eval(Cast(Col(0, DataType::Utf8()), DataType::Decimal(15, 2)), bad);
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, dec);
  EXPECT_EQ(dec.status().message(), "invalid input syntax for type numeric(15,2): \"x1\"");
  auto boolean = Eval(Cast(Col(0, DataType::Utf8()), DataType::Boolean()), bad);
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, boolean);
  EXPECT_EQ(boolean.status().message(), "invalid input syntax for type boolean: \"x1\"");

  auto bad_date = MakeBatch({{"s", DataType::Utf8()}}, {{"1999-02-29"}});
  auto date = Eval(Cast(Col(0, DataType::Utf8()), DataType::Date32()), bad_date);
  ASSERT_STATUS_CODE(StatusCode::kInvalidArgument, date);
  EXPECT_EQ(date.status().message(), "date/time field value out of range: \"1999-02-29\"");
  EXPECT_EQ(date.status().sqlstate(), "22008");  // PostgreSQL's words and SQLSTATE
  auto far = MakeBatch({{"s", DataType::Utf8()}}, {{"5874898-01-01"}});
  auto out_of_range = Eval(Cast(Col(0, DataType::Utf8()), DataType::Date32()), far);
  ASSERT_STATUS_CODE(StatusCode::kOutOfRange, out_of_range);
  EXPECT_EQ(out_of_range.status().message(), "date out of range: \"5874898-01-01\"");
  EXPECT_EQ(out_of_range.status().sqlstate(), "22008");
  EXPECT_EQ(EvalStrings(Cast(Col(0, DataType::Utf8()), DataType::Date32(), true), far),
            (Strings{"NULL"}));
}

TEST(ExprTest, Dates) {
  auto batch = MakeBatch({{"d", DataType::Date32()}}, {{"1998-12-01"}, {"2000-01-31"}, {"NULL"}});
  auto d = Col(0, DataType::Date32());
  EXPECT_EQ(EvalStrings(Call("-", {d, Lit(Scalar::Int32(90))}, DataType::Date32()), batch),
            (Strings{"1998-09-02", "1999-11-02", "NULL"}));
  EXPECT_EQ(
      EvalStrings(Call("+", {d, Lit(Scalar::Interval({1, 0, 0}))}, DataType::Date32()), batch),
      (Strings{"1999-01-01", "2000-02-29", "NULL"}));
  auto base = Lit(Scalar::Date32(10561));  // 1998-12-01
  EXPECT_EQ(EvalStrings(Call("-", {d, base}, DataType::Int32()), batch),
            (Strings{"0", "426", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("extract", {Lit(Scalar::Utf8("year")), d}, DataType::Int64()), batch),
            (Strings{"1998", "2000", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("extract", {Lit(Scalar::Utf8("month")), d}, DataType::Int32()), batch),
            (Strings{"12", "1", "NULL"}));
  EXPECT_EQ(
      EvalStrings(Call("extract", {Lit(Scalar::Utf8("day")), d}, DataType::Decimal(10, 0)), batch),
      (Strings{"1", "31", "NULL"}));
}

TEST(ExprTest, Strings) {
  auto batch = MakeBatch({{"s", DataType::Utf8()}}, {{"hello"}, {"héllo"}, {"NULL"}});
  auto s = Col(0, DataType::Utf8());
  EXPECT_EQ(EvalStrings(Call("substring", {s, Lit(Scalar::Int32(2)), Lit(Scalar::Int32(3))},
                             DataType::Utf8()),
                        batch),
            (Strings{"ell", "éll", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("substring", {s, Lit(Scalar::Int32(0)), Lit(Scalar::Int32(3))},
                             DataType::Utf8()),
                        batch),
            (Strings{"he", "hé", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("substring", {s, Lit(Scalar::Int32(4))}, DataType::Utf8()), batch),
            (Strings{"lo", "lo", "NULL"}));
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidArgument,
      Eval(Call("substring", {s, Lit(Scalar::Int32(1)), Lit(Scalar::Int32(-1))}, DataType::Utf8()),
           batch));
  EXPECT_EQ(EvalStrings(Call("length", {s}, DataType::Int32()), batch),
            (Strings{"5", "5", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("upper", {s}, DataType::Utf8()), batch),
            (Strings{"HELLO", "HéLLO", "NULL"}));
}

TEST(ExprTest, SelectRunsConjunctsOverSurvivingRows) {
  auto batch = MakeBatch({{"x", DataType::Int32()}}, {{"0"}, {"2"}, {"NULL"}, {"5"}, {"4"}});
  auto x = Col(0, DataType::Int32());
  // x <> 0 AND 10 / x > 2: the division never sees the zero row.
  auto pred = Call(
      "and",
      {Call("<>", {x, Lit(Scalar::Int32(0))}, DataType::Boolean()),
       Call(">", {Call("/", {Lit(Scalar::Int32(10)), x}, DataType::Int32()), Lit(Scalar::Int32(2))},
            DataType::Boolean())},
      DataType::Boolean());
  ASSERT_OK_AND_ASSIGN(auto ev, ExprEvaluator::Make(pred, *batch->schema(), DefaultMemoryPool()));
  SelectionVector sel;
  ASSERT_OK(ev->Select(*batch, &sel));
  EXPECT_EQ(sel, (SelectionVector{1}));
}

TEST(ExprTest, UnknownFunctionIsNotImplemented) {
  EXPECT_STATUS_CODE(StatusCode::kNotImplemented,
                     ExprEvaluator::Make(Call("no_such_fn", {}, DataType::Int32()),
                                         *OneRow()->schema(), DefaultMemoryPool()));
  EXPECT_STATUS_CODE(
      StatusCode::kInternal,
      ExprEvaluator::Make(Col(3, DataType::Int32()), *OneRow()->schema(), DefaultMemoryPool()));
}

TEST(ExprTest, MoreStringFunctions) {
  auto batch = MakeBatch({{"s", DataType::Utf8()}}, {{"a,b,c"}, {"xxhéxx"}, {"NULL"}});
  auto s = Col(0, DataType::Utf8());
  auto text = [](const char* v) { return Lit(Scalar::Utf8(v)); };
  const DataType t = DataType::Utf8();
  EXPECT_EQ(EvalStrings(Call("split_part", {s, text(","), Lit(Scalar::Int64(2))}, t), batch),
            (Strings{"b", "", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("split_part", {s, text(","), Lit(Scalar::Int64(-1))}, t), batch),
            (Strings{"c", "xxhéxx", "NULL"}));
  auto zero = Eval(Call("split_part", {s, text(","), Lit(Scalar::Int64(0))}, t), batch);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().sqlstate(), "22023");
  EXPECT_EQ(EvalStrings(Call("replace", {s, text("x"), text("<>")}, t), batch),
            (Strings{"a,b,c", "<><>hé<><>", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("trim", {s, text("x")}, t), batch), (Strings{"a,b,c", "hé", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("ltrim", {s, text("xa")}, t), batch),
            (Strings{",b,c", "héxx", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("rtrim", {s, text("xé")}, t), batch),
            (Strings{"a,b,c", "xxh", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("lpad", {s, Lit(Scalar::Int64(7)), text("é-")}, t), batch),
            (Strings{"é-a,b,c", "éxxhéxx", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("rpad", {s, Lit(Scalar::Int64(3))}, t), batch),
            (Strings{"a,b", "xxh", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("position", {s, text("x")}, DataType::Int64()), batch),
            (Strings{"0", "1", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("position", {s, text("éx")}, DataType::Int64()), batch),
            (Strings{"0", "4", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("starts_with", {s, text("a,")}, DataType::Boolean()), batch),
            (Strings{"t", "f", "NULL"}));
  // || is strict, concat() skips NULLs.
  EXPECT_EQ(EvalStrings(Call("||", {s, text("!")}, t), batch),
            (Strings{"a,b,c!", "xxhéxx!", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("concat", {s, text("!")}, t), batch),
            (Strings{"a,b,c!", "xxhéxx!", "!"}));
}

TEST(ExprTest, Rounding) {
  const DataType d52 = DataType::Decimal(5, 2);
  auto batch = MakeBatch({{"n", d52}}, {{"2.50"}, {"-2.50"}, {"2.45"}, {"-2.44"}, {"NULL"}});
  auto n = Col(0, d52);
  const DataType d40 = DataType::Decimal(4, 0);
  // Decimals round half away from zero.
  EXPECT_EQ(EvalStrings(Call("round", {n}, d40), batch), (Strings{"3", "-3", "2", "-2", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("round", {n, Lit(Scalar::Int32(1))}, DataType::Decimal(6, 2)), batch),
            (Strings{"2.50", "-2.50", "2.50", "-2.40", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("trunc", {n, Lit(Scalar::Int32(1))}, DataType::Decimal(6, 2)), batch),
            (Strings{"2.50", "-2.50", "2.40", "-2.40", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("floor", {n}, d40), batch), (Strings{"2", "-3", "2", "-3", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("ceil", {n}, d40), batch), (Strings{"3", "-2", "3", "-2", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("abs", {n}, d52), batch),
            (Strings{"2.50", "2.50", "2.45", "2.44", "NULL"}));
  auto ints = MakeBatch({{"i", DataType::Int32()}}, {{"1250"}, {"-1250"}, {"NULL"}});
  auto i = Col(0, DataType::Int32());
  EXPECT_EQ(EvalStrings(Call("round", {i, Lit(Scalar::Int32(-2))}, DataType::Int32()), ints),
            (Strings{"1300", "-1300", "NULL"}));
  auto min = MakeBatch({{"i", DataType::Int32()}}, {{"-2147483648"}});
  EXPECT_STATUS_CODE(StatusCode::kOutOfRange, Eval(Call("abs", {i}, DataType::Int32()), min));
  // Floats round half to even, like PostgreSQL's round(double precision).
  auto floats = MakeBatch({{"f", DataType::Float64()}}, {{"2.5"}, {"3.5"}, {"-2.5"}, {"NULL"}});
  auto f = Col(0, DataType::Float64());
  EXPECT_EQ(EvalStrings(Call("round", {f}, DataType::Float64()), floats),
            (Strings{"2", "4", "-2", "NULL"}));
  EXPECT_EQ(EvalStrings(Call("floor", {f}, DataType::Float64()), floats),
            (Strings{"2", "3", "-3", "NULL"}));
}

TEST(ExprTest, FloatFunctionErrors) {
  auto batch = MakeBatch({{"f", DataType::Float64()}}, {{"4"}, {"NULL"}, {"1"}});
  auto f = Col(0, DataType::Float64());
  const DataType f64 = DataType::Float64();
  EXPECT_EQ(EvalStrings(Call("sqrt", {f}, f64), batch), (Strings{"2", "NULL", "1"}));
  EXPECT_EQ(EvalStrings(Call("ln", {f}, f64), batch)[2], "0");
  EXPECT_EQ(EvalStrings(Call("power", {f, Lit(Scalar::Float64(2))}, f64), batch),
            (Strings{"16", "NULL", "1"}));
  auto neg = MakeBatch({{"f", f64}}, {{"1"}, {"-1"}});
  auto sqrt = Eval(Call("sqrt", {f}, f64), neg);
  ASSERT_FALSE(sqrt.ok());
  EXPECT_EQ(sqrt.status().sqlstate(), "2201F");
  auto ln = Eval(Call("ln", {f}, f64), neg);
  ASSERT_FALSE(ln.ok());
  EXPECT_EQ(ln.status().sqlstate(), "2201E");
  auto zero = MakeBatch({{"f", f64}}, {{"0"}});
  auto log0 = Eval(Call("log", {f}, f64), zero);
  ASSERT_FALSE(log0.ok());
  EXPECT_EQ(log0.status().sqlstate(), "2201E");
  // Values under NULLs never raise.
  auto masked = MakeBatch({{"f", f64}}, {{"NULL"}, {"9"}});
  EXPECT_EQ(EvalStrings(Call("sqrt", {f}, f64), masked), (Strings{"NULL", "3"}));
}

TEST(ExprTest, GreatestLeastIgnoreNulls) {
  auto batch = MakeBatch({{"a", DataType::Int32()}, {"b", DataType::Int32()}},
                         {{"1", "5"}, {"NULL", "3"}, {"NULL", "NULL"}, {"7", "NULL"}});
  auto a = Col(0, DataType::Int32()), b = Col(1, DataType::Int32());
  EXPECT_EQ(EvalStrings(Call("greatest", {a, b}, DataType::Int32()), batch),
            (Strings{"5", "3", "NULL", "7"}));
  EXPECT_EQ(EvalStrings(Call("least", {a, b, Lit(Scalar::Int32(4))}, DataType::Int32()), batch),
            (Strings{"1", "3", "4", "4"}));
  auto strings = MakeBatch({{"s", DataType::Utf8()}}, {{"b"}, {"NULL"}});
  EXPECT_EQ(EvalStrings(Call("greatest", {Col(0, DataType::Utf8()), Lit(Scalar::Utf8("a"))},
                             DataType::Utf8()),
                        strings),
            (Strings{"b", "a"}));
}

TEST(ExprTest, DateTruncAndMakeDate) {
  auto batch = MakeBatch({{"d", DataType::Date32()}}, {{"2024-05-17"}, {"1969-12-31"}, {"NULL"}});
  auto d = Col(0, DataType::Date32());
  auto trunc = [&](const char* unit) {
    return EvalStrings(Call("date_trunc", {Lit(Scalar::Utf8(unit)), d}, DataType::Date32()), batch);
  };
  EXPECT_EQ(trunc("year"), (Strings{"2024-01-01", "1969-01-01", "NULL"}));
  EXPECT_EQ(trunc("quarter"), (Strings{"2024-04-01", "1969-10-01", "NULL"}));
  EXPECT_EQ(trunc("month"), (Strings{"2024-05-01", "1969-12-01", "NULL"}));
  EXPECT_EQ(trunc("week"), (Strings{"2024-05-13", "1969-12-29", "NULL"}));
  EXPECT_EQ(trunc("day"), (Strings{"2024-05-17", "1969-12-31", "NULL"}));
  EXPECT_STATUS_CODE(
      StatusCode::kInvalidArgument,
      Eval(Call("date_trunc", {Lit(Scalar::Utf8("fortnight")), d}, DataType::Date32()), batch));
  auto ymd =
      MakeBatch({{"y", DataType::Int64()}, {"m", DataType::Int64()}, {"d", DataType::Int64()}},
                {{"2024", "2", "29"}, {"NULL", "1", "1"}});
  auto make =
      Call("make_date",
           {Col(0, DataType::Int64()), Col(1, DataType::Int64()), Col(2, DataType::Int64())},
           DataType::Date32());
  EXPECT_EQ(EvalStrings(make, ymd), (Strings{"2024-02-29", "NULL"}));
  auto bad =
      MakeBatch({{"y", DataType::Int64()}, {"m", DataType::Int64()}, {"d", DataType::Int64()}},
                {{"2023", "2", "29"}});
  auto r = Eval(make, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "22008");
}

}  // namespace
}  // namespace shoal::exec

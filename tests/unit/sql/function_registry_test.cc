#include "shoal/sql/function_registry.h"

#include <gtest/gtest.h>

#include "tests/support/gtest_util.h"

namespace shoal::sql {
namespace {

using columnar::DataType;

TEST(FunctionRegistryTest, DecimalArithmeticTypes) {
  auto d152 = DataType::Decimal(15, 2);
  auto add = ResolveArithmetic("+", d152, DataType::Decimal(3, 2));
  ASSERT_TRUE(add);
  EXPECT_EQ(add->result_type, DataType::Decimal(16, 2));
  auto sub = ResolveArithmetic("-", DataType::Int32(), d152);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->arg_types[0], DataType::Decimal(10, 0));
  EXPECT_EQ(sub->result_type, DataType::Decimal(16, 2));
  auto mul = ResolveArithmetic("*", d152, DataType::Decimal(16, 2));
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->result_type, DataType::Decimal(31, 4));
  auto capped = ResolveArithmetic("*", DataType::Decimal(31, 4), DataType::Decimal(16, 2));
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->result_type, DataType::Decimal(38, 6));
  auto div = ResolveArithmetic("/", d152, d152);
  ASSERT_TRUE(div);
  EXPECT_EQ(div->result_type, DataType::Float64());
  EXPECT_FALSE(ResolveArithmetic("+", DataType::Utf8(), d152));
}

TEST(FunctionRegistryTest, AggregateTypes) {
  auto& r = FunctionRegistry::Global();
  ASSERT_OK_AND_ASSIGN(auto sum,
                       r.Resolve("sum", FunctionKind::kAggregate, {DataType::Decimal(15, 2)}));
  EXPECT_EQ(sum.result_type, DataType::Decimal(38, 2));
  ASSERT_OK_AND_ASSIGN(auto sum_int,
                       r.Resolve("sum", FunctionKind::kAggregate, {DataType::Int32()}));
  EXPECT_EQ(sum_int.result_type, DataType::Int64());
  ASSERT_OK_AND_ASSIGN(auto avg, r.Resolve("avg", FunctionKind::kAggregate, {DataType::Int32()}));
  EXPECT_EQ(avg.result_type, DataType::Float64());
  ASSERT_OK_AND_ASSIGN(auto count, r.Resolve("count", FunctionKind::kAggregate, {}));
  EXPECT_EQ(count.result_type, DataType::Int64());
  EXPECT_FALSE(count.nullable_result);
}

TEST(FunctionRegistryTest, ImplicitCasts) {
  EXPECT_TRUE(CanImplicitCast(DataType::Int32(), DataType::Int64()));
  EXPECT_FALSE(CanImplicitCast(DataType::Int64(), DataType::Int32()));
  EXPECT_TRUE(CanImplicitCast(DataType::Int32(), DataType::Decimal(12, 2)));
  EXPECT_TRUE(CanImplicitCast(DataType::Decimal(15, 2), DataType::Float64()));
  EXPECT_TRUE(CanImplicitCast(DataType::Date32(), DataType::Timestamp()));
  EXPECT_TRUE(CanImplicitCast(DataType::Null(), DataType::Utf8()));
  EXPECT_FALSE(CanImplicitCast(DataType::Utf8(), DataType::Int32()));
  EXPECT_EQ(*CommonSuperType(DataType::Decimal(15, 2), DataType::Decimal(3, 3)),
            DataType::Decimal(16, 3));
}

TEST(FunctionRegistryTest, UnknownFunctionHasSqlstateAndHint) {
  auto r = FunctionRegistry::Global().Resolve("uper", FunctionKind::kScalar, {DataType::Utf8()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "42883");
  EXPECT_EQ(r.status().message(), "function uper(text) does not exist");
  EXPECT_EQ(r.status().hint(), "Perhaps you meant \"upper\".");
}

TEST(FunctionRegistryTest, WrongArgumentTypes) {
  auto r = FunctionRegistry::Global().Resolve("+", FunctionKind::kScalar,
                                              {DataType::Utf8(), DataType::Int32()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().sqlstate(), "42883");
  EXPECT_EQ(r.status().message(), "operator does not exist: text + integer");
}

TEST(FunctionRegistryTest, RuntimeRegistration) {
  auto& r = FunctionRegistry::Global();
  r.Register({"test_double_it", FunctionKind::kScalar,
              [](const std::vector<DataType>& a) -> std::optional<FunctionResolution> {
                if (a.size() != 1 || !a[0].is_integer())
                  return std::nullopt;
                return FunctionResolution{{DataType::Int64()}, DataType::Int64(), true};
              },
              "test_double_it(bigint)"});
  ASSERT_OK_AND_ASSIGN(auto res,
                       r.Resolve("test_double_it", FunctionKind::kScalar, {DataType::Int32()}));
  EXPECT_EQ(res.result_type, DataType::Int64());
}

}  // namespace
}  // namespace shoal::sql

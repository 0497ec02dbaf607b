#include "shoal/common/status.h"

#include <gtest/gtest.h>

#include "shoal/common/result.h"

namespace shoal {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0)
    return Status::InvalidArgument("{} is not positive", v);
  return v;
}

Result<int> Doubled(int v) {
  SHOAL_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return x * 2;
}

Status Check(int v) {
  SHOAL_RETURN_IF_ERROR(ParsePositive(v));
  return Status::OK();
}

TEST(StatusTest, OkHasNoState) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s.sqlstate(), "00000");
}

TEST(StatusTest, ErrorCarriesCodeMessageContextAndSqlState) {
  Status s = Status::NotFound("table \"{}\" does not exist", "lineitem");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.sqlstate(), "42704");
  Status outer =
      std::move(s).WithContext("planning query q1").WithPosition(15).WithHint("check the name");
  EXPECT_EQ(outer.UserMessage(), "planning query q1: table \"lineitem\" does not exist");
  EXPECT_EQ(
      outer.ToString(),
      "NotFound: planning query q1: table \"lineitem\" does not exist (hint: check the name)");
  EXPECT_EQ(outer.position(), 15);
  EXPECT_EQ(std::move(outer).WithSqlState("42P01").sqlstate(), "42P01");
}

TEST(StatusTest, InternalIsTheOnlyNonUserError) {
  EXPECT_TRUE(Status::Internal("bug").IsInternal());
  EXPECT_FALSE(Status::InvalidData("bad").IsInternal());
}

TEST(StatusTest, CopyIsDeep) {
  Status a = Status::IoError("disk");
  Status b = a;
  Status c = std::move(b).WithContext("x");
  EXPECT_EQ(a.UserMessage(), "disk");
  EXPECT_EQ(c.UserMessage(), "x: disk");
}

TEST(ResultTest, PropagatesValuesAndErrors) {
  EXPECT_EQ(*Doubled(4), 8);
  Result<int> bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Check(1).ok());
  EXPECT_EQ(Check(0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Doubled(-3).ValueOr(7), 7);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(CheckDeathTest, FailedCheckAbortsWithBothValues) {
  EXPECT_DEATH(SHOAL_CHECK_EQ(1 + 1, 3), "left = 2, right = 3");
  EXPECT_DEATH((void)Result<int>(Status::Internal("boom")).value(), "boom");
}

}  // namespace
}  // namespace shoal

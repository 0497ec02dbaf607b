// ExpandExec: every input row once per projection list, constant rows once per stream at the end.
#include "shoal/exec/operators/expand_exec.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/io/memory_table.h"
#include "tests/support/gtest_util.h"
#include "tests/unit/exec/exec_test_util.h"

namespace shoal::exec {
namespace {

using namespace testutil;  // NOLINT(google-build-using-namespace)

TEST(ExpandExecTest, EmitsEachRowOncePerProjectionThenConstantRows) {
  const std::vector<Field> fields = {{"a", DataType::Utf8()}, {"v", DataType::Int32()}};
  auto scan = Scan(MakeTable(fields, {MakeBatch(fields, {{"x", "1"}, {"y", "NULL"}})}), 1);
  // (v, a or NULL, set number) for the sets (a) and ().
  const auto a = Col(0, DataType::Utf8());
  const auto v = Col(1, DataType::Int32());
  std::vector<std::vector<sql::ExprPtr>> projections = {
      {v, a, Lit(Scalar::Int64(0))},
      {v, Lit(Scalar(DataType::Utf8())), Lit(Scalar::Int64(1))},
  };
  std::vector<std::vector<sql::ExprPtr>> constants = {
      {Lit(Scalar(DataType::Int32())), Lit(Scalar(DataType::Utf8())), Lit(Scalar::Int64(1))}};
  ASSERT_OK_AND_ASSIGN(auto expand,
                       ExpandExec::Make(scan, projections, {"v", "a", "set"}, constants));
  EXPECT_EQ(expand->schema()->num_fields(), 3);
  EXPECT_TRUE(expand->schema()->field(1).nullable);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(expand, MakeContext()));
  EXPECT_EQ(Rows(batches),
            (Strings{"1|x|0", "NULL|y|0", "1|NULL|1", "NULL|NULL|1", "NULL|NULL|1"}));
}

TEST(ExpandExecTest, EmptyInputStillEmitsConstantRowsPerPartition) {
  const std::vector<Field> fields = {{"v", DataType::Int32()}};
  auto scan = Scan(MakeTable(fields, {}), 2);
  std::vector<std::vector<sql::ExprPtr>> projections = {{Col(0, DataType::Int32())}};
  std::vector<std::vector<sql::ExprPtr>> constants = {{Lit(Scalar::Int32(7))}};
  ASSERT_OK_AND_ASSIGN(auto expand, ExpandExec::Make(scan, projections, {"v"}, constants));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(expand, MakeContext()));
  Strings rows = Rows(batches);
  EXPECT_EQ(rows, Strings(static_cast<size_t>(expand->num_partitions()), "7"));
}

TEST(ExpandExecTest, RefusesProjectionsOfDifferentTypes) {
  const std::vector<Field> fields = {{"v", DataType::Int32()}};
  auto scan = Scan(MakeTable(fields, {MakeBatch(fields, {{"1"}})}), 1);
  std::vector<std::vector<sql::ExprPtr>> projections = {{Col(0, DataType::Int32())},
                                                        {Lit(Scalar::Int64(1))}};
  EXPECT_STATUS_CODE(StatusCode::kInternal, ExpandExec::Make(scan, projections, {"v"}));
}

}  // namespace
}  // namespace shoal::exec

// Helpers for the exec tests: physical expressions built by hand (column references are input
// positions) and a plan runner.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/task_context.h"
#include "tests/support/batch_builder.h"

namespace shoal::exec::testutil {

using columnar::DataType;
using columnar::Scalar;

inline sql::ExprPtr Col(int index, DataType type) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kColumnRef;
  e->column = static_cast<sql::ColumnId>(index);
  e->type = std::move(type);
  e->name = "c" + std::to_string(index);
  return e;
}

inline sql::ExprPtr Lit(Scalar value) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kLiteral;
  e->type = value.type();
  e->value = std::move(value);
  return e;
}

inline sql::ExprPtr Call(std::string name, std::vector<sql::ExprPtr> args, DataType type) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kCall;
  e->name = std::move(name);
  e->args = std::move(args);
  e->type = std::move(type);
  return e;
}

inline sql::ExprPtr Cast(sql::ExprPtr input, DataType type, bool try_cast = false) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kCast;
  e->args = {std::move(input)};
  e->type = std::move(type);
  e->try_cast = try_cast;
  return e;
}

inline sql::ExprPtr Case(std::vector<sql::ExprPtr> args, bool has_else, DataType type) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kCase;
  e->args = std::move(args);
  e->has_else = has_else;
  e->type = std::move(type);
  return e;
}

inline std::shared_ptr<TaskContext> MakeContext(int64_t batch_size = 8192, int threads = 2) {
  TaskContext::Options options;
  EXPECT_TRUE(options.settings.Set("batch_size", std::to_string(batch_size)).ok());
  options.threads = std::make_shared<ThreadPool>(threads);
  return std::make_shared<TaskContext>(std::move(options));
}

/// Every row of every batch as text, one string per row ("1|x|NULL"), in stream order.
inline std::vector<std::string> Rows(const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    std::vector<std::vector<std::string>> cols;
    for (int c = 0; c < b->num_columns(); ++c)
      cols.push_back(shoal::testing::ArrayToStrings(*b->column(c)));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < cols.size(); ++c)
        row += (c ? "|" : "") + cols[c][static_cast<size_t>(r)];
      out.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace shoal::exec::testutil

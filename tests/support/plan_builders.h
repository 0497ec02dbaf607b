// Test and benchmark support: physical plans built by hand, without a parser or a planner.
//
// Expressions are the SQL layer's bound expressions with column references that are input
// positions (as in every physical node, see exec/execution_plan.h); tables are io::MemoryTables of
// ready batches, scanned by a TableScanExec. Nothing here depends on gtest, so the exec unit tests
// (through plan_test_util.h, which adds text rows and gtest checks) and the micro-benchmarks under
// bench/ build their plans the same way. Header-only, so a benchmark needs no test library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shoal/exec/execution_plan.h"
#include "shoal/exec/operators/table_scan_exec.h"
#include "shoal/exec/task_context.h"
#include "shoal/io/memory_table.h"
#include "shoal/sql/expr.h"

namespace shoal::exec::testutil {

using columnar::DataType;
using columnar::Field;
using columnar::RecordBatchPtr;
using columnar::Scalar;

/// The input column at `index` (named "c<index>", nullable).
inline sql::ExprPtr Col(int index, DataType type) {
  return sql::MakeColumnRef(static_cast<sql::ColumnId>(index), "c" + std::to_string(index),
                            std::move(type), true);
}

// Lit and Cast stay nullable whatever their input (unlike sql::MakeLiteral / MakeCast), as the
// exec tests always built them: evaluators must not depend on the flag for correctness.
inline sql::ExprPtr Lit(Scalar value) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kLiteral;
  e->type = value.type();
  e->value = std::move(value);
  return e;
}

/// A call of the scalar function or operator `name` ("+", "and", "upper").
inline sql::ExprPtr Call(std::string name, std::vector<sql::ExprPtr> args, DataType type) {
  return sql::MakeCall(std::move(name), std::move(args), std::move(type), true);
}

inline sql::ExprPtr Cast(sql::ExprPtr input, DataType type, bool try_cast = false) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kCast;
  e->args = {std::move(input)};
  e->type = std::move(type);
  e->try_cast = try_cast;
  return e;
}

/// CASE: args = [when1, then1, when2, then2, ..., else?].
inline sql::ExprPtr Case(std::vector<sql::ExprPtr> args, bool has_else, DataType type) {
  return sql::MakeCase(std::move(args), has_else, std::move(type), true);
}

/// The aggregate `name` over `args`, optionally DISTINCT and with a FILTER (WHERE ...).
inline sql::ExprPtr Agg(std::string name, std::vector<sql::ExprPtr> args, DataType type,
                        bool distinct = false, sql::ExprPtr filter = nullptr) {
  return sql::MakeAggregate(std::move(name), std::move(args), std::move(type), true, distinct,
                            std::move(filter));
}

/// The window function `name` over `args` OVER (PARTITION BY ... ORDER BY ... frame).
inline sql::ExprPtr Window(std::string name, std::vector<sql::ExprPtr> args, DataType type,
                           std::vector<sql::ExprPtr> partition_by,
                           std::vector<sql::SortKey> order_by, sql::WindowFrame frame = {}) {
  auto e = std::make_shared<sql::Expr>();
  e->kind = sql::ExprKind::kWindow;
  e->name = std::move(name);
  e->args = std::move(args);
  e->type = std::move(type);
  e->partition_by = std::move(partition_by);
  e->order_by = std::move(order_by);
  e->frame = std::move(frame);
  return e;
}

/// A memory table of `fields` holding `batches` as they are.
inline Result<std::shared_ptr<io::MemoryTable>> TableOf(const std::vector<Field>& fields,
                                                        std::vector<RecordBatchPtr> batches) {
  return io::MemoryTable::Make(std::make_shared<const columnar::Schema>(fields),
                               std::move(batches));
}

/// A scan of `table` in `partitions` partitions; `projection` lists the columns (empty: all).
inline Result<ExecPlanPtr> ScanOf(const std::shared_ptr<io::MemoryTable>& table, int partitions,
                                  std::vector<int> projection = {}) {
  io::ScanRequest request;
  request.projection = std::move(projection);
  if (request.projection.empty()) {
    for (int i = 0; i < table->schema()->num_fields(); ++i)
      request.projection.push_back(i);
  }
  SHOAL_ASSIGN_OR_RETURN(auto scan, TableScanExec::Make(table, "t", request, partitions));
  return ExecPlanPtr(std::move(scan));
}

/// Runs partition `partition` of `plan` to its end, dropping the batches; returns the row count.
inline Result<int64_t> DrainPartition(const ExecPlanPtr& plan, int partition,
                                      const std::shared_ptr<TaskContext>& context) {
  SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, plan->Execute(partition, context));
  int64_t rows = 0;
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, stream->Next());
    if (!batch)
      return rows;
    rows += batch->num_rows();
  }
}

}  // namespace shoal::exec::testutil

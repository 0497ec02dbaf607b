// ExprEvaluator: a physical expression (sql::Expr whose column references are input positions)
// compiled into a tree of evaluator nodes, built once per stream and then run once per batch.
//
// Compilation resolves every call to a kernel specialised for its argument types (kernel.h), so
// evaluating a batch costs one virtual call per node and typed loops over whole arrays. Constants
// stay scalars until an operator needs a column. CASE evaluates each branch only on the rows that
// reach it (so `CASE WHEN x <> 0 THEN 1 / x END` never divides by zero), and filters evaluate a
// conjunction one conjunct at a time over the rows still selected.
//
// Not thread-safe: each stream compiles its own evaluators.
#pragma once

#include <memory>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/kernel.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

/// The input of an evaluation: one array per input column (null for columns not needed) and the
/// number of rows.
struct EvalInput {
  const std::vector<ArrayPtr>* columns = nullptr;
  int64_t length = 0;
};

/// Whether evaluating `e` can never fail, whatever the row: comparisons, IN, LIKE, IS [NOT] NULL
/// and boolean connectives over columns and constants. Only such conjuncts may be reordered (a
/// user writes `x <> 0 AND y / x > 1` expecting the guard to run first) or evaluated ahead of
/// the others, in a scan (scan_filter_expr.h).
bool ExprCannotFail(const sql::Expr& e);

class EvalNode {
 public:
  explicit EvalNode(DataType type) : type_(std::move(type)) {}

  virtual ~EvalNode() = default;

  const DataType& type() const { return type_; }

  virtual Result<Datum> Eval(const EvalInput& input, KernelContext* ctx) = 0;

 private:
  DataType type_;
};

class ExprEvaluator {
 public:
  /// Compiles `expr` against batches of `input_schema`. Errors: NotImplemented for functions
  /// without kernels, Internal for malformed plans (a column position out of range).
  static Result<std::unique_ptr<ExprEvaluator>> Make(const sql::ExprPtr& expr,
                                                     const columnar::Schema& input_schema,
                                                     std::shared_ptr<MemoryPool> pool);
  ~ExprEvaluator();

  const DataType& type() const;
  /// The value for each row of the batch (constants broadcast).
  Result<ArrayPtr> Evaluate(const RecordBatch& batch);
  /// The value as a datum (constants stay scalars).
  Result<Datum> EvaluateDatum(const RecordBatch& batch);
  /// Appends the positions of the rows where this boolean expression is true.
  Status Select(const RecordBatch& batch, SelectionVector* selection);

 private:
  struct Conjunct;
  ExprEvaluator() = default;

  std::unique_ptr<EvalNode> root_;
  std::vector<Conjunct> conjuncts_;
  // Whether Select may run the conjuncts in the order that measures cheapest (none can raise an
  // error, so no conjunct guards another), and how many batches it has selected from.
  bool reorderable_ = false;
  int64_t batches_ = 0;
  KernelContext ctx_;
  std::vector<ArrayPtr> columns_;
};

/// Compiles several expressions against one schema.
Result<std::vector<std::unique_ptr<ExprEvaluator>>> MakeEvaluators(
    const std::vector<sql::ExprPtr>& exprs, const columnar::Schema& input_schema,
    const std::shared_ptr<MemoryPool>& pool);

}  // namespace shoal::exec

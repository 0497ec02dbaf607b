// JoinPairFilter: a join's residual condition (HashJoinExec's `filter`, NestedLoopJoinExec's `on`)
// applied to candidate pairs of rows, one from each side. The condition is written over the
// joined schema (left columns, then right columns); only the columns it reads are gathered for it,
// the others stay null (EvalInput allows it), so a wide join pays for what its condition uses.
//
// Not thread-safe: each join stream owns its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/sql/expr.h"

namespace shoal::exec {

class JoinPairFilter {
 public:
  /// `condition` over `joined_schema`, whose first `num_left` fields are the left side's; null
  /// when there is no condition (every pair is kept).
  static Result<std::unique_ptr<JoinPairFilter>> Make(const sql::ExprPtr& condition,
                                                      columnar::SchemaPtr joined_schema,
                                                      int num_left,
                                                      std::shared_ptr<MemoryPool> pool);

  /// Keeps the pairs at [begin, end) of `left` and `right` (row positions in `left_columns` and
  /// `right_columns`) for which the condition is TRUE, compacted in order, and shrinks both
  /// vectors to the pairs kept.
  Status Apply(const std::vector<columnar::ArrayPtr>& left_columns,
               const std::vector<columnar::ArrayPtr>& right_columns, std::vector<int32_t>* left,
               std::vector<int32_t>* right, size_t begin = 0);

 private:
  JoinPairFilter(std::unique_ptr<ExprEvaluator> evaluator, columnar::SchemaPtr joined_schema,
                 std::vector<bool> left_needed, std::vector<bool> right_needed,
                 std::shared_ptr<MemoryPool> pool)
      : evaluator_(std::move(evaluator)),
        joined_schema_(std::move(joined_schema)),
        left_needed_(std::move(left_needed)),
        right_needed_(std::move(right_needed)),
        pool_(std::move(pool)) {}

  std::unique_ptr<ExprEvaluator> evaluator_;
  columnar::SchemaPtr joined_schema_;
  std::vector<bool> left_needed_, right_needed_;
  std::shared_ptr<MemoryPool> pool_;
  SelectionVector selection_;
};

}  // namespace shoal::exec

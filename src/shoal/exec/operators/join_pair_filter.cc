#include "shoal/exec/operators/join_pair_filter.h"

#include <utility>

#include "shoal/exec/join/join_output.h"

namespace shoal::exec {

Result<std::unique_ptr<JoinPairFilter>> JoinPairFilter::Make(const sql::ExprPtr& condition,
                                                             columnar::SchemaPtr joined_schema,
                                                             int num_left,
                                                             std::shared_ptr<MemoryPool> pool) {
  if (condition == nullptr)
    return std::unique_ptr<JoinPairFilter>();
  SHOAL_ASSIGN_OR_RETURN(auto evaluator, ExprEvaluator::Make(condition, *joined_schema, pool));
  std::vector<bool> needed(static_cast<size_t>(joined_schema->num_fields()), false);
  for (sql::ColumnId column : sql::ReferencedColumns(condition)) {
    if (column < needed.size())
      needed[column] = true;
  }
  std::vector<bool> left(needed.begin(), needed.begin() + num_left);
  std::vector<bool> right(needed.begin() + num_left, needed.end());
  return std::unique_ptr<JoinPairFilter>(
      new JoinPairFilter(std::move(evaluator), std::move(joined_schema), std::move(left),
                         std::move(right), std::move(pool)));
}

Status JoinPairFilter::Apply(const std::vector<columnar::ArrayPtr>& left_columns,
                             const std::vector<columnar::ArrayPtr>& right_columns,
                             std::vector<int32_t>* left, std::vector<int32_t>* right,
                             size_t begin) {
  const int64_t count = static_cast<int64_t>(left->size() - begin);
  std::vector<columnar::ArrayPtr> columns;
  columns.reserve(left_needed_.size() + right_needed_.size());
  SHOAL_RETURN_IF_ERROR(GatherColumns(left_columns, left->data() + begin, count, false,
                                      &left_needed_, pool_, &columns));
  SHOAL_RETURN_IF_ERROR(GatherColumns(right_columns, right->data() + begin, count, false,
                                      &right_needed_, pool_, &columns));
  columnar::RecordBatchPtr joined =
      columnar::RecordBatch::Make(joined_schema_, count, std::move(columns));
  selection_.clear();
  SHOAL_RETURN_IF_ERROR(evaluator_->Select(*joined, &selection_));
  int32_t* l = left->data() + begin;
  int32_t* r = right->data() + begin;
  for (size_t k = 0; k < selection_.size(); ++k) {
    l[k] = l[selection_[k]];
    r[k] = r[selection_[k]];
  }
  left->resize(begin + selection_.size());
  right->resize(begin + selection_.size());
  return Status::OK();
}

}  // namespace shoal::exec

#include "shoal/exec/join/build_input.h"

#include "shoal/columnar/builder.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"

namespace shoal::exec {

Result<std::vector<columnar::RecordBatchPtr>> CollectPartitions(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::shared_ptr<TaskContext>& context) {
  std::vector<columnar::RecordBatchPtr> batches;
  for (int p : partitions) {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, input->Execute(p, context));
    for (;;) {
      if (context->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
      if (!batch)
        break;
      if (batch->num_rows() > 0)
        batches.push_back(std::move(batch));
    }
  }
  return batches;
}

Result<std::vector<columnar::ArrayPtr>> ConcatenateColumns(
    const columnar::Schema& schema, const std::vector<columnar::RecordBatchPtr>& batches,
    const std::shared_ptr<MemoryPool>& pool) {
  std::vector<columnar::ArrayPtr> out;
  out.reserve(static_cast<size_t>(schema.num_fields()));
  std::vector<columnar::ArrayPtr> pieces;
  for (int c = 0; c < schema.num_fields(); ++c) {
    if (batches.empty()) {
      auto builder = columnar::MakeBuilder(schema.field(c).type, pool);
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr empty, builder->Finish());
      out.push_back(std::move(empty));
      continue;
    }
    pieces.clear();
    for (const auto& b : batches)
      pieces.push_back(b->column(c));
    SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr column, Concatenate(pieces, pool));
    out.push_back(std::move(column));
  }
  return out;
}

Result<std::shared_ptr<JoinHashTable>> BuildJoinHashTable(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<TaskContext>& context, const std::shared_ptr<MemoryPool>& pool,
    OperatorMetrics* metrics) {
  SHOAL_ASSIGN_OR_RETURN(auto batches, CollectPartitions(input, partitions, context));
  int64_t num_rows = 0;
  for (const auto& b : batches)
    num_rows += b->num_rows();
  // Keys that are computed (not plain column references) are evaluated batch by batch before the
  // batches are released.
  SHOAL_ASSIGN_OR_RETURN(auto evaluators, MakeEvaluators(keys, *input->schema(), pool));
  std::vector<std::vector<columnar::ArrayPtr>> computed(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k]->kind == sql::ExprKind::kColumnRef)
      continue;
    for (const auto& b : batches) {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr v, evaluators[k]->Evaluate(*b));
      computed[k].push_back(std::move(v));
    }
  }
  SHOAL_ASSIGN_OR_RETURN(auto payload, ConcatenateColumns(*input->schema(), batches, pool));
  batches.clear();
  std::vector<columnar::ArrayPtr> key_columns;
  for (size_t k = 0; k < keys.size(); ++k) {
    columnar::ArrayPtr column;
    if (keys[k]->kind == sql::ExprKind::kColumnRef) {
      column = payload[keys[k]->column];
    } else if (computed[k].empty()) {
      auto builder = columnar::MakeBuilder(evaluators[k]->type(), pool);
      SHOAL_ASSIGN_OR_RETURN(column, builder->Finish());
    } else {
      SHOAL_ASSIGN_OR_RETURN(column, Concatenate(computed[k], pool));
    }
    SHOAL_ASSIGN_OR_RETURN(column, DecodeDictionary(column, pool));
    key_columns.push_back(std::move(column));
  }
  SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<JoinHashTable> table,
                         JoinHashTable::Make(std::move(key_columns), std::move(payload), num_rows,
                                             pool, track_matches));
  if (metrics) {
    metrics->AddExtra("build_rows", num_rows);
    metrics->AddExtra("build_bytes", table->memory_bytes());
  }
  return std::shared_ptr<JoinHashTable>(std::move(table));
}

std::vector<int> AllPartitions(const ExecutionPlan& plan) {
  std::vector<int> out;
  for (int p = 0; p < plan.num_partitions(); ++p)
    out.push_back(p);
  return out;
}

}  // namespace shoal::exec

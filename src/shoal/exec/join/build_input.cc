#include "shoal/exec/join/build_input.h"

#include "shoal/columnar/bitmap.h"
#include "shoal/columnar/builder.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/operators/coalesce_partitions_exec.h"
#include "shoal/exec/row_key/memory_reservation.h"
#include "shoal/exec/row_key/nested_key_encoder.h"
#include "shoal/exec/spill/memory_budget.h"

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
  return BuildJoinHashTableFromBatches(*input->schema(), std::move(batches), keys, track_matches,
                                       pool, metrics);
}

Result<std::shared_ptr<JoinHashTable>> BuildJoinHashTableFromBatches(
    const columnar::Schema& schema, std::vector<columnar::RecordBatchPtr> batches,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<MemoryPool>& pool, OperatorMetrics* metrics) {
  int64_t num_rows = 0;
  for (const auto& b : batches)
    num_rows += b->num_rows();
  // Keys that are computed (not plain column references) are evaluated batch by batch before the
  // batches are released.
  SHOAL_ASSIGN_OR_RETURN(auto evaluators, MakeEvaluators(keys, schema, pool));
  std::vector<std::vector<columnar::ArrayPtr>> computed(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k]->kind == sql::ExprKind::kColumnRef)
      continue;
    for (const auto& b : batches) {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr v, evaluators[k]->Evaluate(*b));
      computed[k].push_back(std::move(v));
    }
  }
  SHOAL_ASSIGN_OR_RETURN(auto payload, ConcatenateColumns(schema, batches, pool));
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
    SHOAL_ASSIGN_OR_RETURN(column, NormalizeKeyColumn(std::move(column), pool));
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

int GracePartitionOf(uint64_t key_hash) {
  // Remixed so that the bits differ from those the hash table's directory uses.
  return static_cast<int>(HashMix(key_hash ^ 0x5bd1e9955bd1e995ULL) >> 60);
}

Status WriteGracePartitions(const columnar::RecordBatch& batch,
                            const std::vector<std::unique_ptr<ExprEvaluator>>& keys,
                            const std::vector<std::unique_ptr<SpillWriter>>& writers,
                            const std::shared_ptr<MemoryPool>& pool, bool* has_null_key) {
  const int64_t n = batch.num_rows();
  std::vector<columnar::ArrayPtr> key_columns;
  for (const auto& k : keys) {
    SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr column, k->Evaluate(batch));
    SHOAL_ASSIGN_OR_RETURN(column, NormalizeKeyColumn(std::move(column), pool));
    if (has_null_key != nullptr && column->null_count() > 0)
      *has_null_key = true;
    key_columns.push_back(std::move(column));
  }
  std::vector<uint64_t> hashes;
  SHOAL_RETURN_IF_ERROR(HashColumns(key_columns, n, &hashes));
  std::vector<std::vector<int32_t>> rows(kGracePartitions);
  for (int64_t i = 0; i < n; ++i)
    rows[static_cast<size_t>(GracePartitionOf(hashes[static_cast<size_t>(i)]))].push_back(
        static_cast<int32_t>(i));
  for (int p = 0; p < kGracePartitions; ++p) {
    const auto& r = rows[static_cast<size_t>(p)];
    if (r.empty())
      continue;
    if (static_cast<int64_t>(r.size()) == n) {
      SHOAL_RETURN_IF_ERROR(writers[static_cast<size_t>(p)]->Write(batch));
      continue;
    }
    SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr part,
                           TakeBatch(batch, r.data(), static_cast<int64_t>(r.size()), pool));
    SHOAL_RETURN_IF_ERROR(writers[static_cast<size_t>(p)]->Write(*part));
  }
  return Status::OK();
}

Result<std::shared_ptr<JoinBuildSide>> BuildJoinSide(
    const ExecPlanPtr& input, const std::vector<int>& partitions,
    const std::vector<sql::ExprPtr>& keys, bool track_matches,
    const std::shared_ptr<TaskContext>& context, const std::shared_ptr<MemoryPool>& pool,
    OperatorMetrics* metrics, const std::string& name) {
  auto side = std::make_shared<JoinBuildSide>();
  SHOAL_ASSIGN_OR_RETURN(auto evaluators, MakeEvaluators(keys, *input->schema(), pool));
  std::vector<columnar::RecordBatchPtr> batches;
  int64_t buffered_bytes = 0;
  std::vector<std::unique_ptr<SpillWriter>> writers;
  const int64_t headroom = SpillHeadroom(*pool);
  MemoryReservation planned(pool);
  // Every partition (a collect-build join's side) is read through a coalesce, one thread each:
  // pulled one after another from this thread, the build input's plan (a scan and its filter)
  // ran on one core while every probe stream waited for the table.
  ExecPlanPtr source = input;
  std::vector<int> source_partitions = partitions;
  if (partitions.size() > 1 && static_cast<int>(partitions.size()) == input->num_partitions()) {
    source = CoalescePartitionsExec::Make(input);
    source_partitions = {0};
  }
  for (int p : source_partitions) {
    SHOAL_ASSIGN_OR_RETURN(StreamPtr stream, source->Execute(p, context));
    for (;;) {
      if (context->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(columnar::RecordBatchPtr batch, stream->Next());
      if (!batch)
        break;
      if (batch->num_rows() == 0)
        continue;
      side->num_rows += batch->num_rows();
      if (!writers.empty()) {
        SHOAL_RETURN_IF_ERROR(
            WriteGracePartitions(*batch, evaluators, writers, pool, &side->has_null_key));
        continue;
      }
      // The table needs the concatenated copy and its index (chains, hashes, directory: about
      // 32 bytes a row) on top of the buffered batches; when that would eat into the headroom,
      // go to disk.
      // Reserved ahead (planned), so that concurrent builds see each other's needs.
      buffered_bytes += EstimateBatchBytes(*batch) + 32 * batch->num_rows();
      batches.push_back(std::move(batch));
      if (headroom > 0 &&
          (!planned.Resize(buffered_bytes).ok() || AvailableBytes(*pool) < headroom)) {
        planned.Resize(0).ok();
        side->spill =
            std::make_unique<SpillManager>(context->spill_directory(), name, pool, metrics);
        for (int i = 0; i < kGracePartitions; ++i) {
          SHOAL_ASSIGN_OR_RETURN(auto writer, side->spill->Create(input->schema()));
          writers.push_back(std::move(writer));
        }
        for (const auto& b : batches) {
          SHOAL_RETURN_IF_ERROR(
              WriteGracePartitions(*b, evaluators, writers, pool, &side->has_null_key));
        }
        batches.clear();
      }
    }
  }
  planned.Resize(0).ok();
  if (writers.empty()) {
    SHOAL_ASSIGN_OR_RETURN(side->table,
                           BuildJoinHashTableFromBatches(*input->schema(), std::move(batches), keys,
                                                         track_matches, pool, metrics));
    side->has_null_key = side->table->has_null_key();
    return side;
  }
  for (auto& writer : writers) {
    SHOAL_ASSIGN_OR_RETURN(SpillFile file, writer->Finish());
    side->partitions.push_back(std::move(file));
  }
  if (metrics)
    metrics->AddExtra("build_rows", side->num_rows);
  return side;
}

std::vector<int> AllPartitions(const ExecutionPlan& plan) {
  std::vector<int> out;
  out.reserve(static_cast<size_t>(plan.num_partitions()));
  for (int p = 0; p < plan.num_partitions(); ++p)
    out.push_back(p);
  return out;
}

}  // namespace shoal::exec

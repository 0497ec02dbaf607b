// HashAggregateStream: aggregates one partition of a HashAggregateExec, spilling partial states
// to hash-partitioned files when memory runs short (see hash_aggregate_exec.h).
#include <algorithm>

#include "shoal/exec/aggregate/accumulator.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/hash_aggregate_exec_internal.h"
#include "shoal/exec/row_key/grouper.h"
#include "shoal/exec/row_key/memory_reservation.h"
#include "shoal/exec/spill/memory_budget.h"
#include "shoal/exec/spill/spill_manager.h"
#include "shoal/sql/ordered_aggregates.h"

namespace shoal::exec {
namespace {

using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

Result<std::vector<ArrayPtr>> DecodeAll(std::vector<ArrayPtr> arrays,
                                        const std::shared_ptr<MemoryPool>& pool) {
  for (auto& a : arrays) {
    if (a->type_id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(a, DecodeDictionary(a, pool));
    }
  }
  return arrays;
}

// Spilled partitions: 16 per level, a level's bits drawn from the key hash remixed with the level,
// so a partition that still does not fit splits again on independent bits. Eight levels split
// any input by 16^8 before giving up.
constexpr int kSpillFanout = 16;
constexpr int kMaxSpillLevels = 8;

int SpillPartitionOf(uint64_t hash, int level) {
  return static_cast<int>(
      HashMix(hash + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(level + 1)) >> 60);
}

// One aggregate of a stream: its accumulator and, outside kFinal, its compiled inputs.
struct AggregateState {
  sql::ExprPtr decoded;  // the aggregate with dictionary arguments decoded
  std::unique_ptr<Accumulator> accumulator;
  std::vector<std::unique_ptr<ExprEvaluator>> args;
  std::unique_ptr<ExprEvaluator> filter;
  std::unique_ptr<Grouper> distinct;  // DISTINCT: seen (group id, arguments) pairs
  int first_state_column = 0;         // kFinal: where its states start in the input
  int num_states = 0;
  int num_args = 0;  // the aggregate's arguments; ordered aggregates' sort keys follow them
  int ordered = -1;  // over ordered input: its index among those (row spill files), else -1
};

class HashAggregateStream final : public OperatorStream {
 public:
  HashAggregateStream(const HashAggregateExec* node, int partition,
                      std::shared_ptr<TaskContext> context, StreamPtr input)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        input_(std::move(input)),
        reservation_(pool()),
        spill_(this->context()->spill_directory(), fmt::format("HashAggregate[{}]", partition),
               pool(), metrics()) {}

  Status Init(const Schema& input_schema) {
    const bool final = node_->mode() == AggregateMode::kFinal;
    num_keys_ = static_cast<int>(node_->group_by().size());
    if (!final) {
      SHOAL_ASSIGN_OR_RETURN(keys_, MakeEvaluators(node_->group_by(), input_schema, pool()));
    }
    for (const auto& key : node_->group_by())
      key_types_.push_back(key->type.decoded_type());
    if (num_keys_ > 0) {
      SHOAL_ASSIGN_OR_RETURN(grouper_, Grouper::Make(key_types_));
    }
    // Spilled groups are partial states, in the layout a kFinal consumes; every column nullable
    // because the IPC reader rejects a null in a NOT NULL column. Aggregates over ordered input
    // have no partial state: their buffered rows go to files of their own, beside the states of
    // the same hash partition, as (keys, arguments, ORDER BY keys).
    std::vector<sql::ExprPtr> with_states;
    for (const auto& agg_expr : node_->aggregates()) {
      if (!sql::NeedsOrderedInput(*agg_expr))
        with_states.push_back(agg_expr);
    }
    SHOAL_ASSIGN_OR_RETURN(SchemaPtr partial,
                           HashAggregateExec::PartialSchema(node_->group_by(), with_states));
    std::vector<Field> spill_fields;
    for (const Field& f : partial->fields())
      spill_fields.emplace_back(f.name, f.type, true);
    spill_schema_ = std::make_shared<const Schema>(spill_fields);
    int column = num_keys_;
    for (const auto& agg_expr : node_->aggregates()) {
      sql::ExprPtr agg = WithDecodedArgs(agg_expr);
      AggregateState state;
      state.decoded = agg;
      SHOAL_ASSIGN_OR_RETURN(state.accumulator, MakeAccumulator(*agg));
      const bool ordered = sql::NeedsOrderedInput(*agg);
      if (!ordered) {
        SHOAL_ASSIGN_OR_RETURN(auto fields, AggregateStateFields(*agg, ""));
        state.first_state_column = column;
        state.num_states = static_cast<int>(fields.size());
        column += state.num_states;
      } else {
        state.ordered = static_cast<int>(row_spill_schemas_.size());
        std::vector<Field> row_fields(spill_fields.begin(), spill_fields.begin() + num_keys_);
        for (const auto& arg : agg->args)
          row_fields.emplace_back("arg" + std::to_string(row_fields.size()), arg->type, true);
        for (const auto& key : agg->order_by)
          row_fields.emplace_back("key" + std::to_string(row_fields.size()), key.expr->type, true);
        row_spill_schemas_.push_back(std::make_shared<const Schema>(std::move(row_fields)));
      }
      state.num_args = static_cast<int>(agg->args.size());
      if (!final) {
        std::vector<sql::ExprPtr> inputs = agg_expr->args;
        if (ordered) {
          // The ORDER BY keys follow the arguments (accumulator.h).
          for (const auto& key : agg_expr->order_by)
            inputs.push_back(key.expr);
        }
        SHOAL_ASSIGN_OR_RETURN(state.args, MakeEvaluators(inputs, input_schema, pool()));
        if (agg_expr->filter) {
          SHOAL_ASSIGN_OR_RETURN(state.filter,
                                 ExprEvaluator::Make(agg_expr->filter, input_schema, pool()));
        }
        if (agg_expr->distinct) {
          has_distinct_ = true;
          std::vector<DataType> types{DataType::UInt32()};
          for (const auto& arg : agg->args)
            types.push_back(arg->type);
          SHOAL_ASSIGN_OR_RETURN(state.distinct, Grouper::Make(types));
        }
      }
      aggregates_.push_back(std::move(state));
    }
    if (num_keys_ == 0)
      ResizeStates(1);
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    if (node_->mode() == AggregateMode::kPartial && num_keys_ > 0)
      return NextPartial();
    if (input_) {
      SHOAL_RETURN_IF_ERROR(ConsumeInput());
      input_.reset();
    }
    // After a spill the groups come out partition by partition: each spilled partition is merged
    // back into an empty table (splitting again if it does not fit) and emitted.
    while (emitted_ >= num_groups() && !pending_.empty()) {
      SpillPartition partition = std::move(pending_.back());
      pending_.pop_back();
      SHOAL_RETURN_IF_ERROR(AggregatePartition(partition));
    }
    const int64_t total = num_groups();
    if (emitted_ >= total) {
      Release();
      return RecordBatchPtr();
    }
    const int64_t length = std::min(context()->batch_size(), total - emitted_);
    std::vector<ArrayPtr> columns;
    if (grouper_) {
      SHOAL_ASSIGN_OR_RETURN(columns, grouper_->GetKeys(emitted_, length, pool()));
    }
    for (const AggregateState& agg : aggregates_) {
      if (node_->mode() == AggregateMode::kPartial) {
        SHOAL_ASSIGN_OR_RETURN(auto states, agg.accumulator->State(emitted_, length, pool()));
        for (auto& s : states)
          columns.push_back(std::move(s));
      } else {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr result,
                               agg.accumulator->Finalize(emitted_, length, pool()));
        columns.push_back(std::move(result));
      }
    }
    emitted_ += length;
    return RecordBatch::Make(schema(), length, std::move(columns));
  }

  // A grouped kPartial streams: its table holds at most PartialAggregationLimits::table_groups
  // groups and is emitted and emptied when full (the kFinal merges states of one key from many
  // flushes, as it merges those of many tasks). When the flushes show that the input hardly
  // reduces, the rest of the input passes through as one state row per input row, with no hashing
  // at all.
  Result<RecordBatchPtr> NextPartial() {
    for (;;) {
      if (flushing_) {
        const int64_t total = grouper_->num_groups();
        const int64_t length = std::min(context()->batch_size(), total - emitted_);
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr out, EmitStates(emitted_, length));
        emitted_ += length;
        if (emitted_ >= total) {
          flushing_ = false;
          SHOAL_RETURN_IF_ERROR(ResetTable());
        }
        return out;
      }
      if (!input_) {
        Release();
        return RecordBatchPtr();
      }
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      RecordBatchPtr batch = std::move(retry_);
      if (!batch) {
        SHOAL_ASSIGN_OR_RETURN(batch, input_->Next());
      }
      if (!batch) {
        input_.reset();
        if (grouper_->num_groups() > 0)
          SHOAL_RETURN_IF_ERROR(StartFlush());
        continue;
      }
      if (batch->num_rows() == 0)
        continue;
      if (pass_through_) {
        metrics()->AddExtra("rows_passed_through", batch->num_rows());
        return PassThrough(*batch);
      }
      Status consumed = ConsumeBatch(*batch, /*merge_states=*/false, /*level=*/0);
      if (consumed.code() == StatusCode::kOutOfMemory && grouper_->num_groups() > 0) {
        // Evaluating the batch found no memory (a refusal leaves the table as it was): emit the
        // table, then take the batch again with an empty one.
        metrics()->AddExtra("flushes", 1);
        retry_ = std::move(batch);
        SHOAL_RETURN_IF_ERROR(StartFlush());
        continue;
      }
      SHOAL_RETURN_IF_ERROR(consumed);
      rows_since_flush_ += batch->num_rows();
      Status reserved = reservation_.Resize(TableBytes());
      if (!reserved.ok() && grouper_->num_groups() == 0)
        return Explain(std::move(reserved), "the aggregation state");
      const PartialAggregationLimits& limits = node_->partial_limits();
      // Flushing instead of spilling: a partial's groups can leave at any time. A table that
      // took the headroom leaves too, as a spilling one would: filled to the limit, it made the
      // next allocation of the operators beside it fail (a repartition's buffers).
      if (!reserved.ok() || grouper_->num_groups() >= limits.table_groups ||
          ShouldGiveUpTable(*pool(), reservation_.reserved())) {
        metrics()->AddExtra("flushes", 1);
        rows_in_flushed_ += rows_since_flush_;
        groups_flushed_ += grouper_->num_groups();
        rows_since_flush_ = 0;
        pass_through_ =
            rows_in_flushed_ >= limits.pass_through_min_rows &&
            static_cast<double>(groups_flushed_) >=
                limits.pass_through_groups_per_row * static_cast<double>(rows_in_flushed_);
        SHOAL_RETURN_IF_ERROR(StartFlush());
      }
    }
  }

  // The table's groups leave as state rows, which the pool must hold downstream: the table's
  // reservation is given back first, since a refusal is what may have started the flush and the
  // table is freed once emitted (for that short while its memory is not counted).
  Status StartFlush() {
    flushing_ = true;
    emitted_ = 0;
    return reservation_.Resize(0);
  }

  // The partial states of input rows, one group per row: the keys as evaluated, and each
  // aggregate's state after that one row (or the empty state for a row its FILTER rejects).
  Result<RecordBatchPtr> PassThrough(const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    EvaluatedBatch evaluated;
    SHOAL_RETURN_IF_ERROR(EvaluateBatch(batch, /*merge_states=*/false, &evaluated));
    if (static_cast<int64_t>(row_groups_.size()) < n) {
      row_groups_.resize(static_cast<size_t>(n));
      for (size_t i = 0; i < row_groups_.size(); ++i)
        row_groups_[i] = static_cast<uint32_t>(i);
    }
    std::vector<ArrayPtr> columns = std::move(evaluated.keys);
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      AggregateState& agg = aggregates_[a];
      SHOAL_ASSIGN_OR_RETURN(std::unique_ptr<Accumulator> accumulator,
                             MakeAccumulator(*agg.decoded));
      accumulator->Resize(n);
      GroupedRows rows{row_groups_.data(), nullptr, n};
      if (agg.filter) {
        rows.rows = filter_rows_[a].data();
        rows.count = static_cast<int64_t>(filter_rows_[a].size());
      }
      if (rows.count > 0)
        SHOAL_RETURN_IF_ERROR(accumulator->Update(evaluated.args[a], rows));
      SHOAL_ASSIGN_OR_RETURN(auto states, accumulator->State(0, n, pool()));
      for (auto& st : states)
        columns.push_back(std::move(st));
    }
    return RecordBatch::Make(schema(), n, std::move(columns));
  }

  // Keys and partial states of groups [start, start + length).
  Result<RecordBatchPtr> EmitStates(int64_t start, int64_t length) {
    SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> columns, grouper_->GetKeys(start, length, pool()));
    for (const AggregateState& agg : aggregates_) {
      SHOAL_ASSIGN_OR_RETURN(auto states, agg.accumulator->State(start, length, pool()));
      for (auto& st : states)
        columns.push_back(std::move(st));
    }
    return RecordBatch::Make(schema(), length, std::move(columns));
  }

 private:
  int64_t num_groups() const { return grouper_ ? grouper_->num_groups() : 1; }

  // What the table holds now, for the reservation.
  int64_t TableBytes() const {
    int64_t bytes =
        CapacityBytes(groups_) + CapacityBytes(selection_) + CapacityBytes(distinct_groups_);
    for (const SelectionVector& rows : filter_rows_)
      bytes += CapacityBytes(rows);
    if (grouper_)
      bytes += grouper_->MemoryBytes();
    for (const AggregateState& agg : aggregates_) {
      bytes += agg.accumulator->MemoryBytes();
      if (agg.distinct)
        bytes += agg.distinct->MemoryBytes();
    }
    return bytes;
  }

  void ResizeStates(int64_t groups) {
    for (AggregateState& agg : aggregates_)
      agg.accumulator->Resize(groups);
  }

  void Release() {
    grouper_.reset();
    aggregates_.clear();
    std::vector<uint32_t>().swap(groups_);
    reservation_.Resize(0).ok();
  }

  // A spilled partition: partial states of the groups whose key hash falls in it, to be split by
  // `level`'s bits if they do not fit either.
  struct SpillPartition {
    SpillFile file;
    std::vector<SpillFile> rows;  // per aggregate over ordered input: its buffered rows
    int level = 0;
  };

  Status Explain(Status st, std::string_view why) const {
    return std::move(st)
        .WithContext(fmt::format("HashAggregate[{}]: {}", partition(), why))
        .WithHint("raise memory_limit (SET memory_limit = '...')");
  }

  // An empty table: fresh grouper and accumulators (the old ones' memory is freed).
  Status ResetTable() {
    if (num_keys_ > 0) {
      grouper_.reset();
      SHOAL_ASSIGN_OR_RETURN(grouper_, Grouper::Make(key_types_));
    }
    for (AggregateState& agg : aggregates_) {
      agg.accumulator.reset();
      SHOAL_ASSIGN_OR_RETURN(agg.accumulator, MakeAccumulator(*agg.decoded));
    }
    std::vector<uint32_t>().swap(groups_);
    emitted_ = 0;
    return reservation_.Resize(0);
  }

  // Reserves what the table holds after a batch and spills it when the reservation is refused
  // or the query is about to run out (see spill/memory_budget.h). `level` picks the hash bits.
  Status AccountTable(int level) {
    const int64_t bytes = TableBytes();
    Status st = reservation_.Resize(bytes);
    if (st.ok() && !ShouldGiveUpTable(*pool(), bytes))
      return Status::OK();
    if (num_keys_ == 0 || grouper_->num_groups() == 0)
      return st.ok() ? Status::OK() : Explain(std::move(st), "the aggregation state");
    if (has_distinct_) {
      return st.ok() ? Status::OK()
                     : Explain(std::move(st), "DISTINCT aggregates cannot spill to disk");
    }
    if (level >= kMaxSpillLevels) {
      if (st.ok())
        return Status::OK();
      return Explain(
          std::move(st),
          fmt::format("one spill partition still does not fit after {} splits", kMaxSpillLevels));
    }
    return SpillTable(level);
  }

  // Writes each row of `batch` to the spill partition its hash picks at `level`; `rows` is the
  // caller's scratch (one row list per partition), reused across batches.
  Status WritePartitioned(const RecordBatch& batch, const std::vector<uint64_t>& hashes, int level,
                          std::vector<std::vector<int32_t>>* rows,
                          std::vector<std::unique_ptr<SpillWriter>>* writers) {
    for (auto& r : *rows)
      r.clear();
    for (int64_t i = 0; i < batch.num_rows(); ++i)
      (*rows)[static_cast<size_t>(SpillPartitionOf(hashes[static_cast<size_t>(i)], level))]
          .push_back(static_cast<int32_t>(i));
    for (int p = 0; p < kSpillFanout; ++p) {
      const auto& r = (*rows)[static_cast<size_t>(p)];
      if (r.empty())
        continue;
      SHOAL_ASSIGN_OR_RETURN(
          RecordBatchPtr part,
          TakeBatch(batch, r.data(), static_cast<int64_t>(r.size()), SpillWritePool()));
      SHOAL_RETURN_IF_ERROR((*writers)[static_cast<size_t>(p)]->Write(*part));
    }
    return Status::OK();
  }

  // Writes every group's partial state to the spill partition its key hash picks at `level`, and
  // empties the table.
  Status SpillTable(int level) {
    if (writers_.empty()) {
      for (int p = 0; p < kSpillFanout; ++p) {
        SHOAL_ASSIGN_OR_RETURN(auto writer, spill_.Create(spill_schema_));
        writers_.push_back(std::move(writer));
      }
      row_writers_.clear();
      row_writers_.resize(row_spill_schemas_.size());
      for (size_t a = 0; a < row_spill_schemas_.size(); ++a) {
        for (int p = 0; p < kSpillFanout; ++p) {
          SHOAL_ASSIGN_OR_RETURN(auto writer, spill_.Create(row_spill_schemas_[a]));
          row_writers_[a].push_back(std::move(writer));
        }
      }
    }
    for (const AggregateState& agg : aggregates_) {
      if (agg.ordered >= 0)
        SHOAL_RETURN_IF_ERROR(SpillBufferedRows(agg, level));
    }
    const int64_t total = grouper_->num_groups();
    std::vector<uint64_t> hashes;
    std::vector<std::vector<int32_t>> rows(kSpillFanout);
    for (int64_t start = 0; start < total; start += context()->batch_size()) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      const int64_t length = std::min(context()->batch_size(), total - start);
      // Gathered outside the operator's pool, which is full (spill/spill_manager.h).
      SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> columns,
                             grouper_->GetKeys(start, length, SpillWritePool()));
      SHOAL_RETURN_IF_ERROR(HashColumns(columns, length, &hashes));
      for (const AggregateState& agg : aggregates_) {
        if (agg.ordered >= 0)
          continue;
        SHOAL_ASSIGN_OR_RETURN(auto states,
                               agg.accumulator->State(start, length, SpillWritePool()));
        for (auto& st : states)
          columns.push_back(std::move(st));
      }
      RecordBatchPtr batch = RecordBatch::Make(spill_schema_, length, std::move(columns));
      SHOAL_RETURN_IF_ERROR(WritePartitioned(*batch, hashes, level, &rows, &writers_));
    }
    return ResetTable();
  }

  // Closes the partitions written at `level` and queues the non-empty ones (split at level + 1).
  Status FinishSpill(int level) {
    for (size_t p = 0; p < writers_.size(); ++p) {
      SHOAL_ASSIGN_OR_RETURN(SpillFile file, writers_[p]->Finish());
      SpillPartition partition{std::move(file), {}, level + 1};
      for (auto& writers : row_writers_) {
        SHOAL_ASSIGN_OR_RETURN(SpillFile rows, writers[p]->Finish());
        partition.rows.push_back(std::move(rows));
      }
      // Every group of a partition has a state row, so no state rows means no rows at all.
      if (partition.file.rows == 0) {
        spill_.Remove(partition.file);
        for (const SpillFile& rows : partition.rows)
          spill_.Remove(rows);
        continue;
      }
      pending_.push_back(std::move(partition));
    }
    writers_.clear();
    row_writers_.clear();
    return Status::OK();
  }

  // Writes the rows an aggregate over ordered input buffered, with their groups' keys, to the
  // row spill files of the partitions the keys pick at `level`.
  Status SpillBufferedRows(const AggregateState& agg, int level) {
    std::vector<ArrayPtr> columns;
    std::vector<uint32_t> groups;
    // The rows are gathered outside the operator's pool: they are what is being spilled because
    // that pool is full, and they live only while they are written (spill/spill_manager.h).
    const std::shared_ptr<MemoryPool>& scratch = SpillWritePool();
    SHOAL_RETURN_IF_ERROR(agg.accumulator->BufferedRows(scratch, &columns, &groups));
    const auto total = static_cast<int64_t>(groups.size());
    if (total == 0)
      return Status::OK();
    SHOAL_ASSIGN_OR_RETURN(std::vector<ArrayPtr> all_keys,
                           grouper_->GetKeys(0, grouper_->num_groups(), scratch));
    const SchemaPtr& schema = row_spill_schemas_[static_cast<size_t>(agg.ordered)];
    auto& writers = row_writers_[static_cast<size_t>(agg.ordered)];
    std::vector<uint64_t> hashes;
    std::vector<std::vector<int32_t>> rows(kSpillFanout);
    std::vector<int32_t> indices;
    for (int64_t start = 0; start < total; start += context()->batch_size()) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      const int64_t length = std::min(context()->batch_size(), total - start);
      indices.assign(groups.begin() + start, groups.begin() + start + length);
      std::vector<ArrayPtr> batch_columns;
      for (const ArrayPtr& key : all_keys) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr k, Take(*key, indices.data(), length, scratch));
        batch_columns.push_back(std::move(k));
      }
      SHOAL_RETURN_IF_ERROR(HashColumns(batch_columns, length, &hashes));
      for (const ArrayPtr& column : columns)
        batch_columns.push_back(column->Slice(start, length));
      RecordBatchPtr batch = RecordBatch::Make(schema, length, std::move(batch_columns));
      SHOAL_RETURN_IF_ERROR(WritePartitioned(*batch, hashes, level, &rows, &writers));
    }
    return Status::OK();
  }

  // Feeds one aggregate's spilled rows back as input rows: their keys find (or make) the groups.
  Status ConsumeSpilledRows(AggregateState* agg, const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    std::vector<ArrayPtr> keys(batch.columns().begin(), batch.columns().begin() + num_keys_);
    SHOAL_RETURN_IF_ERROR(grouper_->Consume(keys, n, &groups_));
    ResizeStates(grouper_->num_groups());
    std::vector<ArrayPtr> args(batch.columns().begin() + num_keys_, batch.columns().end());
    return agg->accumulator->Update(args, GroupedRows{groups_.data(), nullptr, n});
  }

  // Merges one spilled partition's states into the (empty) table; splits it again when it does
  // not fit.
  Status AggregatePartition(const SpillPartition& partition) {
    SHOAL_RETURN_IF_ERROR(ResetTable());
    {
      SHOAL_ASSIGN_OR_RETURN(StreamPtr reader, spill_.Open(partition.file));
      for (;;) {
        if (context()->cancelled())
          return TaskContext::CancelledStatus();
        SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
        if (!batch)
          break;
        if (batch->num_rows() == 0)
          continue;
        SHOAL_RETURN_IF_ERROR(ConsumeBatch(*batch, /*merge_states=*/true, partition.level));
        SHOAL_RETURN_IF_ERROR(AccountTable(partition.level));
      }
    }
    spill_.Remove(partition.file);
    for (AggregateState& agg : aggregates_) {
      if (agg.ordered < 0)
        continue;
      const SpillFile& file = partition.rows[static_cast<size_t>(agg.ordered)];
      if (file.rows > 0) {
        SHOAL_ASSIGN_OR_RETURN(StreamPtr reader, spill_.Open(file));
        for (;;) {
          if (context()->cancelled())
            return TaskContext::CancelledStatus();
          SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
          if (!batch)
            break;
          if (batch->num_rows() == 0)
            continue;
          SHOAL_RETURN_IF_ERROR(ConsumeSpilledRows(&agg, *batch));
          SHOAL_RETURN_IF_ERROR(AccountTable(partition.level));
        }
      }
      spill_.Remove(file);
    }
    if (!writers_.empty()) {
      SHOAL_RETURN_IF_ERROR(SpillTable(partition.level));
      SHOAL_RETURN_IF_ERROR(FinishSpill(partition.level));
    }
    return Status::OK();
  }

  Status ConsumeInput() {
    const bool final = node_->mode() == AggregateMode::kFinal;
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, input_->Next());
      if (!batch)
        break;
      if (batch->num_rows() == 0)
        continue;
      SHOAL_RETURN_IF_ERROR(ConsumeBatch(*batch, final, /*level=*/0));
      SHOAL_RETURN_IF_ERROR(AccountTable(0));
    }
    if (!writers_.empty()) {
      // Once anything spilled, the rest of the table joins the partitions so that each group is
      // finished in exactly one of them.
      SHOAL_RETURN_IF_ERROR(SpillTable(0));
      SHOAL_RETURN_IF_ERROR(FinishSpill(0));
    }
    return Status::OK();
  }

  // What a batch contributes, computed before the table changes: every allocation a batch's
  // consumption makes from the operator's pool happens here, so that a refusal leaves the table
  // as it was.
  struct EvaluatedBatch {
    std::vector<ArrayPtr> keys;
    std::vector<std::vector<ArrayPtr>> args;  // per aggregate; empty when merging states
  };

  // `merge_states`: the batch holds keys and partial states (kFinal input, spilled partitions);
  // otherwise input rows to evaluate. Fills filter_rows_ for aggregates with a FILTER.
  Status EvaluateBatch(const RecordBatch& batch, bool merge_states, EvaluatedBatch* out) {
    out->keys.clear();
    out->args.assign(aggregates_.size(), {});
    if (grouper_) {
      if (merge_states) {
        out->keys.assign(batch.columns().begin(), batch.columns().begin() + num_keys_);
      } else {
        out->keys.reserve(keys_.size());
        for (auto& eval : keys_) {
          SHOAL_ASSIGN_OR_RETURN(ArrayPtr key, eval->Evaluate(batch));
          out->keys.push_back(std::move(key));
        }
      }
      SHOAL_ASSIGN_OR_RETURN(out->keys, DecodeAll(std::move(out->keys), pool()));
    }
    if (merge_states)
      return Status::OK();
    filter_rows_.resize(aggregates_.size());
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      AggregateState& agg = aggregates_[a];
      std::vector<ArrayPtr>& args = out->args[a];
      args.reserve(agg.args.size());
      for (auto& eval : agg.args) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr arg, eval->Evaluate(batch));
        args.push_back(std::move(arg));
      }
      SHOAL_ASSIGN_OR_RETURN(args, DecodeAll(std::move(args), pool()));
      if (agg.filter) {
        filter_rows_[a].clear();
        SHOAL_RETURN_IF_ERROR(agg.filter->Select(batch, &filter_rows_[a]));
      }
    }
    return Status::OK();
  }

  // Whether SpillTable may run now (see the header comment for what cannot spill).
  bool CanSpill(int level) const {
    // A grouped partial flushes instead (NextPartial).
    if (node_->mode() == AggregateMode::kPartial)
      return false;
    return num_keys_ > 0 && grouper_->num_groups() > 0 && !has_distinct_ && level < kMaxSpillLevels;
  }

  // `level`: the spill level a refusal spills the table at (0 for input, the partition's level
  // when a spilled partition is merged back).
  Status ConsumeBatch(const RecordBatch& batch, bool merge_states, int level) {
    const int64_t n = batch.num_rows();
    const bool final = merge_states;
    EvaluatedBatch evaluated;
    Status st = EvaluateBatch(batch, merge_states, &evaluated);
    if (st.code() == StatusCode::kOutOfMemory && CanSpill(level)) {
      // The query's other operators took the memory this batch needs (AccountTable's checks
      // run between batches and race with theirs): give back this table's and evaluate again.
      SHOAL_RETURN_IF_ERROR(SpillTable(level));
      st = EvaluateBatch(batch, merge_states, &evaluated);
    }
    SHOAL_RETURN_IF_ERROR(st);
    if (grouper_) {
      SHOAL_RETURN_IF_ERROR(grouper_->Consume(evaluated.keys, n, &groups_));
      ResizeStates(grouper_->num_groups());
    } else {
      groups_.assign(static_cast<size_t>(n), 0);
    }
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      AggregateState& agg = aggregates_[a];
      GroupedRows rows{groups_.data(), nullptr, n};
      if (final) {
        if (agg.ordered >= 0)
          continue;  // spilled separately, as rows (ConsumeSpilledRows)
        std::vector<ArrayPtr> states(
            batch.columns().begin() + agg.first_state_column,
            batch.columns().begin() + agg.first_state_column + agg.num_states);
        SHOAL_RETURN_IF_ERROR(agg.accumulator->Merge(states, rows));
        continue;
      }
      const std::vector<ArrayPtr>& args = evaluated.args[a];
      if (agg.filter) {
        rows.rows = filter_rows_[a].data();
        rows.count = static_cast<int64_t>(filter_rows_[a].size());
      }
      if (agg.distinct) {
        // Pairs of (group, arguments): sort keys are among the arguments (the binder checks).
        const std::vector<ArrayPtr> distinct_args(args.begin(), args.begin() + agg.num_args);
        SHOAL_RETURN_IF_ERROR(KeepFirstOccurrences(&agg, distinct_args, &rows));
      }
      if (rows.count > 0)
        SHOAL_RETURN_IF_ERROR(agg.accumulator->Update(args, rows));
    }
    return Status::OK();
  }

  // Narrows `rows` to those whose (group, arguments) pair the DISTINCT table has not seen.
  Status KeepFirstOccurrences(AggregateState* agg, const std::vector<ArrayPtr>& args,
                              GroupedRows* rows) {
    const int64_t m = rows->count;
    // The pairs are built over the selected rows only, so that rows a FILTER rejects never mark a
    // pair as seen.
    std::vector<uint32_t> selected_groups(static_cast<size_t>(m));
    std::vector<ArrayPtr> keys;
    if (rows->rows) {
      for (int64_t i = 0; i < m; ++i)
        selected_groups[static_cast<size_t>(i)] = groups_[static_cast<size_t>(rows->rows[i])];
      for (const ArrayPtr& arg : args) {
        SHOAL_ASSIGN_OR_RETURN(ArrayPtr taken, Take(*arg, rows->rows, m, pool()));
        keys.push_back(std::move(taken));
      }
    } else {
      std::copy(groups_.begin(), groups_.begin() + m, selected_groups.begin());
      keys = args;
    }
    auto group_buffer =
        columnar::Buffer::Wrap(reinterpret_cast<const uint8_t*>(selected_groups.data()),
                               m * static_cast<int64_t>(sizeof(uint32_t)), nullptr);
    keys.insert(keys.begin(), Array::Make(DataType::UInt32(), m, {nullptr, group_buffer}, 0));
    const int64_t before = agg->distinct->num_groups();
    SHOAL_RETURN_IF_ERROR(agg->distinct->Consume(keys, m, &distinct_groups_));
    std::vector<uint8_t> first(static_cast<size_t>(agg->distinct->num_groups() - before), 0);
    selection_.clear();
    for (int64_t i = 0; i < m; ++i) {
      const int64_t d = distinct_groups_[static_cast<size_t>(i)];
      if (d >= before && !first[static_cast<size_t>(d - before)]) {
        first[static_cast<size_t>(d - before)] = 1;
        selection_.push_back(rows->rows ? rows->rows[i] : static_cast<int32_t>(i));
      }
    }
    rows->rows = selection_.data();
    rows->count = static_cast<int64_t>(selection_.size());
    return Status::OK();
  }

  const HashAggregateExec* node_;
  StreamPtr input_;
  MemoryReservation reservation_;
  SpillManager spill_;
  SchemaPtr spill_schema_;
  std::vector<DataType> key_types_;
  bool has_distinct_ = false;
  // Aggregates over ordered input: the schema of their row spill files and, while spilling,
  // their writers (one per partition), by the aggregate's `ordered` index.
  std::vector<SchemaPtr> row_spill_schemas_;
  std::vector<std::vector<std::unique_ptr<SpillWriter>>> row_writers_;
  std::vector<std::unique_ptr<SpillWriter>> writers_;  // the partitions being written
  std::vector<SpillPartition> pending_;                // spilled, not yet aggregated
  int num_keys_ = 0;
  std::vector<std::unique_ptr<ExprEvaluator>> keys_;
  std::unique_ptr<Grouper> grouper_;
  std::vector<AggregateState> aggregates_;
  std::vector<uint32_t> groups_;
  std::vector<uint32_t> distinct_groups_;
  SelectionVector selection_;                 // the rows KeepFirstOccurrences keeps
  std::vector<SelectionVector> filter_rows_;  // per aggregate with a FILTER: the rows it passes
  int64_t emitted_ = 0;
  // Grouped kPartial (NextPartial): emitting the full table; passing rows through; what the
  // flushes so far took in and gave out; 0, 1, 2, ... as group ids of passed-through rows.
  bool flushing_ = false;
  bool pass_through_ = false;
  int64_t rows_since_flush_ = 0;
  int64_t rows_in_flushed_ = 0;
  int64_t groups_flushed_ = 0;
  std::vector<uint32_t> row_groups_;
  RecordBatchPtr retry_;  // a batch refused memory, taken again once the table is emitted
};

}  // namespace

sql::ExprPtr WithDecodedArgs(const sql::ExprPtr& agg) {
  bool any = false;
  for (const auto& arg : agg->args)
    any |= arg->type.id() == TypeId::kDictionary;
  for (const auto& key : agg->order_by)
    any |= key.expr->type.id() == TypeId::kDictionary;
  if (!any)
    return agg;
  auto decode = [](sql::ExprPtr& e) {
    if (e->type.id() == TypeId::kDictionary) {
      auto decoded = std::make_shared<sql::Expr>(*e);
      decoded->type = e->type.value_type();
      e = std::move(decoded);
    }
  };
  auto copy = std::make_shared<sql::Expr>(*agg);
  for (auto& arg : copy->args)
    decode(arg);
  for (auto& key : copy->order_by)
    decode(key.expr);
  return copy;
}

Result<StreamPtr> MakeHashAggregateStream(const HashAggregateExec* node, int partition,
                                          std::shared_ptr<TaskContext> context, StreamPtr input,
                                          const columnar::Schema& input_schema) {
  auto stream =
      std::make_unique<HashAggregateStream>(node, partition, std::move(context), std::move(input));
  SHOAL_RETURN_IF_ERROR(stream->Init(input_schema));
  return StreamPtr(std::move(stream));
}

}  // namespace shoal::exec

// HashJoinStream: joins one partition of a HashJoinExec (probe, unmatched build rows, and the
// grace-join path when the build side spilled; see hash_join_exec.h).
#include <algorithm>

#include "shoal/columnar/bitmap.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/hash.h"
#include "shoal/exec/join/join_hash_table.h"
#include "shoal/exec/join/join_output.h"
#include "shoal/exec/join/runtime_filter_registry.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/hash_join_exec_internal.h"
#include "shoal/exec/operators/join_pair_filter.h"
#include "shoal/exec/row_key/nested_key_encoder.h"
#include "shoal/exec/spill/spill_manager.h"

namespace shoal::exec {
namespace {

using sql::JoinType;
namespace bitmap = columnar::bitmap;

class HashJoinStream final : public OperatorStream {
 public:
  HashJoinStream(const HashJoinExec* node, int partition, std::shared_ptr<TaskContext> context,
                 StreamPtr probe, std::shared_ptr<SharedBuild<JoinBuildSide>> shared)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        type_(node->join_type()),
        probe_(std::move(probe)),
        probe_pending_(probe_ == nullptr),
        shared_(std::move(shared)),
        coalescer_(node->schema(), batch_size(), pool()),
        spill_(this->context()->spill_directory(), fmt::format("HashJoin[{}]", partition), pool(),
               metrics()) {}

  ~HashJoinStream() override {
    // A partitioned join dropped before it built its table still owns its build partition: open
    // and close it, so that a repartition below does not keep producing for a consumer that will
    // never come (its producers stop once every output partition has been opened and closed).
    if (!build_ && !shared_ && !context()->cancelled())
      (void)node_->right()->Execute(partition(), context());
    // Likewise a probe input never opened (runtime filters defer it until after the build).
    if (probe_pending_ && !context()->cancelled())
      (void)node_->left()->Execute(partition(), context());
  }

  Status Init() {
    const auto& left_schema = *node_->left()->schema();
    SHOAL_ASSIGN_OR_RETURN(probe_keys_, MakeEvaluators(node_->left_keys(), left_schema, pool()));
    num_left_ = left_schema.num_fields();
    SHOAL_ASSIGN_OR_RETURN(
        residual_,
        JoinPairFilter::Make(node_->residual(), node_->joined_schema(), num_left_, pool()));
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (coalescer_.has_ready())
        return coalescer_.PopReady();
      switch (phase_) {
        case Phase::kDone: return RecordBatchPtr();
        case Phase::kProbing: SHOAL_RETURN_IF_ERROR(ProbeStep()); break;
        case Phase::kUnmatchedBuild: SHOAL_RETURN_IF_ERROR(UnmatchedBuildStep()); break;
      }
    }
  }

 private:
  enum class Phase : uint8_t { kProbing, kUnmatchedBuild, kDone };

  int64_t batch_size() const { return context()->batch_size(); }

  // Rows of the WHOLE build side, and whether any has a NULL key (not just this partition's).
  int64_t BuildRows() const { return build_->num_rows; }

  bool BuildHasNullKey() const { return build_->has_null_key; }

  Status Explain(Status st, std::string_view what) const {
    if (st.code() != StatusCode::kOutOfMemory)
      return st;
    return std::move(st)
        .WithContext(fmt::format("HashJoin[{}]: {}", partition(), what))
        .WithHint("raise memory_limit (SET memory_limit = '...')");
  }

  Status EnsureTable() {
    if (build_)
      return Status::OK();
    const ExecPlanPtr& right = node_->right();
    const bool track = TracksBuildMatches(type_);
    auto build = [&]() -> Result<std::shared_ptr<JoinBuildSide>> {
      if (shared_) {
        auto context = this->context();
        auto* shared = shared_.get();
        OperatorMetrics* metrics = this->metrics();
        return shared_->Get([&]() -> Result<std::shared_ptr<JoinBuildSide>> {
          SHOAL_ASSIGN_OR_RETURN(
              auto side, BuildJoinSide(right, AllPartitions(*right), node_->right_keys(), track,
                                       context, shared->pool(), metrics, "HashJoin[build]"));
          SHOAL_RETURN_IF_ERROR(PublishRuntimeFilters(*side, shared->pool()));
          return side;
        });
      }
      SHOAL_ASSIGN_OR_RETURN(
          auto side, BuildJoinSide(right, {partition()}, node_->right_keys(), track, context(),
                                   pool(), metrics(), fmt::format("HashJoin[{}]", partition())));
      SHOAL_RETURN_IF_ERROR(PublishRuntimeFilterParts(*side));
      return side;
    };
    Result<std::shared_ptr<JoinBuildSide>> side = build();
    if (!side.ok())
      return Explain(std::move(side).status(), "building the hash table");
    build_ = std::move(*side);
    if (probe_pending_) {
      probe_pending_ = false;
      SHOAL_ASSIGN_OR_RETURN(probe_, node_->left()->Execute(partition(), context()));
    }
    if (!build_->spilled()) {
      table_ = build_->table;
      return Status::OK();
    }
    if (TracksBuildMatches(type_) && shared_ && node_->left()->num_partitions() > 1) {
      return Explain(
          Status::OutOfMemory("the build side of a collect-build {} join does not fit in memory "
                              "and cannot spill with {} probe partitions",
                              sql::JoinTypeName(type_), node_->left()->num_partitions()),
          "spilling");
    }
    grace_ = true;
    if (type_ == JoinType::kNullAwareAnti && BuildRows() > 0 && BuildHasNullKey()) {
      next_partition_ = kGracePartitions;  // NOT IN over a set with NULL: nothing to join
      probe_.reset();
      return LoadNextPartition();
    }
    SHOAL_RETURN_IF_ERROR(PartitionProbe());
    return LoadNextPartition();
  }

  // Publishes the node's runtime filters from the complete build side (once per execution: the
  // shared build runs this once). A spilled build side has no keys in memory: nothing is
  // published and the probe side's scans read every row.
  Status PublishRuntimeFilters(const JoinBuildSide& side, const std::shared_ptr<MemoryPool>& pool) {
    MetricsRegistry& metrics = context()->metrics();
    for (const JoinRuntimeFilter& spec : node_->runtime_filters()) {
      if (side.spilled()) {
        metrics.AddNote(node_,
                        fmt::format("runtime filter rf{} -> {}: not built (the build side spilled)",
                                    spec.id, spec.target),
                        false);
        context()->runtime_filters().Abandon(spec.id);
        continue;
      }
      SHOAL_ASSIGN_OR_RETURN(
          std::shared_ptr<const RuntimeFilter> filter,
          RuntimeFilter::Build(side.table->keys()[static_cast<size_t>(spec.key)], pool));
      metrics.AddNote(
          node_,
          fmt::format("runtime filter rf{} -> {}: {}", spec.id, spec.target, filter->Describe()),
          false);
      context()->runtime_filters().PublishBuilt(spec.id, std::move(filter));
    }
    return Status::OK();
  }

  // A partitioned join: each partition publishes the filter of its share of the build keys; the
  // registry unions the partitions' parts (runtime_filter_registry.h). A spilled partition
  // abandons the filter: its keys are not in memory.
  Status PublishRuntimeFilterParts(const JoinBuildSide& side) {
    const int num_parts = node_->left()->num_partitions();
    for (const JoinRuntimeFilter& spec : node_->runtime_filters()) {
      std::shared_ptr<const RuntimeFilter> filter;
      if (!side.spilled()) {
        SHOAL_ASSIGN_OR_RETURN(
            filter, RuntimeFilter::Build(side.table->keys()[static_cast<size_t>(spec.key)], pool(),
                                         /*mergeable=*/true));
      }
      SHOAL_RETURN_IF_ERROR(context()->runtime_filters().PublishPart(
          spec.id, partition(), num_parts, std::move(filter), pool()));
    }
    return Status::OK();
  }

  // Grace join: writes the whole probe input to its spill partitions.
  Status PartitionProbe() {
    std::vector<std::unique_ptr<SpillWriter>> writers;
    for (int i = 0; i < kGracePartitions; ++i) {
      SHOAL_ASSIGN_OR_RETURN(auto writer, spill_.Create(node_->left()->schema()));
      writers.push_back(std::move(writer));
    }
    for (;;) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, probe_->Next());
      if (!batch)
        break;
      if (batch->num_rows() == 0)
        continue;
      SHOAL_RETURN_IF_ERROR(WriteGracePartitions(*batch, probe_keys_, writers, pool(), nullptr));
    }
    probe_.reset();
    for (auto& writer : writers) {
      SHOAL_ASSIGN_OR_RETURN(SpillFile file, writer->Finish());
      probe_files_.push_back(std::move(file));
    }
    return Status::OK();
  }

  // Grace join: the table of the next partition and its probe rows; kDone after the last.
  Status LoadNextPartition() {
    table_.reset();
    while (next_partition_ < kGracePartitions) {
      const size_t i = static_cast<size_t>(next_partition_++);
      if (i > 0)
        spill_.Remove(probe_files_[i - 1]);  // joined
      const SpillFile& build_file = build_->partitions[i];
      const bool has_probe = probe_files_[i].rows > 0;
      // Without probe rows only unmatched build rows can come out of a partition.
      const bool emits_unmatched = KeepsUnmatchedBuild(type_) || type_ == JoinType::kRightAnti;
      if (!has_probe && !(emits_unmatched && build_file.rows > 0))
        continue;
      std::vector<RecordBatchPtr> batches;
      {
        SHOAL_ASSIGN_OR_RETURN(StreamPtr reader, build_->spill->Open(build_file));
        for (;;) {
          if (context()->cancelled())
            return TaskContext::CancelledStatus();
          SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
          if (!batch)
            break;
          batches.push_back(std::move(batch));
        }
      }
      Result<std::shared_ptr<JoinHashTable>> table = BuildJoinHashTableFromBatches(
          *node_->right()->schema(), std::move(batches), node_->right_keys(),
          TracksBuildMatches(type_), pool(), nullptr);
      if (!table.ok()) {
        return Explain(std::move(table).status(),
                       fmt::format("spill partition {} of {} still does not fit in memory", i + 1,
                                   kGracePartitions));
      }
      table_ = std::move(*table);
      if (has_probe) {
        SHOAL_ASSIGN_OR_RETURN(probe_, spill_.Open(probe_files_[i]));
      }
      unmatched_next_ = 0;
      phase_ = Phase::kProbing;
      return Status::OK();
    }
    // Every partition joined.
    phase_ = Phase::kDone;
    return coalescer_.Flush();
  }

  Status ProbeStep() {
    SHOAL_RETURN_IF_ERROR(EnsureTable());
    if (in_batch_) {
      SHOAL_RETURN_IF_ERROR(RunRounds());
      if (cursor_.done())
        SHOAL_RETURN_IF_ERROR(FinishBatch());
      return Status::OK();
    }
    if (phase_ != Phase::kProbing)
      return Status::OK();  // a grace join with nothing to join
    // NOT IN over a set containing NULL is never true: nothing to read.
    if (type_ == JoinType::kNullAwareAnti && BuildRows() > 0 && BuildHasNullKey())
      return EndProbe();
    if (!probe_)
      return EndProbe();  // a grace partition with build rows only
    SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, probe_->Next());
    if (!batch)
      return EndProbe();
    if (batch->num_rows() == 0)
      return Status::OK();
    return StartBatch(std::move(batch));
  }

  Status EndProbe() {
    probe_.reset();
    if (TracksBuildMatches(type_) && (grace_ || !shared_ || shared_->FinishProbe())) {
      phase_ = Phase::kUnmatchedBuild;
      return Status::OK();
    }
    if (grace_)
      return LoadNextPartition();
    phase_ = Phase::kDone;
    return coalescer_.Flush();
  }

  Status StartBatch(RecordBatchPtr batch) {
    batch_ = std::move(batch);
    const int64_t n = batch_->num_rows();
    keys_.clear();
    for (auto& k : probe_keys_) {
      SHOAL_ASSIGN_OR_RETURN(ArrayPtr column, k->Evaluate(*batch_));
      SHOAL_ASSIGN_OR_RETURN(column, NormalizeKeyColumn(std::move(column), pool()));
      keys_.push_back(std::move(column));
    }
    std::vector<const Array*> key_arrays;
    for (const auto& k : keys_)
      key_arrays.push_back(k.get());
    SHOAL_ASSIGN_OR_RETURN(key_validity_, bits::AndValidity(key_arrays, n, pool()));
    probe_matched_.assign(static_cast<size_t>(n), 0);
    cursor_.probe_rows.clear();
    cursor_.build_rows.clear();
    if (table_->num_indexed_rows() > 0) {
      SHOAL_RETURN_IF_ERROR(HashColumns(keys_, n, &hashes_));
      const uint8_t* v = key_validity_ ? key_validity_->data() : nullptr;
      if (v == nullptr) {
        valid_rows_.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          valid_rows_[static_cast<size_t>(i)] = static_cast<int32_t>(i);
      } else {
        SelectRows(n, &valid_rows_, [v](int64_t i) { return bitmap::GetBit(v, i); });
      }
      table_->StartProbe(keys_, hashes_.data(), valid_rows_.data(),
                         static_cast<int64_t>(valid_rows_.size()), &cursor_);
    }
    in_batch_ = true;
    return Status::OK();
  }

  // Matches until the cursor is exhausted or a full output batch is pending.
  Status RunRounds() {
    const bool pairs = EmitsPairs(type_);
    // Semi, anti and mark joins decide a probe row at its first match; right semi and anti
    // joins decide build rows, so every match of a probe row counts.
    const bool one_match = !pairs && !EmitsBuildRows(type_);
    const bool track_probe = KeepsUnmatchedProbe(type_) || one_match;
    const bool track_build = TracksBuildMatches(type_);
    while (!cursor_.done()) {
      std::vector<int32_t>* out_p = pairs ? &pair_probe_ : &round_probe_;
      std::vector<int32_t>* out_b = pairs ? &pair_build_ : &round_build_;
      if (!pairs) {
        out_p->clear();
        out_b->clear();
      }
      const size_t begin = out_p->size();
      table_->MatchRound(cursor_, out_p, out_b);
      if (residual_ && out_p->size() > begin)
        SHOAL_RETURN_IF_ERROR(ApplyResidual(out_p, out_b, begin));
      const int64_t found = static_cast<int64_t>(out_p->size() - begin);
      if (track_probe) {
        for (size_t i = begin; i < out_p->size(); ++i)
          probe_matched_[static_cast<size_t>((*out_p)[i])] = 1;
      }
      if (track_build && found > 0)
        table_->MarkMatched(out_b->data() + begin, found);
      table_->Advance(&cursor_, one_match ? probe_matched_.data() : nullptr);
      if (pairs && static_cast<int64_t>(pair_probe_.size()) >= batch_size())
        return EmitPairs(/*all=*/false);
    }
    return Status::OK();
  }

  // Keeps the pairs [begin, end) for which the residual is TRUE.
  Status ApplyResidual(std::vector<int32_t>* probe, std::vector<int32_t>* build, size_t begin) {
    return residual_->Apply(batch_->columns(), table_->payload(), probe, build, begin);
  }

  // Turns pending pairs into output batches of batch_size rows; with `all`, the tail too.
  Status EmitPairs(bool all) {
    const int64_t total = static_cast<int64_t>(pair_probe_.size());
    const int64_t size = batch_size();
    const bool build_nulls = KeepsUnmatchedProbe(type_);
    int64_t done = 0;
    while (total - done >= size || (all && done < total)) {
      const int64_t count = std::min(size, total - done);
      std::vector<ArrayPtr> columns;
      columns.reserve(static_cast<size_t>(schema()->num_fields()));
      SHOAL_RETURN_IF_ERROR(GatherColumns(batch_->columns(), pair_probe_.data() + done, count,
                                          false, nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(GatherColumns(table_->payload(), pair_build_.data() + done, count,
                                          build_nulls, nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(
          coalescer_.Push(RecordBatch::Make(schema(), count, std::move(columns))));
      done += count;
    }
    pair_probe_.erase(pair_probe_.begin(), pair_probe_.begin() + done);
    pair_build_.erase(pair_build_.begin(), pair_build_.begin() + done);
    return Status::OK();
  }

  Status EmitSelected() {
    if (selection_.empty())
      return Status::OK();
    if (static_cast<int64_t>(selection_.size()) == batch_->num_rows())
      return coalescer_.Push(RecordBatch::Make(schema(), batch_->num_rows(), batch_->columns()));
    SHOAL_ASSIGN_OR_RETURN(
        RecordBatchPtr taken,
        TakeBatch(*batch_, selection_.data(), static_cast<int64_t>(selection_.size()), pool()));
    return coalescer_.Push(RecordBatch::Make(schema(), taken->num_rows(), taken->columns()));
  }

  Status FinishBatch() {
    const int64_t n = batch_->num_rows();
    const uint8_t* valid = key_validity_ ? key_validity_->data() : nullptr;
    selection_.clear();
    switch (type_) {
      case JoinType::kInner:
      case JoinType::kRight: SHOAL_RETURN_IF_ERROR(EmitPairs(/*all=*/true)); break;
      case JoinType::kLeft:
      case JoinType::kFull:
        for (int64_t i = 0; i < n; ++i) {
          if (!probe_matched_[static_cast<size_t>(i)]) {
            pair_probe_.push_back(static_cast<int32_t>(i));
            pair_build_.push_back(-1);
          }
        }
        SHOAL_RETURN_IF_ERROR(EmitPairs(/*all=*/true));
        break;
      case JoinType::kSemi:
        SelectRows(n, &selection_,
                   [this](int64_t i) { return probe_matched_[static_cast<size_t>(i)] != 0; });
        SHOAL_RETURN_IF_ERROR(EmitSelected());
        break;
      case JoinType::kAnti:
        SelectRows(n, &selection_,
                   [this](int64_t i) { return probe_matched_[static_cast<size_t>(i)] == 0; });
        SHOAL_RETURN_IF_ERROR(EmitSelected());
        break;
      case JoinType::kNullAwareAnti: {
        // Reached only when the build side has no NULL key (see ProbeStep).
        const bool build_empty = BuildRows() == 0;
        SelectRows(n, &selection_, [&](int64_t i) {
          const bool key_valid = valid == nullptr || bitmap::GetBit(valid, i);
          return build_empty || (key_valid && !probe_matched_[static_cast<size_t>(i)]);
        });
        SHOAL_RETURN_IF_ERROR(EmitSelected());
        break;
      }
      case JoinType::kMark: SHOAL_RETURN_IF_ERROR(EmitMarked()); break;
      case JoinType::kRightSemi:
      case JoinType::kRightAnti: break;  // build rows, once the probe side is done
    }
    in_batch_ = false;
    batch_.reset();
    keys_.clear();
    key_validity_.reset();
    return Status::OK();
  }

  Status EmitMarked() {
    const int64_t n = batch_->num_rows();
    const uint8_t* valid = key_validity_ ? key_validity_->data() : nullptr;
    const bool build_nonempty = BuildRows() > 0;
    const bool build_null = build_nonempty && BuildHasNullKey();
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(n, pool(), /*zeroed=*/true));
    SHOAL_ASSIGN_OR_RETURN(BufferPtr validity, bits::Allocate(n, pool(), /*zeroed=*/true));
    uint8_t* vb = values->mutable_data();
    uint8_t* nb = validity->mutable_data();
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool matched = probe_matched_[static_cast<size_t>(i)] != 0;
      const bool key_null = valid != nullptr && !bitmap::GetBit(valid, i);
      const bool is_null = !matched && (build_null || (build_nonempty && key_null));
      if (matched)
        bitmap::SetBit(vb, i);
      if (is_null) {
        ++nulls;
      } else {
        bitmap::SetBit(nb, i);
      }
    }
    std::vector<ArrayPtr> columns = batch_->columns();
    columns.push_back(
        Array::Make(DataType::Boolean(), n,
                    {nulls > 0 ? std::move(validity) : BufferPtr(), std::move(values)}, nulls));
    return coalescer_.Push(RecordBatch::Make(schema(), n, std::move(columns)));
  }

  // RIGHT and FULL joins: build rows no probe row matched, with NULL left columns. Right anti
  // joins: those rows alone; right semi joins: the build rows some probe row matched.
  Status UnmatchedBuildStep() {
    const bool build_only = EmitsBuildRows(type_);
    const int64_t total = table_->num_rows();
    const int64_t size = batch_size();
    while (unmatched_next_ < total && !coalescer_.has_ready()) {
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      const int64_t end = std::min(total, unmatched_next_ + size);
      unmatched_rows_.clear();
      if (type_ == JoinType::kRightSemi) {
        table_->MatchedRows(unmatched_next_, end, &unmatched_rows_);
      } else {
        table_->UnmatchedRows(unmatched_next_, end, &unmatched_rows_);
      }
      unmatched_next_ = end;
      if (unmatched_rows_.empty())
        continue;
      const int64_t count = static_cast<int64_t>(unmatched_rows_.size());
      std::vector<ArrayPtr> columns;
      if (!build_only)
        SHOAL_RETURN_IF_ERROR(AppendNullColumns(*schema(), 0, num_left_, count, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(GatherColumns(table_->payload(), unmatched_rows_.data(), count, false,
                                          nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(
          coalescer_.Push(RecordBatch::Make(schema(), count, std::move(columns))));
    }
    if (unmatched_next_ >= total) {
      if (grace_)
        return LoadNextPartition();
      phase_ = Phase::kDone;
      return coalescer_.Flush();
    }
    return Status::OK();
  }

  const HashJoinExec* node_;
  const JoinType type_;
  StreamPtr probe_;
  bool probe_pending_;  // the probe input opens after the build (runtime filters)
  std::shared_ptr<SharedBuild<JoinBuildSide>> shared_;
  std::shared_ptr<JoinBuildSide> build_;
  std::shared_ptr<JoinHashTable> table_;  // the build side's, or a grace partition's
  BatchCoalescer coalescer_;
  // Grace join state: this stream's probe partitions (the build's are in build_).
  SpillManager spill_;
  bool grace_ = false;
  int next_partition_ = 0;
  std::vector<SpillFile> probe_files_;
  Phase phase_ = Phase::kProbing;
  int num_left_ = 0;

  std::vector<std::unique_ptr<ExprEvaluator>> probe_keys_;
  std::unique_ptr<JoinPairFilter> residual_;

  // The probe batch being joined.
  bool in_batch_ = false;
  RecordBatchPtr batch_;
  std::vector<ArrayPtr> keys_;
  BufferPtr key_validity_;
  std::vector<uint64_t> hashes_;
  std::vector<int32_t> valid_rows_;
  std::vector<uint8_t> probe_matched_;
  ProbeCursor cursor_;
  std::vector<int32_t> pair_probe_, pair_build_;    // pending output pairs
  std::vector<int32_t> round_probe_, round_build_;  // one round's matches (semi, anti, mark)
  SelectionVector selection_;

  int64_t unmatched_next_ = 0;
  std::vector<int32_t> unmatched_rows_;
};

}  // namespace

Result<StreamPtr> MakeHashJoinStream(const HashJoinExec* node, int partition,
                                     std::shared_ptr<TaskContext> context, StreamPtr probe,
                                     std::shared_ptr<SharedBuild<JoinBuildSide>> shared) {
  auto stream = std::make_unique<HashJoinStream>(node, partition, std::move(context),
                                                 std::move(probe), std::move(shared));
  SHOAL_RETURN_IF_ERROR(stream->Init());
  return StreamPtr(std::move(stream));
}

}  // namespace shoal::exec

#include "shoal/exec/operators/nested_loop_join_exec.h"

#include <algorithm>
#include <atomic>

#include "shoal/columnar/bitmap.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/join/build_input.h"
#include "shoal/exec/join/join_output.h"
#include "shoal/exec/join/shared_build.h"
#include "shoal/exec/operator_stream.h"
#include "shoal/exec/operators/join_pair_filter.h"

namespace shoal::exec {

/// The collected right side: one concatenated array per column.
struct NestedLoopBuild {
  std::vector<ArrayPtr> columns;
  int64_t num_rows = 0;
  /// RIGHT and FULL joins: per build row, whether some probe row matched it. Probe streams of
  /// all partitions set flags with relaxed atomic stores; the one stream that finishes last
  /// (SharedBuild::FinishProbe, acquire-release) reads them.
  std::vector<uint8_t> matched;
};

namespace {

using sql::JoinType;
namespace bitmap = columnar::bitmap;

// Pairs per condition evaluation: large enough that the per-call costs vanish, small enough to
// stay in cache.
constexpr int64_t kMinPairBlock = 4096;

bool KeepsUnmatchedRight(JoinType type) {
  return type == JoinType::kRight || type == JoinType::kFull;
}

bool KeepsUnmatchedLeft(JoinType type) {
  return type == JoinType::kLeft || type == JoinType::kFull;
}

Result<std::shared_ptr<NestedLoopBuild>> CollectBuild(const ExecPlanPtr& right,
                                                      const std::shared_ptr<TaskContext>& context,
                                                      const std::shared_ptr<MemoryPool>& pool,
                                                      bool track_matches) {
  SHOAL_ASSIGN_OR_RETURN(auto batches, CollectPartitions(right, AllPartitions(*right), context));
  auto build = std::make_shared<NestedLoopBuild>();
  for (const auto& b : batches)
    build->num_rows += b->num_rows();
  SHOAL_ASSIGN_OR_RETURN(build->columns, ConcatenateColumns(*right->schema(), batches, pool));
  if (track_matches)
    build->matched.assign(static_cast<size_t>(build->num_rows), 0);
  return build;
}

class NestedLoopJoinStream final : public OperatorStream {
 public:
  NestedLoopJoinStream(const NestedLoopJoinExec* node, int partition,
                       std::shared_ptr<TaskContext> context, StreamPtr probe,
                       std::shared_ptr<SharedBuild<NestedLoopBuild>> shared)
      : OperatorStream(node, partition, std::move(context)),
        node_(node),
        type_(node->join_type()),
        probe_(std::move(probe)),
        shared_(std::move(shared)),
        coalescer_(node->schema(), this->context()->batch_size(), pool()) {}

  Status Init() {
    num_left_ = node_->left()->schema()->num_fields();
    SHOAL_ASSIGN_OR_RETURN(
        condition_,
        JoinPairFilter::Make(node_->condition(), node_->joined_schema(), num_left_, pool()));
    return Status::OK();
  }

 protected:
  Result<RecordBatchPtr> NextImpl() override {
    for (;;) {
      if (coalescer_.has_ready())
        return coalescer_.PopReady();
      if (emitting_unmatched_) {
        SHOAL_RETURN_IF_ERROR(UnmatchedRightStep());
        continue;
      }
      if (done_)
        return RecordBatchPtr();
      if (!build_) {
        const ExecPlanPtr& right = node_->right();
        auto context = this->context();
        auto* shared = shared_.get();
        const bool track = KeepsUnmatchedRight(type_);
        SHOAL_ASSIGN_OR_RETURN(build_, shared_->Get([&]() {
          return CollectBuild(right, context, shared->pool(), track);
        }));
      }
      if (batch_) {
        SHOAL_RETURN_IF_ERROR(JoinBlocks());
        continue;
      }
      SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr batch, probe_->Next());
      if (!batch) {
        done_ = true;
        probe_.reset();
        // RIGHT / FULL: the stream whose probe input ends last emits the build rows no probe
        // row of any partition matched.
        emitting_unmatched_ = KeepsUnmatchedRight(type_) && shared_->FinishProbe();
        if (!emitting_unmatched_)
          SHOAL_RETURN_IF_ERROR(coalescer_.Flush());
        continue;
      }
      if (batch->num_rows() == 0)
        continue;
      batch_ = std::move(batch);
      next_pair_ = 0;
      matched_.assign(static_cast<size_t>(batch_->num_rows()), 0);
    }
  }

 private:
  int64_t batch_size() const { return context()->batch_size(); }

  // Evaluates blocks of pairs of the current batch until a full output batch is pending or the
  // batch is done (then emits what the join type keeps of it).
  Status JoinBlocks() {
    const int64_t rows = batch_->num_rows();
    const int64_t right_rows = build_->num_rows;
    const int64_t total = rows * right_rows;
    const bool one_match =
        type_ == JoinType::kSemi || type_ == JoinType::kAnti || type_ == JoinType::kMark;
    const int64_t block = std::max(batch_size(), kMinPairBlock);
    while (next_pair_ < total) {
      // One probe batch can mean billions of pairs with no output: notice cancellation here.
      if (context()->cancelled())
        return TaskContext::CancelledStatus();
      block_probe_.clear();
      block_build_.clear();
      while (next_pair_ < total && static_cast<int64_t>(block_probe_.size()) < block) {
        const int64_t i = next_pair_ / right_rows;
        if (one_match && matched_[static_cast<size_t>(i)]) {
          next_pair_ = (i + 1) * right_rows;
          continue;
        }
        int64_t j = next_pair_ % right_rows;
        const int64_t end =
            std::min(right_rows, j + block - static_cast<int64_t>(block_probe_.size()));
        for (; j < end; ++j) {
          block_probe_.push_back(static_cast<int32_t>(i));
          block_build_.push_back(static_cast<int32_t>(j));
        }
        next_pair_ = i * right_rows + end;
      }
      if (block_probe_.empty())
        break;
      int64_t kept = static_cast<int64_t>(block_probe_.size());
      if (condition_) {
        SHOAL_RETURN_IF_ERROR(
            condition_->Apply(batch_->columns(), build_->columns, &block_probe_, &block_build_));
        kept = static_cast<int64_t>(block_probe_.size());
      }
      for (int64_t k = 0; k < kept; ++k)
        matched_[static_cast<size_t>(block_probe_[static_cast<size_t>(k)])] = 1;
      if (!build_->matched.empty()) {
        for (int64_t k = 0; k < kept; ++k) {
          std::atomic_ref<uint8_t>(
              build_->matched[static_cast<size_t>(block_build_[static_cast<size_t>(k)])])
              .store(1, std::memory_order_relaxed);
        }
      }
      if (!one_match) {
        pair_probe_.insert(pair_probe_.end(), block_probe_.begin(), block_probe_.begin() + kept);
        pair_build_.insert(pair_build_.end(), block_build_.begin(), block_build_.begin() + kept);
        if (static_cast<int64_t>(pair_probe_.size()) >= batch_size())
          return EmitPairs(/*all=*/false);
      }
    }
    // The batch is done.
    selection_.clear();
    switch (type_) {
      case JoinType::kLeft:
      case JoinType::kFull:
        for (int64_t i = 0; i < rows; ++i) {
          if (!matched_[static_cast<size_t>(i)]) {
            pair_probe_.push_back(static_cast<int32_t>(i));
            pair_build_.push_back(-1);
          }
        }
        SHOAL_RETURN_IF_ERROR(EmitPairs(/*all=*/true));
        break;
      case JoinType::kSemi:
      case JoinType::kAnti: {
        const uint8_t want = type_ == JoinType::kSemi ? 1 : 0;
        for (int64_t i = 0; i < rows; ++i) {
          if (matched_[static_cast<size_t>(i)] == want)
            selection_.push_back(static_cast<int32_t>(i));
        }
        if (static_cast<int64_t>(selection_.size()) == rows) {
          SHOAL_RETURN_IF_ERROR(
              coalescer_.Push(RecordBatch::Make(schema(), rows, batch_->columns())));
        } else if (!selection_.empty()) {
          SHOAL_ASSIGN_OR_RETURN(RecordBatchPtr taken,
                                 TakeBatch(*batch_, selection_.data(),
                                           static_cast<int64_t>(selection_.size()), pool()));
          SHOAL_RETURN_IF_ERROR(
              coalescer_.Push(RecordBatch::Make(schema(), taken->num_rows(), taken->columns())));
        }
        break;
      }
      case JoinType::kMark: SHOAL_RETURN_IF_ERROR(EmitMarked()); break;
      default: SHOAL_RETURN_IF_ERROR(EmitPairs(/*all=*/true)); break;
    }
    batch_.reset();
    return Status::OK();
  }

  // The batch's rows plus the mark: whether any right row satisfied the condition (never NULL;
  // the optimizer asks a nested loop mark join only for two-valued marks).
  Status EmitMarked() {
    const int64_t n = batch_->num_rows();
    SHOAL_ASSIGN_OR_RETURN(BufferPtr values, bits::Allocate(n, pool(), /*zeroed=*/true));
    uint8_t* vb = values->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (matched_[static_cast<size_t>(i)] != 0)
        bitmap::SetBit(vb, i);
    }
    std::vector<ArrayPtr> columns = batch_->columns();
    columns.push_back(Array::Make(DataType::Boolean(), n, {BufferPtr(), std::move(values)}, 0));
    return coalescer_.Push(RecordBatch::Make(schema(), n, std::move(columns)));
  }

  Status EmitPairs(bool all) {
    const int64_t total = static_cast<int64_t>(pair_probe_.size());
    const int64_t size = batch_size();
    int64_t done = 0;
    while (total - done >= size || (all && done < total)) {
      const int64_t count = std::min(size, total - done);
      std::vector<ArrayPtr> columns;
      SHOAL_RETURN_IF_ERROR(GatherColumns(batch_->columns(), pair_probe_.data() + done, count,
                                          false, nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(GatherColumns(build_->columns, pair_build_.data() + done, count,
                                          KeepsUnmatchedLeft(type_), nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(
          coalescer_.Push(RecordBatch::Make(schema(), count, std::move(columns))));
      done += count;
    }
    pair_probe_.erase(pair_probe_.begin(), pair_probe_.begin() + done);
    pair_build_.erase(pair_build_.begin(), pair_build_.begin() + done);
    return Status::OK();
  }

  // RIGHT and FULL joins, after every probe partition ended: the build rows no probe row matched,
  // with NULL left columns, a batch at a time.
  Status UnmatchedRightStep() {
    const int64_t total = build_->num_rows;
    const int64_t size = batch_size();
    while (unmatched_next_ < total && !coalescer_.has_ready()) {
      const int64_t end = std::min(total, unmatched_next_ + size);
      unmatched_rows_.clear();
      for (int64_t j = unmatched_next_; j < end; ++j) {
        if (build_->matched[static_cast<size_t>(j)] == 0)
          unmatched_rows_.push_back(static_cast<int32_t>(j));
      }
      unmatched_next_ = end;
      if (unmatched_rows_.empty())
        continue;
      const int64_t count = static_cast<int64_t>(unmatched_rows_.size());
      std::vector<ArrayPtr> columns;
      SHOAL_RETURN_IF_ERROR(AppendNullColumns(*schema(), 0, num_left_, count, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(GatherColumns(build_->columns, unmatched_rows_.data(), count, false,
                                          nullptr, pool(), &columns));
      SHOAL_RETURN_IF_ERROR(
          coalescer_.Push(RecordBatch::Make(schema(), count, std::move(columns))));
    }
    if (unmatched_next_ >= total) {
      emitting_unmatched_ = false;
      return coalescer_.Flush();
    }
    return Status::OK();
  }

  const NestedLoopJoinExec* node_;
  const JoinType type_;
  StreamPtr probe_;
  std::shared_ptr<SharedBuild<NestedLoopBuild>> shared_;
  std::shared_ptr<NestedLoopBuild> build_;
  BatchCoalescer coalescer_;
  std::unique_ptr<JoinPairFilter> condition_;
  int num_left_ = 0;
  bool done_ = false;
  bool emitting_unmatched_ = false;
  int64_t unmatched_next_ = 0;
  std::vector<int32_t> unmatched_rows_;

  RecordBatchPtr batch_;
  int64_t next_pair_ = 0;  // row-major position in (left row, right row) pairs
  std::vector<uint8_t> matched_;
  std::vector<int32_t> block_probe_, block_build_;
  std::vector<int32_t> pair_probe_, pair_build_;
  SelectionVector selection_;
};

}  // namespace

NestedLoopJoinExec::NestedLoopJoinExec(columnar::SchemaPtr schema,
                                       columnar::SchemaPtr joined_schema, ExecPlanPtr left,
                                       ExecPlanPtr right, sql::JoinType join_type,
                                       sql::ExprPtr condition)
    : ExecutionPlan(kKind, std::move(schema)),
      joined_schema_(std::move(joined_schema)),
      left_(std::move(left)),
      right_(std::move(right)),
      join_type_(join_type),
      condition_(std::move(condition)),
      builds_(std::make_unique<SharedBuildRegistry<NestedLoopBuild>>()) {}

Partitioning NestedLoopJoinExec::output_partitioning() const {
  Partitioning left = left_->output_partitioning();
  if (KeepsUnmatchedRight(join_type_) && left.num_partitions > 1)
    return Partitioning::Unknown(left.num_partitions);
  return left;
}

DistributionTraits NestedLoopJoinExec::distribution() const {
  DistributionTraits traits;
  traits.partition_wise = join_type_ != sql::JoinType::kRight && join_type_ != sql::JoinType::kFull;
  traits.boundary = StageBoundary::kBroadcastBuild;
  return traits;
}

NestedLoopJoinExec::~NestedLoopJoinExec() = default;

Result<std::shared_ptr<NestedLoopJoinExec>> NestedLoopJoinExec::Make(ExecPlanPtr left,
                                                                     ExecPlanPtr right,
                                                                     sql::JoinType join_type,
                                                                     sql::ExprPtr condition) {
  if (!left || !right)
    return Status::Internal("NestedLoopJoin needs two inputs");
  if (join_type == JoinType::kNullAwareAnti || join_type == JoinType::kRightSemi ||
      join_type == JoinType::kRightAnti) {
    return Status::NotImplemented("nested loop {} join", sql::JoinTypeName(join_type));
  }
  std::vector<columnar::Field> joined = left->schema()->fields();
  for (const auto& f : right->schema()->fields())
    joined.push_back(f);
  auto joined_schema = std::make_shared<const columnar::Schema>(joined);
  if (condition) {
    SHOAL_ASSIGN_OR_RETURN(auto check,
                           ExprEvaluator::Make(condition, *joined_schema, DefaultMemoryPool()));
    if (check->type().id() != TypeId::kBoolean && check->type().id() != TypeId::kNull) {
      return Status::TypeError("argument of JOIN/ON must be type boolean, not type {}",
                               check->type().ToString());
    }
  }
  std::vector<columnar::Field> fields = left->schema()->fields();
  if (KeepsUnmatchedRight(join_type)) {
    for (columnar::Field& f : fields)
      f.nullable = true;
  }
  if (join_type == JoinType::kInner || KeepsUnmatchedLeft(join_type) ||
      KeepsUnmatchedRight(join_type)) {
    for (columnar::Field f : right->schema()->fields()) {
      if (KeepsUnmatchedLeft(join_type))
        f.nullable = true;
      fields.push_back(std::move(f));
    }
  }
  if (join_type == JoinType::kMark)
    fields.emplace_back("mark", DataType::Boolean(), false);
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<NestedLoopJoinExec>(
      new NestedLoopJoinExec(std::move(schema), std::move(joined_schema), std::move(left),
                             std::move(right), join_type, std::move(condition)));
}

Result<ExecPlanPtr> NestedLoopJoinExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 2)
    return Status::Internal("NestedLoopJoin takes two children");
  SHOAL_ASSIGN_OR_RETURN(
      auto node, Make(std::move(children[0]), std::move(children[1]), join_type_, condition_));
  return ExecPlanPtr(std::move(node));
}

Result<StreamPtr> NestedLoopJoinExec::Execute(int partition,
                                              const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= left_->num_partitions()) {
    return Status::Internal("NestedLoopJoin partition {} of {}", partition,
                            left_->num_partitions());
  }
  auto shared = builds_->Acquire(context, left_->num_partitions(), "NestedLoopJoin[build]");
  SHOAL_ASSIGN_OR_RETURN(StreamPtr probe, left_->Execute(partition, context));
  auto stream = std::make_unique<NestedLoopJoinStream>(this, partition, context, std::move(probe),
                                                       std::move(shared));
  SHOAL_RETURN_IF_ERROR(stream->Init());
  return StreamPtr(std::move(stream));
}

std::string NestedLoopJoinExec::Describe(bool) const {
  std::string text = fmt::format("type={}", sql::JoinTypeName(join_type_));
  if (condition_)
    text += ", on=" + ExprText(*condition_);
  return text;
}

}  // namespace shoal::exec

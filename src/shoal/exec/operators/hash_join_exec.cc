// HashJoinExec: planning-time checks, output schema and traits of the hash join operator; the
// per-partition execution (including the grace-join spill path) is in hash_join_stream.cc.
#include "shoal/exec/operators/hash_join_exec.h"

#include "shoal/exec/expr/evaluator.h"
#include "shoal/exec/expr/expr_text.h"
#include "shoal/exec/operators/hash_join_exec_internal.h"

namespace shoal::exec {
namespace {

using sql::JoinType;

const char* ModeName(HashJoinExec::Mode mode) {
  return mode == HashJoinExec::Mode::kCollectBuild ? "collect_build" : "partitioned";
}

}  // namespace

HashJoinExec::HashJoinExec(columnar::SchemaPtr schema, columnar::SchemaPtr joined_schema,
                           ExecPlanPtr left, ExecPlanPtr right, std::vector<sql::ExprPtr> left_keys,
                           std::vector<sql::ExprPtr> right_keys, sql::JoinType join_type,
                           sql::ExprPtr residual, Mode mode)
    : ExecutionPlan(kKind, std::move(schema)),
      joined_schema_(std::move(joined_schema)),
      left_(std::move(left)),
      right_(std::move(right)),
      left_keys_(std::move(left_keys)),
      right_keys_(std::move(right_keys)),
      join_type_(join_type),
      residual_(std::move(residual)),
      mode_(mode),
      builds_(std::make_unique<SharedBuildRegistry<JoinBuildSide>>()) {}

HashJoinExec::~HashJoinExec() = default;

Result<std::shared_ptr<HashJoinExec>> HashJoinExec::Make(ExecPlanPtr left, ExecPlanPtr right,
                                                         std::vector<sql::ExprPtr> left_keys,
                                                         std::vector<sql::ExprPtr> right_keys,
                                                         sql::JoinType join_type,
                                                         sql::ExprPtr residual, Mode mode) {
  if (!left || !right)
    return Status::Internal("HashJoin needs two inputs");
  if (left_keys.empty() || left_keys.size() != right_keys.size()) {
    return Status::Internal("HashJoin with {} left and {} right keys", left_keys.size(),
                            right_keys.size());
  }
  if (mode == Mode::kPartitioned && left->num_partitions() != right->num_partitions()) {
    return Status::Internal("partitioned HashJoin of {} probe and {} build partitions",
                            left->num_partitions(), right->num_partitions());
  }
  // Whether the build side is empty or holds a NULL key is a property of the whole build side,
  // which no single build partition knows.
  if (mode == Mode::kPartitioned &&
      (join_type == JoinType::kNullAwareAnti || join_type == JoinType::kMark)) {
    return Status::NotImplemented("partitioned {} join (plan it with the collect-build mode)",
                                  sql::JoinTypeName(join_type));
  }
  // Compiling here surfaces plan errors at planning time, not in the first batch.
  const auto& pool = DefaultMemoryPool();
  SHOAL_ASSIGN_OR_RETURN(auto lk, MakeEvaluators(left_keys, *left->schema(), pool));
  SHOAL_ASSIGN_OR_RETURN(auto rk, MakeEvaluators(right_keys, *right->schema(), pool));
  for (size_t i = 0; i < lk.size(); ++i) {
    DataType lt = lk[i]->type().decoded_type();
    DataType rt = rk[i]->type().decoded_type();
    if (lt != rt) {
      return Status::TypeError("join key {} compares {} with {}", i + 1, lt.ToString(),
                               rt.ToString());
    }
  }
  std::vector<columnar::Field> joined = left->schema()->fields();
  for (const auto& f : right->schema()->fields())
    joined.push_back(f);
  auto joined_schema = std::make_shared<const columnar::Schema>(joined);
  if (residual) {
    SHOAL_ASSIGN_OR_RETURN(auto check, ExprEvaluator::Make(residual, *joined_schema, pool));
    if (check->type().id() != TypeId::kBoolean && check->type().id() != TypeId::kNull) {
      return Status::TypeError("argument of JOIN/ON must be type boolean, not type {}",
                               check->type().ToString());
    }
  }
  std::vector<columnar::Field> fields =
      EmitsBuildRows(join_type) ? right->schema()->fields() : left->schema()->fields();
  switch (join_type) {
    case JoinType::kInner:
    case JoinType::kLeft:
    case JoinType::kRight:
    case JoinType::kFull: {
      if (KeepsUnmatchedBuild(join_type)) {
        for (auto& f : fields)
          f.nullable = true;
      }
      for (columnar::Field f : right->schema()->fields()) {
        if (KeepsUnmatchedProbe(join_type))
          f.nullable = true;
        fields.push_back(std::move(f));
      }
      break;
    }
    case JoinType::kSemi:
    case JoinType::kAnti:
    case JoinType::kNullAwareAnti:
    case JoinType::kRightSemi:
    case JoinType::kRightAnti: break;
    case JoinType::kMark: fields.emplace_back("mark", DataType::Boolean(), true); break;
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return std::shared_ptr<HashJoinExec>(new HashJoinExec(
      std::move(schema), std::move(joined_schema), std::move(left), std::move(right),
      std::move(left_keys), std::move(right_keys), join_type, std::move(residual), mode));
}

Result<ExecPlanPtr> HashJoinExec::WithNewChildren(std::vector<ExecPlanPtr> children) const {
  if (children.size() != 2)
    return Status::Internal("HashJoin takes two children");
  SHOAL_ASSIGN_OR_RETURN(auto node, Make(std::move(children[0]), std::move(children[1]), left_keys_,
                                         right_keys_, join_type_, residual_, mode_));
  node->runtime_filters_ = runtime_filters_;
  return ExecPlanPtr(std::move(node));
}

Result<std::shared_ptr<HashJoinExec>> HashJoinExec::WithRuntimeFilters(
    std::vector<JoinRuntimeFilter> filters) const {
  for (const auto& f : filters) {
    if (f.key < 0 || static_cast<size_t>(f.key) >= left_keys_.size())
      return Status::Internal("runtime filter on key {} of {}", f.key + 1, left_keys_.size());
  }
  SHOAL_ASSIGN_OR_RETURN(
      auto node, Make(left_, right_, left_keys_, right_keys_, join_type_, residual_, mode_));
  node->runtime_filters_ = std::move(filters);
  return node;
}

DistributionTraits HashJoinExec::distribution() const {
  DistributionTraits traits;
  // Build rows chosen by the whole probe side (unmatched ones, or a right semi join's matched
  // ones) come out once: a broadcast build side would emit them once per task.
  traits.partition_wise = mode_ == Mode::kPartitioned || !TracksBuildMatches(join_type_);
  if (mode_ == Mode::kCollectBuild)
    traits.boundary = StageBoundary::kBroadcastBuild;
  return traits;
}

Partitioning HashJoinExec::output_partitioning() const {
  Partitioning left = left_->output_partitioning();
  // Unmatched build rows carry NULL left keys and come from one partition: no layout survives.
  // Right semi and anti joins emit build rows: in the partitioned mode partition i holds build
  // partition i, laid out by the right keys; collected, they come from one partition.
  if (EmitsBuildRows(join_type_)) {
    if (mode_ == Mode::kPartitioned)
      return right_->output_partitioning();
    return Partitioning::Unknown(left.num_partitions);
  }
  if (KeepsUnmatchedBuild(join_type_))
    return Partitioning::Unknown(left.num_partitions);
  return left;
}

Result<StreamPtr> HashJoinExec::Execute(int partition,
                                        const std::shared_ptr<TaskContext>& context) const {
  if (partition < 0 || partition >= left_->num_partitions())
    return Status::Internal("HashJoin partition {} of {}", partition, left_->num_partitions());
  std::shared_ptr<SharedBuild<JoinBuildSide>> shared;
  if (mode_ == Mode::kCollectBuild)
    shared = builds_->Acquire(context, left_->num_partitions(), "HashJoin[build]");
  // With runtime filters the probe input opens after the build (the stream does it), so that no
  // producer below (a repartition starts its threads when opened) reads before they exist.
  StreamPtr probe;
  if (runtime_filters_.empty()) {
    SHOAL_ASSIGN_OR_RETURN(probe, left_->Execute(partition, context));
  }
  return MakeHashJoinStream(this, partition, context, std::move(probe), std::move(shared));
}

std::string HashJoinExec::Describe(bool) const {
  std::string on;
  for (size_t i = 0; i < left_keys_.size(); ++i) {
    if (i > 0)
      on += ", ";
    on += ExprText(*left_keys_[i]) + " = " + ExprText(*right_keys_[i]);
  }
  std::string text =
      fmt::format("type={}, mode={}, on=[{}]", sql::JoinTypeName(join_type_), ModeName(mode_), on);
  if (residual_)
    text += ", filter=" + ExprText(*residual_);
  if (!runtime_filters_.empty()) {
    text += ", runtime_filters=[";
    for (size_t i = 0; i < runtime_filters_.size(); ++i) {
      const auto& f = runtime_filters_[i];
      text += fmt::format("{}rf{}: {} -> {}", i > 0 ? ", " : "", f.id,
                          ExprText(*right_keys_[static_cast<size_t>(f.key)]), f.target);
    }
    text += "]";
  }
  return text;
}

}  // namespace shoal::exec